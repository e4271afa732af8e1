#pragma once
// Shared command-line handling for the subcommands (Boost.Program_options underneath).
#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace trainsim {

/// Parses `args` against `opts` (+ positionals), turning every Boost error into a UserError
/// that names the command.
boost::program_options::variables_map parse_args(
    const std::string& command, const std::vector<std::string>& args,
    const boost::program_options::options_description& opts,
    const boost::program_options::positional_options_description& positional);

}  // namespace trainsim
