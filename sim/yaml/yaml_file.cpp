#include "sim/yaml/yaml_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "sim/core/error.h"
#include "sim/io/output_target.h"

namespace trainsim {

std::string read_yaml_file(const std::string& path, const std::string& kind) {
  // Read the text ourselves: YAML::LoadFile's BadFile says neither which file nor why.
  if (std::filesystem::is_directory(path)) {
    throw UserError(path + ": cannot open " + kind + " file (it is a directory)");
  }
  note_input_path(path);  // no --out may replace a directory holding a config it reads
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UserError(path + ": cannot open " + kind + " file (" + std::strerror(errno) + ")");
  }
  // Bounded, so that a path to a device (`network: /dev/zero`) is an error, not a read
  // that never ends; config files are kilobytes.
  constexpr std::size_t kMaxBytes = std::size_t{16} << 20;
  std::string text;
  char chunk[16384];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxBytes) {
      throw UserError(path + ": " + kind + " file is larger than 16 MiB, not a configuration");
    }
  }
  if (in.bad()) {
    throw UserError(path + ": cannot read " + kind + " file (" + std::strerror(errno) + ")");
  }
  return text;
}

YAML::Node load_yaml_file(const std::string& path, const std::string& kind) {
  return parse_yaml_text(read_yaml_file(path, kind), path);
}

YAML::Node parse_yaml_text(const std::string& text, const std::string& where) {
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    std::string loc = where;
    if (!e.mark.is_null()) {
      loc += ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
    }
    throw UserError(loc + ": malformed YAML: " + e.msg);
  }
}

}  // namespace trainsim
