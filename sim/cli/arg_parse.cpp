#include "sim/cli/arg_parse.h"

#include "sim/core/error.h"

namespace po = boost::program_options;

namespace trainsim {

po::variables_map parse_args(const std::string& command, const std::vector<std::string>& args,
                             const po::options_description& opts,
                             const po::positional_options_description& positional) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UserError(command + ": " + e.what() + " (try trainsim --help)");
  }
  return vm;
}

}  // namespace trainsim
