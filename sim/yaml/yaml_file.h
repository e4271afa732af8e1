#pragma once
// Reading a YAML file into a tree, with missing files and syntax errors as UserErrors.
#include <yaml-cpp/yaml.h>

#include <string>

namespace trainsim {

/// The text of config file `path` (at most 16 MiB), with the errors of load_yaml_file.
std::string read_yaml_file(const std::string& path, const std::string& kind);

/// Parses the first document of `path`. `kind` ("experiment", "network") names the file
/// in the error when it cannot be read. An empty file gives a null node.
YAML::Node load_yaml_file(const std::string& path, const std::string& kind);

/// Parses YAML text; syntax errors are reported as "<where>:<line>:<col>: ...".
YAML::Node parse_yaml_text(const std::string& text, const std::string& where);

}  // namespace trainsim
