#pragma once
// The trainsim subcommands. Each takes the arguments after its name and returns the exit
// code; user errors are thrown as UserError and turned into exit code 2 by main().
#include <string>
#include <vector>

namespace trainsim {

int cmd_train(const std::vector<std::string>& args);
int cmd_list(const std::vector<std::string>& args);
int cmd_layer(const std::vector<std::string>& args);
int cmd_run(const std::vector<std::string>& args);
int cmd_compare(const std::vector<std::string>& args);

/// Top-level usage text.
std::string usage();

}  // namespace trainsim
