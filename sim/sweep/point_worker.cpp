#include "sim/sweep/point_worker.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "sim/core/error.h"
#include "sim/core/interrupt.h"
#include "sim/sweep/child_processes.h"

namespace trainsim {

namespace {

constexpr int kReplyFd = 3;

}  // namespace

int serve_points(const std::function<int(std::vector<std::string>)>& run) {
  if (::fcntl(kReplyFd, F_GETFD) < 0)
    throw UserError("sweep --point-worker is started by trainsim sweep, not by hand");
  std::string line;
  for (long long tag = 0; std::getline(std::cin, line); ++tag) {
    std::vector<std::string> args;
    std::string stderr_path;
    try {
      const nlohmann::json request = nlohmann::json::parse(line);
      args = request.at("args").get<std::vector<std::string>>();
      stderr_path = request.at("stderr").get<std::string>();
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(std::string("sweep worker: bad request: ") + e.what());
    }
    // The point's messages go to its own file, as a point process's stderr did.
    std::fflush(stderr);
    int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (err < 0) err = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (err >= 0) {
      ::dup2(err, 2);
      ::close(err);
    }
    // Test hook (tests/integration/test_sweep.cpp): the worker dies in the points with this
    // argument, as in a crash (SIGKILL: no core file is left behind).
    if (const char* crash = std::getenv("TRAINSIM_TEST_POINT_KILL"))
      if (std::find(args.begin(), args.end(), std::string(crash)) != args.end())
        std::raise(SIGKILL);
    const int code = run(std::move(args));
    std::fflush(stdout);
    std::fflush(stderr);
    if (!write_all(kReplyFd, std::to_string(tag) + " " + std::to_string(code) + "\n")) return 1;
    // A stopped point ends its worker: the sweep is being stopped.
    if (interrupt_requested()) return kExitInterrupted;
  }
  return 0;
}

}  // namespace trainsim
