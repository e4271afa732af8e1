#pragma once
// Runs the real trainsim binary as a user would and captures what it prints.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trainsim::test {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

/// Runs `trainsim <args>` (each arg shell-quoted) with stdout/stderr captured; `env` holds
/// NAME=VALUE settings for its environment.
CliResult run_trainsim(const std::vector<std::string>& args,
                       const std::vector<std::string>& env = {});

/// The same, run from the working directory `cwd`.
CliResult run_trainsim_in(const std::string& cwd, const std::vector<std::string>& args,
                          const std::vector<std::string>& env = {});

/// Runs `trainsim <args>` in `cwd` on a pseudo-terminal of `columns` x 24, as a user at a
/// terminal sees it: `out` holds everything it wrote (stdout and stderr, progress bars and
/// their carriage returns included).
CliResult run_trainsim_on_terminal(const std::string& cwd, const std::vector<std::string>& args,
                                   int columns);

/// Runs `script` with /bin/sh (the trainsim binary in $TRAINSIM) and captures its output.
CliResult run_shell(const std::string& script);

/// A fresh, empty directory for one test, under the build tree.
std::string fresh_dir(const std::string& name);

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
bool exists(const std::string& path);
/// Bytes of every file under `dir`, recursively.
std::uintmax_t bytes_under(const std::string& dir);
/// Writes `body` to DIR/exp.yaml and returns that path.
std::string write_experiment(const std::string& dir, const std::string& body);

/// Number of lines in `text` (a final newline does not start a new line).
int line_count(const std::string& text);

/// Checks that `r` is bad input handled as trainsim promises: exit code 2, one line
/// "trainsim: error: ..." mentioning each of `mentions`, and neither `out_dir` nor its
/// `.partial` staging directory left behind.
void require_clean_failure(const CliResult& r, const std::string& out_dir,
                           const std::vector<std::string>& mentions);

/// Rows of a CSV text with a header line, as column -> cell maps.
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& text);

/// FAILs the test unless dataset `name` is under the data root (./test.sh fetches it).
void require_dataset(const std::string& name);

/// Column `column` of the epochs.csv row for `epoch`, as a number.
/// epochs.csv opens with the columns every run kind writes (sim/report/epoch_table.h); a
/// literal copy, so a change to the schema shows here.
void check_epochs_schema(const std::string& csv);
double epochs_csv_value(const std::string& csv, int epoch, const std::string& column);

}  // namespace trainsim::test
