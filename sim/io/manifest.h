#pragma once
// What trainsim wrote into a directory. Every directory trainsim creates for results holds a
// manifest (.trainsim-manifest): one line per file or directory it put there, relative to
// the directory. Commands may replace or clean such a directory only as far as the manifest
// vouches for its content, so a user's own files are never deleted, whatever --out names.
#include <set>
#include <string>

namespace trainsim {

inline constexpr char kManifestName[] = ".trainsim-manifest";
/// The marker inside a staging directory (<dir>.partial) while a process writes it.
inline constexpr char kStagingMarker[] = ".trainsim-staging";
/// A results directory is written in <dir>.partial before it is renamed to <dir>.
inline constexpr char kStagingSuffix[] = ".partial";
/// Lock files sit beside the directory they guard: <parent>/.<name>.trainsim-lock.
inline constexpr char kLockSuffix[] = ".trainsim-lock";

/// Entries are relative paths with '/' separators; directories end in '/'.
struct Manifest {
  std::set<std::string> entries;

  void add_file(const std::string& rel) { entries.insert(rel); }
  /// Adds "rel/" and every directory above it inside the results directory.
  void add_dir(const std::string& rel);
  bool lists(const std::string& rel) const { return entries.count(rel) > 0; }
  /// The manifest file's text (a header line, then the entries sorted).
  std::string text() const;
};

/// The manifest of `dir`, or false if it has none or it is not a manifest.
bool read_manifest(const std::string& dir, Manifest& out);

/// Adds everything under `dir` (files and directories, recursively) to `m`: for a directory
/// this process created and alone wrote into.
void add_tree(const std::string& dir, Manifest& m);

/// Whether everything in `dir` is trainsim's: listed in its manifest, a nested directory that
/// is itself trainsim's (judged by its own manifest), the staging directory or lock file a
/// killed process left (one a running trainsim holds is not: "<entry> (being written)"), or
/// the temporary "<file>.tmp" of a listed file.
/// Returns "" if so, else the first entry that is not (relative to `dir`), or a reason in
/// parentheses when `dir` has no manifest at all.
std::string foreign_entry(const std::string& dir);

/// Removes what `dir`'s manifest lists (and nested trainsim directories), then every
/// directory left empty, `dir` included. Anything else stays. Returns true if `dir` is gone.
bool remove_owned(const std::string& dir);

/// remove_owned() for one entry of `dir`'s manifest: a file, or a directory ("sub/") and what
/// the manifest lists inside it. Returns true if the entry is gone.
bool remove_owned_entry(const std::string& dir, const std::string& rel);

/// Removes a staging directory that carries trainsim's marker and that no process writes any
/// more (the caller holds the lock of the directory it stages): what its manifest lists, or
/// all of it when it has none.
void remove_stale(const std::string& staging);

}  // namespace trainsim
