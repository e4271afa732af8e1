// trainsim: simulate DNN training on an accelerator model. See `trainsim --help`.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/core/error.h"
#include "sim/core/interrupt.h"

int main(int argc, char** argv) {
  using namespace trainsim;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(usage().c_str(), stdout);
    return args.empty() ? kExitUserError : 0;
  }
  if (args[0] == "--version") {
    std::printf("trainsim %s\n", TRAINSIM_VERSION);
    return 0;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  install_interrupt_handler();
  try {
    if (cmd == "train") return cmd_train(args);
    if (cmd == "list") return cmd_list(args);
    if (cmd == "layer") return cmd_layer(args);
    if (cmd == "run") return cmd_run(args);
    if (cmd == "compare") return cmd_compare(args);
    throw UserError("unknown command '" + cmd + "' (try trainsim --help)");
  } catch (const UserError& e) {
    std::fprintf(stderr, "trainsim: error: %s\n", e.what());
    return kExitUserError;
  } catch (const Interrupted&) {
    std::fprintf(stderr, "\ntrainsim: interrupted; partial output removed\n");
    return kExitInterrupted;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trainsim: internal error: %s\n", e.what());
    return 1;
  }
}
