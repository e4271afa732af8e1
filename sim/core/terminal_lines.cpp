#include "sim/core/terminal_lines.h"

namespace trainsim {

namespace {

constexpr char kIndent[] = "  ";

// Appends `word` to the text being built, starting a new (indented) line when it would pass
// `width`; `sep` goes between it and what precedes it on the line.
void place(std::string& out, std::size_t& column, const std::string& sep, const std::string& word,
           std::size_t width) {
  if (column > 0 && column + sep.size() + word.size() > width) {
    out += "\n";
    out += kIndent;
    column = sizeof kIndent - 1;
  } else if (column > 0) {
    out += sep;
    column += sep.size();
  }
  out += word;
  column += word.size();
}

}  // namespace

std::string wrap_parts(const std::vector<std::string>& parts, std::size_t width) {
  std::string out;
  std::size_t column = 0;
  for (const std::string& part : parts) {
    if (part.empty()) continue;
    // A part that fits a line goes whole, onto the next line if this one is full.
    if (sizeof kIndent - 1 + part.size() <= width) {
      place(out, column, " | ", part, width);
      continue;
    }
    // A part longer than a line: word by word, the first word after the separator.
    std::size_t at = 0;
    bool first = true;
    while (at < part.size()) {
      std::size_t end = part.find(' ', at);
      if (end == std::string::npos) end = part.size();
      place(out, column, first ? " | " : " ", part.substr(at, end - at), width);
      first = false;
      at = end + 1;
    }
  }
  return out + "\n";
}

}  // namespace trainsim
