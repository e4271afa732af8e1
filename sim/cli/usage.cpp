#include "sim/cli/commands.h"

namespace trainsim {

std::string usage() {
  return R"(trainsim: a cycle-approximate simulator of DNN training accelerators

usage: trainsim <command> [options]

commands:
  train EXPERIMENT.yaml [--out DIR] [--set KEY=VALUE]... [--quiet]
        Numerics-only training: trains the experiment's network on its dataset and
        prints per-epoch train loss, test accuracy and wall time. Writes
        DIR/epochs.csv, DIR/stats.json, DIR/timing.json and DIR/config.resolved.yaml
        (DIR defaults to output.dir of the experiment, runs/<name>).
  run EXPERIMENT.yaml [--out DIR] [--set KEY=VALUE]... [--quiet]
        Trains for real on the experiment's dataset while every op of every batch
        (forward, loss, backward-data, backward-weight, update; evaluation separately)
        runs on the simulated accelerator. Writes DIR/epochs.csv (accuracy, cycles,
        seconds, DRAM bytes, energy per epoch), DIR/layers.csv (per layer x role),
        DIR/stats.json (one tree: totals, epochs, layers, units), timing.json and
        config.resolved.yaml. Plot them with tools/plot DIR.
  compare EXPERIMENT.yaml (--dataflows ws,os,is,rs | --techniques bp,...) [--out DIR]
        [--set KEY=VALUE]... : the same experiment and seed across variants; writes
        DIR/compare.csv and one run directory per variant.
  layer --accel ACCEL [--dataflow ws|os|is|rs] (--gemm M,N,K | --conv H,W,C,FILTERS,R,S[,STRIDE[,PAD]])
        [--batch N] [--role fw|bwd-data|bwd-weight] [--array RxC] [--set KEY=VALUE]...
        [--fidelity fast|cycle] [--vcd FILE] [--json]
        One op on one accelerator: cycles, utilization, MACs, accesses per memory level
        and operand, DRAM traffic, stalls and energy. ACCEL is a name in
        configs/accelerators or a YAML path; --set overrides its keys (e.g.
        --set energy=eyeriss_normalized). --json adds SCALE-Sim's figures ("scalesim").
        --fidelity cycle runs the clocked PE-array model on real values and checks its
        output against a reference; --vcd writes its waveform.
  list  [networks|datasets|optimizers|layers|accelerators|energy|dataflows|techniques]
        What trainsim knows.
  --help, --version

options:
  --out DIR        output directory (replaces it when the run completes)
  --set KEY=VALUE  override any experiment key, e.g. --set training.epochs=3
                   or --set network.layers.1.units=32 (VALUE is parsed as YAML)
  --quiet          print only the final summary line

environment:
  TRAINSIM_DATA     dataset root (default: <source>/data)
  TRAINSIM_CONFIGS  config root for network names (default: <source>/configs)

exit codes: 0 ok, 2 bad input (config, data, arguments), 130 interrupted, 1 internal error
)";
}

}  // namespace trainsim
