#pragma once
// Compact JSON written straight into a string, for the large records a run writes per point
// (timeline.json: a thousand slices). Building an nlohmann tree first allocated every key and
// value of every slice, then serialized the tree: 2.4 ms of a sweep point's ~25 ms.
//
// The output is byte for byte what nlohmann's dump() gives for the same tree (no spaces,
// numbers in its shortest round-trip form, strings escaped as it escapes them), so files keep
// their bytes and every reader of them is unchanged (tests/unit/test_json_writer.cpp parses
// and re-dumps to check).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainsim {

class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  /// The key of the next value in the current object.
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(double v);
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(std::uint64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(bool v);
  /// key(k).value(v)
  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  /// The text written so far; throws std::logic_error while an object or array is open.
  std::string take();

 private:
  void separate();  // the comma before a value or key that is not the first of its container
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  template <class Int>
  JsonWriter& integer(Int v);
  void quoted(std::string_view s);
  std::string out_;
  std::vector<bool> has_items_;  // per open container
  bool after_key_ = false;
};

}  // namespace trainsim
