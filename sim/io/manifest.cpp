#include "sim/io/manifest.h"

#include "sim/io/dir_lock.h"

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
  const std::string name = e.path().filename().string();
  constexpr std::size_t n = sizeof kStagingSuffix - 1;
  return name.size() > n && name.compare(name.size() - n, n, kStagingSuffix) == 0 &&
         e.is_directory(ec) && !e.is_symlink(ec) &&
         fs::is_regular_file(e.path() / kStagingMarker, ec);
}

bool has_manifest(const fs::directory_entry& e) {
  Manifest unused;
  std::error_code ec;
  return e.is_directory(ec) && !e.is_symlink(ec) && read_manifest(e.path().string(), unused);
}

// The results directory a lock file (".X.trainsim-lock") or staging directory ("X.partial")
// belongs to, beside it.
fs::path guarded_dir(const fs::directory_entry& e, bool lock_file) {
  std::string name = e.path().filename().string();
  if (lock_file)
    name = name.substr(1, name.size() - 1 - (sizeof kLockSuffix - 1));
  else if (name.size() > sizeof kStagingSuffix - 1)
    name.resize(name.size() - (sizeof kStagingSuffix - 1));
  return e.path().parent_path() / name;
}

// Whether a trainsim process is writing `dir` now (holds its lock): its lock file and staging
// directory are then that process's, not leftovers, whatever directory holds them.
bool written_now(const fs::path& dir) {
  return DirLock::held(dir.string());
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

// trainsim's own bookkeeping at the top of a results directory: the manifest, and the
// staging marker a directory keeps for the moment between its rename and the marker's removal.
bool is_own_file(const std::string& rel) {
  return rel == kManifestName || rel == kStagingMarker;
}

// `sub` (at `prefix` inside the manifest's directory) against manifest `m`.
std::string foreign_in(const fs::path& sub, const std::string& prefix, const Manifest& m) {
  std::error_code ec;
  for (const fs::directory_entry& e : entries_of(sub)) {
    const std::string rel = join(prefix, e.path());
    if (is_own_file(rel)) continue;
    const bool dir = e.is_directory(ec) && !e.is_symlink(ec);
    // A nested results directory answers for itself: its own manifest is the current one
    // (a re-run or tools/plot changes it, not the parent's).
    if (dir && has_manifest(e)) {
      const std::string inner = foreign_entry(e.path().string());
      if (!inner.empty()) return rel + "/" + (inner.front() == '(' ? "" : inner);
      continue;
    }
    if (dir && m.lists(rel + "/")) {
      const std::string inner = foreign_in(e.path(), rel + "/", m);
      if (!inner.empty()) return inner;
      continue;
    }
    if (!dir && m.lists(rel)) continue;
    if (is_leftover_tmp(e, rel, m)) continue;
    const bool lock = !dir && is_lock_file(e);
    if (lock || is_staging_dir(e)) {
      if (written_now(guarded_dir(e, lock))) return rel + (dir ? "/" : "") + " (being written)";
      continue;  // a killed process's leftover
    }
    return rel + (dir ? "/" : "");
  }
  return "";
}

// A staging directory nobody writes any more: what its manifest lists (a replaced
// directory's old results carry one) and the marker, or, without a manifest, all of it (a
// run that never published: trainsim created it exclusively).
void remove_stale_staging(const fs::path& dir) {
  std::error_code ec;
  Manifest m;
  if (!read_manifest(dir.string(), m)) {
    fs::remove_all(dir, ec);
    return;
  }
  remove_owned(dir.string());
}

// Removes what `m` vouches for under `sub`; returns whether `sub` ended empty.
bool remove_in(const fs::path& sub, const std::string& prefix, const Manifest& m) {
  std::error_code ec;
  for (const fs::directory_entry& e : entries_of(sub)) {
    const std::string rel = join(prefix, e.path());
    const bool dir = e.is_directory(ec) && !e.is_symlink(ec);
    const bool lock = !dir && is_lock_file(e);
    if (dir && has_manifest(e)) {
      remove_owned(e.path().string());
    } else if (dir && m.lists(rel + "/")) {
      if (remove_in(e.path(), rel + "/", m)) fs::remove(e.path(), ec);
    } else if (is_own_file(rel)) {
      // Kept until everything else is gone (remove_owned): what stays keeps its manifest.
    } else if (!dir && (m.lists(rel) || is_leftover_tmp(e, rel, m))) {
      fs::remove(e.path(), ec);
    } else if ((lock || is_staging_dir(e)) && !written_now(guarded_dir(e, lock))) {
      if (lock)
        fs::remove(e.path(), ec);
      else
        remove_stale_staging(e.path());
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
  out.entries.clear();
  std::ifstream in(fs::path(dir) / kManifestName, std::ios::binary);
  if (!in) return false;
  std::string line;
  if (!std::getline(in, line) || line != kHeader) return false;
  Manifest m;
  while (std::getline(in, line)) {
    // Entries name paths inside the directory; anything else is not a manifest of ours.
    if (line.empty() || line.front() == '/' || line.find("..") != std::string::npos) return false;
    m.entries.insert(line);
  }
  out = std::move(m);
  return true;
}

void remove_stale(const std::string& staging) {
  remove_stale_staging(staging);
}

void add_tree(const std::string& dir, Manifest& m) {
  std::error_code ec;
  const fs::path root(dir);
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string rel = it->path().lexically_relative(root).generic_string();
    if (is_own_file(rel)) continue;
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
  remove_in(dir, "", m);
  const std::vector<fs::directory_entry> left = entries_of(dir);
  if (std::all_of(left.begin(), left.end(), [](const fs::directory_entry& e) {
        return is_own_file(e.path().filename().string());
      })) {
    for (const fs::directory_entry& e : left) fs::remove(e.path(), ec);
    fs::remove(dir, ec);
  }
  return !fs::exists(dir, ec);
}

}  // namespace trainsim
