#include "tests/integration/cli_runner.h"

#include <catch2/catch.hpp>

#include "sim/core/csv.h"
#include "sim/core/paths.h"

#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace trainsim::test {

namespace {
std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
}  // namespace

std::string fresh_dir(const std::string& name) {
  const std::string dir = std::string(TRAINSIM_TEST_TMP) + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

namespace {
std::string capture_dir() {
  static int counter = 0;
  return fresh_dir("cli-capture-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

CliResult run_captured(const std::string& cmd_line, const std::string& base) {
  const std::string cmd =
      cmd_line + " </dev/null >" + quote(base + "/out") + " 2>" + quote(base + "/err");
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(base + "/out");
  r.err = read_file(base + "/err");
  fs::remove_all(base);
  return r;
}
}  // namespace

CliResult run_trainsim_in(const std::string& cwd, const std::vector<std::string>& args,
                          const std::vector<std::string>& env) {
  std::string cmd = "cd " + quote(cwd) + " && ";
  for (const auto& e : env) {
    const auto eq = e.find('=');
    cmd += e.substr(0, eq) + "=" + quote(e.substr(eq + 1)) + " ";
  }
  cmd += quote(TRAINSIM_BINARY);
  for (const auto& a : args) cmd += " " + quote(a);
  return run_captured("(" + cmd + ")", capture_dir());
}

CliResult run_trainsim_on_terminal(const std::string& cwd, const std::vector<std::string>& args,
                                   int columns) {
  struct winsize ws {};
  ws.ws_row = 24;
  ws.ws_col = static_cast<unsigned short>(columns);
  int fd = -1;
  const pid_t pid = forkpty(&fd, nullptr, nullptr, &ws);
  if (pid < 0) throw std::runtime_error("forkpty failed");
  if (pid == 0) {
    if (::chdir(cwd.c_str()) != 0) _exit(127);
    std::vector<std::string> argv_s = {TRAINSIM_BINARY};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  CliResult r;
  char buf[4096];
  // The child's output until it closes the terminal (EIO once it has exited).
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
    r.out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

CliResult run_shell(const std::string& script) {
  const std::string base = capture_dir();
  write_file(base + "/script.sh", script);
  return run_captured(
      "TRAINSIM=" + quote(TRAINSIM_BINARY) + " /bin/sh " + quote(base + "/script.sh"), base);
}

CliResult run_trainsim(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  const std::string base = capture_dir();
  std::string cmd;
  for (const auto& e : env) {  // NAME=VALUE: an assignment only with the name unquoted
    const auto eq = e.find('=');
    cmd += e.substr(0, eq) + "=" + quote(e.substr(eq + 1)) + " ";
  }
  cmd += quote(TRAINSIM_BINARY);
  for (const auto& a : args) cmd += " " + quote(a);
  return run_captured(cmd, base);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string write_experiment(const std::string& dir, const std::string& body) {
  write_file(dir + "/exp.yaml", body);
  return dir + "/exp.yaml";
}

bool exists(const std::string& path) {
  return fs::exists(path);
}

std::uintmax_t bytes_under(const std::string& dir) {
  std::uintmax_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) n += e.file_size();
  return n;
}

int line_count(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  if (!text.empty() && text.back() != '\n') ++n;
  return n;
}

void require_clean_failure(const CliResult& r, const std::string& out_dir,
                           const std::vector<std::string>& mentions) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.rfind("trainsim: error: ", 0) == 0);
  for (const auto& m : mentions) CHECK(r.err.find(m) != std::string::npos);
  CHECK_FALSE(exists(out_dir));
  CHECK_FALSE(exists(out_dir + ".partial"));
}

std::vector<std::map<std::string, std::string>> csv_rows(const std::string& text) {
  const auto table = parse_csv(text);
  std::vector<std::map<std::string, std::string>> rows;
  if (table.empty()) return rows;
  const std::vector<std::string>& header = table[0];
  for (std::size_t k = 1; k < table.size(); ++k) {
    std::map<std::string, std::string> r;
    for (std::size_t i = 0; i < header.size(); ++i)
      r[header[i]] = i < table[k].size() ? table[k][i] : "";
    rows.push_back(r);
  }
  return rows;
}

void require_dataset(const std::string& name) {
  if (!exists(data_root() + "/" + name))
    FAIL("dataset '" << name << "' not found under " << data_root()
                     << ": run tools/fetch_data.sh (./test.sh does)");
}

void check_epochs_schema(const std::string& csv) {
  const std::vector<std::string> common = {
      "epoch",   "train_loss",         "train_accuracy", "test_loss",  "test_accuracy",
      "seconds", "samples_per_second", "energy",         "energy_unit"};
  const auto rows = parse_csv(csv);
  REQUIRE(!rows.empty());
  REQUIRE(rows[0].size() >= common.size());
  CHECK(std::vector<std::string>(rows[0].begin(), rows[0].begin() + 9) == common);
}

double epochs_csv_value(const std::string& csv, int epoch, const std::string& column) {
  for (const auto& row : csv_rows(csv)) {
    if (std::stoi(row.at("epoch")) != epoch) continue;
    auto it = row.find(column);
    if (it != row.end()) return std::stod(it->second);
  }
  throw std::runtime_error("epochs.csv has no epoch " + std::to_string(epoch) + " / column " +
                           column);
}

}  // namespace trainsim::test
