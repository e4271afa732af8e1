// The pieces of report.html: readable units, escaping, sortable tables, the SVG figures, and
// the page kinds' registry on directories that are not results.
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/core/error.h"
#include "sim/core/terminal_lines.h"
#include "sim/report/html/html_page.h"
#include "sim/report/html/readable.h"
#include "sim/report/html/report.h"
#include "sim/report/html/results_dir.h"
#include "sim/report/html/svg_chart.h"

using namespace trainsim;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A fresh directory of the test's own (mkdtemp), under the system's temporary directory.
std::string temp_dir(const std::string& name) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / ("trainsim-html-" + name + "-XXXXXX")).string();
  REQUIRE(::mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

}  // namespace

TEST_CASE("Readable figures pick a prefix and always name the unit", "[report][html]") {
  CHECK(readable_energy(2.181397e10, "pJ") == "21.8 mJ");
  CHECK(readable_energy(118881.9, "J") == "119 kJ");
  CHECK(readable_energy(12.0, "pJ") == "12.0 pJ");
  CHECK(readable_energy(3.5e9, "normalized") == "3.50G MAC-equiv");
  CHECK(readable_seconds(0.009566209) == "9.57 ms");
  CHECK(readable_seconds(3.3e-7) == "330 ns");
  CHECK(readable_seconds(7778.5) == "2.16 h");
  CHECK(readable_seconds(1500) == "25.0 min");
  CHECK(readable_seconds(0) == "0 s");
  CHECK(readable_bytes(70526184) == "70.5 MB");
  CHECK(readable_count(9566209) == "9.57M");
  CHECK(readable_count(534) == "534");
  CHECK(readable_percent(0.12235) == "12.2%");
  CHECK(readable_number(NAN).empty());
  CHECK(readable_seconds(NAN).empty());
}

TEST_CASE("HTML text is escaped and tables sort numbers by value", "[report][html]") {
  CHECK(html_escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  HtmlTable t({"name", "time"});
  t.row({"fc,1 <b>", HtmlCell::number("2.16 h", 7778.5)});
  t.row({"conv", "12.5%"});
  t.row({HtmlCell("ws", "ws/report.html"), "info"});
  const std::string html = t.html();
  CHECK(html.find("fc,1 &lt;b&gt;") != std::string::npos);
  CHECK(html.find("data-v=\"7778.5\">2.16 h") != std::string::npos);  // the exact value sorts
  CHECK(html.find("data-v=\"12.5\">12.5%") != std::string::npos);
  // A count with its prefix sorts by the count.
  CHECK(HtmlTable({"n"}).row({"2.00k"}).html().find("data-v=\"2000\"") != std::string::npos);
  CHECK(html.find("<a href=\"ws/report.html\">ws</a>") != std::string::npos);
  CHECK(html.find("data-v=\"inf") == std::string::npos);  // "info" is text, not infinity
  t.limit(1);
  CHECK(t.html().find("2 more row(s) of 3") != std::string::npos);
}

TEST_CASE("A page lists its sections and loads nothing from elsewhere", "[report][html]") {
  HtmlPage page("trainsim run: <x>", "sub");
  page.section("Summary", "<p>a</p>");
  page.section("Timeline", "<p>b</p>");
  const std::string html = page.render();
  CHECK(html.find("<title>trainsim run: &lt;x&gt;</title>") != std::string::npos);
  CHECK(html.find("<a href=\"#s2\">Timeline</a>") != std::string::npos);
  CHECK(html.find("<h2 id=\"s1\">Summary</h2>") != std::string::npos);
  CHECK(html.find("default-src 'none'") != std::string::npos);
  CHECK(html.find("http:") == std::string::npos);
  CHECK(html.find("https:") == std::string::npos);
}

TEST_CASE("SVG figures draw one mark per value and skip what cannot be drawn", "[report][html]") {
  const auto fmt = [](double v) { return readable_number(v); };
  const std::string lines =
      svg_line_chart("Loss", "epoch", "loss",
                     {{"train", {1, 2, 3}, {0.7, NAN, 0.3}}, {"test", {1, 2, 3}, {1, 2, 3}}}, fmt);
  CHECK(count(lines, "<circle") == 5);  // the NaN is a gap
  CHECK(count(lines, "<path") == 2);
  CHECK(lines.rfind("</svg>") == lines.size() - 6);

  const std::string bars =
      svg_bar_chart("E", {"mac", "dram"}, {{"train", {1, 3}}, {"eval", {0, 2}}}, fmt);
  CHECK(count(bars, "<rect") == 3 + 2);  // three parts above zero, two legend swatches
  CHECK(bars.find(">4</text>") != std::string::npos);  // the total at the bar's end

  const std::string gantt = svg_gantt(
      "T", {"array", "dram"},
      {{0, 0, 5, "fc1 fw", "fw"}, {1, 1, 2, "fc1 dram", "dram"}, {7, 0, 1, "no such track", "fw"}});
  CHECK(count(gantt, "<title>") == 1 + 2);  // the figure's and two slices'
  CHECK(gantt.find("no such track") == std::string::npos);

  const std::string scatter = svg_scatter(
      "P", "time", "energy",
      {{1, 10, "a", true}, {2, 5, "b", true}, {3, 8, "c", false}, {-1, 3, "bad", false}}, true,
      true, fmt, fmt);
  CHECK(count(scatter, "<circle") == 3);           // a negative value has no place on a log axis
  CHECK(count(scatter, "stroke-dasharray") == 1);  // the front, joined
}

TEST_CASE("A directory that is not a results directory, or a damaged record, is an error",
          "[report][html]") {
  const std::string dir = temp_dir("not-results");
  CHECK_THROWS_AS(render_report(dir), UserError);
  std::ofstream(dir + "/stats.json") << "{\"kind\": ";
  CHECK_THROWS_WITH(render_report(dir), Catch::Contains("stats.json: not a stats file"));
  std::ofstream(dir + "/stats.json") << "[1, 2]";
  CHECK_THROWS_WITH(render_report(dir), Catch::Contains("not a JSON object"));
  std::ofstream(dir + "/stats.json") << "{\"kind\": \"run\"}";
  std::ofstream(dir + "/epochs.csv") << "epoch,train_loss\n1,\"0.5\n";
  CHECK_THROWS_WITH(render_report(dir), Catch::Contains("epochs.csv"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("JSON paths read numbers and text, and nothing where there is nothing",
          "[report][html]") {
  const auto j = nlohmann::ordered_json::parse(R"({"a": {"b": 2.5, "c": "x", "d": true}})");
  CHECK(json_number(j, "a/b") == 2.5);
  CHECK(std::isnan(json_number(j, "a/c")));
  CHECK(std::isnan(json_number(j, "a/b/c")));
  CHECK(json_text(j, "a/c") == "x");
  CHECK(json_text(j, "a/d") == "true");
  CHECK(json_text(j, "a").empty());
  CHECK(json_text(j, "z/y").empty());
}

TEST_CASE("Terminal headers wrap between their parts at 80 columns", "[report][terminal]") {
  CHECK(wrap_parts({"a", "b", "", "c"}) == "a | b | c\n");
  const std::string long_part(70, 'x');
  CHECK(wrap_parts({"trainsim run: q", long_part}) == "trainsim run: q\n  " + long_part + "\n");
  // A part longer than a line breaks between its words.
  std::string words;
  for (int i = 0; i < 30; ++i) words += (i ? " " : "") + std::string("word") + std::to_string(i);
  const std::string out = wrap_parts({"head", words});
  std::size_t start = 0;
  for (std::size_t nl = out.find('\n'); nl != std::string::npos; nl = out.find('\n', start)) {
    CHECK(nl - start <= 80);
    start = nl + 1;
  }
  CHECK(out.rfind("head | word0 word1", 0) == 0);
  CHECK(out.find("word29\n") != std::string::npos);
}
