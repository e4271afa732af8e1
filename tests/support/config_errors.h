#pragma once
// Checking the one-line config errors "<file>:<line>:<col>: <key.path>: <what>".
#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "sim/core/error.h"

namespace trainsim::test {

/// "line:col" (1-based) of the first occurrence of `needle` in `text`.
inline std::string pos_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  int line = 1, col = 1;
  for (std::size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

/// The message of the UserError `f` throws (which must be one line).
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    std::string msg = e.what();
    CHECK(msg.find('\n') == std::string::npos);
    return msg;
  }
  FAIL("expected a UserError");
  return "";
}

/// Asserts that `msg` is "<file>:<where>: <key>: ..." and mentions `what`.
inline void check_error(const std::string& msg, const std::string& file, const std::string& where,
                        const std::string& key, const std::string& what) {
  INFO(msg);
  CHECK(msg.rfind(file + ":" + where + ": " + key + ": ", 0) == 0);
  CHECK(msg.find(what) != std::string::npos);
}

}  // namespace trainsim::test
