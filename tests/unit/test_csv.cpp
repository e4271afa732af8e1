// The CSV writer every output goes through: cells with commas, quotes and line breaks stay
// one cell, and every row has one cell per column.
#include <catch2/catch.hpp>

#include "sim/core/csv.h"
#include "sim/core/rng.h"

using namespace trainsim;

TEST_CASE("CSV cells are quoted only when they must be", "[csv]") {
  CHECK(csv_cell("fc1") == "fc1");
  CHECK(csv_cell("") == "");
  CHECK(csv_cell("fc,1") == "\"fc,1\"");
  CHECK(csv_cell("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_cell("two\nlines") == "\"two\nlines\"");
}

TEST_CASE("A CSV table reads back cell for cell, whatever the cells hold", "[csv]") {
  Rng rng(7);
  const std::string alphabet = "ab,\"\n\r x1";
  std::vector<std::vector<std::string>> rows = {{"name", "value", "note"}};
  CsvTable t(rows[0]);
  for (int r = 0; r < 200; ++r) {
    std::vector<std::string> cells;
    t.row();
    for (int c = 0; c < 3; ++c) {
      std::string cell;
      const auto len = rng.below(6);
      for (std::uint64_t i = 0; i < len; ++i) cell += alphabet[rng.below(alphabet.size())];
      // A lone CR inside a cell is kept (it is quoted); the reader accepts CRLF line ends.
      t.cell(cell);
      cells.push_back(cell);
    }
    rows.push_back(cells);
  }
  CHECK(parse_csv(t.text()) == rows);
}

TEST_CASE("A CSV row with too few or too many cells is a bug, caught when written", "[csv]") {
  CsvTable t({"a", "b"});
  t.row().cell("1");
  CHECK_THROWS_AS(t.text(), std::logic_error);
  CsvTable u({"a"});
  u.row().cell("1").cell("2");
  CHECK_THROWS_AS(u.row(), std::logic_error);
  CHECK_THROWS_AS(parse_csv("a,\"b"), std::invalid_argument);
  CsvTable v({"layer", "x"});
  v.row().cell("fc,1").num("%.3f", 0.5).row().cell(std::int64_t{7}).cell("");
  CHECK(v.text() == "layer,x\n\"fc,1\",0.500\n7,\n");
}

TEST_CASE("A table taken a block at a time is the table written at once", "[csv]") {
  CsvTable whole({"a", "b"}), blocks({"a", "b"});
  std::string taken;
  for (int r = 0; r < 10; ++r) {
    whole.row().cell(r).cell("x,y");
    blocks.row().cell(r).cell("x,y");
    if (r % 3 == 2) taken += blocks.take();
  }
  taken += blocks.take();
  CHECK(taken == whole.text());
  CHECK(blocks.take().empty());
}
