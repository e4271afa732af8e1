#include "sim/io/memo_store.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <thread>

#include "sim/core/error.h"
#include "sim/io/checksum.h"
#include "sim/io/file_set.h"
#include "sim/io/manifest.h"

namespace fs = std::filesystem;

namespace trainsim {

namespace {

// What makes a directory a memo: its manifest lists this file, whose first line starts with
// "trainsim memo:" (kReadme).
constexpr char kReadmeName[] = "README.txt";
constexpr char kReadme[] =
    "trainsim memo: results trainsim computed (op costs), kept for later runs of the same\n"
    "build; safe to delete. Written by `trainsim run/compare --memo` and `trainsim sweep`.\n";
// The first line of every record file.
constexpr char kFileMagic[] = "trainsim memo records 1\n";

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::string hex(std::uint64_t v, int digits) {
  static const char kHex[] = "0123456789abcdef";
  std::string s(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = kHex[v & 15];
  return s;
}

std::string file_name(const std::string& key) {
  return hex(fnv1a(key), 16) + ".log";
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

bool get_u32(const std::string& in, std::size_t& at, std::uint32_t& v) {
  if (in.size() - at < 4) return false;
  v = 0;
  for (int i = 0; i < 4; ++i)
    v |=
        static_cast<std::uint32_t>(static_cast<unsigned char>(in[at + static_cast<std::size_t>(i)]))
        << (8 * i);
  at += 4;
  return true;
}

std::string file_header(const std::string& key) {
  std::string h = kFileMagic;
  put_u32(h, static_cast<std::uint32_t>(build_identity().size()));
  h += build_identity();
  put_u32(h, static_cast<std::uint32_t>(key.size()));
  h += key;
  return h;
}

bool is_memo(const std::string& dir) {
  Manifest m;
  if (!read_manifest(dir, m) || !m.lists(kReadmeName)) return false;
  std::ifstream in(fs::path(dir) / kReadmeName, std::ios::binary);
  std::string first;
  return std::getline(in, first) && first.rfind("trainsim memo:", 0) == 0;
}

// Whether `dir` becomes a memo within `tries` x `ms` milliseconds: another process may be
// making it this moment (its directory made, its README and manifest not yet written).
bool becomes_memo(const std::string& dir, int tries, int ms) {
  for (int i = 0; i < tries && !is_memo(dir); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return is_memo(dir);
}

bool is_empty_dir(const std::string& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::directory_iterator(dir, ec) == fs::directory_iterator();
}

// Appends `bytes` to `path` in one write (a reader sees all of it or a prefix), creating the
// file; UserError if it cannot.
void append_bytes(const std::string& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw UserError(path + ": cannot write the memo: " + std::strerror(errno));
  const ssize_t n = ::write(fd, bytes.data(), bytes.size());
  const int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(bytes.size()))
    throw UserError(path + ": cannot write the memo: " +
                    (n < 0 ? std::strerror(err) : std::string("short write (disk full?)")));
}

// The records of one file written for `key` by this build from offset `from` (0: the start,
// whose header is checked) on; a damaged or cut record ends them. Returns the offset after
// the last whole record read (`from` if none).
std::uint64_t read_records(const std::string& path, const std::string& header, std::uint64_t from,
                           std::vector<std::string>& out) {
  std::string bytes;
  read_file_bytes(path, from, bytes);  // what could be read (nothing, if the file is not there)
  std::size_t at = 0;
  if (from == 0) {
    if (bytes.compare(0, header.size(), header) != 0) return 0;  // another build, another key
    at = header.size();
  }
  while (at < bytes.size()) {
    std::size_t next = at;
    std::uint32_t len = 0, crc = 0;
    if (!get_u32(bytes, next, len) || !get_u32(bytes, next, crc) || bytes.size() - next < len)
      break;
    std::string payload = bytes.substr(next, len);
    if (crc32_of(payload) != crc) break;
    out.push_back(std::move(payload));
    at = next + len;
  }
  return from + at;
}

struct Active {
  std::mutex mutex;
  std::vector<std::unique_ptr<MemoStore>> stores;  // one per directory, for the process's life
  MemoStore* current = nullptr;
  std::uint64_t generation = 0;
};

Active& active() {
  static Active a;
  return a;
}

}  // namespace

void MemoStore::check(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec) || is_memo(dir) || is_empty_dir(dir)) {
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
      throw UserError("memo '" + dir + "' is not a directory");
    return;
  }
  if (!fs::is_directory(dir, ec)) throw UserError("memo '" + dir + "' is not a directory");
  if (!becomes_memo(dir, 20, 50))  // a second for a process making it
    throw UserError("memo '" + dir +
                    "' is not a trainsim memo directory (it has files and no memo manifest): "
                    "name a new or an empty directory");
}

void MemoStore::create(const std::string& dir) {
  check(dir);
  if (is_memo(dir)) return;
  std::error_code ec;
  fs::create_directories(fs::path(dir).parent_path(), ec);
  const bool made = fs::create_directory(dir, ec);
  if (ec || !fs::is_directory(dir, ec))
    throw UserError("memo '" + dir + "': cannot create it" + (ec ? ": " + ec.message() : ""));
  if (!made) {
    // There already: empty (a user's, or another process's that it is making now: wait for
    // that one a moment rather than write the same files beside it).
    if (becomes_memo(dir, 5, 20)) return;
  }
  write_text_file((fs::path(dir) / kReadmeName).string(), kReadme);
  Manifest m;
  m.add_file(kReadmeName);
  write_text_file((fs::path(dir) / kManifestName).string(), m.text());
}

MemoStore::MemoStore(const std::string& dir) : dir_(dir) {
  check(dir);
}

std::vector<std::string> MemoStore::load(const std::string& key, ReadTo* read_to) const {
  std::vector<std::string> out;
  const std::string name = file_name(key), header = file_header(key);
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    const std::string path = (it->path() / name).string();
    std::uint64_t from = 0;
    if (read_to) {
      auto at = read_to->find(path);
      if (at != read_to->end()) from = at->second;
    }
    const std::uint64_t to = read_records(path, header, from, out);
    if (read_to && to > 0) (*read_to)[path] = to;
  }
  return out;
}

std::string MemoStore::own_file(const std::string& key) {
  if (writer_.empty()) {
    create(dir_);  // made when first written to, so a run that fails early leaves nothing
    std::random_device rd;
    const std::string name = "w" + std::to_string(::getpid()) + "-" + hex(rd(), 8);
    const fs::path d = fs::path(dir_) / name;
    std::error_code ec;
    if (!fs::create_directory(d, ec) || ec)
      throw UserError("memo '" + dir_ + "': cannot create " + d.string() +
                      (ec ? ": " + ec.message() : std::string(": it exists")));
    writer_ = name;
    write_text_file((d / kManifestName).string(), Manifest().text());
  }
  const fs::path d = fs::path(dir_) / writer_;
  const std::string name = file_name(key);
  const std::string path = (d / name).string();
  if (std::find(files_.begin(), files_.end(), name) == files_.end()) {
    // Listed before it exists, so the manifest never lacks a file this process wrote; by a
    // line appended, not the manifest written anew: a sweep's worker adds a file per design,
    // and each rewrite freed an inode that ext4 then steps over while it allocates the
    // points' files (docs/sweeps.md). A reader sees the line whole, cut (a name no file has
    // yet) or not at all; the manifest's lines need no order.
    files_.push_back(name);
    append_bytes((d / kManifestName).string(), name + "\n");
    std::error_code ec;
    if (!fs::exists(path, ec)) append_bytes(path, file_header(key));
  }
  return path;
}

void MemoStore::append(const std::string& key, const std::string& record) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::string& bytes = pending_[key];
  put_u32(bytes, static_cast<std::uint32_t>(record.size()));
  put_u32(bytes, crc32_of(record));
  bytes += record;
  pending_bytes_ += record.size() + 8;
  if (pending_bytes_ > kFlushBytes) write_pending();
}

void MemoStore::flush() {
  const std::lock_guard<std::mutex> lock(mutex_);
  write_pending();
}

void MemoStore::write_pending() {
  // One write per key: a reader sees the records of a flush whole or a prefix of them.
  auto pending = std::move(pending_);
  pending_.clear();
  pending_bytes_ = 0;
  for (const auto& [key, bytes] : pending) append_bytes(own_file(key), bytes);
}

MemoScope::MemoScope(const std::string& dir) {
  Active& a = active();
  const std::lock_guard<std::mutex> lock(a.mutex);
  if (a.current) throw std::logic_error("MemoScope: a memo is open already");
  const std::string canonical = fs::absolute(dir).lexically_normal().string();
  MemoStore* store = nullptr;
  for (const auto& s : a.stores)
    if (s->dir() == canonical) store = s.get();
  if (!store) {
    a.stores.push_back(std::make_unique<MemoStore>(canonical));
    store = a.stores.back().get();
  }
  a.current = store;
  ++a.generation;
}

MemoScope::~MemoScope() {
  Active& a = active();
  const std::lock_guard<std::mutex> lock(a.mutex);
  try {
    a.current->flush();
  } catch (const std::exception& e) {
    // A memo is a cache: the run's own results stand without it.
    std::fprintf(stderr, "trainsim: warning: %s (the memo keeps what it had)\n", e.what());
  }
  a.current = nullptr;
}

MemoStore* active_memo() {
  return active().current;
}

std::uint64_t active_memo_generation() {
  return active().generation;
}

namespace {

// The GNU build id note of the main program, as hex; empty if it has none.
int find_build_id(struct dl_phdr_info* info, std::size_t, void* data) {
  auto* out = static_cast<std::string*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* nh = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const char* name = p + sizeof(ElfW(Nhdr));
      const char* desc = name + ((nh->n_namesz + 3) & ~3u);
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        for (std::uint32_t k = 0; k < nh->n_descsz; ++k)
          *out += hex(static_cast<unsigned char>(desc[k]), 2);
        return 1;
      }
      p = desc + ((nh->n_descsz + 3) & ~3u);
    }
  }
  return 1;  // the first object is the main program: stop there
}

}  // namespace

const std::string& build_identity() {
  static const std::string id = [] {
    std::string b;
    dl_iterate_phdr(find_build_id, &b);
    if (!b.empty()) return "build-id " + b;
    std::string bytes;
    read_file_bytes("/proc/self/exe", 0, bytes);
    return "exe " + std::to_string(bytes.size()) + " " + hex(fnv1a(bytes), 16);
  }();
  return id;
}

}  // namespace trainsim
