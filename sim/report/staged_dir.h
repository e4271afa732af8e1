#pragma once
// An output directory that appears only when complete. Files are written into
// "<dir>.partial"; commit() replaces <dir> with it in one rename. If the run fails or is
// interrupted, the destructor removes the partial directory, so a failed run leaves no
// half-written results (and never clobbers the previous complete ones).
#include <string>

namespace trainsim {

class StagedDir {
 public:
  explicit StagedDir(std::string final_dir);
  ~StagedDir();
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  /// Path of a file inside the staging directory.
  std::string file(const std::string& name) const;
  /// Moves the staging directory to its final place.
  void commit();
  const std::string& final_dir() const { return final_; }

 private:
  std::string final_, staging_;
  bool committed_ = false;
};

/// Writes `text` to `path`, throwing UserError if it cannot.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace trainsim
