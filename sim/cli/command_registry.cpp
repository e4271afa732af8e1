// The subcommands and their help texts. A new command is a cmd_<name>.cpp plus a line here.
#include <algorithm>

#include "sim/cli/commands.h"
#include "sim/interop/onnx_import.h"

namespace trainsim {

namespace {

// "networks|datasets|...": the kinds `trainsim list` takes, from its own table.
std::string list_synopsis() {
  std::string out;
  for (const std::string& k : list_kinds()) out += (out.empty() ? "" : "|") + k;
  return "list [" + out + "]";
}

// `trainsim import --help`: what it does, then the operators it takes.
std::string import_description() {
  std::string d =
      "Reads an ONNX model (the forward graph PyTorch's torch.onnx.export and other "
      "frameworks write) and writes it as a trainsim network file: each node one layer of "
      "trainsim's own types, which also give the training passes ONNX does not hold "
      "(backward-data, backward-weight, update), so the network trains for real and is timed "
      "like a hand-written one. Integer arithmetic (shapes, position ids, masks) is folded to "
      "constants, then shapes come from ONNX's shape inference; attention's head split "
      "(Reshape, Transpose) is read in place by batched_matmul. Initializers count by their "
      "shapes only (a model exported without its weights' values imports the same). The "
      "written network's trainable parameters must equal the initializers'. An experiment can "
      "also name the model directly: `network: {onnx: MODEL.onnx}`; from Python, "
      "trainsim.from_torch(model, example_input) does the same for a PyTorch module. "
      "Operators:";
  for (const OnnxOperator& op : onnx_operators()) {
    d += std::string("\n  ") + op.op_type + " -> " + op.becomes;
    if (*op.limits != '\0') d += std::string(" (") + op.limits + ")";
  }
  return d + "\nAnything else is a one-line error naming the node and its operator.";
}

}  // namespace

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"run", "run EXPERIMENT.yaml [options]  |  run --resume DIR [-q]",
       "train on real data while every op runs on the simulated accelerator",
       "Trains the experiment's network for real on its dataset while every op of every batch "
       "(forward, loss, backward-data, backward-weight, update; evaluation separately) runs on "
       "the simulated accelerator, timed, counted and priced. Writes DIR/epochs.csv (accuracy, "
       "cycles, seconds, DRAM bytes, energy per epoch), DIR/layers.csv (per layer x role), "
       "DIR/stats.json (one tree: totals, epochs, layers, units), timing.json and "
       "config.resolved.yaml; plot them with tools/plot DIR. An experiment with `numerics: "
       "none` is timed from its layer shapes instead (no accuracy). --scalesim-topology "
       "FILE.csv times a SCALE-Sim topology that way, every row an independent layer, and "
       "--scalesim-config FILE.cfg applies a SCALE-Sim config to the accelerator "
       "(docs/interop.md).\n\n"
       "The results appear in DIR when the run ends. If it is interrupted (Ctrl-C) or fails "
       "after some epochs, DIR keeps the completed epochs, marked incomplete (an INCOMPLETE "
       "file, \"status\": \"incomplete\" in stats.json) with a checkpoint; --resume DIR "
       "continues from the last completed epoch and gives the same results as an "
       "uninterrupted run.",
       "trainsim run configs/experiments/quickstart.yaml -s training.epochs=3 -o runs/q3", cmd_run},
      {"compare",
       "compare EXPERIMENT.yaml (--dataflows ws,os,is,rs | --techniques bp,...) [options]",
       "the same experiment and seed across dataflows and/or techniques",
       "Runs the experiment once per variant (every dataflow of --dataflows times every "
       "technique of --techniques), same seed, each a full `trainsim run` into DIR/<variant>/, "
       "and writes DIR/compare.csv: cycles, energy, DRAM traffic, utilization and accuracy, "
       "each also relative to the first variant (with --techniques also the per-epoch tables "
       "table_time.csv, table_accuracy.csv, table_step.csv, table_hit_rate.csv). A technique of "
       "the experiment's own family keeps the experiment's settings for it. DIR defaults to "
       "runs/<name>-compare; it appears only when every variant is done.",
       "trainsim compare configs/experiments/lenet5_mnist.yaml --dataflows ws,os,is,rs",
       cmd_compare},
      {"train", "train EXPERIMENT.yaml [options]",
       "numerics only: train and evaluate, no accelerator",
       "Trains the experiment's network on its dataset without the accelerator model and prints "
       "per-epoch train loss, test accuracy and wall time. Writes DIR/epochs.csv, "
       "DIR/stats.json, DIR/timing.json and DIR/config.resolved.yaml.",
       "trainsim train configs/experiments/mlp_fashion.yaml -s training.epochs=2", cmd_train},
      {"validate",
       "validate EXPERIMENT.yaml [-s KEY=VALUE]... [--scalesim-topology FILE.csv] "
       "[--scalesim-config FILE.cfg]",
       "check an experiment and the data it names without running it",
       "Reads the experiment with its overrides, every file it refers to and its dataset, and "
       "builds everything a run builds before its first batch (network, optimizer, technique, "
       "accelerator), then stops: nothing is trained and nothing is written. Prints one line "
       "summarising the run and exits 0, or prints the usual one-line error and exits 2.",
       "trainsim validate configs/experiments/lenet5_mnist.yaml -s dataflow=rs", cmd_validate},
      {"layer",
       "layer --accel ACCEL (--gemm M,N,K | --conv H,W,C,FILTERS,R,S[,STRIDE[,PAD]]) [options]  |  "
       "layer --scalesim-topology FILE.csv [--scalesim-config FILE.cfg] [--report-dir DIR [-f]]",
       "one op on one accelerator: cycles, accesses, DRAM traffic, energy",
       "Times one op (a GEMM or a convolution in one training role) on one accelerator and "
       "dataflow and prints its cycles, utilization, MACs, accesses per memory level and "
       "operand, DRAM traffic, stalls and energy. ACCEL is a name in configs/accelerators or a "
       "YAML path; --set overrides its keys (e.g. --set energy=eyeriss_normalized). --json adds "
       "SCALE-Sim's four figures (\"scalesim\"). --memory picks the memory model (tiled or "
       "scalesim), --mapping prints the op's buffer-level loop nest, --tile and --stationary pin "
       "it, --bound prints each pass's DRAM traffic against its lower bounds. --fidelity cycle "
       "runs the clocked PE-array "
       "model on real values and checks its output against a reference; --vcd writes its "
       "waveform. --scalesim-topology FILE.csv times every layer of a SCALE-Sim topology "
       "(with --scalesim-config FILE.cfg over the accelerator, default scalesim_default) and "
       "--report-dir writes SCALE-Sim's COMPUTE, BANDWIDTH and DETAILED_ACCESS reports.",
       "trainsim layer --accel small_8x8 --dataflow ws --conv 28,28,128,256,3,3,1,1", cmd_layer},
      {"sweep",
       "sweep SWEEP.yaml [-o DIR] [-j N] [--shard I/N] [-f]  |  sweep --merge DIR... -o DIR",
       "a design-space sweep: many runs of one experiment, resumable, in parallel",
       "Runs the sweep file's base experiment once per point of its axes (any config keys; "
       "lists, ranges or zipped keys; the whole grid or a seeded random sample), each point a "
       "`trainsim run` of its own into DIR/points/<id>/, run by N worker processes that run "
       "point after point and share their mapping searches (--isolate: a process per point), "
       "and keeps DIR/sweep.csv: "
       "one row per finished point with its axis values, seconds, cycles, energy, DRAM bytes, "
       "utilization, accuracy, speedup over the baseline point and whether it is on the "
       "Pareto front of time and energy. A point that fails is recorded with its error. Run "
       "the same command again to finish an interrupted sweep: finished points are kept. "
       "Ctrl-C stops starting points and lets the running ones finish; a second Ctrl-C stops "
       "them. --shard I/N runs every N-th point (job arrays), --merge joins the shards. Plot "
       "with tools/plot DIR. The sweep file's keys: docs/sweeps.md.",
       "trainsim sweep configs/sweeps/vgg16_dataflows.yaml -j 2", cmd_sweep},
      {"report", "report DIR... [-q]",
       "one self-contained HTML page of a results directory: report.html",
       "Writes DIR/report.html from the files of a results directory trainsim wrote (run, "
       "train, compare, sweep; a pipeline or hype run too): the key figures, accuracy and "
       "loss curves, time and energy by phase, layer and role, memory level and unit, the "
       "technique's own figures, a timeline window, the resolved configuration, and for "
       "compare and sweep the variants or points side by side (the Pareto front, the failed "
       "points), linked to their own pages. run, compare and sweep write it themselves unless "
       "--no-report; this command writes it again, e.g. for a directory written with "
       "--no-report. The page needs no network and no other file: figures are inline SVG, "
       "tables sort on a click. It replaces only a report.html trainsim wrote.",
       "trainsim report runs/quickstart", cmd_report},
      {"import", "import MODEL.onnx -o NETWORK.yaml [--name NAME] [-f] [-q]",
       "an ONNX model as a trainsim network file (its training passes derived)",
       import_description(), "trainsim import resnet8.onnx -o configs/networks/resnet8_onnx.yaml",
       cmd_import},
      {"replay",
       "replay PREFIX --system SYSTEM [--timing device|trace] [-o DIR] [-f] [--json] [-q]",
       "run Chakra traces, one per device, on a system of devices",
       "Runs the Chakra execution traces PREFIX.0.et ... PREFIX.(N-1).et (as `trainsim run "
       "--chakra` and Chakra's tools name them) on the N devices of SYSTEM (a preset of "
       "configs/systems/ or a system file). Every node is a task of one task graph, ordered "
       "per device by the list scheduler and executed over the system's links as a pipeline "
       "run's tasks are. A COMP node is an op of num_ops/2 MACs over tensor_size bytes that "
       "the device's own model prices (--timing trace: its recorded duration instead); a "
       "MEM node a stream of tensor_size bytes through the device's memory; a send and the "
       "recv with the same comm_src, comm_dst and comm_tag one transfer of comm_size bytes "
       "over the links; data_deps and ctrl_deps order a device's nodes. Prints the makespan "
       "and per device its busy time and its compute, memory and link energy; -o DIR writes "
       "stats.json and devices.csv. A trace it cannot run is a one-line error naming the "
       "file and the node, and nothing is written (docs/interop.md, \"Running a trace\").",
       "trainsim replay runs/chakra/lenet5_fashion_pipeline --system four_ws180_chain", cmd_replay},
      {"hype-calibrate",
       "hype-calibrate [--gpu DEVICE] [--fpga DEVICE] [--table FILE.csv] [-o DIR] [-f]",
       "fit the gpu and fpga device models on Hype-training's Table 1 and compare",
       "Fits a gpu and an fpga device (default v100 and s10_gx2500) on the MatMul and Conv2D "
       "rows of Table 1 of He et al., ICS 2021 (configs/devices/hype_table1.csv) and predicts "
       "the other fifteen rows (Conv2DBackpropFilter, Conv2DBackpropInput, BiasAddGrad, Mul, "
       "Transpose). Each row stands for the op of its type, in one training iteration of "
       "AlexNet, VGG-16, ResNet-50 and Inception-V3 at batch 256, whose bytes are nearest the "
       "bytes the row's GPU moved; the FPGA runs the big types on three FPGAs and Mul and "
       "Transpose on one, as the paper did. The fit is deterministic (Nelder-Mead from the "
       "models' initial values), so it reproduces the shipped presets' `fit:` values. Prints "
       "each row's time, power and IPC against the table and the fitted `fit:` blocks; writes "
       "DIR/calibration.csv (row, fitted or held out, device, metric, table, model, error), "
       "DIR/<gpu>.fit.yaml and DIR/<fpga>.fit.yaml. docs/hype.md explains each disagreement.",
       "trainsim hype-calibrate -o runs/calibration", cmd_hype_calibrate},
      {"gpu-calibrate", "gpu-calibrate --data DIR [--gpu DEVICE] [--no-leave-out] [-o DIR] [-f]",
       "fit the gpu device model on a real GPU's measured ops and report its errors",
       "Fits a gpu device (default h100) on measured per-op times and energies of a real GPU "
       "(DIR holds matmul.csv, conv.csv, elementwise.csv, models.csv and model_ops.csv as "
       "tests/data/gpu_h100 does; its README says how they were measured), one fit per "
       "precision, and prints the per-op error tables: mean absolute percentage error of time "
       "and energy per kernel class (gemm, conv, each element-wise class), in-sample and "
       "leave-one-out (the conv rows of each network and the GEMMs of each group predicted by a "
       "fit without them). Then prices the measured whole training iterations (AlexNet, DCGAN "
       "at batch 256) on the fitted device and compares them. The fit is deterministic "
       "(Nelder-Mead from the model's initial values), so it reproduces the shipped preset's "
       "`fit:` blocks. Writes DIR/gpu_ops.csv (every row: measured, model, error, leave-one-out), "
       "DIR/<gpu>.fit.yaml, and per iteration <model>_<precision>_ops.csv (every op of "
       "trainsim's stream with its kernel, time and power) and <model>_<precision>_types.csv "
       "(per category against the measured kernel profile). docs/gpu.md explains the model and "
       "each remaining error.",
       "trainsim gpu-calibrate --data tests/data/gpu_h100 -o runs/gpu-calibration",
       cmd_gpu_calibrate},
      {"list", list_synopsis(),
       "what trainsim knows: presets with their key figures, and the registries",
       "Lists the shipped presets and the registered kinds: networks (parameters, input, "
       "whether they train on real data or are timed from shapes only), datasets, optimizers, "
       "layer types, accelerators (array, dataflow, buffer, clock, word size), energy tables "
       "(unit), dataflows, memory models, training techniques, pipeline schedules, "
       "topologies, systems of devices, the device kinds with the shipped device files, and "
       "Hype-training's placement policies (docs/hype.md), each with its description. With a "
       "category, only that one. --names prints the names alone, one a line, for scripts and "
       "shell completion.",
       "trainsim list accelerators", cmd_list},
  };
  return table;
}

const Command* find_command(const std::string& name) {
  const auto& t = commands();
  auto it = std::find_if(t.begin(), t.end(), [&](const Command& c) { return c.name == name; });
  return it == t.end() ? nullptr : &*it;
}

}  // namespace trainsim
