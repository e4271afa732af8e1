#include "sim/yaml/yaml_emit.h"

#include <charconv>
#include <ostream>
#include <stdexcept>

namespace trainsim {

namespace {

// Whether yaml-cpp's plain-scalar test (emitterutils.cpp, IsValidPlainScalar, in block and
// flow context alike) certainly passes `s`: not a null word, no character its start or any
// position forbids (`: , ? [ ] { } #` and blanks, quotes, tags, anchors), ASCII, and short
// enough (over 1,024 characters it writes a long key).
bool surely_plain(std::string_view s) {
  if (s.empty() || s.size() > 1024 || s == "null" || s == "Null" || s == "NULL") return false;
  auto word = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-' || c == '+';
  };
  // A '-' may start a plain scalar only if a non-blank follows; '+' is left to yaml-cpp.
  if (s[0] == '+' || (s[0] == '-' && s.size() < 2)) return false;
  for (char c : s)
    if (!word(c)) return false;
  return true;
}

// Streams the text as it is: WriteIntegralType writes a scalar's stream output unchanged,
// with the emitter's layout around it, as yaml-cpp writes a plain string.
struct Verbatim {
  std::string_view text;
};
std::ostream& operator<<(std::ostream& os, const Verbatim& v) {
  return os.write(v.text.data(), static_cast<std::streamsize>(v.text.size()));
}

}  // namespace

YAML::Emitter& operator<<(YAML::Emitter& out, Plain p) {
  if (surely_plain(p.text)) return out.WriteIntegralType(Verbatim{p.text});
  return out << std::string(p.text);
}

std::string format_double(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) throw std::logic_error("format_double: buffer too small");
  return std::string(buf, end);
}

void emit_double(YAML::Emitter& out, double v) {
  out << Plain{format_double(v)};
}

void emit_string(YAML::Emitter& out, const std::string& s) {
  bool reads_as_null = s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
  if (reads_as_null) {
    out << YAML::DoubleQuoted << s;
    return;
  }
  out << Plain{s};
}

}  // namespace trainsim
