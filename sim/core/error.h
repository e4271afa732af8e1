#pragma once
// Errors that are the user's to fix (bad config, missing or corrupt data) are UserError:
// the CLI prints them as one line "trainsim: error: <what>" and exits with code 2.
// Anything else escaping main() is a bug in trainsim and exits with code 1.
#include <stdexcept>
#include <string>

namespace trainsim {

class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& what) : std::runtime_error(what) {}
};

inline constexpr int kExitUserError = 2;

}  // namespace trainsim
