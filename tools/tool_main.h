#pragma once
// What the small C++ tools in tools/ share: a range-checked integer option, and trainsim's
// error convention (one line on stderr; exit 2 for bad input, 1 for an internal error).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "sim/core/error.h"

namespace trainsim::tool {

/// The value of `flag` as an integer in [1, max]; UserError naming the flag otherwise.
inline int int_option(const std::string& flag, const char* text, int max) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > max)
    throw UserError(flag + " expects an integer in 1.." + std::to_string(max) + ", got '" + text +
                    "'");
  return static_cast<int>(v);
}

/// Runs body() and turns its exceptions into trainsim's exit codes, prefixed with `name`.
template <typename Body>
int run(const char* name, const Body& body) {
  try {
    return body();
  } catch (const UserError& e) {
    std::fprintf(stderr, "%s: error: %s\n", name, e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace trainsim::tool
