// trainsim: simulate DNN training on an accelerator model. See `trainsim --help`.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "sim/cli/dispatch.h"

namespace {

// What a command printed must have reached stdout: `trainsim layer --json > /dev/full` exited
// 0 with nothing written. One check for every command, at exit: the buffered rest is flushed
// and the stream's error flag, set by any write that failed on the way, is read. A failure is
// exit 1 (the command's own failure code, if it had one, is kept) with one line on stderr.
int checked_exit(int code) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int flush_errno = errno;
  if (flushed && !std::ferror(stdout)) return code;
  std::fprintf(stderr, "trainsim: error: cannot write to standard output%s%s\n",
               flush_errno != 0 ? ": " : "", flush_errno != 0 ? std::strerror(flush_errno) : "");
  return code == 0 ? 1 : code;
}

}  // namespace

int main(int argc, char** argv) {
  return checked_exit(trainsim::run_cli(std::vector<std::string>(argv + 1, argv + argc)));
}
