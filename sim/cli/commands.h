#pragma once
// The trainsim subcommands, one registry (sim/cli/command_registry.cpp) that main() and the
// help texts read. Each command takes the arguments after its name and returns the exit
// code; user errors are thrown as UserError and turned into exit code 2 by main().
#include <stdexcept>
#include <string>
#include <vector>

namespace trainsim {

struct Command {
  std::string name;
  std::string synopsis;     ///< after "trainsim ": "run EXPERIMENT.yaml [options]"
  std::string summary;      ///< one line, for the command list of `trainsim --help`
  std::string description;  ///< what it does and writes, a paragraph for `trainsim CMD --help`
  std::string example;      ///< one command line
  int (*run)(const std::vector<std::string>& args);
};

/// Every subcommand, in the order `trainsim --help` lists them.
const std::vector<Command>& commands();
/// The command called `name`, or nullptr.
const Command* find_command(const std::string& name);

/// Thrown once a command has printed its --help text: main() exits 0 without running it.
class HelpShown : public std::runtime_error {
 public:
  HelpShown() : std::runtime_error("help shown") {}
};

/// The kinds `trainsim list KIND` takes (networks, memory, techniques, ...), in the order
/// `trainsim list` prints them all.
std::vector<std::string> list_kinds();

int cmd_train(const std::vector<std::string>& args);
int cmd_list(const std::vector<std::string>& args);
int cmd_layer(const std::vector<std::string>& args);
int cmd_run(const std::vector<std::string>& args);
int cmd_compare(const std::vector<std::string>& args);
int cmd_validate(const std::vector<std::string>& args);
int cmd_sweep(const std::vector<std::string>& args);
int cmd_hype_calibrate(const std::vector<std::string>& args);
int cmd_gpu_calibrate(const std::vector<std::string>& args);
int cmd_report(const std::vector<std::string>& args);
int cmd_import(const std::vector<std::string>& args);
int cmd_replay(const std::vector<std::string>& args);

/// Top-level usage text: the commands, the options they share, environment, exit codes.
std::string usage();

}  // namespace trainsim
