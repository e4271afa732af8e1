// `trainsim report DIR...`: (re)writes report.html in results directories trainsim wrote,
// from their files alone: for a directory written with --no-report, or by an older trainsim.
#include <cstdio>
#include <filesystem>

#include "sim/cli/arg_parse.h"
#include "sim/cli/commands.h"
#include "sim/core/error.h"
#include "sim/io/manifest.h"
#include "sim/io/staged_dir.h"
#include "sim/report/html/report.h"

namespace po = boost::program_options;

namespace trainsim {

int cmd_report(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("quiet,q", po::bool_switch(), "print nothing but errors");
  po::options_description hidden;
  hidden.add_options()("dir", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("dir", -1);
  const po::variables_map vm = parse_args("report", args, opts, pos, hidden);
  if (!vm.count("dir")) throw UserError("report: missing DIR (see trainsim report --help)");
  for (const std::string& dir : vm["dir"].as<std::vector<std::string>>()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      throw UserError("report: '" + dir + "' is not a directory");
    // Only a directory trainsim wrote, and only a report.html it wrote: never a file of the
    // user's that happens to have the name.
    Manifest m;
    if (!read_manifest(dir, m))
      throw UserError("report: '" + dir + "' has no " + kManifestName +
                      ": it is not a results directory trainsim wrote");
    if (std::filesystem::exists(dir + "/report.html", ec) && !m.entries.count("report.html"))
      throw UserError("report: '" + dir +
                      "/report.html' was not written by trainsim: move it away first");
    StagedDir out(dir, StagedDir::Mode::kResume, "report", "DIR");
    add_report(out);
    if (!vm["quiet"].as<bool>()) std::printf("wrote %s/report.html\n", dir.c_str());
  }
  return 0;
}

}  // namespace trainsim
