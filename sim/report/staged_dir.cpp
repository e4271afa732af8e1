#include "sim/report/staged_dir.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "sim/core/error.h"

namespace fs = std::filesystem;

namespace trainsim {

StagedDir::StagedDir(std::string final_dir, Mode mode, const std::string& command)
    : final_(std::move(final_dir)), mode_(mode) {
  while (final_.size() > 1 && final_.back() == '/') final_.pop_back();
  staging_ = final_ + ".partial";
  std::error_code ec;
  if (mode == Mode::kNew && fs::exists(final_, ec))
    throw UserError(
        command + ": results directory '" + final_ +
        "' exists: add --force to replace it, or choose another with --out" +
        (fs::exists(final_ + "/INCOMPLETE", ec)
             ? " (it is incomplete: trainsim " + command + " --resume " + final_ + " continues it)"
             : ""));
  // A staging directory left by a killed process is stale: nothing else writes there.
  fs::remove_all(staging_, ec);
  if (mode == Mode::kResume) {
    fs::rename(final_, staging_, ec);
    if (ec) throw UserError("cannot move '" + final_ + "' to '" + staging_ + "': " + ec.message());
    return;
  }
  fs::create_directories(staging_, ec);
  if (ec) throw UserError("cannot create output directory '" + staging_ + "': " + ec.message());
}

StagedDir::~StagedDir() {
  if (committed_) return;
  std::error_code ec;
  if (mode_ == Mode::kResume) {
    fs::rename(staging_, final_, ec);  // best effort, as below
    return;
  }
  fs::remove_all(staging_, ec);  // best effort: nothing useful to do if this fails
}

std::string StagedDir::file(const std::string& name) const {
  return staging_ + "/" + name;
}

void StagedDir::commit() {
  std::error_code ec;
  fs::remove_all(final_, ec);
  if (ec) throw UserError("cannot replace output directory '" + final_ + "': " + ec.message());
  fs::rename(staging_, final_, ec);
  if (ec) throw UserError("cannot move '" + staging_ + "' to '" + final_ + "': " + ec.message());
  committed_ = true;
}

void write_text_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.close();
    if (!out) throw UserError("cannot write '" + path + "'");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw UserError("cannot write '" + path + "': " + ec.message());
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void remove_file(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

}  // namespace trainsim
