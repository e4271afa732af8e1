#pragma once
// Files that change together or not at all. A results directory is read by people, plots and
// `--resume` at any moment, so after every epoch it must hold one consistent set: outputs,
// checkpoint and INCOMPLETE marker of the same epoch. Every file is first written whole under
// a temporary name; only when all are on disk are they renamed into place (renames need no
// space), so a full disk or a failed write leaves the previous set untouched.
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace trainsim {

class FileSet {
 public:
  void write(std::string path, std::string bytes);
  void remove(std::string path);
  /// All or nothing; UserError naming the file and the reason (e.g. no space left).
  void commit();
  bool empty() const { return writes_.empty() && removes_.empty(); }

 private:
  std::vector<std::pair<std::string, std::string>> writes_;
  std::vector<std::string> removes_;
};

/// A file written in pieces (a table too large to hold whole) that still appears at once:
/// the pieces go to "<path>.tmp", which commit() renames over `path`; without a commit the
/// temporary is removed and `path` keeps its old content. UserError naming `path` if a write
/// fails (a full disk).
class StreamedFile {
 public:
  explicit StreamedFile(std::string path);
  ~StreamedFile();
  StreamedFile(const StreamedFile&) = delete;
  StreamedFile& operator=(const StreamedFile&) = delete;
  void append(const std::string& bytes);
  void commit();

 private:
  void fail(int err);
  std::string path_;
  std::FILE* file_ = nullptr;
};

/// Writes `text` to `path` through a temporary file renamed over it, so a file is either its
/// old or its new content; UserError if it cannot.
void write_text_file(const std::string& path, const std::string& text);
/// The content of `path`; UserError if it cannot be read.
std::string read_text_file(const std::string& path);
/// Appends the bytes of `path` from offset `from` to its end to `out`, reading until a read
/// finds no more (a writer may be appending; a pipe is read from 0 only). False if it cannot
/// be opened, sought or read (what was read before an error stays appended).
bool read_file_bytes(const std::string& path, std::uint64_t from, std::string& out);
/// Removes `path` if it exists.
void remove_file(const std::string& path);

}  // namespace trainsim
