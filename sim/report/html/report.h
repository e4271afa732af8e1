#pragma once
// report.html: one self-contained page per results directory (`trainsim report DIR`, and
// written by run, compare and sweep unless --no-report). It reads only the directory's files,
// the same record tools/plot and the Python module read, so every number on the page is the
// one in stats.json and the CSVs. One registry of page kinds: a new kind of results directory
// is a page file plus a line in report.cpp.
#include <string>
#include <vector>

#include "sim/report/html/html_page.h"
#include "sim/report/html/results_dir.h"

namespace trainsim {

class StagedDir;

struct ReportKind {
  const char* name;
  const char* description;
  bool (*claims)(const ResultsDir& dir);  ///< the first kind that claims a directory draws it
  HtmlPage (*page)(const ResultsDir& dir);
};
const std::vector<ReportKind>& report_kinds();

/// The page of results directory `dir`; UserError when no kind reads it.
std::string render_report(const std::string& dir);
/// Renders the directory `out` is writing and adds report.html to it (with its manifest).
void add_report(StagedDir& out);

}  // namespace trainsim
