#include "sim/sweep/sweep_run.h"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <sstream>

#include "sim/core/error.h"
#include "sim/io/dir_lock.h"
#include "sim/io/file_set.h"

namespace fs = std::filesystem;

namespace trainsim {

namespace {

// How long a resumed sweep waits for a point's old worker to die.
constexpr double kOrphanWaitSeconds = 10;

// The first line of a failed point's stderr that says what went wrong.
std::string error_of(const std::string& err, int exit_code) {
  std::istringstream in(err);
  std::string line, last, error;
  while (std::getline(in, line)) {
    if (line.rfind("trainsim: error: ", 0) == 0 && error.empty()) error = line.substr(17);
    if (!line.empty()) last = line;
  }
  if (!error.empty()) return error;
  if (!last.empty()) return last;
  return exit_code < 0 ? "killed by a signal" : "exit code " + std::to_string(exit_code);
}

}  // namespace

void Pending::mark_finished(std::size_t k) {
  if (finished_[k]) return;
  finished_[k] = true;
  --untaken_;
  ++marked_;
}

bool Pending::take(std::size_t& k, std::size_t lane) {
  if (lane >= runs_.size()) runs_.resize(lane + 1);
  Run& run = runs_[lane];
  for (;;) {
    while (run.next < run.end && finished_[run.next]) ++run.next;
    if (run.next < run.end) {
      k = run.next++;
      finished_[k] = true;
      --untaken_;
      return true;
    }
    if (untaken_ == 0) return false;
    while (cursor_ < finished_.size() && finished_[cursor_]) ++cursor_;
    if (cursor_ < finished_.size()) {
      // A new run: a quarter of this lane's share of what is left, to the end of a group.
      const std::size_t size = std::max<std::size_t>(1, untaken_ / (4 * runs_.size()));
      const std::size_t end = (cursor_ + size + group_ - 1) / group_ * group_;
      run = {cursor_, std::min(finished_.size(), end)};
      cursor_ = run.end;
      continue;
    }
    // No new run: half of the longest one left (its lane keeps the first half).
    Run* longest = nullptr;
    for (Run& r : runs_)
      if (r.end > r.next && (!longest || r.end - r.next > longest->end - longest->next))
        longest = &r;
    if (!longest) return false;
    std::size_t mid = longest->next + (longest->end - longest->next + 1) / 2;
    // At the group boundary nearest the middle (else the other one beside it), if one falls
    // strictly inside the run.
    const std::size_t below = mid / group_ * group_, above = below + group_;
    const bool below_nearer = mid - below <= above - mid;
    for (const std::size_t b : {below_nearer ? below : above, below_nearer ? above : below})
      if (b > longest->next && b < longest->end) {
        mid = b;
        break;
      }
    run = {mid, longest->end};
    longest->end = mid;
    if (run.next >= run.end) std::swap(run, *longest);  // a run of one: take it whole
  }
}

void Pending::drop() {
  cursor_ = finished_.size();
  untaken_ = 0;
  runs_.clear();
}

std::vector<std::string> point_command(const SweepSpec& spec, const SweepPoint& p,
                                       const std::string& dir, const PointRun& how) {
  const fs::path pd = fs::path(dir) / "points" / p.id;
  fs::create_directories(pd);
  // The point's directory vouches for its own files (sim/io/manifest.h), so the sweep's
  // manifest stays a few lines however many points there are.
  Manifest own;
  for (const char* f : {"stderr.txt", "result.json", "error.txt"}) own.add_file(f);
  write_text_file((pd / kManifestName).string(), own.text());
  std::vector<std::string> argv = {
      "run",   spec.experiment,       "--quiet",   "--force",
      "--out", (pd / "run").string(), "--summary", (pd / "result.json").string()};
  if (!how.report) argv.push_back("--no-report");
  if (!how.memo.empty()) {
    argv.push_back("--memo");
    argv.push_back(how.memo);
  }
  for (const std::string& o : p.overrides(spec)) {
    argv.push_back("--set");
    argv.push_back(o);
  }
  return argv;
}

std::vector<std::string> worker_command(const std::string& exe) {
  return {exe, "sweep", "--point-worker"};
}

std::string point_stderr(const SweepPoint& p, const std::string& dir) {
  return (fs::path(dir) / "points" / p.id / "stderr.txt").string();
}

SweepRow finish_point(const SweepPoint& p, const std::string& dir, int exit_code) {
  const fs::path pd = fs::path(dir) / "points" / p.id;
  std::string error;
  if (exit_code == 0) {
    // A damaged result is this point's failure, not the sweep's: a throw here would stop the
    // other points (and, under MPI, leave the other ranks waiting for this one's row).
    try {
      if (auto r = read_point_result((pd / "result.json").string())) return {p, true, *r, ""};
    } catch (const UserError& e) {
      error = e.what();
    }
  }
  if (error.empty()) error = error_of(read_text_file((pd / "stderr.txt").string()), exit_code);
  write_text_file((pd / "error.txt").string(), error + "\n");
  return {p, false, {}, error};
}

Manifest sweep_manifest() {
  Manifest m;
  m.add_file("sweep.json");
  m.add_file("sweep.csv");
  m.add_file("report.html");
  m.add_dir("points");
  return m;
}

void clear_point(const std::string& dir, const SweepPoint& p) {
  const fs::path pd = fs::path(dir) / "points" / p.id;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(pd, ec))) return;  // never started
  DirLock worker;
  std::string holder;
  const std::string run = (fs::path(dir) / "points" / p.id / "run").string();
  if (!worker.lock_within(run, kOrphanWaitSeconds, &holder))
    throw UserError("sweep: point " + p.id + " of " + dir + " is still being written by " +
                    (holder.empty() ? std::string("another process") : "process " + holder) +
                    ": wait for it to end");
  worker.unlock();
  // A point directory vouches for its files; one of a sweep directory written before that
  // is vouched for by the sweep's manifest.
  Manifest own;
  if (read_manifest(pd.string(), own))
    remove_owned(pd.string());
  else
    remove_owned_entry(dir, "points/" + p.id + "/");
  // A directory created a moment before its manifest (a sweep killed in between) is empty.
  if (fs::is_directory(fs::symlink_status(pd, ec)) && fs::is_empty(pd, ec)) fs::remove(pd, ec);
}

std::string encode_row(const SweepRow& r) {
  return r.done ? "done\n" + point_result_json(r.result) : "failed\n" + r.error;
}

SweepRow decode_row(const std::string& text, const SweepPoint& p) {
  const std::size_t nl = text.find('\n');
  const std::string head = text.substr(0, nl),
                    body = nl == std::string::npos ? "" : text.substr(nl + 1);
  if (head == "done") {
    if (auto r = parse_point_result(body)) return {p, true, *r, ""};
    return {p, false, {}, "unreadable result"};
  }
  return {p, false, {}, body};
}

}  // namespace trainsim
