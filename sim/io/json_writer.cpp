#include "sim/io/json_writer.h"

#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace trainsim {

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (has_items_.empty()) return;
  if (has_items_.back()) out_ += ',';
  has_items_.back() = true;
}

JsonWriter& JsonWriter::open(char bracket) {
  separate();
  out_ += bracket;
  has_items_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  if (has_items_.empty() || after_key_)
    throw std::logic_error(std::string("JsonWriter: nothing open to end with ") + bracket);
  has_items_.pop_back();
  out_ += bracket;
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  quoted(k);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  separate();
  quoted(s);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  separate();
  if (!std::isfinite(v)) {
    out_ += "null";  // as nlohmann writes a NaN or an infinity
    return *this;
  }
  // nlohmann's own shortest round-trip digits (its Grisu2 and its layout: "0.0", "1e+20"), so
  // that a number reads back and prints again as the same text.
  std::array<char, 64> buf{};
  char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
  out_.append(buf.data(), end);
  return *this;
}

template <class Int>
JsonWriter& JsonWriter::integer(Int v) {
  separate();
  std::array<char, 24> buf{};
  auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  out_.append(buf.data(), r.ptr);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t v) {
  return integer(v);
}

JsonWriter& JsonWriter::value(std::uint64_t v) {
  return integer(v);
}

JsonWriter& JsonWriter::value(bool v) {
  separate();
  out_ += v ? "true" : "false";
  return *this;
}

void JsonWriter::quoted(std::string_view s) {
  for (unsigned char c : s)
    if (c >= 0x80) {
      // Non-ASCII text: nlohmann checks it is UTF-8 (and throws if not) as it always did.
      out_ += nlohmann::json(std::string(s)).dump();
      return;
    }
  out_ += '"';
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\b':
        out_ += "\\b";
        break;
      case '\t':
        out_ += "\\t";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\f':
        out_ += "\\f";
        break;
      case '\r':
        out_ += "\\r";
        break;
      default:
        if (c <= 0x1f) {
          static const char kHex[] = "0123456789abcdef";
          out_ += "\\u00";
          out_ += kHex[c >> 4];
          out_ += kHex[c & 0xf];
        } else {
          out_ += ch;
        }
    }
  }
  out_ += '"';
}

std::string JsonWriter::take() {
  if (!has_items_.empty() || after_key_)
    throw std::logic_error("JsonWriter: an object or array is still open");
  return std::move(out_);
}

}  // namespace trainsim
