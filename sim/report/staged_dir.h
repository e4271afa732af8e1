#pragma once
// A results directory written in one place and published in one rename. Files go into
// "<dir>.partial"; commit() renames it to <dir>. Until then an existing <dir> is untouched,
// and if the process fails before committing, the destructor removes the partial directory.
// Runs that fail after completing epochs commit anyway, marked incomplete (see
// experiment_runner.h), so nothing a long run finished is lost.
#include <string>

namespace trainsim {

class StagedDir {
 public:
  enum class Mode {
    kNew,      ///< <dir> must not exist yet (UserError naming --force)
    kReplace,  ///< an existing <dir> is replaced at commit (--force)
    kResume,   ///< <dir> exists: it is moved to the staging path now, back at commit
  };
  /// `command` names the command in the error for an existing directory.
  StagedDir(std::string final_dir, Mode mode, const std::string& command);
  /// Not committed: removes the partial directory, except when resuming, where it holds
  /// the earlier run and goes back to <dir>.
  ~StagedDir();
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  /// Path of a file inside the staging directory.
  std::string file(const std::string& name) const;
  /// Moves the staging directory to its final place (replacing what is there).
  void commit();
  bool committed() const { return committed_; }
  const std::string& final_dir() const { return final_; }

 private:
  std::string final_, staging_;
  Mode mode_;
  bool committed_ = false;
};

/// Writes `text` to `path` through a temporary file renamed over it, so a file is either its
/// old or its new content; UserError if it cannot.
void write_text_file(const std::string& path, const std::string& text);
/// The content of `path`; UserError if it cannot be read.
std::string read_text_file(const std::string& path);
/// Removes `path` if it exists.
void remove_file(const std::string& path);

}  // namespace trainsim
