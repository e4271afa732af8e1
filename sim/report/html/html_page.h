#pragma once
// One self-contained HTML page: inline style, inline SVG figures, tables sortable by a click
// on their header (a few lines of inline script), and nothing fetched from anywhere else:
// report.html opens from a disk, a mail attachment or a CI artifact alike.
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace trainsim {

/// `text` with &, <, >, " and ' escaped.
std::string html_escape(const std::string& text);

/// A table cell: text, optionally a link (relative to the page).
struct HtmlCell {
  HtmlCell(std::string t) : text(std::move(t)) {}  // NOLINT: cells are mostly plain text
  HtmlCell(const char* t) : text(t) {}             // NOLINT
  HtmlCell(std::string t, std::string link) : text(std::move(t)), href(std::move(link)) {}
  /// A figure shown readably ("63.4 min") that sorts by its exact value (3804 s).
  static HtmlCell number(std::string t, double value) {
    HtmlCell c(std::move(t));
    c.sort = value;
    return c;
  }
  std::string text, href;
  double sort = std::numeric_limits<double>::quiet_NaN();  ///< NaN: read from the text
};

/// A sortable table. Cells that read as numbers (an optional unit or % after them) align
/// right and sort by value; the raw value may be given apart from the text shown.
class HtmlTable {
 public:
  explicit HtmlTable(std::vector<std::string> head) : head_(std::move(head)) {}
  HtmlTable& row(std::vector<HtmlCell> cells);
  /// Rows past `n` are left out and counted in a note under the table.
  HtmlTable& limit(std::size_t n) {
    limit_ = n;
    return *this;
  }
  std::size_t rows() const { return rows_.size(); }
  std::string html() const;

 private:
  std::vector<std::string> head_;
  std::vector<std::vector<HtmlCell>> rows_;
  std::size_t limit_ = 0;
};

/// "label: value" rows.
std::string html_pairs(const std::vector<std::pair<std::string, std::string>>& rows);
/// `text` in a <p> (escaped).
std::string html_para(const std::string& text);

class HtmlPage {
 public:
  HtmlPage(std::string title, std::string subtitle)
      : title_(std::move(title)), subtitle_(std::move(subtitle)) {}
  /// A section with a heading, listed in the page's contents; `body` is HTML.
  void section(const std::string& heading, const std::string& body);
  std::string render() const;

 private:
  std::string title_, subtitle_;
  std::vector<std::pair<std::string, std::string>> sections_;
};

}  // namespace trainsim
