#pragma once
// One writer per results directory. The lock is an flock(2) on <parent>/.<name>.trainsim-lock,
// which the kernel releases when its holder dies however it dies, so a killed run never
// leaves a directory locked; the file itself is removed when the lock is released normally.
#include <string>

namespace trainsim {

class DirLock {
 public:
  DirLock() = default;
  /// Locks `dir` (which need not exist; its parent is created). Returns false, holding
  /// nothing, if another process holds it; `holder` then gets the pid it wrote, if any.
  bool try_lock(const std::string& dir, std::string* holder = nullptr);
  /// Like try_lock, but retries for up to `seconds` (for a holder that is dying).
  bool lock_within(const std::string& dir, double seconds, std::string* holder = nullptr);
  /// try_lock, or a UserError: "<command>: another trainsim process (pid N) is writing
  /// <option> '<dir>': ...".
  void lock_or_throw(const std::string& dir, const std::string& command,
                     const std::string& option = "--out");
  void unlock();
  bool locked() const { return fd_ >= 0; }
  ~DirLock() { unlock(); }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

  /// The lock file's path for `dir`: beside it, in its parent as resolved (symlinks, "..",
  /// relative to the working directory), so that two spellings of one directory share it.
  static std::string path_for(const std::string& dir);
  /// Whether a process holds `dir`'s lock now. Creates and removes nothing (a probe for
  /// deciding whether a lock file or staging directory is a live writer's or a leftover).
  static bool held(const std::string& dir);

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace trainsim
