#include "sim/yaml/yaml_reader.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "sim/core/error.h"

namespace trainsim {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool mark_valid(const YAML::Mark& m) {
  return !m.is_null() && m.line >= 0 && m.column >= 0;
}

[[noreturn]] void throw_at(const std::string& location, const std::string& path,
                           const std::string& what) {
  std::string msg = location + ": ";
  if (!path.empty()) msg += path + ": ";
  msg += what;
  // The CLI prints errors as one line; user values are already quoted single-line, but a
  // YAML parser message could in principle carry a newline.
  for (char& c : msg) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  throw UserError(msg);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

// A scalar that YAML would have read as a string no matter what it looks like.
bool is_quoted(const YAML::Node& n) {
  return n.Tag() == "!";
}

// Plain decimal integers only: floats ("1.5"), booleans and quoted numbers are rejected,
// and so are YAML 1.1's 0x/0o/1_000 forms, which are rare in configs and easy to misread.
// nullopt: a well-formed integer that T cannot hold (the caller words the message).
template <typename T>
std::optional<T> parse_decimal(const ConfigNode& node, const std::string& s) {
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (first != last && *first == '+') ++first;  // from_chars does not take a '+'
  const bool negative = first != last && *first == '-';
  bool digits_only = last - first > (negative ? 1 : 0);
  for (const char* p = negative ? first + 1 : first; p != last; ++p) {
    if (*p < '0' || *p > '9') digits_only = false;
  }
  if (is_quoted(node.yaml()) || !digits_only) {
    node.fail("expected an integer, got " + node.describe());
  }
  if (negative && !std::numeric_limits<T>::is_signed) node.fail("must be >= 0, got " + s);
  T v = 0;
  auto [end, ec] = std::from_chars(first, last, v);
  if (ec == std::errc::result_out_of_range) return std::nullopt;
  if (ec != std::errc() || end != last) node.fail("expected an integer, got " + node.describe());
  return v;
}

template <typename T>
T parse_decimal_or_fail(const ConfigNode& node, const std::string& s) {
  std::optional<T> v = parse_decimal<T>(node, s);
  if (!v) node.fail("integer out of range: " + s);
  return *v;
}

}  // namespace

std::string format_number(double v) {
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) <= 9007199254740992.0)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string config_location(const ConfigOrigin& origin, const std::string& path,
                            const YAML::Mark& mark) {
  // A value set by --set has marks into the override text, not into any file, so the
  // override itself is the only useful location.
  for (const auto& o : origin.overridden) {
    if (path == o || starts_with(path, o + ".")) return "--set " + o;
  }
  if (mark_valid(mark)) {
    return origin.file + ":" + std::to_string(mark.line + 1) + ":" +
           std::to_string(mark.column + 1);
  }
  // No mark: the node is an intermediate mapping that an override created.
  for (const auto& o : origin.overridden) {
    if (!path.empty() && starts_with(o, path + ".")) return "--set " + o;
  }
  return origin.file;
}

void config_fail(const ConfigOrigin& origin, const std::string& path, const YAML::Mark& mark,
                 const std::string& what) {
  throw_at(config_location(origin, path, mark), path, what);
}

std::string quote_for_message(const std::string& text) {
  constexpr std::size_t kMax = 40;
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r' || c == '\t') {
      out += ' ';
    } else {
      out += c;
    }
  }
  if (out.size() > kMax) out = out.substr(0, kMax) + "...";
  return "'" + out + "'";
}

// ---------------------------------------------------------------------------------------
// ConfigNode

ConfigNode::ConfigNode(YAML::Node node, std::string path,
                       std::shared_ptr<const ConfigOrigin> origin, YAML::Mark key_mark)
    : node_(std::move(node)),
      path_(std::move(path)),
      origin_(std::move(origin)),
      key_mark_(key_mark) {}

std::string ConfigNode::child_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

YAML::Mark ConfigNode::mark() const {
  // Implicit nulls (`key:` with nothing after it) carry no useful mark of their own.
  YAML::Mark own = node_.Mark();
  if (mark_valid(own) && !(node_.IsNull() && mark_valid(key_mark_))) return own;
  return key_mark_;
}

void ConfigNode::fail(const std::string& what) const {
  config_fail(*origin_, path_, mark(), what);
}

std::string ConfigNode::describe() const {
  if (!node_.IsDefined() || node_.IsNull()) return "nothing (null)";
  if (node_.IsMap()) return "a mapping";
  if (node_.IsSequence()) return "a sequence";
  if (is_quoted(node_)) return "the string " + quote_for_message(node_.Scalar());
  return quote_for_message(node_.Scalar());
}

const std::string& ConfigNode::scalar_text(const char* expected) const {
  if (!node_.IsScalar()) fail(std::string("expected ") + expected + ", got " + describe());
  return node_.Scalar();
}

ConfigMap ConfigNode::as_map() const {
  return ConfigMap(*this);
}

std::vector<ConfigNode> ConfigNode::as_sequence() const {
  if (!node_.IsSequence()) fail("expected a sequence, got " + describe());
  std::vector<ConfigNode> items;
  for (std::size_t i = 0; i < node_.size(); ++i) {
    items.emplace_back(node_[i], child_path(std::to_string(i)), origin_);
  }
  return items;
}

std::string ConfigNode::as_string() const {
  return scalar_text("a string");
}

std::string ConfigNode::as_nonempty_string() const {
  std::string s = as_string();
  if (s.empty()) fail("must not be empty");
  return s;
}

bool ConfigNode::as_bool() const {
  const std::string& s = scalar_text("true or false");
  if (!is_quoted(node_)) {
    if (s == "true") return true;
    if (s == "false") return false;
  }
  fail("expected true or false, got " + describe());
}

std::int64_t ConfigNode::as_int64() const {
  return parse_decimal_or_fail<std::int64_t>(*this, scalar_text("an integer"));
}

int ConfigNode::as_int() const {
  std::int64_t v = as_int64();
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    fail("integer out of range: " + node_.Scalar());
  }
  return static_cast<int>(v);
}

std::uint64_t ConfigNode::as_uint64() const {
  return parse_decimal_or_fail<std::uint64_t>(*this, scalar_text("an integer"));
}

double ConfigNode::as_double() const {
  const std::string& s = scalar_text("a number");
  // Plain decimal/exponent notation only: strtod-style "inf", "nan" and hex floats are
  // not YAML numbers and would only hide typos.
  bool ok = !s.empty() && !is_quoted(node_);
  bool any_digit = false;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      any_digit = true;
    } else if (c != '+' && c != '-' && c != '.' && c != 'e' && c != 'E') {
      ok = false;
    }
  }
  if (!ok || !any_digit) fail("expected a number, got " + describe());
  std::size_t start = s[0] == '+' ? 1 : 0;
  double v = 0;
  auto [end, ec] = std::from_chars(s.data() + start, s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && !std::isfinite(v))) {
    fail("number out of range: " + s);
  }
  if (ec != std::errc() || end != s.data() + s.size()) {
    fail("expected a number, got " + describe());
  }
  return v;
}

std::int64_t ConfigNode::as_int64_in(IntRange range) const {
  const std::string& s = scalar_text("an integer");
  std::optional<std::int64_t> v = parse_decimal<std::int64_t>(*this, s);
  if (!v || *v < range.min || *v > range.max) {
    fail("must be in [" + std::to_string(range.min) + ", " + std::to_string(range.max) + "], got " +
         s);
  }
  return *v;
}

int ConfigNode::as_int_in(IntRange range) const {
  if (range.min < std::numeric_limits<int>::min() || range.max > std::numeric_limits<int>::max())
    throw std::logic_error("as_int_in: range [" + std::to_string(range.min) + ", " +
                           std::to_string(range.max) + "] does not fit int");
  return static_cast<int>(as_int64_in(range));
}

double ConfigNode::as_double_positive() const {
  double v = as_double();
  if (!(v > 0)) fail("must be > 0, got " + node_.Scalar());
  return v;
}

double ConfigNode::as_double_non_negative() const {
  double v = as_double();
  if (!(v >= 0)) fail("must be >= 0, got " + node_.Scalar());
  return v;
}

double ConfigNode::as_double_unit() const {
  double v = as_double();
  if (!(v >= 0 && v < 1)) fail("must be in [0, 1), got " + node_.Scalar());
  return v;
}

double ConfigNode::as_double_fraction() const {
  double v = as_double();
  if (!(v > 0 && v <= 1)) fail("must be in (0, 1], got " + node_.Scalar());
  return v;
}

double ConfigNode::as_double_in(DoubleRange range) const {
  double v = as_double();
  if (!(v >= range.min && v <= range.max)) {
    // A range open above (key_range::kNoMax) reads "must be >= 0.001".
    if (range.max == std::numeric_limits<double>::max())
      fail("must be >= " + format_number(range.min) + ", got " + node_.Scalar());
    fail("must be in [" + format_number(range.min) + ", " + format_number(range.max) + "], got " +
         node_.Scalar());
  }
  return v;
}

std::string ConfigNode::as_choice(const std::vector<std::string>& choices) const {
  std::string s = as_string();
  for (const auto& c : choices) {
    if (s == c) return s;
  }
  fail("must be one of " + join(choices) + ", got " + quote_for_message(s));
}

// ---------------------------------------------------------------------------------------
// ConfigMap

ConfigMap::ConfigMap(const ConfigNode& node) : node_(node) {
  const YAML::Node& n = node.yaml();
  if (!n.IsMap()) node.fail("expected a mapping, got " + node.describe());
  for (const auto& kv : n) {  // by range-for: an iterator's operator-> yields a temporary
    const YAML::Node& k = kv.first;
    if (!k.IsScalar()) {
      config_fail(*node.origin(), node.path(), k.Mark(), "keys must be plain names");
    }
    const std::string& key = k.Scalar();
    // yaml-cpp keeps both entries of a duplicated key and lookups see only the first;
    // silently ignoring the second would be a trap.
    for (const auto& e : entries_) {
      if (e.key == key) {
        config_fail(*node.origin(), node.child_path(key), k.Mark(), "duplicate key '" + key + "'");
      }
    }
    entries_.push_back(Entry{key, k.Mark(), kv.second});
  }
}

bool ConfigMap::has(const std::string& key) const {
  for (const auto& e : entries_) {
    if (e.key == key) return true;
  }
  return false;
}

std::optional<ConfigNode> ConfigMap::get(const std::string& key) const {
  for (const auto& e : entries_) {
    if (e.key == key) return ConfigNode(e.value, node_.child_path(key), node_.origin(), e.key_mark);
  }
  return std::nullopt;
}

ConfigNode ConfigMap::require(const std::string& key) const {
  if (auto v = get(key)) return *v;
  // Located at the mapping (nothing to point at for an absent key), but named by the
  // missing key's path so the message says exactly what to add.
  YAML::Mark at = mark_valid(node_.key_mark()) ? node_.key_mark() : node_.mark();
  throw_at(config_location(*node_.origin(), node_.path(), at), node_.child_path(key),
           "missing required key");
}

void ConfigMap::allow_only(const std::vector<std::string>& allowed) const {
  for (const auto& e : entries_) {
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == e.key;
    if (!ok) {
      config_fail(*node_.origin(), node_.child_path(e.key), e.key_mark,
                  "unknown key '" + e.key + "' (allowed: " + join(allowed) + ")");
    }
  }
}

}  // namespace trainsim
