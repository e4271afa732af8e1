// The pieces that keep results directories safe (sim/io/): the manifest and what counts as
// trainsim's, removal of only what it vouches for, file sets that change all or nothing,
// the directory lock, and the paths no command may take as a results directory.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "sim/core/error.h"
#include "sim/io/dir_lock.h"
#include "sim/io/file_set.h"
#include "sim/io/manifest.h"
#include "sim/io/output_target.h"
#include "sim/io/staged_dir.h"
#include "tests/support/temp_dir.h"

using namespace trainsim;
namespace fs = std::filesystem;

namespace {

void put(const std::string& path, const std::string& text = "x") {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string get(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Publishes results directory `d` holding one file.
void publish(const std::string& d, StagedDir::Mode mode, const std::string& name,
             const std::string& text) {
  StagedDir out(d, mode, "test");
  write_text_file(out.file(name), text);
  out.commit();
}

}  // namespace

TEST_CASE("A manifest lists files and directories and reads back", "[io][manifest]") {
  test::TempDir tmp("manifest");
  Manifest m;
  m.add_file("a.csv");
  m.add_dir("points/p1/");
  CHECK(m.lists("points/"));
  CHECK(m.lists("points/p1/"));
  put(tmp / kManifestName, m.text());
  Manifest back;
  REQUIRE(read_manifest(tmp.path(), back));
  CHECK(back.entries == m.entries);
  // Entries outside the directory, or another file under the name, are not a manifest.
  put(tmp / kManifestName, m.text() + "../escape\n");
  CHECK_FALSE(read_manifest(tmp.path(), back));
  put(tmp / kManifestName, "a.csv\n");
  CHECK_FALSE(read_manifest(tmp.path(), back));
}

TEST_CASE("What counts as trainsim's in a directory", "[io][manifest]") {
  test::TempDir tmp("owned");
  const std::string d = tmp / "r";
  put(d + "/a.csv");
  put(d + "/sub/b.csv");
  CHECK(foreign_entry(d) == "(no .trainsim-manifest)");
  Manifest m;
  add_tree(d, m);
  put(d + "/" + kManifestName, m.text());
  CHECK(foreign_entry(d).empty());
  // A killed process's leftovers are trainsim's: a listed file's temporary, a lock file, a
  // staging directory with its marker, a nested results directory.
  put(d + "/a.csv.tmp");
  put(d + "/.x.trainsim-lock");
  put(d + "/x.partial/" + kStagingMarker);
  put(d + "/x.partial/half.csv");
  put(d + "/nested/c.csv");
  Manifest n;
  n.add_file("c.csv");
  put(d + "/nested/" + kManifestName, n.text());
  CHECK(foreign_entry(d).empty());
  // Anything else is the user's, named.
  put(d + "/sub/mine.txt");
  CHECK(foreign_entry(d) == "sub/mine.txt");
  fs::remove(d + "/sub/mine.txt");
  put(d + "/notes.tmp");
  CHECK(foreign_entry(d) == "notes.tmp");
  fs::remove(d + "/notes.tmp");
  fs::create_directories(d + "/empty");
  CHECK(foreign_entry(d) == "empty/");
}

TEST_CASE("remove_owned removes what the manifest vouches for and nothing else", "[io][manifest]") {
  test::TempDir tmp("remove-owned");
  const std::string d = tmp / "r";
  put(d + "/a.csv");
  put(d + "/sub/b.csv");
  Manifest m;
  add_tree(d, m);
  put(d + "/" + kManifestName, m.text());
  put(d + "/nested/c.csv");
  Manifest n;
  n.add_file("c.csv");
  put(d + "/nested/" + kManifestName, n.text());
  put(d + "/sub/mine.txt", "keep");
  CHECK_FALSE(remove_owned(d));
  CHECK(get(d + "/sub/mine.txt") == "keep");
  CHECK_FALSE(fs::exists(d + "/a.csv"));
  CHECK_FALSE(fs::exists(d + "/sub/b.csv"));
  CHECK_FALSE(fs::exists(d + "/nested"));
  // Without the user's file the directory goes entirely.
  const std::string e = tmp / "e";
  put(e + "/a.csv");
  Manifest me;
  add_tree(e, me);
  put(e + "/" + kManifestName, me.text());
  CHECK(remove_owned(e));
  // A directory without a manifest is never touched.
  put(tmp / "u/x.txt");
  CHECK_FALSE(remove_owned(tmp / "u"));
  CHECK(fs::exists(tmp / "u/x.txt"));
}

TEST_CASE("A file set changes all of its files or none", "[io][file_set]") {
  test::TempDir tmp("file-set");
  put(tmp / "a.csv", "old a");
  put(tmp / "b.csv", "old b");
  FileSet bad;
  bad.write(tmp / "a.csv", "new a");
  bad.write(tmp / "missing/b.csv", "new b");  // its directory does not exist: fails
  bad.remove(tmp / "b.csv");
  CHECK_THROWS_AS(bad.commit(), UserError);
  CHECK(get(tmp / "a.csv") == "old a");
  CHECK(get(tmp / "b.csv") == "old b");
  CHECK_FALSE(fs::exists(tmp / "a.csv.tmp"));
  FileSet good;
  good.write(tmp / "a.csv", "new a");
  good.remove(tmp / "b.csv");
  good.commit();
  CHECK(get(tmp / "a.csv") == "new a");
  CHECK_FALSE(fs::exists(tmp / "b.csv"));
}

TEST_CASE("Files read back whole, from an offset, and unreadable ones say so", "[io][file_set]") {
  test::TempDir tmp("file-read");
  // Larger than the 64 KiB blocks the reader takes, with every byte value in it.
  std::string text;
  for (int i = 0; i < 200000; ++i) text.push_back(static_cast<char>(i * 7 % 256));
  put(tmp / "big.bin", text);
  CHECK(read_text_file(tmp / "big.bin") == text);
  std::string tail = "kept ";
  CHECK(read_file_bytes(tmp / "big.bin", 70000, tail));
  CHECK(tail == "kept " + text.substr(70000));  // appended to what was there
  std::string past;
  CHECK(read_file_bytes(tmp / "big.bin", 300000, past));
  CHECK(past.empty());
  put(tmp / "empty.txt", "");
  CHECK(read_text_file(tmp / "empty.txt").empty());
  std::string none;
  CHECK_FALSE(read_file_bytes(tmp / "missing.txt", 0, none));
  CHECK_THROWS_AS(read_text_file(tmp / "missing.txt"), UserError);
  fs::create_directories(tmp / "a_dir");
  CHECK_THROWS_AS(read_text_file(tmp / "a_dir"), UserError);  // not a file's text
  // A pipe (a shell's `<(...)`): read to its end like a file.
  int ends[2];
  REQUIRE(::pipe(ends) == 0);
  std::thread writer([&] {
    for (std::size_t at = 0; at < text.size();) {
      const ssize_t n = ::write(ends[1], text.data() + at, text.size() - at);
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
    ::close(ends[1]);
  });
  const std::string piped = read_text_file("/proc/self/fd/" + std::to_string(ends[0]));
  writer.join();
  ::close(ends[0]);
  CHECK(piped == text);
}

TEST_CASE("One process at a time holds a directory's lock", "[io][lock]") {
  test::TempDir tmp("lock");
  const std::string d = tmp / "out";
  DirLock a, b;
  REQUIRE(a.try_lock(d));
  CHECK(fs::exists(DirLock::path_for(d)));
  std::string holder;
  CHECK_FALSE(b.try_lock(d, &holder));  // flock conflicts between open files, in one process too
  CHECK(holder == std::to_string(::getpid()));
  CHECK(DirLock::path_for(d + "/") == DirLock::path_for(d));
  a.unlock();
  CHECK_FALSE(fs::exists(DirLock::path_for(d)));  // released: no file left behind
  CHECK(b.try_lock(d));
}

TEST_CASE("Paths that may never be a results directory", "[io][output]") {
  test::TempDir tmp("targets");
  CHECK_THROWS_WITH(check_output_target("/", "run"), Catch::Contains("is the root directory"));
  CHECK_THROWS_WITH(check_output_target(".", "run"), Catch::Contains("is the working directory"));
  CHECK_THROWS_WITH(check_output_target("..", "run"),
                    Catch::Contains("contains the working directory"));
  put(tmp / "f.txt");
  CHECK_THROWS_WITH(check_output_target(tmp / "f.txt", "run"), Catch::Contains("is a file"));
  put(tmp / "in/exp.yaml");
  note_input_path(tmp / "in/exp.yaml");
  CHECK_THROWS_WITH(check_output_target(tmp / "in", "run"), Catch::Contains("contains the input"));
  CHECK_THROWS_WITH(check_output_target(tmp / "in/", "run"), Catch::Contains("contains the input"));
  {
    const char* home = std::getenv("HOME");
    const std::string saved = home ? home : "";
    ::setenv("HOME", (tmp / "home").c_str(), 1);
    CHECK_THROWS_WITH(check_output_target(tmp / "home", "run"),
                      Catch::Contains("is the home directory"));
    if (home)
      ::setenv("HOME", saved.c_str(), 1);
    else
      ::unsetenv("HOME");
  }
  CHECK_NOTHROW(check_output_target(tmp / "out", "run"));
  CHECK_NOTHROW(check_output_target(tmp / "in/out", "run"));  // beside the input: fine
}

TEST_CASE("A staged directory appears whole at commit, with its manifest", "[io][staged]") {
  test::TempDir tmp("staged");
  const std::string d = tmp / "r";
  {
    StagedDir out(d, StagedDir::Mode::kNew, "test");
    write_text_file(out.file("a.csv"), "a");
    CHECK_FALSE(fs::exists(d));
    CHECK(fs::exists(d + ".partial/" + kStagingMarker));
  }  // not committed: nothing left
  CHECK_FALSE(fs::exists(d + ".partial"));
  CHECK_FALSE(fs::exists(DirLock::path_for(d)));
  {
    StagedDir out(d, StagedDir::Mode::kNew, "test");
    StagedDir::Update u;
    u.write("a.csv", "a");
    out.apply(u);
    out.commit();
  }
  CHECK(get(d + "/a.csv") == "a");
  CHECK(foreign_entry(d).empty());
  CHECK_FALSE(fs::exists(d + "/" + kStagingMarker));
  CHECK_THROWS_WITH(StagedDir(d, StagedDir::Mode::kNew, "test"), Catch::Contains("exists"));
  {
    StagedDir out(d, StagedDir::Mode::kReplace, "test");
    write_text_file(out.file("b.csv"), "b");
    out.commit();
  }
  CHECK_FALSE(fs::exists(d + "/a.csv"));
  CHECK(get(d + "/b.csv") == "b");
  // Resumed in place: new files join the manifest.
  {
    StagedDir out(d, StagedDir::Mode::kResume, "test");
    StagedDir::Update u;
    u.write("c.csv", "c");
    u.remove("b.csv");
    out.apply(u);
    out.commit();
  }
  CHECK(get(d + "/c.csv") == "c");
  CHECK_FALSE(fs::exists(d + "/b.csv"));
  CHECK(foreign_entry(d).empty());
}

TEST_CASE("Replacing swaps old results out whole, and a killed replacement's leftovers go",
          "[io][staged]") {
  test::TempDir tmp("swap");
  const std::string d = tmp / "r";
  publish(d, StagedDir::Mode::kNew, "old.csv", "old");
  publish(d, StagedDir::Mode::kReplace, "new.csv", "new");
  CHECK(get(d + "/new.csv") == "new");
  CHECK_FALSE(fs::exists(d + "/old.csv"));
  CHECK_FALSE(fs::exists(d + "/" + kStagingMarker));
  CHECK_FALSE(fs::exists(d + ".partial"));
  // What a kill right after the exchange leaves: the old results, marked, under the staging
  // name. The next run clears what trainsim wrote there and keeps what it did not.
  put(d + ".partial/old.csv", "old");
  put(d + ".partial/" + kStagingMarker, "replaced\n");
  Manifest m;
  m.add_file("old.csv");
  put(d + ".partial/" + kManifestName, m.text());
  put(d + ".partial/mine.txt", "the user's");
  CHECK_THROWS_WITH(StagedDir(d, StagedDir::Mode::kReplace, "test"),
                    Catch::Contains("is in the way"));
  CHECK(get(d + ".partial/mine.txt") == "the user's");
  CHECK_FALSE(fs::exists(d + ".partial/old.csv"));
  fs::remove(d + ".partial/mine.txt");
  {
    StagedDir out(d, StagedDir::Mode::kReplace, "test");
    out.commit();
  }
  CHECK_FALSE(fs::exists(d + ".partial"));
}

TEST_CASE("An empty directory may receive results, and names cannot leave the directory",
          "[io][staged]") {
  test::TempDir tmp("empty");
  const std::string d = tmp / "made-by-user";
  fs::create_directories(d);
  {
    StagedDir out(d, StagedDir::Mode::kNew, "test");
    CHECK_THROWS_WITH(out.file("../escape.csv"), Catch::Contains("cannot name a file"));
    CHECK_THROWS_WITH(out.file("/etc/passwd"), Catch::Contains("cannot name a file"));
    write_text_file(out.file("a.csv"), "a");
    out.commit();
  }
  CHECK(get(d + "/a.csv") == "a");
  CHECK_FALSE(fs::exists(tmp / "escape.csv"));
}

TEST_CASE("A directory another process is writing is never trainsim's to remove",
          "[io][manifest]") {
  test::TempDir tmp("live");
  const std::string d = tmp / "r";
  publish(d, StagedDir::Mode::kNew, "a.csv", "a");
  // A writer of r/inner (a nested results directory) is alive: its staging directory and
  // lock file are its own, and r cannot be replaced under it.
  DirLock writer;
  REQUIRE(writer.try_lock(d + "/inner"));
  put(d + "/inner.partial/" + kStagingMarker, "live\n");
  put(d + "/inner.partial/x.csv", "being written");
  CHECK(foreign_entry(d).find("(being written)") != std::string::npos);
  CHECK_FALSE(remove_owned(d));
  CHECK(get(d + "/inner.partial/x.csv") == "being written");
  CHECK(DirLock::held(d + "/inner"));
  writer.unlock();
  CHECK_FALSE(DirLock::held(d + "/inner"));
  // Once its writer is gone they are leftovers.
  CHECK(foreign_entry(d) == "");
  CHECK(remove_owned(d));
  CHECK_FALSE(fs::exists(d));
}

TEST_CASE("Two spellings of one directory share its lock", "[io][lock]") {
  test::TempDir tmp("spell");
  fs::create_directories(tmp / "a/b");
  fs::create_symlink(tmp / "a", tmp / "link");
  CHECK(DirLock::path_for(tmp / "a/b/../out") == DirLock::path_for(tmp / "link/out"));
  DirLock x, y;
  REQUIRE(x.try_lock(tmp / "a/out"));
  CHECK_FALSE(y.try_lock(tmp / "link/out"));
}

TEST_CASE("Two results directories may not overlap", "[io][output]") {
  test::TempDir tmp("apart");
  CHECK_THROWS_WITH(check_apart(tmp / "o", "--out", tmp / "o/c", "--chakra", "run"),
                    Catch::Contains("lie one inside the other"));
  CHECK_THROWS_WITH(check_apart(tmp / "o", "--out", tmp / "o/", "--chakra", "run"),
                    Catch::Contains("name the same directory"));
  CHECK_NOTHROW(check_apart(tmp / "o", "--out", tmp / "oc", "--chakra", "run"));
}
