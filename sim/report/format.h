#pragma once
// printf-style formatting of one number for the CSV and text reports.
#include <cstdio>
#include <string>

namespace trainsim {

inline std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace trainsim
