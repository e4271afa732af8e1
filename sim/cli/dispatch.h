#pragma once
// One command line of trainsim (the arguments after the program name) run to its exit code:
// `main()` calls it once, a sweep's point worker once per point, so a point run in process
// fails, prints and exits with exactly the codes and lines of a `trainsim run` of its own.
#include <string>
#include <vector>

namespace trainsim {

/// Runs `args` ("run", "exp.yaml", ...): user errors print "trainsim: error: ..." on stderr
/// and give exit code 2, an interrupt 130, an internal error 1.
int run_cli(std::vector<std::string> args);

}  // namespace trainsim
