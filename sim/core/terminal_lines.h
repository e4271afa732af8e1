#pragma once
// Lines for the terminal that fit 80 columns, the narrowest terminal people keep: a header
// of "a | b | c" parts breaks between parts, and a part longer than a line breaks between
// words, each continuation indented by two spaces. Files keep every figure in full; the
// terminal's lines stay readable without wrapping.
#include <string>
#include <vector>

namespace trainsim {

inline constexpr std::size_t kTerminalColumns = 80;

/// `parts` joined by " | " into lines of at most `width` columns, each ending in a newline.
std::string wrap_parts(const std::vector<std::string>& parts, std::size_t width = kTerminalColumns);

}  // namespace trainsim
