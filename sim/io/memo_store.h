#pragma once
// Memoised results kept on disk between processes: the op costs of `trainsim run --memo DIR`,
// `compare --memo DIR` and a sweep's DIR/memo, which every point of the sweep (and of a
// resumed or extended one) shares. A mapping search is most of what a new design point costs
// (docs/sweeps.md); a point whose accelerator an earlier process priced finds its ops here.
//
// Layout: DIR holds one directory per writing process (DIR/w<pid>-<random>/), so no two
// processes ever write one file; in it, one append-only file per key (<hash of the key>.log)
// of checksummed records. A file names the trainsim build that wrote it and its full key:
// another build's records (the model may have changed) and a hash collision are never read.
// A record cut short by a kill, or damaged, ends what is read of its file; it never fails a
// run, which then computes the result again. Every directory carries a manifest of what
// trainsim wrote, so `--force` and cleaning remove exactly that and nothing else.
//
// What a record holds is the caller's business (sim/accel/cost_model.cpp encodes an op's key
// and its OpStats); this file stores and finds byte strings.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace trainsim {

class MemoStore {
 public:
  /// Opens memo directory `dir` (check()); it is made (create()) when first written to.
  explicit MemoStore(const std::string& dir);
  /// UserError naming `dir` unless it is a memo, an empty directory or nothing yet (a
  /// directory with anything in it but a memo's manifest, or a file, is not).
  static void check(const std::string& dir);
  /// check(), then makes `dir` (and its parents) a memo directory if it is not one yet.
  static void create(const std::string& dir);
  const std::string& dir() const { return dir_; }
  /// How far a reader has read each file: its path and the offset after its last record read.
  using ReadTo = std::map<std::string, std::uint64_t>;
  /// Every complete record stored under `key` by this build, from every writer's file (this
  /// process's own included), in no particular order. With `read_to`, only what was appended
  /// since the reads it records, which it then advances.
  std::vector<std::string> load(const std::string& key, ReadTo* read_to = nullptr) const;
  /// Appends `record` under `key` to this process's file for it (created on first use): kept
  /// in memory until flush() (or until a few MB are waiting), so that a run writes its new
  /// records in one write per key rather than one per record.
  void append(const std::string& key, const std::string& record);
  /// Writes what append() keeps; UserError if it cannot (the records stay unwritten).
  void flush();

 private:
  static constexpr std::size_t kFlushBytes = 4 << 20;
  std::string own_file(const std::string& key);  // this process's file for `key`
  void write_pending();
  std::map<std::string, std::string> pending_;  // per key: records not written yet
  std::size_t pending_bytes_ = 0;
  std::string dir_;
  std::string writer_;              // this process's directory name; empty until created
  std::vector<std::string> files_;  // the files in it (its manifest)
  std::mutex mutex_;
};

/// While one lives, memoised results of this process are persisted to and loaded from
/// `dir`'s memo (the cost model's, CostModel); its end writes what was appended (a failure to
/// is a warning on stderr: the memo is a cache). Scopes do not nest. UserError as
/// MemoStore's.
class MemoScope {
 public:
  explicit MemoScope(const std::string& dir);
  ~MemoScope();
  MemoScope(const MemoScope&) = delete;
  MemoScope& operator=(const MemoScope&) = delete;
};

/// The store of the open scope, or nullptr.
MemoStore* active_memo();
/// The open scope's number, new for every scope: what a cache read from the store is tagged
/// with, so that it reads again (what other processes added since) in the next scope.
std::uint64_t active_memo_generation();

/// The running build's identity: its GNU build id, or a hash of the executable's bytes when
/// it has none. Records are only read by the build that wrote them.
const std::string& build_identity();

}  // namespace trainsim
