#pragma once
// A results directory: written in one place, published in one rename, never mixed with what
// the user has. Files go into "<dir>.partial" (with a marker saying a trainsim process owns
// it); commit() writes the manifest of what was written (sim/io/manifest.h) and renames the
// staging directory to <dir>. Until then an existing <dir> is untouched; if the process fails
// before committing, the destructor removes the staging directory. One process at a time
// writes a given <dir> (sim/io/dir_lock.h). A resumed run writes its directory in place,
// one consistent set of files per epoch (apply()).
// Replacing (--force) swaps the new directory in with one atomic exchange; the old results
// then sit, marked, in "<dir>.partial" until they are removed. On file systems without the
// exchange the old results are removed first, and a kill in between leaves <dir> absent with
// the new results, complete and marked, in "<dir>.partial" (the next run clears them).
#include <string>
#include <utility>
#include <vector>

#include "sim/io/dir_lock.h"
#include "sim/io/file_set.h"
#include "sim/io/manifest.h"

namespace trainsim {

class StagedDir {
 public:
  enum class Mode {
    kNew,      ///< <dir> must not exist yet (UserError naming --force)
    kReplace,  ///< an existing <dir> of trainsim's only is replaced at commit (--force)
    kResume,   ///< <dir> exists, is trainsim's, and is written in place
  };
  /// `command` names the command in errors; `option` the option that named the directory.
  StagedDir(std::string final_dir, Mode mode, const std::string& command,
            const std::string& option = "--out");
  /// Not committed: removes the staging directory (a resumed directory stays as it was
  /// after its last apply()).
  ~StagedDir();
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  /// Path of a file (or nested results directory) inside the directory being written.
  std::string file(const std::string& name);
  /// The directory being written (the staging directory, until commit).
  std::string path() {
    manifest_current_ = false;
    return dir();
  }

  /// Changes made together with the manifest, all or nothing (sim/io/file_set.h).
  class Update {
   public:
    void write(const std::string& name, std::string text) {
      writes_.emplace_back(name, std::move(text));
    }
    void remove(const std::string& name) { removes_.push_back(name); }

   private:
    friend class StagedDir;
    std::vector<std::pair<std::string, std::string>> writes_;
    std::vector<std::string> removes_;
  };
  void apply(Update& u);

  /// Publishes the directory (replacing what is there, if trainsim's).
  void commit();
  bool committed() const { return committed_; }
  const std::string& final_dir() const { return final_; }

 private:
  std::string manifest_text(const Update* pending) const;
  void swap_in();
  bool staged() const { return mode_ != Mode::kResume; }
  std::string dir() const { return staged() ? staging_ : final_; }

  std::string final_, staging_, command_, option_;
  Mode mode_;
  DirLock lock_;
  Manifest resumed_;  // kResume: what the directory holds, kept current by apply()
  bool committed_ = false;
  bool manifest_current_ = false;  // no file() since the last apply()
};

}  // namespace trainsim
