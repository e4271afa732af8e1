#include "sim/cli/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace trainsim {

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)), enabled_(isatty(fileno(stderr)) != 0) {}

ProgressBar::~ProgressBar() {
  clear();
}

void ProgressBar::update(std::int64_t done, std::int64_t total, const std::string& extra) {
  if (!enabled_ || total <= 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && done < total && now - last_ < std::chrono::milliseconds(50)) return;
  last_ = now;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * done / total);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(kWidth - filled), '.');
  std::fprintf(stderr, "\r%s [%s] %3d%% %s\033[K", label_.c_str(), bar.c_str(),
               static_cast<int>(100 * done / total), extra.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::clear() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace trainsim
