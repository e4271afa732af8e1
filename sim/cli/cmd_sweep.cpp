// `trainsim sweep`: a design-space sweep (sim/sweep/sweep_spec.h). Every point is one
// `trainsim run` of the base experiment with the point's --set overrides, run by a worker
// process that runs point after point (sim/sweep/worker_pool.h) into DIR/points/<id>/run, reporting
// its headline figures into DIR/points/<id>/result.json (or its error into
// DIR/points/<id>/error.txt). DIR/sweep.csv is rewritten (whole, by a rename) at most a second
// after a point finishes, so it is always consistent. Running the same sweep again skips finished
// points and redoes unfinished ones; Ctrl-C stops starting points and lets the running ones
// finish (a second Ctrl-C stops them too). --shard I/N runs every N-th point; --merge joins
// shard directories.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "sim/cli/arg_parse.h"
#include "sim/cli/commands.h"
#include "sim/cli/dispatch.h"
#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/core/interrupt.h"
#include "sim/core/terminal_lines.h"
#include "sim/io/checksum.h"
#include "sim/io/dir_lock.h"
#include "sim/io/manifest.h"
#include "sim/io/memo_store.h"
#include "sim/io/output_target.h"
#include "sim/io/staged_dir.h"
#include "sim/report/html/report.h"
#include "sim/run/experiment_file.h"
#include "sim/run/progress_bar.h"
#include "sim/sweep/child_processes.h"
#include "sim/sweep/mpi_sweep.h"
#include "sim/sweep/point_worker.h"
#include "sim/sweep/row_store.h"
#include "sim/sweep/sweep_run.h"
#include "sim/sweep/sweep_table.h"
#include "sim/sweep/worker_pool.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace trainsim {

namespace {

constexpr char kStateFile[] = "sweep.json";
constexpr int kStateFormat = 2;  // 2: with a checksum

struct Shard {
  int index = 0, count = 1;
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

Shard parse_shard(const std::string& text) {
  Shard s;
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> s.index >> slash >> s.count) || slash != '/' || !in.eof() || s.count < 1 ||
      s.count > 100000 || s.index < 0 || s.index >= s.count)
    throw UserError("sweep: --shard takes I/N with 0 <= I < N, e.g. 0/4 (got '" + text + "')");
  return s;
}

// What a results directory remembers of its sweep: the file, its text and the shard.
nlohmann::ordered_json state_of(const SweepSpec& spec, const Shard& shard) {
  nlohmann::ordered_json j;
  j["sweep"] = fs::absolute(spec.source).lexically_normal().string();
  j["text"] = spec.text;
  j["shard"] = shard.text();
  return j;
}

// The row of a finished point whose files are in `pd` (result.json or error.txt), if any.
std::optional<SweepRow> finished_row(const SweepPoint& p, const fs::path& pd) {
  if (auto r = read_point_result((pd / "result.json").string())) return SweepRow{p, true, *r, ""};
  if (!fs::exists(pd / "error.txt")) return std::nullopt;
  std::string e = read_text_file((pd / "error.txt").string());
  while (!e.empty() && e.back() == '\n') e.pop_back();
  return SweepRow{p, false, {}, e};
}

TableCounts write_table(const SweepSpec& spec, const PointList& points, const RowStore& rows,
                        const fs::path& dir) {
  // Written beside and renamed over: a reader never sees half a table.
  return write_sweep_table(spec, points, rows, (dir / "sweep.csv").string());
}

// The experiment with each point's overrides must load: a key that no point can set is an
// error of the sweep, found before anything runs.
void check_points(const SweepSpec& spec) {
  // One load with every axis at its first value shows at once that each key takes a value
  // (a load is a few milliseconds, and this one runs before the first point can start, the
  // workers idle); only if it fails is each key tried alone, for the error that names it.
  // (load_sweep refuses an axis without values.)
  std::vector<std::string> first = spec.set;
  for (const SweepAxis& axis : spec.axes)
    for (std::size_t k = 0; k < axis.keys.size(); ++k)
      first.push_back(axis.keys[k] + "=" + axis.values.front()[k]);
  try {
    load_experiment(spec.experiment, first);
    return;
  } catch (const UserError&) {
  }
  for (const SweepAxis& axis : spec.axes)
    for (std::size_t k = 0; k < axis.keys.size(); ++k) {
      bool any = false;
      std::string first_error;
      for (const auto& values : axis.values) {
        std::vector<std::string> o = spec.set;
        o.push_back(axis.keys[k] + "=" + values[k]);
        try {
          load_experiment(spec.experiment, o);
          any = true;
          break;
        } catch (const UserError& e) {
          if (first_error.empty()) first_error = e.what();
        }
      }
      if (!any)
        throw UserError("sweep " + spec.source + ": axis '" + axis.keys[k] +
                        "' fails for every value: " + first_error);
    }
}

// sweep.json of a results directory, or a UserError naming it (damaged, or not a sweep's).
nlohmann::json read_state(const fs::path& file) {
  const nlohmann::json j =
      parse_checked_json(read_text_file(file.string()), kStateFormat, file.string());
  try {
    j.at("sweep").get<std::string>();
    j.at("text").get<std::string>();
    j.at("shard").get<std::string>();
    return j;
  } catch (const nlohmann::json::exception&) {
    throw UserError(file.string() + ": not a sweep's state file");
  }
}

// Whether a sweep directory's state is `state` (the same sweep file, text and shard).
bool same_sweep(const nlohmann::json& on_disk, const nlohmann::ordered_json& state) {
  for (const char* k : {"sweep", "text", "shard"})
    if (on_disk.at(k).get<std::string>() != state.at(k).get<std::string>()) return false;
  return true;
}

// The own pages of the points a reader opens from the sweep's page first (the front's and the
// baseline's: TableCounts::featured), for a sweep whose points wrote none as they ran
// (--point-reports front). A page already there (an earlier run's) stays; `trainsim report
// DIR/points/ID/run` writes any other point's. A page that cannot be written is a warning,
// not the sweep's failure: every point's figures are in the table either way.
// Each page reads and writes its own point's directory only, and rendering one takes a few
// milliseconds that a fast sweep's end would spend one page after another (35 ms of the
// 60-point sweep's 0.7 s at -j 2, with the workers idle): they are rendered on up to `threads`
// threads, and the warnings printed in the front's order whatever the threads' timing.
// `meanwhile`, if given, runs on this thread while the pages are rendered on the others.
void write_featured_reports(const fs::path& dir, const TableCounts& counts, int threads,
                            const std::function<void()>& meanwhile = {}) {
  std::vector<std::string> todo;
  for (const std::string& id : counts.featured) {
    const fs::path run = dir / "points" / id / "run";
    std::error_code ec;
    if (fs::is_directory(run, ec) && !fs::exists(run / "report.html", ec)) todo.push_back(id);
  }
  std::vector<std::string> warnings(todo.size());
  std::vector<std::exception_ptr> failures(todo.size());  // not UserErrors: rethrown below
  std::atomic<std::size_t> next{0};
  auto render = [&] {
    for (std::size_t i; (i = next++) < todo.size();) {
      try {
        StagedDir out((dir / "points" / todo[i] / "run").string(), StagedDir::Mode::kResume,
                      "sweep");
        add_report(out);
      } catch (const UserError& e) {
        warnings[i] = e.what();
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  const std::size_t n = std::min(todo.size(), static_cast<std::size_t>(std::max(1, threads)));
  for (std::size_t t = meanwhile ? 0 : 1; t < n; ++t) helpers.emplace_back(render);
  std::exception_ptr meanwhile_failed;  // thrown once the helpers are joined
  try {
    if (meanwhile) meanwhile();
  } catch (...) {
    meanwhile_failed = std::current_exception();
  }
  render();  // what the helpers have not taken (everything, if there are none)
  for (std::thread& t : helpers) t.join();
  if (meanwhile_failed) std::rethrow_exception(meanwhile_failed);
  for (std::size_t i = 0; i < todo.size(); ++i) {
    if (failures[i]) std::rethrow_exception(failures[i]);
    if (!warnings[i].empty())
      std::fprintf(stderr, "sweep: no report.html for point %s: %s\n", todo[i].c_str(),
                   warnings[i].c_str());
  }
}

int merge(const std::vector<std::string>& dirs, const std::string& out_arg, bool force, bool report,
          bool featured_reports) {
  if (out_arg.empty()) throw UserError("sweep --merge: give the merged directory with --out DIR");
  if (dirs.empty()) throw UserError("sweep --merge: give the shard directories to merge");
  std::string source, text;
  for (const std::string& d : dirs) {
    note_input_path(d);  // the merged directory may be none of them, nor hold one
    const fs::path state = fs::path(d) / kStateFile;
    if (!fs::exists(state)) throw UserError("sweep --merge: " + d + " is not a sweep directory");
    const nlohmann::json j = read_state(state);
    if (source.empty()) {
      source = j.at("sweep").get<std::string>();
      text = j.at("text").get<std::string>();
    } else if (j.at("text").get<std::string>() != text) {
      throw UserError("sweep --merge: " + d + " holds another sweep than " + dirs.front());
    }
  }
  const SweepSpec spec = load_sweep(source);
  if (spec.text != text)
    throw UserError("sweep --merge: " + source + " changed since the shards ran");
  const PointList points(spec);
  StagedDir out(out_arg, force ? StagedDir::Mode::kReplace : StagedDir::Mode::kNew,
                "sweep --merge");
  const fs::path staging = out.path();
  fs::create_directories(staging / "points");
  RowStore rows(staging.string(), points.size());
  for (std::size_t k = 0; k < points.size(); ++k) {
    const SweepPoint p = points.at(k);
    for (const std::string& d : dirs) {
      const fs::path from = fs::path(d) / "points" / p.id;
      if (auto r = finished_row(p, from)) {
        rows.put(k, *r);
        // Links are copied as links: a shard's symlink must not pull in what it points at.
        std::error_code ec;
        fs::copy(from, staging / "points" / p.id,
                 fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
        if (ec)
          throw UserError("sweep --merge: cannot copy '" + from.string() + "': " + ec.message());
        break;
      }
    }
  }
  write_text_file((staging / kStateFile).string(),
                  checked_json_text(state_of(spec, Shard{}), kStateFormat));
  const TableCounts counts = write_table(spec, points, rows, staging);
  if (featured_reports)
    write_featured_reports(staging, counts,
                           static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  if (report) add_report(out);
  out.commit();
  std::printf("sweep: merged %zu of %zu points from %zu directories into %s/\n", rows.finished(),
              points.size(), dirs.size(), out.final_dir().c_str());
  return rows.finished() == points.size() ? 0 : 1;
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("out,o", po::value<std::string>()->value_name("DIR"),
                     "results directory (default runs/<sweep file name>)")(
      "jobs,j", po::value<int>()->value_name("N"),
      "points to run at once (default: the number of cores)")(
      "force,f", "start over: replace DIR even if it holds another sweep")(
      "shard", po::value<std::string>()->value_name("I/N"),
      "run only points I, I+N, I+2N, ... (for job arrays; join with --merge)")(
      "merge", po::value<std::vector<std::string>>()->multitoken()->value_name("DIR..."),
      "join the shard directories DIR... into --out DIR")(
      "mpi",
      "under mpirun: rank 0 hands the points out to every rank (one point at a time "
      "per rank; -j is ignored)")(
      "isolate",
      "run every point in a new process (slower; by default a worker process runs many "
      "points and shares its cost memo between them)")("quiet,q", "print only the final line")(
      "point-reports", po::value<std::string>()->value_name("WHICH"),
      "which points get their own report.html: 'front' (default: the points on the Pareto "
      "front and the baseline, when the sweep ends) or 'all' (every point, as it finishes; "
      "slower); `trainsim report DIR/points/ID/run` writes any point's later")(
      "no-report", "write no HTML: neither DIR/report.html, the sweep's page, nor any point's own")(
      "memo", po::value<std::string>()->value_name("MEMO"),
      "the op costs the points share and keep for later sweeps (default DIR/memo: a resumed "
      "sweep reuses it; name an earlier sweep's to reuse its mapping searches)")(
      "no-memo", "keep no op costs on disk (each worker still shares its own between points)");
  po::options_description hidden;
  hidden.add_options()("sweep", po::value<std::string>());
  po::positional_options_description pos;
  pos.add("sweep", 1);
  // The sweep's own worker processes (sim/sweep/point_worker.h), not a user's command line.
  if (args == std::vector<std::string>{"--point-worker"}) {
    // When its requests end, a worker has nothing left to write (each point flushed its
    // files and its memo records), and the sweep waits for it: it leaves without running the
    // destructors of its caches, which took 4-5 ms per worker at the end of every sweep. A
    // sanitizer build returns as usual, so that LeakSanitizer checks the worker at its exit.
    const int code = serve_points(run_cli);
#ifndef __SANITIZE_ADDRESS__
    std::fflush(nullptr);
    std::_Exit(code);
#endif
    return code;
  }
  const po::variables_map vm = parse_args("sweep", args, opts, pos, hidden);
  const bool force = vm.count("force") > 0, quiet = vm.count("quiet") > 0;
  const bool use_mpi = vm.count("mpi") > 0;
  const bool report = vm.count("no-report") == 0;
  std::string which = "front";
  if (vm.count("point-reports")) {
    if (!report) throw UserError("sweep: --point-reports and --no-report do not go together");
    which = vm["point-reports"].as<std::string>();
    if (which != "front" && which != "all")
      throw UserError("sweep: --point-reports takes 'front' or 'all', not '" + which + "'");
  }
  PointRun how;
  how.report = report && which == "all";
  const bool featured_reports = report && which == "front";
  if (vm.count("memo") && vm.count("no-memo"))
    throw UserError("sweep: --memo and --no-memo do not go together");
  const std::size_t points_per_worker = vm.count("isolate") ? 1 : kPointsPerWorker;
  if (vm.count("merge")) {
    if (vm.count("sweep") || vm.count("shard") || use_mpi)
      throw UserError(
          "sweep --merge joins finished shard directories: give no SWEEP.yaml, --shard or --mpi");
    return merge(vm["merge"].as<std::vector<std::string>>(),
                 vm.count("out") ? vm["out"].as<std::string>() : "", force, report,
                 featured_reports);
  }
  if (!vm.count("sweep")) throw UserError("sweep: missing SWEEP.yaml (see trainsim sweep --help)");
  // The points' worker processes (MPI: one per rank), forked copies of this one that serve
  // points as `trainsim sweep --point-worker` would (WorkerPool). Under MPI the rank's starts
  // before MPI_Init, which it then overlaps; a child forked before MPI_Init inherits none of
  // MPI's state (nor its threads, which would make a later worker exec instead).
  std::optional<WorkerPool> pool;
  auto make_pool = [&](std::size_t workers) {
    pool.emplace(worker_command(self_executable()), workers, points_per_worker);
    pool->serve_in_fork([] { return run_cli({"sweep", "--point-worker"}); });
  };
  if (use_mpi) {
    make_pool(1);
    pool->start(1);
  }
  int rank = 0, ranks = 1;
  if (use_mpi) mpi_start(rank, ranks);
  struct Finalize {
    bool on;
    ~Finalize() {
      if (on) mpi_stop();
    }
  } finalize{use_mpi};

  // Every rank reads the sweep and forms the same points; rank 0 alone prepares the
  // directory and decides what is left to run.
  DirLock dir_lock;  // rank 0 holds the directory for the whole sweep
  SweepSpec spec;
  // The points (formed when asked for), those left to run, and (rank 0) the finished rows.
  std::optional<PointList> points;
  std::optional<Pending> pending;
  std::optional<RowStore> rows;
  fs::path dir;
  int jobs = 1;
  Shard shard;
  try {
    spec = load_sweep(vm["sweep"].as<std::string>());
    shard = vm.count("shard") ? parse_shard(vm["shard"].as<std::string>()) : Shard{};
    jobs = vm.count("jobs") ? vm["jobs"].as<int>()
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (jobs < 1 || jobs > kMaxChildren)
      throw UserError("sweep: --jobs must be in [1, " + std::to_string(kMaxChildren) + "]");
    if (use_mpi) jobs = ranks;
    dir = vm.count("out") ? fs::path(vm["out"].as<std::string>())
                          : fs::path("runs") / fs::path(spec.source).stem();
    if (!vm.count("no-memo")) {
      how.memo =
          fs::absolute(vm.count("memo") ? fs::path(vm["memo"].as<std::string>()) : dir / "memo")
              .lexically_normal()
              .string();
      if (rank == 0) MemoStore::check(how.memo);  // before anything is written
    }
    points.emplace(spec, static_cast<std::size_t>(shard.index),
                   static_cast<std::size_t>(shard.count));
    pending.emplace(points->size(), static_cast<std::size_t>(jobs), points->group());
    if (rank == 0) {
      check_points(spec);
      // A directory remembers its sweep: running another sweep into it needs --force, and
      // --force replaces only a directory of trainsim's.
      check_output_target(dir.string(), "sweep");
      dir_lock.lock_or_throw(dir.string(), "sweep");
      const nlohmann::ordered_json state = state_of(spec, shard);
      if (fs::exists(dir)) {
        const fs::path sf = dir / kStateFile;
        bool same = false;
        if (fs::exists(sf)) {
          try {
            same = same_sweep(read_state(sf), state);
          } catch (const UserError&) {
            if (!force) throw;  // --force replaces a damaged one, if it is trainsim's
          }
        }
        if (!same && !force)
          throw UserError("sweep: " + dir.string() +
                          (fs::exists(sf) ? " holds another sweep (or another shard, or the "
                                            "sweep file changed): use --force to start over"
                                          : " exists and is not this sweep's directory: use "
                                            "--force to replace it"));
        if (!same) {
          check_replaceable(dir.string(), "sweep");
          if (!remove_owned(dir.string()))
            throw UserError("sweep: cannot empty " + dir.string() +
                            ": files trainsim did not write appeared in it");
        }
      }
      fs::create_directories(dir / "points");
      // A resumed sweep keeps what its manifest listed and adds this run's points.
      Manifest listed;
      read_manifest(dir.string(), listed);
      const Manifest own = sweep_manifest();
      listed.entries.insert(own.entries.begin(), own.entries.end());
      write_text_file((dir / kManifestName).string(), listed.text());
      write_text_file((dir / kStateFile).string(), checked_json_text(state, kStateFormat));
      rows.emplace(dir.string(), points->size());
      for (std::size_t k = 0; k < points->size(); ++k) {
        const SweepPoint p = points->at(k);
        if (auto r = finished_row(p, dir / "points" / p.id)) {
          rows->put(k, *r);
          pending->mark_finished(k);
        } else {
          clear_point(dir.string(), p);  // an unfinished point starts over
        }
      }
      write_table(spec, *points, *rows, dir);
    }
    // Made before the workers start, so that they do not race to make it.
    if (rank == 0 && !how.memo.empty()) MemoStore::create(how.memo);
    // The workers start once the points are checked and the directory is ready: a fork takes
    // a millisecond, and each then starts from what the check loaded (the network's parsed
    // file among it): the first point ends about 8 ms sooner than with workers forked before
    // the check (docs/sweeps.md).
    if (!pool) {
      make_pool(static_cast<std::size_t>(jobs));
      pool->start(points->size());
    }
  } catch (...) {
    // Every rank saw the same input, but only rank 0 reports; the others leave quietly.
    if (use_mpi && !mpi_agree(false) && rank != 0) return kExitUserError;
    throw;
  }
  if (use_mpi && !mpi_agree(true)) return kExitUserError;
  if (rank == 0 && !quiet) {
    std::fputs(wrap_parts({"sweep " + spec.source,
                           sformat("%zu points%s, %zu finished before, %zu to run", points->size(),
                                   shard.count > 1 ? (" (shard " + shard.text() + ")").c_str() : "",
                                   rows->finished(), pending->total()),
                           sformat("%d at a time%s", jobs, use_mpi ? " (MPI ranks)" : ""),
                           "results in " + dir.string() + "/"})
                   .c_str(),
               stdout);
    std::fflush(stdout);
  }

  install_sweep_interrupt_handler();
  // Test hook: a SIGINT after this many points have finished, as Ctrl-C would send it.
  const char* stop_env = std::getenv("TRAINSIM_TEST_SWEEP_INTERRUPT_AFTER");
  const int stop_after = stop_env ? std::atoi(stop_env) : 0;
  ProgressBar bar("sweep");
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t done = 0, failed = 0;
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  // Rank 0 (or the only process): the k-th point ended with `row`.
  // sweep.csv is the whole table: rewritten at most once a second (and at the end), so a
  // sweep of many fast points does not spend its time writing it again and again; and a
  // table so large that writing it takes more than 1/20 of a second is rewritten only
  // after 20 times as long, so that it never costs the sweep more than 5% of its time.
  double table_written = -1, table_seconds = 0;
  double line_written = 0;
  constexpr double kLinePeriodSeconds = 5;
  const std::size_t to_run = pending->total();
  auto finished_point = [&](std::size_t k, const SweepRow& row, const std::string& what) {
    rows->put(k, row);
    row.done ? ++done : ++failed;
    if (elapsed() - table_written >= std::max(1.0, 20 * table_seconds)) {
      const double start = elapsed();
      write_table(spec, *points, *rows, dir);
      table_written = elapsed();
      table_seconds = table_written - start;
    }
    const std::size_t finished = done + failed;
    const double eta =
        elapsed() / static_cast<double>(finished) * static_cast<double>(to_run - finished);
    // The rate over the points this invocation ran (a resumed sweep's earlier ones excluded).
    const std::string rate =
        sformat("%.3g points/s", static_cast<double>(finished) / std::max(elapsed(), 1e-9));
    if (bar.enabled()) {
      bar.update(static_cast<std::int64_t>(finished), static_cast<std::int64_t>(to_run), elapsed(),
                 eta, std::to_string(failed) + " failed, " + rate);
    } else if (!quiet && (!row.done || finished == 1 || finished == to_run ||
                          elapsed() - line_written >= kLinePeriodSeconds)) {
      // Not a terminal (a log, a CI job): a line for the first and the last point, for every
      // failed one and at most every few seconds between, not one per point of a fast sweep.
      line_written = elapsed();
      std::string values;
      for (const auto& [key, v] : row.point.values) values += " " + key + "=" + v;
      std::fprintf(stderr, "sweep: [%zu/%zu] %s%s: %s (elapsed %s, ETA %s, %s)\n", finished, to_run,
                   row.point.id.c_str(), values.c_str(), what.c_str(),
                   format_duration(elapsed()).c_str(), format_duration(eta).c_str(), rate.c_str());
    }
    if (stop_after > 0 && static_cast<int>(finished) == stop_after) std::raise(SIGINT);
  };
  auto what_of = [](const SweepRow& r) {
    return r.done ? "done, " + fmt("%.4g", r.result.seconds) + " s simulated"
                  : "failed: " + r.error;
  };

  if (use_mpi) {
    mpi_run_points(spec, *points, *pending, dir.string(), how, *pool,
                   [&](std::size_t k, const SweepRow& r) { finished_point(k, r, what_of(r)); });
    if (rank != 0) return 0;
  } else {
    // A lane is a place in the pool: the point that ends frees its worker, which takes the
    // next point of its lane's run (Pending), so that it finds that run's costs in its memo.
    std::vector<std::size_t> free_lanes;
    for (int lane = jobs; lane-- > 0;) free_lanes.push_back(static_cast<std::size_t>(lane));
    std::vector<std::pair<std::size_t, std::size_t>> lane_of;  // (point, lane) in flight
    while (pending->untaken() > 0 || pool->running() > 0) {
      std::size_t k = 0;
      while (sweep_interrupts() == 0 && pool->can_submit() && !free_lanes.empty() &&
             pending->take(k, free_lanes.back())) {
        lane_of.emplace_back(k, free_lanes.back());
        free_lanes.pop_back();
        const SweepPoint p = points->at(k);
        pool->submit(point_command(spec, p, dir.string(), how), point_stderr(p, dir.string()),
                     static_cast<int>(k));
      }
      ChildExit ex;
      if (!pool->wait_one(ex)) break;
      const std::size_t done_k = static_cast<std::size_t>(ex.tag);
      for (auto it = lane_of.begin(); it != lane_of.end(); ++it)
        if (it->first == done_k) {
          free_lanes.push_back(it->second);
          lane_of.erase(it);
          break;
        }
      const SweepPoint p = points->at(done_k);
      if (sweep_interrupts() >= 2 && ex.exit_code != 0) {
        clear_point(dir.string(), p);  // stopped midway: it runs again next time
        continue;
      }
      const SweepRow row = finish_point(p, dir.string(), ex.exit_code);
      finished_point(done_k, row, what_of(row));
    }
  }
  pool.reset();  // the workers exit while the table and pages are written
  bar.clear();
  const TableCounts counts = write_table(spec, *points, *rows, dir);
  // Under MPI every point is in and no rank sends anything more: the ranks finalize MPI
  // while the featured pages are rendered, since MPI_Finalize waits on Open MPI's run-time
  // (3-4 ms here, 50 ms before mpi_start turned Nagle's algorithm off: sim/sweep/mpi_sweep.cpp).
  std::function<void()> meanwhile;
  if (use_mpi) meanwhile = mpi_stop;
  if (featured_reports)
    write_featured_reports(dir, counts, jobs, meanwhile);
  else if (meanwhile)
    meanwhile();
  // The page of the whole sweep, over the table as it stands (complete or not); the
  // manifest lists it (sweep_manifest), so --force may replace it.
  if (report) write_text_file((dir / "report.html").string(), render_report(dir.string()));
  const bool complete = counts.rows == points->size();
  std::printf(
      "sweep: %zu of %zu points finished (%zu failed), %zu on the Pareto front%s; results in "
      "%s/\n",
      counts.rows, points->size(), counts.failed, counts.pareto,
      complete ? "" : ": run the same command again to finish", dir.string().c_str());
  return complete ? 0 : kExitInterrupted;
}

}  // namespace trainsim
