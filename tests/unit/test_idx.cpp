// IDX reading and writing: round trips, gzip, and every way a file can be malformed.
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include "tests/support/temp_dir.h"

#include "sim/core/error.h"
#include "sim/data/idx.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using trainsim::read_idx;
using trainsim::UserError;
using trainsim::write_idx;
using Bytes = std::vector<std::uint8_t>;

using trainsim::test::TempDir;

namespace {

// Raw IDX bytes with any header, so tests can build files the writer would refuse.
Bytes idx_bytes(std::uint8_t type, const std::vector<std::uint32_t>& dims, const Bytes& payload) {
  Bytes out = {0, 0, type, static_cast<std::uint8_t>(dims.size())};
  for (std::uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back((d >> shift) & 0xffu);
  }
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Bytes pattern(std::size_t n) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>((i * 7 + 3) & 0xff);
  return b;
}

void write_file(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

void write_gz(const std::string& path, const Bytes& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) ==
          static_cast<int>(bytes.size()));
  REQUIRE(gzclose(f) == Z_OK);
}

std::size_t files_in(const std::string& dir) {
  std::size_t n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) n += entry.is_regular_file() ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("IDX round trip through write_idx and read_idx", "[data]") {
  TempDir tmp("idx");
  const Bytes images = pattern(3 * 28 * 28);
  write_idx(tmp / "images", {3, 28, 28}, images);
  write_idx(tmp / "labels", {3}, Bytes{7, 0, 9});

  const auto a = read_idx(tmp / "images");
  CHECK(a.dims == std::vector<std::uint32_t>{3, 28, 28});
  CHECK(a.data == images);
  const auto b = read_idx(tmp / "labels");
  CHECK(b.dims == std::vector<std::uint32_t>{3});
  CHECK(b.data == Bytes{7, 0, 9});
  CHECK(files_in(tmp.path()) == 2);  // no temporary files left behind
  CHECK(fs::file_size(tmp / "images") == 4 + 3 * 4 + images.size());
}

TEST_CASE("IDX writer produces the standard big-endian header", "[data]") {
  TempDir tmp("idx");
  write_idx(tmp / "f", {2, 258}, Bytes(516, 1));
  std::ifstream in(tmp / "f", std::ios::binary);
  Bytes head(12);
  in.read(reinterpret_cast<char*>(head.data()), 12);
  CHECK(head == Bytes{0, 0, 0x08, 2, 0, 0, 0, 2, 0, 0, 1, 2});
}

TEST_CASE("IDX reader reads gzip-compressed files", "[data]") {
  TempDir tmp("idx");
  const Bytes payload = pattern(5 * 4 * 4);
  write_gz(tmp / "f.gz", idx_bytes(0x08, {5, 4, 4}, payload));
  const auto a = read_idx(tmp / "f.gz");
  CHECK(a.dims == std::vector<std::uint32_t>{5, 4, 4});
  CHECK(a.data == payload);
  // Detection is by content, not by name.
  fs::rename(tmp / "f.gz", tmp / "f");
  CHECK(read_idx(tmp / "f").data == payload);
}

TEST_CASE("IDX reader rejects truncated and padded gzip payloads", "[data]") {
  TempDir tmp("idx");
  write_gz(tmp / "short.gz", idx_bytes(0x08, {10, 28, 28}, pattern(1000)));
  CHECK_THROWS_WITH(read_idx(tmp / "short.gz", "pixel data"),
                    Contains(tmp / "short.gz") &&
                        Contains("truncated: expected 7840 bytes of pixel data, found 1000"));
  write_gz(tmp / "long.gz", idx_bytes(0x08, {4}, pattern(6)));
  CHECK_THROWS_WITH(read_idx(tmp / "long.gz"), Contains("trailing garbage: 2 bytes"));

  // A gzip stream cut off mid-way (an interrupted download).
  const std::string whole = tmp / "whole.gz";
  write_gz(whole, idx_bytes(0x08, {100, 28, 28}, pattern(78400)));
  std::ifstream in(whole, std::ios::binary);
  Bytes gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  gz.resize(gz.size() / 2);
  write_file(tmp / "cut.gz", gz);
  CHECK_THROWS_WITH(read_idx(tmp / "cut.gz"), Contains("truncated"));
}

TEST_CASE("IDX reader rejects a wrong magic", "[data]") {
  TempDir tmp("idx");
  Bytes b = idx_bytes(0x08, {4}, pattern(4));
  b[1] = 0x01;
  write_file(tmp / "f", b);
  CHECK_THROWS_AS(read_idx(tmp / "f"), UserError);
  CHECK_THROWS_WITH(read_idx(tmp / "f"), Contains(tmp / "f") && Contains("not an IDX file"));

  write_file(tmp / "text", Bytes{'h', 'e', 'l', 'l', 'o', '\n'});
  CHECK_THROWS_WITH(read_idx(tmp / "text"), Contains("not an IDX file"));
  write_file(tmp / "tiny", Bytes{0, 0});
  CHECK_THROWS_WITH(read_idx(tmp / "tiny"), Contains("not an IDX file: only 2 bytes"));
}

TEST_CASE("IDX reader accepts only unsigned bytes", "[data]") {
  TempDir tmp("idx");
  write_file(tmp / "floats", idx_bytes(0x0D, {4}, pattern(16)));
  CHECK_THROWS_WITH(read_idx(tmp / "floats"),
                    Contains(tmp / "floats") && Contains("element type 0x0d"));
}

TEST_CASE("IDX reader checks the dimension count", "[data]") {
  TempDir tmp("idx");
  write_file(tmp / "zero", idx_bytes(0x08, {}, {}));
  CHECK_THROWS_WITH(read_idx(tmp / "zero"), Contains("dimension count 0"));
  write_file(tmp / "five", idx_bytes(0x08, {1, 1, 1, 1, 1}, {9}));
  CHECK_THROWS_WITH(read_idx(tmp / "five"), Contains("dimension count 5"));
  Bytes cut = idx_bytes(0x08, {2, 3, 4}, {});
  cut.resize(10);
  write_file(tmp / "cut", cut);
  CHECK_THROWS_WITH(read_idx(tmp / "cut"), Contains("truncated header"));
}

TEST_CASE("IDX reader rejects a zero dimension", "[data]") {
  TempDir tmp("idx");
  write_file(tmp / "f", idx_bytes(0x08, {3, 0, 28}, {}));
  CHECK_THROWS_WITH(read_idx(tmp / "f"), Contains(tmp / "f") && Contains("dimension 1 of 3 is 0"));
}

TEST_CASE("IDX reader refuses absurd sizes instead of allocating them", "[data]") {
  TempDir tmp("idx");
  write_file(tmp / "f", idx_bytes(0x08, {0xffffffffu, 0xffffffffu, 0xffffffffu, 2}, {}));
  CHECK_THROWS_WITH(read_idx(tmp / "f"), Contains(tmp / "f") && Contains("implausibly large"));
}

TEST_CASE("IDX reader rejects a truncated payload", "[data]") {
  TempDir tmp("idx");
  write_file(tmp / "f", idx_bytes(0x08, {8000, 28, 28}, pattern(1000)));
  CHECK_THROWS_WITH(
      read_idx(tmp / "f", "pixel data"),
      Equals(tmp / "f" + ": truncated: expected 6272000 bytes of pixel data, found 1000"));
}

TEST_CASE("IDX reader rejects trailing bytes", "[data]") {
  TempDir tmp("idx");
  write_file(tmp / "f", idx_bytes(0x08, {3}, {1, 2, 3, 4}));
  CHECK_THROWS_WITH(
      read_idx(tmp / "f", "label data"),
      Contains(tmp / "f") && Contains("trailing garbage: 1 bytes after the 3 bytes of label data"));
}

TEST_CASE("IDX reader names a missing file", "[data]") {
  TempDir tmp("idx");
  CHECK_THROWS_WITH(read_idx(tmp / "nope"), Equals(tmp / "nope" + ": no such file"));
  CHECK_THROWS_WITH(read_idx(tmp.path()), Contains("is a directory"));
}

TEST_CASE("IDX writer refuses bad shapes and leaves nothing behind", "[data]") {
  TempDir tmp("idx");
  CHECK_THROWS_AS(write_idx(tmp / "a", {2, 2}, Bytes(3)), UserError);
  CHECK_THROWS_AS(write_idx(tmp / "b", {0}, Bytes{}), UserError);
  CHECK_THROWS_AS(write_idx(tmp / "c", {}, Bytes{}), UserError);
  CHECK_THROWS_AS(write_idx(tmp / "d", {1, 1, 1, 1, 1}, Bytes{1}), UserError);
  CHECK_THROWS_WITH(write_idx(tmp / "missing-dir/e", {1}, Bytes{1}),
                    Contains(tmp / "missing-dir/e") && Contains("cannot write"));
  CHECK(files_in(tmp.path()) == 0);
}
