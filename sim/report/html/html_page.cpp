#include "sim/report/html/html_page.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sim/core/format.h"

namespace trainsim {

namespace {

// The value a numeric cell sorts by: the number it starts with, when all that follows is a
// unit ("21.8 mJ", "12.2%", "1.05x"); NaN for text. Prefixed units sort by their number
// alone, so a column mixes prefixes only where the writer gives the raw value (sort_key).
double numeric_value(const std::string& text) {
  if (text.empty()) return NAN;
  const char* s = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || !std::isfinite(v)) return NAN;
  // A count's prefix on the number ("21.8M", readable_count) sorts by the count.
  static const char kPrefixes[] = "kMGTP";
  if (const char* at = *end ? std::strchr(kPrefixes, *end) : nullptr; at && end[1] == '\0')
    return v * std::pow(1000.0, static_cast<double>(at - kPrefixes + 1));
  for (const char* p = end; *p; ++p)
    if (*p != ' ' && *p != '%' && !std::isalpha(static_cast<unsigned char>(*p))) return NAN;
  return v;
}

// Sorting: a click on a header orders the rows by that column, again for the reverse.
// Numbers (data-v) compare as numbers, the rest as text; blanks go last.
const char kScript[] = R"JS(
document.querySelectorAll('table.sort th').forEach(function (th, col) {
  th.addEventListener('click', function () {
    var table = th.closest('table'), body = table.tBodies[0];
    var idx = Array.prototype.indexOf.call(th.parentNode.children, th);
    var asc = th.getAttribute('data-dir') !== 'asc';
    th.parentNode.querySelectorAll('th').forEach(function (h) { h.removeAttribute('data-dir'); });
    th.setAttribute('data-dir', asc ? 'asc' : 'desc');
    var rows = Array.prototype.slice.call(body.rows);
    function key(r) {
      var c = r.cells[idx];
      if (!c) return null;
      var v = c.getAttribute('data-v');
      return v !== null ? parseFloat(v) : c.textContent;
    }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      if (x === null || x === '') return 1;
      if (y === null || y === '') return -1;
      var r = (typeof x === 'number' && typeof y === 'number') ? x - y : String(x).localeCompare(String(y));
      return asc ? r : -r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
)JS";

const char kStyle[] = R"CSS(
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 1em 2em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.1em; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 1.8em; }
.sub { color: #555; margin-top: 0; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 13px; }
th, td { padding: 2px 8px; border-bottom: 1px solid #e4e4e4; text-align: left; white-space: nowrap; }
th { background: #f3f3f3; cursor: pointer; user-select: none; }
th[data-dir=asc]::after { content: ' \25B2'; } th[data-dir=desc]::after { content: ' \25BC'; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.pairs th { cursor: default; background: none; font-weight: normal; color: #555; }
.wide { overflow-x: auto; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 12px; }
svg { display: block; margin: 0.6em 0; max-width: 100%; height: auto; }
.note { color: #666; font-size: 12px; }
)CSS";

std::string anchor(std::size_t i) {
  return "s" + std::to_string(i + 1);
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

HtmlTable& HtmlTable::row(std::vector<HtmlCell> cells) {
  rows_.push_back(std::move(cells));
  return *this;
}

std::string HtmlTable::html() const {
  std::string out = "<div class=\"wide\"><table class=\"sort\"><thead><tr>";
  for (const std::string& h : head_) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr></thead><tbody>\n";
  const std::size_t shown = limit_ ? std::min(limit_, rows_.size()) : rows_.size();
  for (std::size_t r = 0; r < shown; ++r) {
    out += "<tr>";
    for (const HtmlCell& c : rows_[r]) {
      const double v = std::isnan(c.sort) ? numeric_value(c.text) : c.sort;
      std::string body = html_escape(c.text);
      if (!c.href.empty()) body = "<a href=\"" + html_escape(c.href) + "\">" + body + "</a>";
      if (std::isnan(v)) {
        out += "<td>" + body + "</td>";
      } else {
        char key[32];
        out += "<td class=\"n\" data-v=\"";
        out.append(key, format_general(v, 17, key));
        out += "\">" + body + "</td>";
      }
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>";
  if (shown < rows_.size())
    out += "<p class=\"note\">" + std::to_string(rows_.size() - shown) + " more row(s) of " +
           std::to_string(rows_.size()) + " are in the CSV file.</p>";
  return out;
}

std::string html_pairs(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::string out = "<table class=\"pairs\">";
  for (const auto& [k, v] : rows)
    out += "<tr><th>" + html_escape(k) + "</th><td>" + html_escape(v) + "</td></tr>";
  return out + "</table>";
}

std::string html_para(const std::string& text) {
  return "<p>" + html_escape(text) + "</p>";
}

void HtmlPage::section(const std::string& heading, const std::string& body) {
  sections_.emplace_back(heading, body);
}

std::string HtmlPage::render() const {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      // Nothing may leave the file: no fetch, no image, no script from elsewhere.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
      "<title>" +
      html_escape(title_) + "</title><style>" + kStyle + "</style></head><body>\n<h1>" +
      html_escape(title_) + "</h1><p class=\"sub\">" + html_escape(subtitle_) + "</p><nav>";
  for (std::size_t i = 0; i < sections_.size(); ++i)
    out += "<a href=\"#" + anchor(i) + "\">" + html_escape(sections_[i].first) + "</a>";
  out += "</nav>\n";
  for (std::size_t i = 0; i < sections_.size(); ++i)
    out += "<h2 id=\"" + anchor(i) + "\">" + html_escape(sections_[i].first) + "</h2>\n" +
           sections_[i].second + "\n";
  out += "<script>" + std::string(kScript) + "</script></body></html>\n";
  return out;
}

}  // namespace trainsim
