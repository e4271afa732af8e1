// The native half of the `trainsim` Python package (pybind11; python/trainsim/ is the rest):
// load an experiment with overrides, run it, time one op, compare variants, import an ONNX
// model's bytes; results come back as dicts. Built when CMake finds pybind11 (Debian's
// python3-pybind11, installed by tools/setup.sh) into build/python/trainsim/:
//   PYTHONPATH=build/python python3 -c "import trainsim;
//   print(trainsim.run('configs/experiments/quickstart.yaml', out='/tmp/q')['cycles'])"
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "dataflows/registry.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/cost_model.h"
#include "sim/accel/energy.h"
#include "sim/accel/op_totals.h"
#include "sim/core/error.h"
#include "sim/interop/onnx_import.h"
#include "sim/interop/onnx_network.h"
#include "sim/run/experiment_file.h"
#include "sim/run/experiment_runner.h"

namespace py = pybind11;
using namespace trainsim;

// libsystemc.so refers to sc_main (its own main calls it); Python never runs that main, but
// the loader resolves the reference when the module loads: exported, it finds this one.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char**) {
  return 1;
}

namespace {

py::dict result_dict(const RunResult& r) {
  py::dict d;
  if (r.cycles)
    d["cycles"] = *r.cycles;
  else
    d["cycles"] = py::none();  // a hype: system has no one clock: seconds only
  d["seconds"] = r.seconds;
  d["clock_ghz"] = r.cycles ? py::object(py::float_(r.clock_ghz)) : py::none();
  d["energy"] = r.energy;
  d["memory_energy"] = r.memory_energy;
  d["energy_unit"] = r.energy_unit;
  d["dram_bytes"] = r.dram_bytes;
  d["utilization"] = r.utilization;
  d["compute_utilization"] = r.compute_utilization;
  d["test_accuracy"] = r.has_accuracy ? py::object(py::float_(r.test_accuracy)) : py::none();
  py::list epochs;
  for (const RunResult::Epoch& e : r.epochs) {
    py::dict de;
    de["seconds"] = e.seconds;
    de["test_accuracy"] = e.test_accuracy;
    de["step_seconds"] = e.step_seconds;
    epochs.append(de);
  }
  d["epochs"] = epochs;
  return d;
}

ExperimentSpec load(const std::string& path, const std::vector<std::string>& overrides,
                    const std::string& out) {
  std::vector<std::string> o = overrides;
  if (!out.empty()) o.push_back("output.dir=" + out);
  return load_experiment(path, o);
}

}  // namespace

PYBIND11_MODULE(_trainsim, m) {
  m.doc() = "trainsim: train a network for real while a simulated accelerator times it";
  // trainsim's one-line errors (bad config, missing data) arrive as ValueError.
  py::register_exception<UserError>(m, "TrainsimError", PyExc_ValueError);

  m.def(
      "resolved_config",
      [](const std::string& path, const std::vector<std::string>& overrides) {
        return resolved_yaml(load_experiment(path, overrides));
      },
      py::arg("experiment"), py::arg("overrides") = std::vector<std::string>{},
      "The experiment with its overrides, every default filled in, as YAML text.");

  m.def(
      "import_onnx_bytes",
      [](const py::bytes& model, const std::string& name, const std::string& where) {
        const OnnxImport imported = import_onnx_bytes(std::string(model), where, name);
        return onnx_network_file(imported, onnx_network(imported, where));
      },
      py::arg("model"), py::arg("name"), py::arg("where") = "model.onnx",
      "An ONNX model's bytes as the network file `trainsim import` writes (YAML text); "
      "`where` stands for the model in error messages.");

  m.def(
      "run",
      [](const std::string& path, const std::vector<std::string>& overrides, const std::string& out,
         bool force) {
        RunOptions o;
        o.simulate = true;
        o.quiet = true;
        o.final_line = false;
        o.force = force;
        return result_dict(run_experiment(load(path, overrides, out), o));
      },
      py::arg("experiment"), py::arg("overrides") = std::vector<std::string>{}, py::arg("out") = "",
      py::arg("force") = true,
      "Runs the experiment as `trainsim run` does (writing its results directory) and returns "
      "its headline figures: cycles, seconds, energy, dram_bytes, utilization, test_accuracy, "
      "and per-epoch figures.");

  m.def(
      "train",
      [](const std::string& path, const std::vector<std::string>& overrides, const std::string& out,
         bool force) {
        RunOptions o;
        o.quiet = true;
        o.final_line = false;
        o.force = force;
        return result_dict(run_experiment(load(path, overrides, out), o));
      },
      py::arg("experiment"), py::arg("overrides") = std::vector<std::string>{}, py::arg("out") = "",
      py::arg("force") = true, "Numerics only, as `trainsim train`.");

  m.def(
      "compare",
      [](const std::string& path, const std::vector<std::vector<std::string>>& variants,
         const std::vector<std::string>& overrides, const std::string& out) {
        py::list results;
        for (std::size_t i = 0; i < variants.size(); ++i) {
          std::vector<std::string> o = overrides;
          o.insert(o.end(), variants[i].begin(), variants[i].end());
          RunOptions opts;
          opts.simulate = true;
          opts.quiet = true;
          opts.final_line = false;
          opts.force = true;
          const std::string dir = out.empty() ? "" : out + "/variant" + std::to_string(i);
          results.append(result_dict(run_experiment(load(path, o, dir), opts)));
        }
        return results;
      },
      py::arg("experiment"), py::arg("variants"), py::arg("overrides") = std::vector<std::string>{},
      py::arg("out") = "",
      "Runs the experiment once per variant (each a list of overrides, e.g. "
      "[['dataflow=ws'], ['dataflow=os']]) and returns their figures in order.");

  m.def(
      "layer",
      [](const std::string& accel, const std::vector<std::int64_t>& gemm,
         const std::vector<std::int64_t>& conv, const std::string& dataflow,
         const std::vector<std::string>& overrides) {
        const AcceleratorSpec acc = load_accelerator(accel, overrides);
        const Dataflow& df = dataflow_or_throw(dataflow.empty() ? acc.dataflow : dataflow);
        Op op;
        if (gemm.size() == 3 && conv.empty()) {
          op = Op::make_gemm({gemm[0], gemm[1], gemm[2]});
        } else if (conv.size() >= 6 && conv.size() <= 8 && gemm.empty()) {
          ConvShape c;
          c.height = conv[0], c.width = conv[1], c.channels = conv[2], c.filters = conv[3];
          c.kernel_h = conv[4], c.kernel_w = conv[5];
          if (conv.size() > 6) c.stride = conv[6];
          if (conv.size() > 7) c.pad = conv[7];
          op = Op::make_conv(c);
        } else {
          throw UserError("layer: give gemm=(M, N, K) or conv=(H, W, C, F, R, S[, stride[, pad]])");
        }
        op.word_bits = acc.word_bits;
        const OpStats s = evaluate_op(op, acc, df);
        const OpTotals one = priced_op(s, acc);  // the query's whole record, priced once
        const EnergyBreakdown& e = one.energy;
        py::dict d;
        d["cycles"] = s.cycles();
        d["compute_cycles"] = s.compute_cycles;
        d["stall_cycles"] = s.stall_cycles;
        d["macs"] = s.macs;
        d["utilization"] = s.utilization();
        d["dram_bytes"] = s.dram_bytes();
        d["energy"] = e.total();
        d["energy_unit"] = acc.energy.unit;
        return d;
      },
      py::arg("accel"), py::arg("gemm") = std::vector<std::int64_t>{},
      py::arg("conv") = std::vector<std::int64_t>{}, py::arg("dataflow") = "",
      py::arg("overrides") = std::vector<std::string>{},
      "One forward op on an accelerator preset, as `trainsim layer` (fast fidelity).");
}
