// The suite itself: every test case must be one CTest can run. catch_discover_tests passes
// a test's name to Catch as a filter, and Catch reads ';' in a filter as "or": a name with a
// ';' becomes a filter that matches nothing, and CTest reports the test passed without
// running it (nine tests did, including one that failed when run); a name that starts with
// '-' is taken for a command-line option, and the test fails without running.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// Names of the TEST_CASEs in `text` (the first string literal after each TEST_CASE( ).
std::vector<std::string> test_names(const std::string& text) {
  std::vector<std::string> names;
  for (std::size_t at = text.find("TEST_CASE(\""); at != std::string::npos;
       at = text.find("TEST_CASE(\"", at + 1)) {
    const std::size_t begin = at + 11;
    std::size_t end = begin;
    while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
    names.push_back(text.substr(begin, end - begin));
  }
  return names;
}

}  // namespace

TEST_CASE("The test-name scanner reads names from TEST_CASE lines", "[suite]") {
  const std::string sample =
      "TEST_CASE(\"a, b\", \"[x]\") {}\nTEST_CASE(\"c; d \\\" e\") {}\nint TEST_CASES = 0;\n";
  CHECK(test_names(sample) == std::vector<std::string>{"a, b", "c; d \\\" e"});
}

TEST_CASE("No test case name holds a semicolon or starts with a dash (CTest could not run it)",
          "[suite]") {
  std::vector<std::string> bad;
  std::size_t tests = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(TRAINSIM_SOURCE_DIR) / "tests")) {
    if (!e.is_regular_file() || e.path().extension() != ".cpp") continue;
    std::ifstream in(e.path());
    std::ostringstream text;
    text << in.rdbuf();
    for (const std::string& name : test_names(text.str())) {
      ++tests;
      // A leading '-' makes Catch read the name as an option ("Unrecognised token").
      if (name.find(';') != std::string::npos || name.rfind('-', 0) == 0)
        bad.push_back(e.path().string() + ": " + name);
    }
  }
  CHECK(tests > 100);  // the scan found the suite
  std::string report;
  for (const auto& b : bad) report += b + "\n";
  INFO(report);
  CHECK(bad.empty());
}
