#include "sim/io/staged_dir.h"

#include <filesystem>
#include <system_error>

#include "sim/core/error.h"
#include "sim/io/output_target.h"

namespace fs = std::filesystem;

namespace trainsim {

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
    if (mode == Mode::kNew && fs::exists(final_, ec))
      throw UserError(command + ": results directory '" + final_ +
                      "' exists: add --force to replace it, " + "or choose another with " + option +
                      (fs::exists(final_ + "/INCOMPLETE", ec)
                           ? " (it is incomplete: trainsim " + command + " --resume " + final_ +
                                 " continues it)"
                           : ""));
    if (mode == Mode::kReplace && fs::exists(final_, ec))
      check_replaceable(final_, command, option);
  }
  std::string holder;
  if (!lock_.try_lock(final_, &holder))
    throw UserError(command + ": another trainsim process" +
                    (holder.empty() ? std::string() : " (pid " + holder + ")") + " is writing " +
                    where + ": wait for it, or choose another " + option);
  if (!staged()) return;
  // Under the lock, a staging directory with trainsim's marker is a killed process's
  // leftover; anything else by that name is the user's and stays.
  if (fs::exists(fs::symlink_status(staging_, ec))) {
    if (!fs::is_directory(fs::symlink_status(staging_, ec)) ||
        !fs::is_regular_file(fs::path(staging_) / kStagingMarker, ec))
      throw UserError(command + ": '" + staging_ + "' is in the way: trainsim stages " + where +
                      " there, and this one is not trainsim's: move it away");
    fs::remove_all(staging_, ec);
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
  fs::remove(fs::path(staging_) / kStagingMarker, ec);
  if (fs::exists(final_, ec)) {
    // Checked again: the directory may have changed while this process ran.
    if (mode_ != Mode::kReplace)
      throw UserError(command_ + ": results directory '" + final_ +
                      "' appeared while this run was writing it");
    check_replaceable(final_, command_, option_);
    if (!remove_owned(final_))
      throw UserError(command_ + ": cannot replace '" + final_ +
                      "': files trainsim did not write appeared in it meanwhile");
  }
  fs::rename(staging_, final_, ec);
  if (ec) throw UserError("cannot move '" + staging_ + "' to '" + final_ + "': " + ec.message());
  committed_ = true;
  lock_.unlock();
}

}  // namespace trainsim
