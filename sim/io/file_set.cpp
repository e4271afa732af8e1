#include "sim/io/file_set.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "sim/core/error.h"

namespace fs = std::filesystem;

namespace trainsim {

namespace {

std::string tmp_of(const std::string& path) {
  return path + ".tmp";
}

// Test hook: TRAINSIM_TEST_DISK_BYTES=N makes the process's writes fail with ENOSPC once they
// total more than N bytes, as a full disk would (tests cannot always mount a small tmpfs).
bool disk_full_after(std::size_t bytes) {
  static const long long budget = [] {
    const char* v = std::getenv("TRAINSIM_TEST_DISK_BYTES");
    return v ? std::atoll(v) : -1LL;
  }();
  static long long used = 0;
  if (budget < 0) return false;
  used += static_cast<long long>(bytes);
  return used > budget;
}

// `path` opened for writing from scratch; UserError naming `shown` if it cannot be.
std::FILE* open_for_writing(const std::string& path, const std::string& shown) {
  // Never through a symbolic link: a link planted under a temporary's name would otherwise
  // make trainsim write wherever it points.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  std::FILE* f = fd < 0 ? nullptr : ::fdopen(fd, "wb");
  if (!f) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    throw UserError("cannot write '" + shown + "': " + std::strerror(e));
  }
  return f;
}

// Writes `bytes` to `path` whole; on failure removes what it wrote and throws.
void write_whole(const std::string& path, const std::string& shown, const std::string& bytes) {
  std::FILE* f = open_for_writing(path, shown);
  const bool full = disk_full_after(bytes.size());
  const bool wrote = !full && std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  int err = full ? ENOSPC : wrote ? 0 : errno;
  if (std::fflush(f) != 0 && err == 0) err = errno;
  if (std::fclose(f) != 0 && err == 0) err = errno;
  if (!wrote && err == 0) err = EIO;
  if (err != 0) {
    std::remove(path.c_str());
    throw UserError("cannot write '" + shown + "': " + std::strerror(err));
  }
}

}  // namespace

void FileSet::write(std::string path, std::string bytes) {
  writes_.emplace_back(std::move(path), std::move(bytes));
}

void FileSet::remove(std::string path) {
  removes_.push_back(std::move(path));
}

void FileSet::commit() {
  std::size_t written = 0;
  try {
    for (; written < writes_.size(); ++written)
      write_whole(tmp_of(writes_[written].first), writes_[written].first, writes_[written].second);
  } catch (...) {
    for (std::size_t i = 0; i < written; ++i) std::remove(tmp_of(writes_[i].first).c_str());
    throw;
  }
  for (const auto& [path, bytes] : writes_) {
    std::error_code ec;
    fs::rename(tmp_of(path), path, ec);
    if (ec) throw UserError("cannot write '" + path + "': " + ec.message());
  }
  for (const std::string& path : removes_) remove_file(path);
  writes_.clear();
  removes_.clear();
}

StreamedFile::StreamedFile(std::string path) : path_(std::move(path)) {
  file_ = open_for_writing(tmp_of(path_), path_);
}

StreamedFile::~StreamedFile() {
  if (file_) {
    std::fclose(file_);
    std::remove(tmp_of(path_).c_str());
  }
}

void StreamedFile::fail(int err) {
  std::fclose(file_);
  file_ = nullptr;
  std::remove(tmp_of(path_).c_str());
  throw UserError("cannot write '" + path_ + "': " + std::strerror(err));
}

void StreamedFile::append(const std::string& bytes) {
  if (!file_) throw std::logic_error("StreamedFile::append after commit");
  if (disk_full_after(bytes.size())) fail(ENOSPC);
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) fail(errno ? errno : EIO);
}

void StreamedFile::commit() {
  if (!file_) throw std::logic_error("StreamedFile::commit twice");
  if (std::fflush(file_) != 0) fail(errno);
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (closed != 0) {
    const int e = errno;
    std::remove(tmp_of(path_).c_str());
    throw UserError("cannot write '" + path_ + "': " + std::strerror(e));
  }
  std::error_code ec;
  fs::rename(tmp_of(path_), path_, ec);
  if (ec) {
    std::remove(tmp_of(path_).c_str());
    throw UserError("cannot write '" + path_ + "': " + ec.message());
  }
}

void write_text_file(const std::string& path, const std::string& text) {
  FileSet one;
  one.write(path, text);
  one.commit();
}

bool read_file_bytes(const std::string& path, std::uint64_t from, std::string& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  // Reserved to the size at the open and read in blocks straight into the string, without a
  // stream's copies (rdbuf into a string stream, or a character at a time through an
  // istreambuf_iterator): those were 6% of the CPU samples of a sweep whose points all read their
  // op costs from the memo, and some of every page's rendering (docs/sweeps.md).
  struct stat st {};
  if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) > from)
    out.reserve(out.size() +
                static_cast<std::size_t>(static_cast<std::uint64_t>(st.st_size) - from));
  // Sequential reads after one seek, not pread: a pipe (`<(...)`, /dev/stdin) cannot be read
  // at an offset, and its whole text (from 0) is read as a file's is.
  bool ok = from == 0 || ::lseek(fd, static_cast<off_t>(from), SEEK_SET) >= 0;
  char block[65536];
  while (ok) {
    const ssize_t n = ::read(fd, block, sizeof block);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ok = false;
    if (n <= 0) break;
    out.append(block, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return ok;
}

std::string read_text_file(const std::string& path) {
  std::string text;
  if (!read_file_bytes(path, 0, text)) throw UserError("cannot read '" + path + "'");
  return text;
}

void remove_file(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

}  // namespace trainsim
