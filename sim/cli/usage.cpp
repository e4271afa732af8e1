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
  layer --accel ACCEL [--dataflow ws|os|is|rs] (--gemm M,N,K | --conv H,W,C,FILTERS,R,S[,STRIDE[,PAD]])
        [--batch N] [--role fw|bwd-data|bwd-weight] [--array RxC] [--set KEY=VALUE]...
        [--fidelity fast|cycle] [--vcd FILE] [--json]
        One op on one accelerator: cycles, utilization, MACs, accesses per memory level
        and operand, DRAM traffic, stalls and energy. ACCEL is a name in
        configs/accelerators or a YAML path; --set overrides its keys (e.g.
        --set energy=eyeriss_normalized). --json adds SCALE-Sim's figures ("scalesim").
        --fidelity cycle runs the clocked PE-array model on real values and checks its
        output against a reference; --vcd writes its waveform.
  list  [networks|datasets|optimizers|layers|accelerators|energy|dataflows]
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
