#include "tests/fuzz/targets.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "sim/data/idx.h"
#include "sim/interop/onnx_import.h"
#include "sim/interop/onnx_network.h"
#include "sim/run/experiment_file.h"
#include "sim/techniques/adagp_settings.h"
#include "sim/techniques/predictor_ops.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"

namespace trainsim::fuzz {

namespace {

// A finding that is not a sanitizer report: libFuzzer reports the uncaught exception.
[[noreturn]] void finding(const std::string& what) {
  throw std::logic_error("fuzz finding: " + what);
}

// The experiment file a fuzz input becomes: one per process, removed at exit. Names of
// shipped networks and accelerators resolve through the configs root as usual. In memory
// (/dev/shm) where there is one: ext4 flushes a file truncated and rewritten on every
// close, which kept the fuzzer waiting on the disk for 80% of its time.
class ScratchFile {
 public:
  ScratchFile() {
    std::error_code ec;
    const std::filesystem::path shm = "/dev/shm";
    const std::filesystem::path tmp =
        std::filesystem::is_directory(shm, ec) ? shm : std::filesystem::temp_directory_path(ec);
    dir_ = tmp / ("trainsim-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "fuzz.yaml").string();
  }
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::string& write(const std::uint8_t* data, std::size_t size) {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (f == nullptr || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0)
      throw std::runtime_error("cannot write " + path_);
    return path_;
  }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

void check_op(const Op& op, const std::string& where) {
  // Each of these forms products of the op's sizes; the sanitizers see any overflow.
  const std::int64_t macs = op.macs();
  const GemmShape g = lower_to_gemm(op);
  const ConvShape c = lower_to_conv(op);
  if (macs < 0 || g.macs() < 0 || c.macs() < 0 || op.eltwise.elements < 0)
    finding(where + ": negative size in " + op.describe());
}

// Everything the simulator derives from a validated spec before timing it: the shapes
// (which load_experiment already checked, so a UserError here is a finding), the ops of
// every layer at the configured batch and at a last batch of one sample, and the ADA-GP
// predictor's ops for every conv and dense layer (with the technique's predictor sizes,
// whatever the technique, as AcceleratorSession lowers them).
void lower_everything(const ExperimentSpec& spec) {
  std::optional<NetShape> shape;
  try {
    shape.emplace(spec.network);
  } catch (const UserError& e) {
    finding(std::string("load_experiment accepted a network NetShape rejects: ") + e.what());
  }
  const int bits = spec.sim.accelerator.word_bits;
  for (int batch : {spec.training.batch_size, 1}) {
    for (const LayerOps& l : lower_network(*shape, batch, bits, spec.training.optimizer)) {
      for (const auto* op : {&l.forward, &l.backward_data, &l.backward_weight, &l.loss_grad,
                             &l.update, &l.grad_sum}) {
        if (*op) check_op(**op, "lower_network");
      }
    }
  }
  const TechniqueSpec& t = spec.sim.technique;
  std::vector<int> outputs(shape->size(), 0);
  for (std::size_t i = 0; i < shape->size(); ++i) {
    const LayerSpec& ls = shape->layer_spec(i);
    const Shape in = shape->layer(i).in;
    if (ls.type == "conv2d") outputs[i] = in.c / ls.groups * ls.kernel * ls.kernel_width() + 1;
    if (ls.type == "dense") outputs[i] = static_cast<int>(in.size()) + 1;
  }
  const int max_outputs = *std::max_element(outputs.begin(), outputs.end());
  const int batch = spec.training.batch_size;
  for (std::size_t i = 0; i < shape->size(); ++i) {
    if (outputs[i] == 0) continue;
    const Shape out = shape->layer(i).out;
    const bool conv = shape->layer_spec(i).type == "conv2d";
    const PredictorOps p = lower_predictor(
        static_cast<int>(i), out.c, conv ? out.h : 1, conv ? out.w : batch, conv ? batch : 1,
        t.get<AdaGpSettings>().predictor_size, t.get<AdaGpSettings>().predictor_channels,
        outputs[i], max_outputs, bits, true);
    for (const auto* ops : {&p.forward, &p.backward, &p.update})
      for (const Op& op : *ops) check_op(op, "lower_predictor");
  }
}

// The shipped experiment an overrides input starts from: "@name" on its first line, else
// quickstart. Only shipped names, so inputs cannot point the loader at arbitrary files.
std::string base_experiment(std::string& first_line) {
  std::string name = "quickstart";
  if (!first_line.empty() && first_line[0] == '@') {
    for (const char* shipped :
         {"quickstart", "lenet5_mnist", "mlp_fashion", "small_cnn_fashion", "adagp_zoo"}) {
      if (first_line.substr(1) == shipped) name = shipped;
    }
    first_line.clear();
  }
  return configs_root() + "/experiments/" + name + ".yaml";
}

}  // namespace

void experiment(const std::uint8_t* data, std::size_t size) {
  static ScratchFile scratch;
  ExperimentSpec spec;
  try {
    spec = load_experiment(scratch.write(data, size));
  } catch (const UserError&) {
    return;
  }
  lower_everything(spec);
}

void overrides(const std::uint8_t* data, std::size_t size) {
  // One override per line, at most 8 (more only repeat what fewer do).
  std::vector<std::string> lines;
  std::string line;
  for (std::size_t i = 0; i <= size && lines.size() < 8; ++i) {
    if (i == size || data[i] == '\n') {
      lines.push_back(line);
      line.clear();
    } else {
      line += static_cast<char>(data[i]);
    }
  }
  const std::string base = base_experiment(lines.front());
  std::vector<std::string> sets;
  for (const auto& l : lines)
    if (!l.empty()) sets.push_back(l);
  ExperimentSpec spec;
  try {
    spec = load_experiment(base, sets);
  } catch (const UserError&) {
    return;
  }
  lower_everything(spec);
}

void idx(const std::uint8_t* data, std::size_t size) {
  MemorySource in(data, size);
  IdxArray a;
  try {
    a = parse_idx(in, "fuzz.idx");
  } catch (const UserError&) {
    return;
  }
  std::uint64_t values = 1;
  for (std::uint32_t d : a.dims) values *= d;
  if (a.dims.empty() || values != a.data.size() || 4 + 4 * a.dims.size() + values != size)
    finding("parse_idx accepted " + std::to_string(size) + " bytes as " +
            std::to_string(a.dims.size()) + " dimensions of " + std::to_string(a.data.size()) +
            " bytes");
}

void onnx(const std::uint8_t* data, std::size_t size) {
  // The bytes as a model file, then what `network: {onnx: ...}` does with an accepted one:
  // through the network parser and shape inference. Only UserErrors may come out.
  try {
    const OnnxImport imported =
        import_onnx_bytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz.onnx");
    const NetworkSpec net = onnx_network(imported, "fuzz.onnx");
    const NetShape shape(net);
    if (shape.size() != net.layers.size()) finding("NetShape lost layers of an imported model");
  } catch (const UserError&) {
    return;
  }
}

const std::vector<Target>& targets() {
  static const std::vector<Target> kTargets = {
      {"experiment", &experiment}, {"overrides", &overrides}, {"idx", &idx}, {"onnx", &onnx}};
  return kTargets;
}

}  // namespace trainsim::fuzz
