// Costs one GEMM (M x K times K x N, forward) on a trainsim accelerator preset, in closed form
// and through the SystemC model, and prints both cycle counts and the energy:
//   cost_one_op [ACCELERATOR [M N K]]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dataflows/registry.h"
#include "models/accel_node.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/cost_model.h"
#include "sim/accel/energy.h"
#include "sim/core/error.h"

int main(int argc, char** argv) {
  using namespace trainsim;
  try {
    const std::string name = argc > 1 ? argv[1] : "adagp_ws180";
    const std::int64_t m = argc > 4 ? std::atoll(argv[2]) : 96;
    const std::int64_t n = argc > 4 ? std::atoll(argv[3]) : 64;
    const std::int64_t k = argc > 4 ? std::atoll(argv[4]) : 80;
    const AcceleratorSpec acc = load_accelerator(name);
    const Dataflow& df = dataflow_or_throw(acc.dataflow);
    Op op = Op::make_gemm({m, n, k}, OpRole::kForward);
    op.word_bits = acc.word_bits;
    const OpStats closed = evaluate_op(op, acc, df);
    // The same op through a SystemC accelerator node.
    AcceleratorNode node(acc, df, Fidelity::kFast);
    std::vector<OpRequest> batch(1);
    batch[0].op = op;
    node.run(batch);
    std::printf("%s %s gemm %lldx%lldx%lld: %lld cycles (closed form %lld), energy %.6g %s\n",
                acc.name.c_str(), df.name().c_str(), static_cast<long long>(m),
                static_cast<long long>(n), static_cast<long long>(k),
                static_cast<long long>(batch[0].stats.cycles()),
                static_cast<long long>(closed.cycles()), price(batch[0].stats, acc).total(),
                acc.energy.unit.c_str());
    return 0;
  } catch (const UserError& e) {
    std::fprintf(stderr, "cost_one_op: %s\n", e.what());
    return 2;
  }
}
