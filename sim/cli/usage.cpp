#include <algorithm>
#include <cstdio>

#include "sim/cli/commands.h"

namespace trainsim {

std::string usage() {
  std::string out =
      "trainsim: a cycle-approximate simulator of DNN training accelerators\n\n"
      "usage: trainsim <command> [options]      trainsim <command> --help for its options\n\n"
      "commands:\n";
  int width = 0;
  for (const Command& c : commands()) width = std::max(width, static_cast<int>(c.name.size()));
  for (const Command& c : commands()) {
    char line[200];
    std::snprintf(line, sizeof line, "  %-*s %s\n", width, c.name.c_str(), c.summary.c_str());
    out += line;
  }
  out += R"(
options most commands share:
  -o, --out DIR        results directory (default: output.dir of the experiment)
  -s, --set KEY=VALUE  override any experiment key, e.g. -s training.epochs=3
  -q, --quiet          print only the final line
  -f, --force          replace an existing results directory
  --                   ends the options: what follows is a file name
  -h, --help           the command's usage, options and an example

  --help, --version    (without a command) this text, the version

environment:
  TRAINSIM_DATA     dataset root (default: <source>/data)
  TRAINSIM_CONFIGS  config root for network names (default: <source>/configs)

exit codes: 0 ok, 2 bad input (config, data, arguments), 130 interrupted, 1 internal error
)";
  return out;
}

}  // namespace trainsim
