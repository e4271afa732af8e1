#pragma once
// Which paths trainsim may take as a results directory. Whatever --out names, a command must
// not be able to destroy the user's files: the root, the home directory, the working
// directory and its ancestors, and any directory holding one of the process's own inputs are
// refused outright, as is a path that names a file.
#include <string>

namespace trainsim {

/// Records a file or directory this process reads (experiment, network, sweep file, shard
/// directories): no output directory may be it or contain it.
void note_input_path(const std::string& path);

/// UserError "<command>: <option> '<dir>' is ..." if `dir` may not be written as a results
/// directory at all.
void check_output_target(const std::string& dir, const std::string& command,
                         const std::string& option = "--out");

/// UserError if directories `a` and `b` (named by options `option_a`, `option_b`) are one
/// and the same or one lies inside the other: each is published and replaced on its own.
void check_apart(const std::string& a, const std::string& option_a, const std::string& b,
                 const std::string& option_b, const std::string& command);

/// UserError unless `dir` (existing) holds only what trainsim wrote, as --force requires.
void check_replaceable(const std::string& dir, const std::string& command,
                       const std::string& option = "--out");

}  // namespace trainsim
