// The on-disk memo (sim/io/memo_store.h) and the cost model's use of it: records come back as
// stored, across writers and incrementally; a cut or damaged record ends what is read and
// another build's file is never read; a directory that is not a memo is refused. A cost model
// that finds an op in the memo gives exactly evaluate_op's cost without pricing it again.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "dataflows/registry.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/cost_model.h"
#include "sim/core/error.h"
#include "sim/io/memo_store.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> log_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".log") out.push_back(e.path().string());
  return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<Op> sample_ops() {
  ConvShape c;
  c.batch = 4, c.channels = 6, c.height = c.width = 14, c.filters = 16;
  c.kernel_h = c.kernel_w = 5;
  ElementwiseShape relu;
  relu.elements = 4 * 16 * 10 * 10;
  Op kept = Op::make_gemm({32, 120, 400});
  kept.residency.out_keep = 1;
  return {Op::make_gemm({64, 120, 400}),
          Op::make_gemm({400, 120, 64}, OpRole::kBackwardWeight),
          kept,
          Op::make_conv(c),
          Op::make_conv(c, OpRole::kBackwardData),
          Op::make_eltwise(relu, OpRole::kActivationGrad)};
}

}  // namespace

TEST_CASE("A memo gives back its records, every writer's, and only what is new", "[memo]") {
  const std::string dir = test::fresh_dir("memo-records") + "/memo";
  MemoStore a(dir);
  a.append("key one", "first");
  a.append("key one", std::string("bytes\0with nul", 14));
  a.append("key two", "other");
  CHECK(a.load("key one").empty());  // kept until flushed
  a.flush();
  CHECK(sorted(a.load("key one")) == sorted({"first", std::string("bytes\0with nul", 14)}));
  CHECK(a.load("key two") == std::vector<std::string>{"other"});
  CHECK(a.load("key three").empty());
  // A second writer (another process: its own directory) adds to the same key.
  std::vector<std::string> got;
  std::thread([&] {
    MemoStore b(dir);
    b.append("key one", "from b");
    b.flush();
    got = b.load("key one");
  }).join();
  CHECK(got.size() == 3);  // every writer's records, b's own included
  CHECK(a.load("key one").size() == 3);
  CHECK(log_files(dir).size() == 3);  // a's two keys, b's one: one directory per writer
  // Incremental: what a reader read is not given again.
  MemoStore::ReadTo read;
  CHECK(a.load("key one", &read).size() == 3);
  CHECK(a.load("key one", &read).empty());
  a.append("key one", "later");
  a.flush();
  CHECK(a.load("key one", &read) == std::vector<std::string>{"later"});
}

TEST_CASE("A memo file larger than a read block comes back whole, from any offset", "[memo]") {
  // The reader takes a file in 64 KiB blocks: records that straddle them, read from the start
  // and then from where an incremental reader stopped, come back byte for byte.
  const std::string dir = test::fresh_dir("memo-large") + "/memo";
  MemoStore m(dir);
  std::vector<std::string> first, second;
  for (int i = 0; i < 40; ++i)
    first.push_back(std::string(5000 + 37 * i, static_cast<char>('a' + i % 26)));
  for (const std::string& r : first) m.append("k", r);
  m.flush();
  MemoStore::ReadTo read;
  CHECK(m.load("k", &read) == first);
  for (int i = 0; i < 30; ++i)
    second.push_back(std::string(7000 + 11 * i, static_cast<char>('A' + i % 26)));
  for (const std::string& r : second) m.append("k", r);
  m.flush();
  CHECK(m.load("k", &read) == second);  // only the new ones, from an offset past 64 KiB
  std::vector<std::string> all = first;
  all.insert(all.end(), second.begin(), second.end());
  CHECK(m.load("k") == all);
}

TEST_CASE("A cut or damaged record ends its file, and another build's file is not read", "[memo]") {
  const std::string dir = test::fresh_dir("memo-damage") + "/memo";
  MemoStore m(dir);
  for (int i = 0; i < 5; ++i) m.append("k", "record " + std::to_string(i));
  m.flush();
  const std::vector<std::string> files = log_files(dir);
  REQUIRE(files.size() == 1);
  const std::string path = files[0];
  const auto size = fs::file_size(path);
  SECTION("cut short") {
    fs::resize_file(path, size - 3);  // the last record loses its tail (a kill mid-write)
    CHECK(m.load("k").size() == 4);
  }
  SECTION("a flipped byte") {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 20));  // inside the fourth record
    f.put('#');
    f.close();
    CHECK(m.load("k").size() == 3);
  }
  SECTION("another build") {
    std::string text = test::read_file(path);
    const auto at = text.find(build_identity());
    REQUIRE(at != std::string::npos);
    text[at + text.size() % 7 % build_identity().size()] ^= 1;
    test::write_file(path, text);
    CHECK(m.load("k").empty());
  }
}

TEST_CASE("A directory that is not a memo is refused, an empty one adopted", "[memo][errors]") {
  const std::string dir = test::fresh_dir("memo-foreign");
  fs::create_directories(dir + "/mine");
  test::write_file(dir + "/mine/notes.txt", "a user's file\n");
  CHECK_THROWS_AS(MemoStore(dir + "/mine"), UserError);
  CHECK(test::read_file(dir + "/mine/notes.txt") == "a user's file\n");
  CHECK_THROWS_AS(MemoStore(dir + "/mine/notes.txt"), UserError);
  fs::create_directories(dir + "/empty");
  MemoStore adopted(dir + "/empty");
  adopted.append("k", "v");
  adopted.flush();
  CHECK(MemoStore(dir + "/empty").load("k") == std::vector<std::string>{"v"});
}

TEST_CASE("A cost model reads the memo instead of pricing an op again", "[memo]") {
  const AcceleratorSpec acc = load_accelerator("small_8x8");
  const Dataflow& df = dataflow_or_throw("ws");
  const std::string dir = test::fresh_dir("memo-costs") + "/memo";
  const std::vector<Op> ops = sample_ops();
  // Each in a thread of its own: cost models share their memo per thread, so a new thread
  // starts with none, as a new process does.
  std::thread([&] {
    MemoScope scope(dir);
    CostModel model(acc, df);
    for (const Op& op : ops) model.cost(op);
  }).join();
  const std::uintmax_t stored = test::bytes_under(dir);
  CHECK(stored > 0);
  std::thread([&] {
    MemoScope scope(dir);
    CostModel model(acc, df);
    for (const Op& op : ops) CHECK(model.cost(op) == evaluate_op(op, acc, df));
  }).join();
  CHECK(test::bytes_under(dir) == stored);  // nothing priced, so nothing stored
  // Another accelerator finds nothing of the first's.
  AcceleratorSpec other = acc;
  other.dram.bandwidth_gbps *= 2;
  std::thread([&] {
    MemoScope scope(dir);
    CostModel model(other, df);
    for (const Op& op : ops) CHECK(model.cost(op) == evaluate_op(op, other, df));
  }).join();
  CHECK(log_files(dir).size() == 2);
}
