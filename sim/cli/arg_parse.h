#pragma once
// Shared command-line handling for the subcommands (Boost.Program_options underneath):
// --help / -h on every command, `--` ending the options, positional arguments that cannot
// also be given as hidden options, and errors that name the command and point at its help.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace trainsim {

/// Parses `args` of `command` against its `visible` options (listed by --help) and the
/// `hidden` ones that `positional` maps the plain arguments to. With -h or --help before any
/// `--`, prints the command's help and throws HelpShown. Every Boost error becomes a
/// UserError naming the command.
boost::program_options::variables_map parse_args(
    const std::string& command, const std::vector<std::string>& args,
    const boost::program_options::options_description& visible,
    const boost::program_options::positional_options_description& positional = {},
    const boost::program_options::options_description& hidden = {});

/// `trainsim COMMAND --help`: usage, description, the visible options, an example.
std::string command_help(const std::string& command,
                         const boost::program_options::options_description& visible);

/// Options as "  -o, --out DIR   text" lines, descriptions aligned and wrapped to `width`.
std::string format_options(const boost::program_options::options_description& opts,
                           std::size_t width = 80);

}  // namespace trainsim
