#pragma once
// Config files a process parses once per text. A sweep's worker reads the same network and
// energy table for every point, and yaml-cpp parses about 2,000 instructions a byte: reading
// a file and comparing its few KB with the text parsed last is far cheaper. The file is
// read every time, so an edited file is parsed again; what fails to parse is not kept, so
// its error comes again.
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "sim/yaml/yaml_file.h"

namespace trainsim {

template <class T>
class ParsedFiles {
 public:
  /// The value of `file` (read as a config file of `kind`): `parse(text, keep)` of its text
  /// now, or the value parsed earlier from the same text. `parse` may set `keep` false for a
  /// value that depends on more than the text (then it is parsed every time).
  template <class Parse>
  T get(const std::string& file, const std::string& kind, Parse&& parse) {
    std::string text = read_yaml_file(file, kind);
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto it = parsed_.find(file);
      if (it != parsed_.end() && it->second.first == text) return it->second.second;
    }
    bool keep = true;
    T value = parse(text, keep);
    if (!keep) return value;
    const std::lock_guard<std::mutex> lock(mutex_);
    if (parsed_.size() >= kKept) parsed_.clear();
    parsed_[file] = {std::move(text), value};
    return value;
  }

 private:
  static constexpr std::size_t kKept = 16;  // files; a process reads a handful of each kind
  std::mutex mutex_;
  std::map<std::string, std::pair<std::string, T>> parsed_;  // file: text, value
};

}  // namespace trainsim
