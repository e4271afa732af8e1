#include "sim/io/manifest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

namespace trainsim {

namespace {

constexpr char kHeader[] = "# trainsim results directory: the files trainsim wrote here";

bool is_lock_file(const fs::directory_entry& e) {
  const std::string name = e.path().filename().string();
  return name.size() > sizeof kLockSuffix && name.front() == '.' &&
         name.compare(name.size() - (sizeof kLockSuffix - 1), std::string::npos, kLockSuffix) ==
             0 &&
         e.is_regular_file();
}

bool is_staging_dir(const fs::directory_entry& e) {
  std::error_code ec;
  return e.is_directory(ec) && !e.is_symlink(ec) &&
         fs::is_regular_file(e.path() / kStagingMarker, ec);
}

// "<listed>.tmp": a listed file's temporary (sim/io/file_set.h), left by a killed process.
bool is_leftover_tmp(const fs::directory_entry& e, const std::string& rel, const Manifest& m) {
  constexpr char kTmp[] = ".tmp";
  const std::size_t n = sizeof kTmp - 1;
  return rel.size() > n && rel.compare(rel.size() - n, n, kTmp) == 0 &&
         (m.lists(rel.substr(0, rel.size() - n)) ||
          rel.substr(0, rel.size() - n) == kManifestName) &&
         e.is_regular_file();
}

// Entries of `dir` (not following symlinks), sorted so that messages are deterministic.
std::vector<fs::directory_entry> entries_of(const fs::path& dir) {
  std::vector<fs::directory_entry> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(*it);
  std::sort(out.begin(), out.end(), [](const fs::directory_entry& a, const fs::directory_entry& b) {
    return a.path().filename() < b.path().filename();
  });
  return out;
}

std::string join(const std::string& prefix, const fs::path& name) {
  return prefix + name.filename().string();
}

// `sub` (at `prefix` inside the manifest's directory) against manifest `m`.
std::string foreign_in(const fs::path& sub, const std::string& prefix, const Manifest& m) {
  std::error_code ec;
  for (const fs::directory_entry& e : entries_of(sub)) {
    const std::string rel = join(prefix, e.path());
    if (rel == kManifestName) continue;
    const bool dir = e.is_directory(ec) && !e.is_symlink(ec);
    if (dir && m.lists(rel + "/")) {
      const std::string inner = foreign_in(e.path(), rel + "/", m);
      if (!inner.empty()) return inner;
      continue;
    }
    if (!dir && m.lists(rel)) continue;
    if (is_lock_file(e) || is_staging_dir(e) || is_leftover_tmp(e, rel, m)) continue;
    if (dir && foreign_entry(e.path().string()).empty()) continue;  // a nested results dir
    return rel + (dir ? "/" : "");
  }
  return "";
}

// Removes what `m` vouches for under `sub`; returns whether `sub` ended empty.
bool remove_in(const fs::path& sub, const std::string& prefix, const Manifest& m) {
  std::error_code ec;
  for (const fs::directory_entry& e : entries_of(sub)) {
    const std::string rel = join(prefix, e.path());
    const bool dir = e.is_directory(ec) && !e.is_symlink(ec);
    if (dir && m.lists(rel + "/")) {
      if (remove_in(e.path(), rel + "/", m)) fs::remove(e.path(), ec);
    } else if (!dir && (m.lists(rel) || rel == kManifestName || is_lock_file(e) ||
                        is_leftover_tmp(e, rel, m))) {
      fs::remove(e.path(), ec);
    } else if (is_staging_dir(e)) {
      fs::remove_all(e.path(), ec);  // made by trainsim, exclusively, and never finished
    } else if (dir) {
      remove_owned(e.path().string());
    }
  }
  return fs::is_empty(sub, ec) && !ec;
}

}  // namespace

void Manifest::add_dir(const std::string& rel) {
  std::string r = rel;
  while (!r.empty() && r.back() == '/') r.pop_back();
  for (std::size_t slash = r.find('/'); slash != std::string::npos; slash = r.find('/', slash + 1))
    entries.insert(r.substr(0, slash + 1));
  if (!r.empty()) entries.insert(r + "/");
}

std::string Manifest::text() const {
  std::string t = std::string(kHeader) + "\n";
  for (const std::string& e : entries) t += e + "\n";
  return t;
}

bool read_manifest(const std::string& dir, Manifest& out) {
  std::ifstream in(fs::path(dir) / kManifestName, std::ios::binary);
  if (!in) return false;
  std::string line;
  if (!std::getline(in, line) || line != kHeader) return false;
  out.entries.clear();
  while (std::getline(in, line)) {
    // Entries name paths inside the directory; anything else is not a manifest of ours.
    if (line.empty() || line.front() == '/' || line.find("..") != std::string::npos) return false;
    out.entries.insert(line);
  }
  return true;
}

void add_tree(const std::string& dir, Manifest& m) {
  std::error_code ec;
  const fs::path root(dir);
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string rel = it->path().lexically_relative(root).generic_string();
    if (rel == kManifestName || rel == kStagingMarker) continue;
    if (it->is_directory(ec) && !it->is_symlink(ec))
      m.add_dir(rel);
    else
      m.add_file(rel);
  }
}

std::string foreign_entry(const std::string& dir) {
  Manifest m;
  if (!read_manifest(dir, m)) return std::string("(no ") + kManifestName + ")";
  return foreign_in(dir, "", m);
}

bool remove_owned_entry(const std::string& dir, const std::string& rel) {
  Manifest m;
  std::error_code ec;
  if (!read_manifest(dir, m)) return false;
  const fs::path p = fs::path(dir) / rel;
  std::string r = rel;
  while (!r.empty() && r.back() == '/') r.pop_back();
  if (m.lists(r + "/") && fs::is_directory(fs::symlink_status(p, ec))) {
    if (remove_in(p, r + "/", m)) fs::remove(p, ec);
  } else if (m.lists(r)) {
    fs::remove(p, ec);
  }
  return !fs::exists(fs::symlink_status(p, ec));
}

bool remove_owned(const std::string& dir) {
  Manifest m;
  std::error_code ec;
  if (!read_manifest(dir, m)) return false;
  if (remove_in(dir, "", m)) fs::remove(dir, ec);
  return !fs::exists(dir, ec);
}

}  // namespace trainsim
