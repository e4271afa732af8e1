#include "sim/yaml/yaml_emit.h"

#include <charconv>
#include <stdexcept>

namespace trainsim {

std::string format_double(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) throw std::logic_error("format_double: buffer too small");
  return std::string(buf, end);
}

void emit_double(YAML::Emitter& out, double v) {
  out << format_double(v);
}

void emit_string(YAML::Emitter& out, const std::string& s) {
  bool reads_as_null = s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
  if (reads_as_null) out << YAML::DoubleQuoted;
  out << s;
}

}  // namespace trainsim
