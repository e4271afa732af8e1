// trainsim: simulate DNN training on an accelerator model. See `trainsim --help`.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

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
  // A write that failed before the end (output past the buffer) left no errno to report.
  std::fprintf(stderr, "trainsim: error: cannot write to standard output: %s\n",
               flush_errno != 0 ? std::strerror(flush_errno) : "an earlier write failed");
  return code == 0 ? 1 : code;
}

}  // namespace

int main(int argc, char** argv) {
  // Into a file or a pipe, a command's output (a listing, a JSON record) is held until the
  // end, so that a failing write is seen by the final flush, with its reason; commands that
  // stream (progress, sweeps) flush as they go. A terminal keeps its line buffering.
  // (glibc sizes a buffer it allocates itself by the file's block size, whatever size is
  // asked for: hence one of ours, static so that it outlives the exit-time flush.)
  static char held[std::size_t{1} << 18];
  if (!::isatty(STDOUT_FILENO)) std::setvbuf(stdout, held, _IOFBF, sizeof held);
  return checked_exit(trainsim::run_cli(std::vector<std::string>(argv + 1, argv + argc)));
}
