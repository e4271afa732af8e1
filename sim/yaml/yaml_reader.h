#pragma once
// A cursor over a parsed YAML tree that knows where it is: the file the node came from, the
// dotted key path that leads to it, and which paths were set by --set overrides. Every
// typed read validates and, on failure, throws a one-line UserError
//   <file>:<line>:<col>: <key.path>: <what>
// so the config parsers never format locations themselves.
//
// Key paths use dots for sequence indices too (network.layers.2.units): that is the same
// syntax --set takes, so a path in an error can be pasted straight into an override.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace trainsim {

/// The inclusive range an integer key accepts. Every integer key has one (the limits and
/// why they are what they are: sim/yaml/key_ranges.h), so no value can make the products
/// the model forms of them leave 64 bits.
struct IntRange {
  std::int64_t min;
  std::int64_t max;
};

/// The inclusive range a number key accepts, for the keys whose values become a time or a
/// counter (a clock, a bandwidth, a latency; sim/yaml/key_ranges.h says why each range is
/// what it is). Outside it the products the model forms of the value would leave what its
/// integers, or SystemC's clock, can hold, or divide by a subnormal number.
struct DoubleRange {
  double min;
  double max;
};

/// `v` for messages: an integral value up to 2^53 in full ("1048576"), else "%g" ("1e-08").
std::string format_number(double v);

/// What a cursor needs to turn a key path and a YAML mark into an error location.
struct ConfigOrigin {
  std::string file;                  ///< shown for nodes parsed from that file
  std::set<std::string> overridden;  ///< key paths assigned by --set
};

/// Error location for `path`: "--set <key>" if an override set it (or created it),
/// otherwise "<file>:<line>:<col>" from `mark` (1-based), or just the file.
std::string config_location(const ConfigOrigin& origin, const std::string& path,
                            const YAML::Mark& mark);

/// Throws UserError "<location>: <path>: <what>" (the path part is left out when empty).
[[noreturn]] void config_fail(const ConfigOrigin& origin, const std::string& path,
                              const YAML::Mark& mark, const std::string& what);

/// `text` shortened and made single-line, for quoting user values in messages.
std::string quote_for_message(const std::string& text);

class ConfigMap;

class ConfigNode {
 public:
  ConfigNode(YAML::Node node, std::string path, std::shared_ptr<const ConfigOrigin> origin,
             YAML::Mark key_mark = YAML::Mark::null_mark());

  const YAML::Node& yaml() const { return node_; }
  const std::string& path() const { return path_; }
  const std::shared_ptr<const ConfigOrigin>& origin() const { return origin_; }
  std::string child_path(const std::string& key) const;

  /// Where this node is: its own mark, or the mark of the key that led to it.
  YAML::Mark mark() const;
  /// The mark of the key that led here (null for sequence items and the root).
  const YAML::Mark& key_mark() const { return key_mark_; }
  [[noreturn]] void fail(const std::string& what) const;

  bool is_map() const { return node_.IsMap(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool is_sequence() const { return node_.IsSequence(); }
  /// "a mapping", "a sequence", "nothing (null)" or "'<text>'", for "expected X, got Y".
  std::string describe() const;

  ConfigMap as_map() const;
  std::vector<ConfigNode> as_sequence() const;
  std::string as_string() const;  ///< any scalar, taken as text
  std::string as_nonempty_string() const;
  bool as_bool() const;           ///< true or false only
  std::int64_t as_int64() const;  ///< rejects floats, bools, quoted numbers
  int as_int() const;
  std::uint64_t as_uint64() const;
  double as_double() const;  ///< finite, decimal or exponent notation

  // Range-checked reads. Messages read "must be in [1, 65536], got 100000" for integers
  // (also for values beyond 64 bits) and "must be > 0, got -3" for numbers.
  /// `range` must lie within int for as_int_in.
  std::int64_t as_int64_in(IntRange range) const;
  int as_int_in(IntRange range) const;
  double as_double_positive() const;      ///< > 0
  double as_double_non_negative() const;  ///< >= 0
  double as_double_unit() const;          ///< in [0, 1)
  double as_double_fraction() const;      ///< in (0, 1]
  /// In [range.min, range.max]: "must be in [0.001, 100], got 1e-08".
  double as_double_in(DoubleRange range) const;
  /// One of `choices`; the message lists them.
  std::string as_choice(const std::vector<std::string>& choices) const;

 private:
  const std::string& scalar_text(const char* expected) const;

  YAML::Node node_;
  std::string path_;
  std::shared_ptr<const ConfigOrigin> origin_;
  YAML::Mark key_mark_;
};

/// A mapping's entries in document order, with duplicate keys rejected.
class ConfigMap {
 public:
  explicit ConfigMap(const ConfigNode& node);

  const ConfigNode& node() const { return node_; }
  bool has(const std::string& key) const;
  std::optional<ConfigNode> get(const std::string& key) const;
  /// Throws "<path>.<key>: missing required key" at the mapping if absent.
  ConfigNode require(const std::string& key) const;
  /// Rejects the first key (in document order) not in `allowed`, listing the allowed ones.
  void allow_only(const std::vector<std::string>& allowed) const;

 private:
  struct Entry {
    std::string key;
    YAML::Mark key_mark;
    YAML::Node value;
  };
  ConfigNode node_;
  std::vector<Entry> entries_;
};

}  // namespace trainsim
