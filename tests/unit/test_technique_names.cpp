// Only sim/techniques/ may name a technique: everything else learns what a technique does from
// its description (TechniqueInfo, sim/techniques/technique.h), so that a new technique is a new
// file plus a registry line and never a new `if (kind == ...)` in shared code. This test scans
// the C++ sources for string literals that name a technique.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/spec/specs.h"
#include "sim/techniques/technique.h"

using namespace trainsim;
namespace fs = std::filesystem;

namespace {

struct NameUse {
  int line = 0;
  std::string literal;
};

// A literal names a technique when it is a name, a name with its shorthand parameter
// ("specbp@0.25"), or a family's prefix ("adagp-": a test of kind.rfind("adagp-", 0)).
bool names_technique(const std::string& literal, const std::vector<std::string>& names) {
  if (literal.empty()) return false;
  for (const std::string& name : names) {
    if (literal == name) return true;
    if (literal.size() > name.size() && literal.compare(0, name.size(), name) == 0 &&
        literal[name.size()] == '@')
      return true;
    if (literal.back() == '-' && name.size() > literal.size() &&
        name.compare(0, literal.size(), literal) == 0)
      return true;
  }
  return false;
}

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The string literals of C++ source `text` that name one of `names`, with their lines.
// Comments and character literals are skipped; raw strings and digit separators
// (0xADA6'0003) are understood. Escapes are kept as written.
std::vector<NameUse> technique_literals(const std::string& text,
                                        const std::vector<std::string>& names) {
  std::vector<NameUse> found;
  int line = 1;
  std::size_t i = 0;
  const std::size_t n = text.size();
  auto advance_to = [&](std::size_t end) {  // counts the lines of text[i, end)
    for (; i < end && i < n; ++i)
      if (text[i] == '\n') ++line;
  };
  while (i < n) {
    const char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      advance_to(text.find('\n', i) == std::string::npos ? n : text.find('\n', i));
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      const std::size_t end = text.find("*/", i + 2);
      advance_to(end == std::string::npos ? n : end + 2);
    } else if (c == '\'') {
      // A digit separator inside a number, or a character literal.
      std::size_t start = i;
      while (start > 0 && word_char(text[start - 1])) --start;
      const bool in_number = start < i && std::isdigit(static_cast<unsigned char>(text[start]));
      if (in_number) {
        ++i;
        continue;
      }
      std::size_t j = i + 1;
      while (j < n && text[j] != '\'' && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
      advance_to(j + 1);
    } else if (c == '"') {
      // The word just before the quote says whether this is a raw string (R, u8R, LR, ...).
      std::size_t start = i;
      while (start > 0 && word_char(text[start - 1])) --start;
      const std::string prefix = text.substr(start, i - start);
      const int at = line;
      std::string literal;
      if (!prefix.empty() && prefix.back() == 'R') {
        const std::size_t open = text.find('(', i + 1);
        const std::string close = ")" + text.substr(i + 1, open - i - 1) + "\"";
        const std::size_t end = open == std::string::npos ? n : text.find(close, open + 1);
        literal = text.substr(open + 1, end - open - 1);
        advance_to(end == std::string::npos ? n : end + close.size());
      } else {
        std::size_t j = i + 1;
        while (j < n && text[j] != '"' && text[j] != '\n') {
          literal += text[j];
          if (text[j] == '\\' && j + 1 < n) literal += text[++j];
          ++j;
        }
        advance_to(j + 1);
      }
      if (names_technique(literal, names)) found.push_back({at, literal});
    } else {
      advance_to(i + 1);
    }
  }
  return found;
}

std::vector<std::string> registered_names() {
  std::vector<std::string> names;
  for (const TechniqueInfo& t : techniques()) names.push_back(t.name);
  return names;
}

bool cpp_source(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".cpp" || ext == ".h" || ext == ".hpp" || ext == ".cc";
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The C++ sources of the library and the tools, relative to the repository root.
std::vector<std::string> library_sources() {
  const fs::path root = TRAINSIM_SOURCE_DIR;
  std::vector<std::string> files;
  for (const char* dir : {"sim", "models", "dataflows", "mapping"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir))
      if (e.is_regular_file() && cpp_source(e.path()))
        files.push_back(fs::relative(e.path(), root).generic_string());
  for (const auto& e : fs::directory_iterator(root / "tools"))
    if (e.is_regular_file() && cpp_source(e.path()))
      files.push_back(fs::relative(e.path(), root).generic_string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("The technique-name scanner finds names in string literals only", "[techniques]") {
  const std::vector<std::string> names = {"bp", "bp-sample", "specbp", "adagp-max"};
  const std::string sample =
      "// a comment may say \"bp\" and \"specbp\"\n"          // 1
      "/* so may a block: \"adagp-max\"\n"                    // 2
      "   over lines */ int x = 0xADA6'0003;\n"               // 3
      "if (t.kind == \"specbp\") return;\n"                   // 4: a name
      "if (k.rfind(\"adagp-\", 0) == 0) f('\"');\n"           // 5: a family's prefix
      "const char* s = \"bp-sample\", *u = \"bps\";\n"        // 6: a name, and no name
      "auto r = R\"x(bp)x\"; std::string bp = \"bp@0.5\";\n"  // 7: raw string, shorthand
      "const char* h = \"bp,specbp@0.25 are examples\";\n"    // 8: prose
      "char q = '\\''; auto v = \"adagp-low\";\n";            // 9: a name not listed
  const std::vector<NameUse> found = technique_literals(sample, names);
  std::vector<std::string> got;
  for (const NameUse& u : found) got.push_back(std::to_string(u.line) + ":" + u.literal);
  CHECK(got == std::vector<std::string>{"4:specbp", "5:adagp-", "6:bp-sample", "7:bp", "7:bp@0.5"});
  // adagp-low is not in this list, so line 9 is not found; with it, it is.
  std::vector<std::string> more = names;
  more.push_back("adagp-low");
  CHECK(technique_literals(sample, more).back().line == 9);
}

TEST_CASE("Every registered technique's name is checked, the default first", "[techniques]") {
  const std::vector<std::string> names = registered_names();
  for (const char* name :
       {"bp", "bp-sample", "specbp", "adagp-max", "adagp-efficient", "adagp-low"})
    CHECK(std::find(names.begin(), names.end(), name) != names.end());
  REQUIRE(!names.empty());
  CHECK(names.front() == TechniqueSpec{}.kind);
}

TEST_CASE("No code outside sim/techniques/ names a technique", "[techniques]") {
  const fs::path root = TRAINSIM_SOURCE_DIR;
  const std::vector<std::string> names = registered_names();
  std::vector<std::string> offenders;
  std::size_t scanned = 0, inside = 0;
  for (const std::string& file : library_sources()) {
    const std::vector<NameUse> found = technique_literals(read_text(root / file), names);
    // The default technique's name has its own header in sim/spec/, the folder of plain
    // values below every subsystem, so that TechniqueSpec can default to it.
    if (file.rfind("sim/techniques/", 0) == 0 || file == "sim/spec/default_technique.h") {
      inside += found.size();
      continue;
    }
    ++scanned;
    for (const NameUse& u : found)
      offenders.push_back(file + ":" + std::to_string(u.line) + ": \"" + u.literal + "\"");
  }
  // The scan saw the library (not an empty or wrong directory), and it finds the names where
  // they belong: the techniques' own files.
  CHECK(scanned > 100);
  CHECK(inside >= names.size());
  std::string report;
  for (const std::string& o : offenders) report += o + "\n";
  INFO("technique names outside sim/techniques/ (use the technique's TechniqueInfo):\n" + report);
  CHECK(offenders.empty());
}
