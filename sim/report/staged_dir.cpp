#include "sim/report/staged_dir.h"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "sim/core/error.h"

namespace fs = std::filesystem;

namespace trainsim {

StagedDir::StagedDir(std::string final_dir) : final_(std::move(final_dir)) {
  while (final_.size() > 1 && final_.back() == '/') final_.pop_back();
  staging_ = final_ + ".partial";
  std::error_code ec;
  fs::remove_all(staging_, ec);
  fs::create_directories(staging_, ec);
  if (ec) throw UserError("cannot create output directory '" + staging_ + "': " + ec.message());
}

StagedDir::~StagedDir() {
  if (committed_) return;
  std::error_code ec;
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
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw UserError("cannot write '" + path + "'");
}

}  // namespace trainsim
