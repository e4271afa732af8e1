#pragma once
// A fresh directory per test under the build tree (TRAINSIM_TEST_TMP), removed again when
// the test ends. Unique per process and instance, so ctest -j can run tests side by side.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>

namespace trainsim::test {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "tmp") {
    static std::atomic<int> counter{0};
    path_ = std::string(TRAINSIM_TEST_TMP) + "/" + prefix + "-" + std::to_string(::getpid()) + "-" +
            std::to_string(counter++);
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace trainsim::test
