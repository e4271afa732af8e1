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
  } catch (const Interrupted&) {
    std::fprintf(stderr, "\ntrainsim: interrupted\n");
    return kExitInterrupted;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trainsim: internal error: %s\n", e.what());
    return 1;
  }
}
