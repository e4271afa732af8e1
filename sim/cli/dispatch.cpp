#include "sim/cli/dispatch.h"

#include <cstdio>
#include <exception>

#include "sim/cli/commands.h"
#include "sim/core/error.h"
#include "sim/core/interrupt.h"
#include "sim/spec/op_stats.h"

namespace trainsim {

int run_cli(std::vector<std::string> args) {
  // `trainsim help CMD` is `trainsim CMD --help`.
  if (args.size() == 2 && args[0] == "help" && find_command(args[1]) != nullptr)
    args = {args[1], "--help"};
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(usage().c_str(), args.empty() ? stderr : stdout);
    return args.empty() ? kExitUserError : 0;
  }
  if (args[0] == "--version") {
    std::printf("trainsim %s\n", TRAINSIM_VERSION);
    return 0;
  }
  const std::string name = args[0];
  args.erase(args.begin());
  install_interrupt_handler();
  try {
    const Command* cmd = find_command(name);
    if (cmd == nullptr) throw UserError("unknown command '" + name + "' (see trainsim --help)");
    return cmd->run(args);
  } catch (const HelpShown&) {
    return 0;
  } catch (const UserError& e) {
    std::fprintf(stderr, "trainsim: error: %s\n", e.what());
    return kExitUserError;
  } catch (const CounterOverflow& e) {
    // The runners name the epochs that fit (sim/train/run_limits.h); a sum they do not watch
    // is still the size of the configured run, not a bug.
    std::fprintf(stderr,
                 "trainsim: error: the run counts more %s than the counters hold (%s): fewer "
                 "training.epochs or a smaller workload\n",
                 e.counter().c_str(), e.limit().c_str());
    return kExitUserError;
  } catch (const Interrupted&) {
    std::fprintf(stderr, "\ntrainsim: interrupted\n");
    return kExitInterrupted;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trainsim: internal error: %s\n", e.what());
    return 1;
  }
}

}  // namespace trainsim
