#include "sim/io/staged_dir.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "sim/core/error.h"
#include "sim/io/output_target.h"

namespace fs = std::filesystem;

namespace trainsim {

namespace {
bool empty_dir(const std::string& d) {
  std::error_code ec;
  const auto st = fs::symlink_status(d, ec);
  return fs::is_directory(st) && fs::is_empty(d, ec) && !ec;
}
}  // namespace

StagedDir::StagedDir(std::string final_dir, Mode mode, const std::string& command,
                     const std::string& option)
    : final_(std::move(final_dir)), command_(command), option_(option), mode_(mode) {
  while (final_.size() > 1 && final_.back() == '/') final_.pop_back();
  staging_ = final_ + ".partial";
  std::error_code ec;
  const std::string where = option_ + " '" + final_ + "'";
  if (mode == Mode::kResume) {
    if (!read_manifest(final_, resumed_))
      throw UserError(command + " --resume: '" + final_ + "' has no " + kManifestName +
                      ": it was not written by this version of trainsim");
  } else {
    check_output_target(final_, command, option);
    // An empty directory holds nothing to lose: the user may have made it for the results.
    if (mode == Mode::kNew && fs::exists(final_, ec) && !empty_dir(final_))
      throw UserError(command + ": results directory '" + final_ +
                      "' exists: add --force to replace it, " + "or choose another with " + option +
                      (fs::exists(final_ + "/INCOMPLETE", ec)
                           ? " (it is incomplete: trainsim " + command + " --resume " + final_ +
                                 " continues it)"
                           : ""));
    if (mode == Mode::kReplace && fs::exists(final_, ec) && !empty_dir(final_))
      check_replaceable(final_, command, option);
  }
  lock_.lock_or_throw(final_, command, option);
  if (!staged()) return;
  // Under the lock, a staging directory with trainsim's marker is a killed process's
  // leftover (new results never published, or the old ones a replacement swapped out): what
  // trainsim wrote there goes. Anything else by that name is the user's and stays.
  if (fs::exists(fs::symlink_status(staging_, ec))) {
    if (fs::is_directory(fs::symlink_status(staging_, ec)) &&
        fs::is_regular_file(fs::path(staging_) / kStagingMarker, ec))
      remove_stale(staging_);
    if (empty_dir(staging_)) fs::remove(staging_, ec);  // holds nothing to lose
    if (fs::exists(fs::symlink_status(staging_, ec)))
      throw UserError(command + ": '" + staging_ + "' is in the way: trainsim stages " + where +
                      " there, and this one is not (all) trainsim's: move it away");
  }
  if (const fs::path parent = fs::path(staging_).parent_path(); !parent.empty())
    fs::create_directories(parent, ec);
  if (!fs::create_directory(staging_, ec) || ec)
    throw UserError("cannot create output directory '" + staging_ +
                    "': " + (ec ? ec.message() : "it appeared meanwhile"));
  try {
    write_text_file(
        (fs::path(staging_) / kStagingMarker).string(),
        "written by trainsim " + command + " (pid in " + DirLock::path_for(final_) + ")\n");
  } catch (...) {
    fs::remove_all(staging_, ec);  // created above, empty: no destructor runs for it
    throw;
  }
}

StagedDir::~StagedDir() {
  if (committed_ || !staged()) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);  // ours alone (created exclusively, under the lock)
}

std::string StagedDir::file(const std::string& name) {
  // Names come from the code and from user-given labels (variants, layers): none may leave
  // the directory.
  const fs::path p(name);
  if (name.empty() || p.is_absolute() ||
      std::any_of(p.begin(), p.end(), [](const fs::path& c) { return c == ".."; }))
    throw UserError(command_ + ": '" + name + "' cannot name a file inside " + option_ + " '" +
                    final_ + "'");
  if (!staged()) resumed_.add_file(name);
  manifest_current_ = false;
  return dir() + "/" + name;
}

std::string StagedDir::manifest_text(const Update* pending) const {
  Manifest m = resumed_;
  if (staged()) add_tree(staging_, m);
  if (pending) {
    for (const auto& w : pending->writes_) m.add_file(w.first);
    for (const std::string& r : pending->removes_) m.entries.erase(r);
  }
  return m.text();
}

void StagedDir::apply(Update& u) {
  FileSet set;
  for (auto& [name, text] : u.writes_) set.write(dir() + "/" + name, std::move(text));
  for (const std::string& name : u.removes_) set.remove(dir() + "/" + name);
  set.write(dir() + "/" + kManifestName, manifest_text(&u));
  set.commit();
  if (!staged()) {
    for (const auto& w : u.writes_) resumed_.add_file(w.first);
    for (const std::string& r : u.removes_) resumed_.entries.erase(r);
  }
  u = Update();
  manifest_current_ = true;
}

void StagedDir::commit() {
  std::error_code ec;
  // The manifest as the directory now stands (already written if the last change was an
  // apply(): nothing is written then, so that a full disk cannot stop the publication).
  Update none;
  if (!manifest_current_) apply(none);
  if (!staged()) {
    committed_ = true;
    lock_.unlock();
    return;
  }
  if (fs::exists(final_, ec) && !empty_dir(final_)) {
    // Checked again: the directory may have changed while this process ran.
    if (mode_ != Mode::kReplace)
      throw UserError(command_ + ": results directory '" + final_ +
                      "' appeared while this run was writing it");
    check_replaceable(final_, command_, option_);
    swap_in();
  } else {
    fs::remove(final_, ec);  // an empty directory, if any
    fs::rename(staging_, final_, ec);
    if (ec) throw UserError("cannot move '" + staging_ + "' to '" + final_ + "': " + ec.message());
  }
  committed_ = true;
  fs::remove(fs::path(final_) / kStagingMarker, ec);
  lock_.unlock();
}

void StagedDir::swap_in() {
  std::error_code ec;
  // The old results take the staging directory's name and its marker in one step, so that a
  // process killed at any moment leaves either the old results or the new ones at <dir>,
  // and the other set marked as a leftover that the next run on <dir> clears.
  write_text_file((fs::path(final_) / kStagingMarker).string(),
                  "replaced by trainsim " + command_ + "\n");
  if (::syscall(SYS_renameat2, AT_FDCWD, staging_.c_str(), AT_FDCWD, final_.c_str(),
                RENAME_EXCHANGE) == 0) {
    committed_ = true;  // the staging name now holds the old results: no destructor removal
    remove_stale(staging_);
    if (fs::exists(staging_, ec))
      throw UserError(command_ + ": replaced '" + final_ + "', but files trainsim did not write " +
                      "appeared in the old results meanwhile: they are in '" + staging_ + "'");
    return;
  }
  // A file system without an atomic exchange: remove the old results, then rename. A kill
  // between the two leaves <dir> absent and the new results staged (and marked).
  fs::remove(fs::path(final_) / kStagingMarker, ec);
  if (!remove_owned(final_))
    throw UserError(command_ + ": cannot replace '" + final_ +
                    "': files trainsim did not write appeared in it meanwhile");
  fs::rename(staging_, final_, ec);
  if (ec) throw UserError("cannot move '" + staging_ + "' to '" + final_ + "': " + ec.message());
}

}  // namespace trainsim
