#include "sim/run/progress_bar.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace trainsim {

namespace {
constexpr int kMinBar = 10;  // narrower than this a bar says nothing the percentage does not
}

std::string format_duration(double seconds) {
  const long long s = seconds < 0 ? 0 : static_cast<long long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  return buf;
}

std::string render_progress(const std::string& label, std::int64_t done, std::int64_t total,
                            double elapsed_seconds, double eta_seconds, const std::string& extra,
                            int width) {
  const std::size_t room = width > 1 ? static_cast<std::size_t>(width - 1) : 0;
  const std::int64_t pct = total > 0 ? 100 * std::clamp<std::int64_t>(done, 0, total) / total : 0;
  char pct_text[24];  // " 100%"; room for any long long, so that no format can be cut
  std::snprintf(pct_text, sizeof pct_text, " %3lld%%", static_cast<long long>(pct));
  std::string times = " " + format_duration(elapsed_seconds);
  times += eta_seconds >= 0 ? " ETA " + format_duration(eta_seconds) : std::string(" ETA -:--");
  std::string tail = extra.empty() ? "" : " | " + extra;
  auto bar_room = [&] {
    const std::size_t fixed = label.size() + 3 + std::string(pct_text).size() + times.size() +
                              tail.size();  // 3: " [" and "]"
    return room > fixed ? static_cast<int>(room - fixed) : 0;
  };
  if (bar_room() < kMinBar) tail.clear();
  if (bar_room() < kMinBar) times.clear();
  std::string line = label;
  const int bar = bar_room();
  if (bar >= kMinBar) {
    const int filled = static_cast<int>(bar * pct / 100);
    line += " [" + std::string(static_cast<std::size_t>(filled), '#') +
            std::string(static_cast<std::size_t>(bar - filled), '.') + "]";
  }
  line += pct_text + times + tail;
  if (line.size() > room) line.resize(room);
  return line;
}

int terminal_width(int fd) {
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    const int n = std::atoi(c);
    if (n > 0) return n;
  }
  return 80;
}

bool stderr_is_terminal() {
  return isatty(fileno(stderr)) != 0;
}

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)), enabled_(stderr_is_terminal()) {}

ProgressBar::~ProgressBar() {
  clear();
}

void ProgressBar::update(std::int64_t done, std::int64_t total, double elapsed_seconds,
                         double eta_seconds, const std::string& extra) {
  if (!enabled_ || total <= 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && done < total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  // Asked every redraw, so a resized terminal gets a bar that fits at once.
  const std::string line = render_progress(label_, done, total, elapsed_seconds, eta_seconds, extra,
                                           terminal_width(fileno(stderr)));
  std::fprintf(stderr, "\r%s\033[K", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::clear() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

EtaClock::EtaClock(int first, int units)
    : first_(first), units_(units), start_(std::chrono::steady_clock::now()) {}

double EtaClock::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double EtaClock::eta(int unit, double fraction) const {
  const double done = (unit - first_) + std::clamp(fraction, 0.0, 1.0);
  const double todo = units_ - first_;
  if (done <= 0 || todo <= 0) return -1;
  return elapsed() * (todo - done) / done;
}

}  // namespace trainsim
