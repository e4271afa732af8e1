#include "sim/sweep/row_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sim/core/error.h"

namespace trainsim {

// One point's row. State 0 marks a point that has not finished: the file starts as a hole
// of zeros, so a sweep's store costs disk only for the points that ran.
struct RowStore::Record {
  std::uint8_t state;  ///< 0 none, 1 done, 2 failed
  std::uint8_t has_cycles, has_accuracy;
  std::uint8_t unit;  ///< index into units_
  std::uint32_t error_size;
  std::uint64_t error_at;
  double seconds, cycles, energy, dram_bytes, utilization, accuracy;
};

namespace {

// An unnamed file in `dir` (Linux's O_TMPFILE), or else in the system's temporary directory.
int unnamed_file(const std::string& dir) {
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::FILE* f = std::tmpfile();
  if (!f)
    throw UserError("sweep: cannot create a temporary file: " + std::string(std::strerror(errno)));
  const int fd2 = ::dup(::fileno(f));
  std::fclose(f);
  if (fd2 < 0)
    throw UserError("sweep: cannot create a temporary file: " + std::string(std::strerror(errno)));
  ::fcntl(fd2, F_SETFD, FD_CLOEXEC);
  return fd2;
}

void write_at(int fd, const void* data, std::size_t n, std::uint64_t at) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      throw UserError("sweep: cannot write its table's temporary file: " +
                      std::string(std::strerror(w < 0 ? errno : ENOSPC)));
    p += w;
    n -= static_cast<std::size_t>(w);
    at += static_cast<std::uint64_t>(w);
  }
}

// Reads up to n bytes at `at`; returns how many (fewer only at the end of the file).
std::size_t read_at(int fd, void* data, std::size_t n, std::uint64_t at) {
  char* p = static_cast<char*>(data);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, p + got, n - got, static_cast<off_t>(at + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0)
      throw UserError("sweep: cannot read its table's temporary file: " +
                      std::string(std::strerror(errno)));
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

}  // namespace

RowStore::RowStore(const std::string& dir, std::size_t points) : size_(points) {
  rows_fd_ = unnamed_file(dir);
  try {
    errors_fd_ = unnamed_file(dir);
  } catch (...) {
    ::close(rows_fd_);
    throw;
  }
}

RowStore::~RowStore() {
  ::close(rows_fd_);
  ::close(errors_fd_);
}

void RowStore::put(std::size_t k, const SweepRow& row) {
  Record r;
  std::memset(&r, 0, sizeof r);  // padding included: the bytes go to a file
  r.state = row.done ? 1 : 2;
  if (row.done) {
    const PointResult& p = row.result;
    auto u = std::find(units_.begin(), units_.end(), p.energy_unit);
    if (u == units_.end()) {
      if (units_.size() == 255) throw UserError("sweep: more than 255 energy units in one table");
      units_.push_back(p.energy_unit);
      u = units_.end() - 1;
    }
    r.unit = static_cast<std::uint8_t>(u - units_.begin());
    r.seconds = p.seconds;
    r.has_cycles = p.cycles.has_value();
    r.cycles = p.cycles.value_or(0);
    r.energy = p.energy;
    r.dram_bytes = p.dram_bytes;
    r.utilization = p.utilization;
    r.has_accuracy = p.test_accuracy.has_value();
    r.accuracy = p.test_accuracy.value_or(0);
  } else {
    r.error_at = errors_end_;
    r.error_size = static_cast<std::uint32_t>(std::min<std::size_t>(row.error.size(), 1u << 20));
    write_at(errors_fd_, row.error.data(), r.error_size, errors_end_);
    errors_end_ += r.error_size;
  }
  // A point is put once per run of the sweep (finished before, or finished now).
  Record old;
  std::memset(&old, 0, sizeof old);  // past the end of the file: not finished
  read_at(rows_fd_, &old, sizeof old, static_cast<std::uint64_t>(k) * sizeof(Record));
  write_at(rows_fd_, &r, sizeof r, static_cast<std::uint64_t>(k) * sizeof(Record));
  if (old.state == 0) ++finished_;
  if (old.state == 2) --failed_;
  if (r.state == 2) ++failed_;
}

void RowStore::scan(const std::function<void(std::size_t, const SweepRow&)>& fn) const {
  constexpr std::size_t kBlock = 4096;
  std::vector<Record> block(kBlock);
  SweepRow row;
  for (std::size_t first = 0; first < size_; first += kBlock) {
    const std::size_t want = std::min(kBlock, size_ - first);
    const std::size_t got = read_at(rows_fd_, block.data(), want * sizeof(Record),
                                    static_cast<std::uint64_t>(first) * sizeof(Record)) /
                            sizeof(Record);
    for (std::size_t i = 0; i < got; ++i) {
      const Record& r = block[i];
      if (r.state == 0) continue;
      row.done = r.state == 1;
      row.result = PointResult{};
      row.error.clear();
      if (row.done) {
        row.result.seconds = r.seconds;
        if (r.has_cycles) row.result.cycles = r.cycles;
        row.result.energy = r.energy;
        row.result.energy_unit = units_[r.unit];
        row.result.dram_bytes = r.dram_bytes;
        row.result.utilization = r.utilization;
        if (r.has_accuracy) row.result.test_accuracy = r.accuracy;
      } else {
        row.error.resize(r.error_size);
        row.error.resize(read_at(errors_fd_, row.error.data(), r.error_size, r.error_at));
      }
      fn(first + i, row);
    }
    if (got < want) break;  // the rest of the file is still a hole: nothing finished there
  }
}

}  // namespace trainsim
