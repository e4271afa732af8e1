#pragma once
// Sections every kind of report.html shares, each built from the files of the results
// directory alone (the run record): the key figures, the training curves, a timeline window,
// the resolved configuration, the list of files, any CSV as a sortable table.
#include <string>
#include <vector>

#include "sim/report/html/html_page.h"
#include "sim/report/html/results_dir.h"

namespace trainsim {

/// One key figure: a label, the text shown and the exact value behind it. The figures table
/// carries the exact value and a key in data attributes (data-key, data-v), so a reader (the
/// consistency test) compares them with stats.json without parsing the readable text.
struct KeyFigure {
  std::string key, label, shown;
  double value = 0;
  bool has_value = false;
};
KeyFigure figure(const std::string& key, const std::string& label, const std::string& shown);
KeyFigure figure(const std::string& key, const std::string& label, const std::string& shown,
                 double value);
std::string figures_table(const std::vector<KeyFigure>& figures);

/// Loss and accuracy per epoch (train and test) from epochs.csv; "" when nothing was trained.
std::string curves_html(const CsvData& epochs);
/// An inline Gantt chart of the first slices of a Chrome trace (`file`, e.g. timeline.json),
/// with a link to the file; "" when there is none.
std::string timeline_html(const ResultsDir& dir, const std::string& file, const std::string& title);
/// config.resolved.yaml as preformatted text.
std::string config_html(const ResultsDir& dir);
/// The directory's files, linked.
std::string files_html(const ResultsDir& dir);
/// A CSV file as a sortable table of its cells (at most `limit` rows shown), titled by a
/// link to the file; "" when the file is absent.
std::string csv_html(const ResultsDir& dir, const std::string& file, std::size_t limit = 200);
/// devices.csv as one stacked bar a device ("dev<device> <name_column>") of its time columns
/// (`parts`: column, legend name; seconds), then the table; "" when the file is absent.
std::string device_time_html(const ResultsDir& dir, const std::string& title,
                             const std::string& name_column,
                             const std::vector<std::pair<std::string, std::string>>& parts);

}  // namespace trainsim
