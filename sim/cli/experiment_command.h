#pragma once
// `trainsim run` and `trainsim train` share their command line and flow: only whether every
// op is timed on the accelerator differs.
#include <string>
#include <vector>

namespace trainsim {

int run_or_train(const std::string& command, const std::vector<std::string>& args, bool simulate);

}  // namespace trainsim
