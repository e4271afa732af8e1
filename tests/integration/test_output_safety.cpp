// trainsim never deletes or overwrites what it did not write: --force over the working
// directory, its parent, a directory of the user's, one holding the command's own input, or a
// plain file is refused with one line and exit 2, for every command that writes a results
// directory, and nothing anywhere changes; --force over trainsim's own earlier output still
// replaces it; two processes on one --out: one is refused, the other completes.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "sim/io/dir_lock.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;
namespace fs = std::filesystem;

namespace {

// Every file under `root` with its content: what a refused command must leave as it was.
std::map<std::string, std::string> snapshot(const std::string& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    files[e.path().string()] = e.is_regular_file() ? read_file(e.path().string()) : "<dir>";
  return files;
}

// LeNet-5 shape only: a results directory in a fraction of a second.
const char* kExperiment =
    "name: safety\nnetwork: lenet5\nnumerics: none\n"
    "dataset: {name: fashion-mnist, train_limit: 500, test_limit: 100}\n"
    "training: {epochs: 1, batch_size: 32}\naccelerator: adagp_ws180\n";

// A directory tree for one command's cases:
//   T/work/           the working directory: exp.yaml, sweep.yaml, notes.txt
//   T/foreign/        a directory of the user's (notes.txt)
//   T/inputs/         holds an input of the command (exp.yaml, sweep.yaml)
//   T/file.txt        a plain file
struct Tree {
  std::string root, work, foreign, inputs, file;
  explicit Tree(const std::string& name)
      : root(fresh_dir(name)),
        work(root + "/work"),
        foreign(root + "/foreign"),
        inputs(root + "/inputs"),
        file(root + "/file.txt") {
    for (const std::string& d : {work, foreign, inputs}) {
      fs::create_directories(d);
      write_file(d + "/exp.yaml", kExperiment);
      write_file(d + "/sweep.yaml",
                 "experiment: exp.yaml\naxes:\n  - {key: dataflow, values: [ws, os]}\n");
      write_file(d + "/notes.txt", "the user's own notes\n");
    }
    write_file(file, "a file of the user's\n");
  }
};

// The command of each family, writing to `out`, reading its inputs from `in` (a directory
// holding exp.yaml and sweep.yaml); `shards` for --merge.
using Command = std::vector<std::string> (*)(const std::string& in, const std::string& out,
                                             const std::string& shards);

std::vector<std::string> run_cmd(const std::string& in, const std::string& out,
                                 const std::string&) {
  return {"run", in + "/exp.yaml", "-q", "-f", "-o", out};
}
std::vector<std::string> compare_cmd(const std::string& in, const std::string& out,
                                     const std::string&) {
  return {"compare", in + "/exp.yaml", "--dataflows", "ws,os", "-q", "-f", "-o", out};
}
std::vector<std::string> sweep_cmd(const std::string& in, const std::string& out,
                                   const std::string&) {
  return {"sweep", in + "/sweep.yaml", "-q", "-j", "1", "-f", "-o", out};
}
std::vector<std::string> merge_cmd(const std::string&, const std::string& out,
                                   const std::string& shards) {
  return {"sweep", "--merge", shards + "/s0", shards + "/s1", "-f", "-o", out};
}
std::vector<std::string> calibrate_cmd(const std::string&, const std::string& out,
                                       const std::string&) {
  return {"hype-calibrate", "-f", "-o", out};
}

// Two finished shards of T/work/sweep.yaml in T/shards/s0 and s1.
std::string make_shards(const Tree& t) {
  const std::string shards = t.root + "/shards";
  for (const char* s : {"0", "1"}) {
    const CliResult r = run_trainsim({"sweep", t.work + "/sweep.yaml", "-q", "--shard",
                                      std::string(s) + "/2", "-o", shards + "/s" + s});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  return shards;
}

void require_refused(const CliResult& r, const std::string& mention) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.rfind("trainsim: error: ", 0) == 0);
  CHECK(r.err.find(mention) != std::string::npos);
}

}  // namespace

TEST_CASE("Force (-f) never replaces what trainsim did not write, for every command",
          "[outputs][safety]") {
  require_dataset("fashion-mnist");
  const std::vector<std::pair<std::string, Command>> commands = {{"run", run_cmd},
                                                                 {"compare", compare_cmd},
                                                                 {"sweep", sweep_cmd},
                                                                 {"sweep --merge", merge_cmd},
                                                                 {"hype-calibrate", calibrate_cmd}};
  int k = 0;
  for (const auto& [name, command] : commands) {
    INFO(name);
    const Tree t("safety-" + std::to_string(k++));
    const std::string shards = name == "sweep --merge" ? make_shards(t) : "";
    const auto before = snapshot(t.root);
    // Run from the working directory, so that "." and ".." mean what a user means.
    auto refused = [&](const std::string& in, const std::string& out, const std::string& why) {
      INFO("--out " << out);
      require_refused(run_trainsim_in(t.work, command(in, out, shards)), why);
      CHECK(snapshot(t.root) == before);
    };
    refused(t.work, ".", "is the working directory");
    refused(t.work, "..", "contains the working directory");
    refused(t.work, t.work, "is the working directory");
    refused(t.work, t.foreign, "has no .trainsim-manifest");
    refused(t.work, t.file, "is a file");
    refused(t.work, "/", "is the root directory");
    if (name == "sweep --merge") {
      refused(t.work, shards + "/s0", "is the input");
      refused(t.work, shards, "contains the input");
    } else if (name != "hype-calibrate") {
      refused(t.inputs, t.inputs, "contains the input");
    }
    // trainsim's own output is replaced by --force, as before; with a file of the user's
    // added, it is not.
    const std::string own = t.root + "/own";
    for (int pass = 0; pass < 2; ++pass) {
      const CliResult r = run_trainsim_in(t.work, command(t.work, own, shards));
      INFO("pass " << pass << ": " << r.err);
      REQUIRE(r.exit_code == 0);
      CHECK(exists(own + "/.trainsim-manifest"));
      CHECK_FALSE(exists(own + ".partial"));
    }
    write_file(own + "/mine.txt", "added by the user\n");
    const auto with_mine = snapshot(t.root);
    // (From another input, so that a sweep replaces rather than continues its directory.)
    require_refused(run_trainsim_in(t.work, command(t.inputs, own, shards)),
                    "holds 'mine.txt', which trainsim did not write");
    CHECK(snapshot(t.root) == with_mine);
  }
}

TEST_CASE("A results directory lists what trainsim wrote, and nothing is left beside it",
          "[outputs][safety]") {
  require_dataset("fashion-mnist");
  const Tree t("safety-manifest");
  const CliResult r = run_trainsim({"run", t.work + "/exp.yaml", "-q", "-o", t.root + "/r"});
  REQUIRE(r.exit_code == 0);
  const std::string manifest = read_file(t.root + "/r/.trainsim-manifest");
  for (const char* f : {"config.resolved.yaml", "epochs.csv", "stats.json", "phases.csv"})
    CHECK(manifest.find(std::string("\n") + f + "\n") != std::string::npos);
  // No staging directory, marker or lock file outlives the run.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(t.root)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"file.txt", "foreign", "inputs", "r", "work"});
  CHECK_FALSE(exists(t.root + "/r/.trainsim-staging"));
}

TEST_CASE("A staging directory that is not trainsim's is never removed", "[outputs][safety]") {
  require_dataset("fashion-mnist");
  const Tree t("safety-staging");
  fs::create_directories(t.root + "/r.partial");
  write_file(t.root + "/r.partial/keep.txt", "mine\n");
  const auto before = snapshot(t.root);
  require_refused(run_trainsim({"run", t.work + "/exp.yaml", "-q", "-o", t.root + "/r"}),
                  "is in the way");
  CHECK(snapshot(t.root) == before);
}

TEST_CASE("Two processes on one --out: one is refused, the other completes", "[outputs][safety]") {
  require_dataset("fashion-mnist");
  const Tree t("safety-lock");
  const std::string out = t.root + "/r";
  // Held by this test process: a second writer is refused and names the holder.
  {
    DirLock held;
    REQUIRE(held.try_lock(out));
    require_refused(run_trainsim({"run", t.work + "/exp.yaml", "-q", "-o", out}),
                    "another trainsim process (pid " + std::to_string(::getpid()) + ")");
    CHECK_FALSE(exists(out));
  }
  // Two real processes started together: whichever comes second is refused (by the lock
  // while the first writes, or because the directory then exists), and the directory is the
  // first's, complete.
  const CliResult r = run_shell(
      "\"$TRAINSIM\" run " + t.work + "/exp.yaml -q -o " + out + " >/dev/null 2>" + t.root +
      "/a.err & a=$!\n\"$TRAINSIM\" run " + t.work + "/exp.yaml -q -o " + out + " >/dev/null 2>" +
      t.root + "/b.err & b=$!\nwait $a; ea=$?; wait $b; eb=$?\necho \"$ea $eb\"\n");
  INFO(read_file(t.root + "/a.err") << read_file(t.root + "/b.err"));
  CHECK((r.out == "0 2\n" || r.out == "2 0\n"));
  CHECK(exists(out + "/stats.json"));
  CHECK(read_file(out + "/stats.json").find("\"complete\"") != std::string::npos);
  CHECK_FALSE(exists(out + ".partial"));
}

TEST_CASE("layer --report-dir and --vcd replace only what trainsim wrote", "[outputs][safety]") {
  const Tree t("safety-layer");
  write_file(t.work + "/topo.csv",
             "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
             "Num Filter, Strides,\nconv1, 8, 8, 3, 3, 2, 4, 1,\n");
  const std::vector<std::string> layer = {"layer", "--scalesim-topology", t.work + "/topo.csv"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = layer;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const auto before = snapshot(t.root);
  require_refused(run_trainsim(with({"-f", "--report-dir", t.foreign})), "has no .trainsim");
  require_refused(run_trainsim(with({"--report-dir", t.foreign})), "exists");
  CHECK(snapshot(t.root) == before);
  REQUIRE(run_trainsim(with({"--report-dir", t.root + "/rep"})).exit_code == 0);
  REQUIRE(run_trainsim(with({"-f", "--report-dir", t.root + "/rep"})).exit_code == 0);
  CHECK(exists(t.root + "/rep/COMPUTE_REPORT.csv"));
  // A file that is not a waveform trainsim wrote stays; its own waveform is replaced.
  auto vcd = [](const std::string& file) {
    return std::vector<std::string>{"layer",      "--accel", "small_8x8", "--gemm", "4,4,4",
                                    "--fidelity", "cycle",   "--vcd",     file};
  };
  write_file(t.root + "/user.vcd", "not a waveform\n");
  require_refused(run_trainsim(vcd(t.root + "/user.vcd")), "is not a waveform trainsim wrote");
  CHECK(read_file(t.root + "/user.vcd") == "not a waveform\n");
  REQUIRE(run_trainsim(vcd(t.root + "/w.vcd")).exit_code == 0);
  REQUIRE(run_trainsim(vcd(t.root + "/w.vcd")).exit_code == 0);
}

TEST_CASE("A summary file (--summary) replaces only a summary trainsim wrote",
          "[outputs][safety]") {
  require_dataset("fashion-mnist");
  const Tree t("safety-summary");
  const auto before = snapshot(t.root);
  require_refused(
      run_trainsim({"run", t.work + "/exp.yaml", "-q", "-o", t.root + "/r", "--summary", t.file}),
      "is not a summary trainsim wrote");
  CHECK(snapshot(t.root) == before);
  const std::string summary = t.root + "/summary.json";
  for (const char* out : {"/r1", "/r2"})
    REQUIRE(
        run_trainsim({"run", t.work + "/exp.yaml", "-q", "-o", t.root + out, "--summary", summary})
            .exit_code == 0);
}
