// Results that are complete or absent, never half-written: a full disk in the first epoch
// leaves nothing, later it leaves the completed epochs marked and resumable (and the resume
// equals an uninterrupted run); a flipped byte in a checkpoint or in a sweep's state is
// refused with one line; a sweep killed with SIGKILL and resumed at once loses no point,
// marks none failed and gives the table of an uninterrupted sweep.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;
namespace fs = std::filesystem;

namespace {

const std::string kQuickstart =
    std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/quickstart.yaml";

std::vector<std::string> quick_run(const std::string& out) {
  return {"run",
          kQuickstart,
          "-q",
          "-s",
          "training.epochs=3",
          "-s",
          "dataset.train_limit=600",
          "-s",
          "dataset.test_limit=200",
          "-o",
          out};
}

void flip_byte(const std::string& path, std::size_t at) {
  std::string bytes = read_file(path);
  REQUIRE(at < bytes.size());
  bytes[at] = static_cast<char>(bytes[at] ^ 0x20);
  write_file(path, bytes);
}

}  // namespace

TEST_CASE("A full disk in the first epoch leaves nothing behind", "[outputs][integrity]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("disk-full-first");
  for (const char* budget : {"0", "2000"}) {
    INFO("budget " << budget);
    const CliResult r =
        run_trainsim(quick_run(dir + "/r"), {std::string("TRAINSIM_TEST_DISK_BYTES=") + budget});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("No space left on device") != std::string::npos);
    CHECK(r.err.find("--resume") == std::string::npos);  // nothing to resume: say nothing of it
    CHECK_FALSE(exists(dir + "/r"));
    CHECK_FALSE(exists(dir + "/r.partial"));
    CHECK_FALSE(exists(dir + "/.r.trainsim-lock"));
  }
}

TEST_CASE("A full disk after epoch 1 publishes epoch 1, marked, and the resume is exact",
          "[outputs][integrity]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("disk-full-later");
  REQUIRE(run_trainsim(quick_run(dir + "/whole")).exit_code == 0);
  // What epoch 1 writes: the directory a run stopped after it holds.
  REQUIRE(
      run_trainsim(quick_run(dir + "/one"), {"TRAINSIM_TEST_INTERRUPT_AFTER_EPOCH=1"}).exit_code ==
      130);
  // Enough for epoch 1 and the staging marker, far too little for epoch 2's files.
  const std::uintmax_t budget = bytes_under(dir + "/one") + 200;
  const CliResult r =
      run_trainsim(quick_run(dir + "/cut"), {"TRAINSIM_TEST_DISK_BYTES=" + std::to_string(budget)});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("No space left on device") != std::string::npos);
  CHECK(r.err.find("--resume " + dir + "/cut") != std::string::npos);
  CHECK_FALSE(exists(dir + "/cut.partial"));
  CHECK(read_file(dir + "/cut/INCOMPLETE").find("1 of 3") != std::string::npos);
  CHECK(csv_rows(read_file(dir + "/cut/epochs.csv")).size() == 1);
  // Nothing of epoch 2 half-written: no temporaries, the set of epoch 1 only.
  for (const auto& e : fs::directory_iterator(dir + "/cut")) CHECK(e.path().extension() != ".tmp");
  const CliResult resumed = run_trainsim({"run", "--resume", dir + "/cut", "-q"});
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  for (const char* f : {"epochs.csv", "layers.csv", "stats.json"}) {
    INFO(f);
    CHECK(read_file(dir + "/cut/" + f) == read_file(dir + "/whole/" + f));
  }
}

TEST_CASE("A checkpoint with a flipped byte is refused, and resumes once restored",
          "[outputs][integrity]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("checkpoint-flip");
  REQUIRE(
      run_trainsim(quick_run(dir + "/cut"), {"TRAINSIM_TEST_INTERRUPT_AFTER_EPOCH=1"}).exit_code ==
      130);
  const std::string ckpt = dir + "/cut/checkpoint.bin";
  const std::string good = read_file(ckpt);
  // A weight's byte, the trailer's, and the header's format field.
  for (std::size_t at : {good.size() / 2, good.size() - 1, std::size_t{30}}) {
    INFO("byte " << at);
    flip_byte(ckpt, at);
    const CliResult r = run_trainsim({"run", "--resume", dir + "/cut", "-q"});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("checkpoint.bin") != std::string::npos);
    CHECK((r.err.find("damaged") != std::string::npos ||
           r.err.find("checkpoint format") != std::string::npos));
    CHECK(exists(dir + "/cut/INCOMPLETE"));  // still the same incomplete run
    write_file(ckpt, good);
  }
  REQUIRE(run_trainsim({"run", "--resume", dir + "/cut", "-q"}).exit_code == 0);
}

TEST_CASE("A sweep's damaged state or point result is refused", "[sweep][integrity]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("sweep-damaged");
  write_file(dir + "/exp.yaml",
             "name: s\nnetwork: lenet5\nnumerics: none\n"
             "dataset: {name: fashion-mnist, train_limit: 500, test_limit: 100}\n"
             "training: {epochs: 1, batch_size: 32}\naccelerator: adagp_ws180\n");
  write_file(dir + "/sweep.yaml",
             "experiment: exp.yaml\naxes:\n  - {key: dataflow, values: [ws, os]}\n");
  const std::vector<std::string> sweep = {"sweep", dir + "/sweep.yaml", "-q", "-o", dir + "/out"};
  REQUIRE(run_trainsim(sweep).exit_code == 0);
  const std::string state = read_file(dir + "/out/sweep.json");
  std::string damaged = state;
  damaged[damaged.find("dataflow")] = 'D';
  write_file(dir + "/out/sweep.json", damaged);
  CliResult r = run_trainsim(sweep);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("sweep.json: damaged") != std::string::npos);
  write_file(dir + "/out/sweep.json", state);
  std::string result;
  for (const auto& e : fs::directory_iterator(dir + "/out/points")) {
    result = (e.path() / "result.json").string();
    break;
  }
  const std::string text = read_file(result);
  std::string flipped = text;
  flipped[flipped.find("seconds") + 11] ^= 1;
  write_file(result, flipped);
  r = run_trainsim(sweep);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("result.json: damaged") != std::string::npos);
  write_file(result, text);
  CHECK(run_trainsim(sweep).exit_code == 0);
}

TEST_CASE("A sweep killed with SIGKILL and resumed at once loses nothing and fails nothing",
          "[sweep][integrity]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("sweep-sigkill");
  // Real training points of about a second each, so that one is surely running when the
  // sweep is killed.
  write_file(dir + "/sweep.yaml",
             "experiment: " + kQuickstart +
                 "\nset: [training.epochs=1, dataset.train_limit=4000, dataset.test_limit=500]\n"
                 "axes:\n  - {key: dataflow, values: [ws, os, is]}\n");
  const CliResult whole =
      run_trainsim({"sweep", dir + "/sweep.yaml", "-q", "-j", "2", "-o", dir + "/whole"});
  INFO(whole.err);
  REQUIRE(whole.exit_code == 0);
  // Killed as soon as a point is running; resumed at once.
  const CliResult r = run_shell("\"$TRAINSIM\" sweep " + dir + "/sweep.yaml -q -j 2 -o " + dir +
                                "/cut 2>/dev/null & pid=$!\n"
                                "i=0; while ! ls " +
                                dir +
                                "/cut/points/*/stderr.txt >/dev/null 2>&1 && [ $i -lt 600 ]; "
                                "do sleep 0.01; i=$((i+1)); done\n"
                                "kill -9 $pid; wait $pid\n"
                                "\"$TRAINSIM\" sweep " +
                                dir + "/sweep.yaml -q -j 2 -o " + dir + "/cut\necho resumed $?\n");
  INFO(r.out << r.err);
  CHECK(r.out.find("resumed 0") != std::string::npos);
  const auto rows = csv_rows(read_file(dir + "/cut/sweep.csv"));
  REQUIRE(rows.size() == 3);
  for (const auto& row : rows) CHECK(row.at("status") == "done");
  CHECK(read_file(dir + "/cut/sweep.csv") == read_file(dir + "/whole/sweep.csv"));
  // The killed sweep's workers died with it: none is left writing.
  const CliResult ps = run_shell("pgrep -f -- '" + dir + "/cut/points' || true\n");
  CHECK(ps.out.empty());
}
