#include "sim/io/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "sim/core/error.h"
#include "sim/io/manifest.h"

namespace fs = std::filesystem;

namespace trainsim {

std::string DirLock::path_for(const std::string& dir) {
  fs::path p = fs::path(dir).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();  // "a/b/" names b
  std::error_code ec;
  fs::path parent = fs::weakly_canonical(fs::absolute(p, ec).parent_path(), ec);
  if (ec) parent = p.parent_path();  // unresolvable: the lock is then only as good as spelling
  return (parent / ("." + p.filename().string() + kLockSuffix)).string();
}

bool DirLock::held(const std::string& dir) {
  const std::string path = path_for(dir);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;  // a writer keeps its lock file while it writes
  const bool busy = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases the shared lock, if taken
  return busy;
}

void DirLock::lock_or_throw(const std::string& dir, const std::string& command,
                            const std::string& option) {
  std::string holder;
  if (!try_lock(dir, &holder))
    throw UserError(command + ": another trainsim process" +
                    (holder.empty() ? std::string() : " (pid " + holder + ")") + " is writing " +
                    option + " '" + dir + "': wait for it, or choose another " + option);
}

bool DirLock::try_lock(const std::string& dir, std::string* holder) {
  unlock();
  const std::string path = path_for(dir);
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) throw UserError("cannot create '" + parent.string() + "': " + ec.message());
  // The file may be unlinked by its previous holder between our open and our flock: the lock
  // counts only if the path still names the inode we locked.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      throw UserError("cannot create the lock file '" + path + "': " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (holder) {
        char buf[32] = {};
        const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
        *holder = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
        while (!holder->empty() && holder->back() == '\n') holder->pop_back();
      }
      ::close(fd);
      return false;
    }
    struct stat by_fd {
    }, by_path{};
    if (::fstat(fd, &by_fd) == 0 && ::stat(path.c_str(), &by_path) == 0 &&
        by_fd.st_ino == by_path.st_ino && by_fd.st_dev == by_path.st_dev) {
      const std::string pid = std::to_string(::getpid()) + "\n";
      if (::ftruncate(fd, 0) == 0 && ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
        // The pid is only for messages; the lock holds without it.
      }
      fd_ = fd;
      path_ = path;
      return true;
    }
    ::close(fd);
  }
  throw UserError("cannot lock '" + path + "': it keeps being replaced");
}

bool DirLock::lock_within(const std::string& dir, double seconds, std::string* holder) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!try_lock(dir, holder)) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

void DirLock::unlock() {
  if (fd_ < 0) return;
  // Unlinked while still locked, so no other process can lock the old file after we go.
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
  path_.clear();
}

}  // namespace trainsim
