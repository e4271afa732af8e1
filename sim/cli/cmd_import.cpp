// `trainsim import MODEL.onnx -o NETWORK.yaml`: an ONNX model as a trainsim network file
// (docs/interop.md, "ONNX import"). The file is what `network: {onnx: MODEL.onnx}` reads, so
// it can be kept, edited and shipped like the zoo's.
#include <cstdio>
#include <filesystem>

#include "sim/cli/arg_parse.h"
#include "sim/cli/commands.h"
#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/interop/onnx_import.h"
#include "sim/interop/onnx_network.h"
#include "sim/io/file_set.h"
#include "sim/workload/net_shape.h"

namespace po = boost::program_options;

namespace trainsim {

int cmd_import(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("out,o", po::value<std::string>(), "write the network file here (.yaml)")(
      "name", po::value<std::string>(), "the network's name (default: the model file's stem)")(
      "force,f", po::bool_switch(), "replace an existing file at --out")(
      "quiet,q", po::bool_switch(), "print nothing but errors");
  po::options_description hidden;
  hidden.add_options()("model", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("model", -1);
  const po::variables_map vm = parse_args("import", args, opts, pos, hidden);
  if (!vm.count("model"))
    throw UserError("import: missing MODEL.onnx (see trainsim import --help)");
  const auto models = vm["model"].as<std::vector<std::string>>();
  if (models.size() != 1) throw UserError("import: give one MODEL.onnx");
  if (!vm.count("out")) throw UserError("import: missing -o NETWORK.yaml");
  const std::string out = vm["out"].as<std::string>();
  std::error_code ec;
  if (std::filesystem::is_directory(out, ec))
    throw UserError("import: --out '" + out + "' is a directory; give a file name");
  if (std::filesystem::exists(out, ec) && !vm["force"].as<bool>())
    throw UserError("import: '" + out + "' exists (--force replaces it)");
  const std::string name = vm.count("name") ? vm["name"].as<std::string>() : "";

  const OnnxImport imported = import_onnx(models[0], name);
  // Through the network parser, as `network: {onnx: ...}` does: what is written reads back.
  const NetworkSpec net = onnx_network(imported, models[0]);
  const std::int64_t params = NetShape(net).param_count();
  write_text_file(out, onnx_network_file(imported, net));
  if (!vm["quiet"].as<bool>())
    std::printf(
        "%s: %d ONNX nodes -> %zu layers, %s trainable parameters, input %dx%dx%d, "
        "%d classes; wrote %s\n",
        models[0].c_str(), imported.nodes, net.layers.size(), grouped(params).c_str(), net.input[0],
        net.input[1], net.input[2], net.classes, out.c_str());
  return 0;
}

}  // namespace trainsim
