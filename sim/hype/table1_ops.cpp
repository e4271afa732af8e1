#include "sim/hype/table1_ops.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "sim/devices/op_work.h"
#include "sim/hype/op_dag.h"
#include "sim/nn/layer_registry.h"
#include "sim/workload/network_config.h"

namespace trainsim {

namespace {

constexpr int kWordBits = 32;  // fp32: the paper does not change the precision (Sec. 3.2)

Op elementwise(std::int64_t elements, int reads, int writes, int flops, OpRole role, int layer,
               EltwiseKernel kernel = EltwiseKernel::kMap) {
  Op op = Op::make_eltwise({elements, reads, writes, flops}, role, layer);
  op.eltwise.kernel = kernel;
  op.word_bits = kWordBits;
  return op;
}

// The ops of the types trainsim's lowering folds away, built from the layers' shapes.
void add_built(const std::string& name, const NetShape& net, int batch,
               std::vector<Table1Op>& out) {
  auto add = [&](PaperOpType type, const Op& op) { out.push_back({name, type, op, true}); };
  for (std::size_t l = 0; l < net.size(); ++l) {
    const LayerSpec& ls = net.layer_spec(l);
    const LayerShape& shape = net.layer(l);
    const int id = static_cast<int>(l);
    const LayerFamily family = layer_family(ls.type);
    const bool weighted = family == LayerFamily::kConv || family == LayerFamily::kDense;
    if (weighted) {
      const std::int64_t biases = ls.bias ? shape.out.c : 0;
      const std::int64_t weights = shape.params - biases;
      if (biases > 0)
        add(PaperOpType::kBiasAddGrad,
            elementwise(std::int64_t{batch} * shape.out.size(), 1, 0, 1, OpRole::kBackwardWeight,
                        id, EltwiseKernel::kReduction));
      add(PaperOpType::kMul, elementwise(weights, 1, 1, 1, OpRole::kUpdate, id));
      if (biases > 0) add(PaperOpType::kMul, elementwise(biases, 1, 1, 1, OpRole::kUpdate, id));
      add(PaperOpType::kTranspose,
          elementwise(weights, 1, 1, 0, OpRole::kForward, id, EltwiseKernel::kTranspose));
    } else if (shape.params > 0) {
      // Batch norm: scale and shift, one tensor each.
      for (int k = 0; k < 2; ++k)
        add(PaperOpType::kMul, elementwise(shape.params / 2, 1, 1, 1, OpRole::kUpdate, id));
    }
  }
}

}  // namespace

std::string Table1Op::describe() const {
  return network + " layer " + std::to_string(op.layer) + ": " + op.describe();
}

const std::vector<PaperOpType>& table1_types() {
  static const std::vector<PaperOpType> types = {PaperOpType::kMatMul,
                                                 PaperOpType::kConv2D,
                                                 PaperOpType::kConv2DBackpropFilter,
                                                 PaperOpType::kConv2DBackpropInput,
                                                 PaperOpType::kBiasAddGrad,
                                                 PaperOpType::kMul,
                                                 PaperOpType::kTranspose};
  return types;
}

std::vector<Table1Op> table1_ops(const Table1Workload& workload) {
  std::vector<Table1Op> out;
  const auto& types = table1_types();
  for (const std::string& name : workload.networks) {
    const NetworkSpec spec = load_network(configs_root() + "/networks/" + name + ".yaml");
    const NetShape net(spec);
    const OpDag dag = build_op_dag(net, workload.batch, kWordBits, OptimizerSpec{});
    for (int i = 0; i < dag.size(); ++i) {
      const DagNode& n = dag.node(i);
      if (std::find(types.begin(), types.end(), n.type) != types.end())
        out.push_back({name, n.type, n.op, false});
    }
    add_built(name, net, workload.batch, out);
  }
  return out;
}

double table1_gpu_bytes(const HypeTable1Row& row) {
  return row.gpu_bw_gbps * 1e9 * row.gpu_ms * 1e-3;
}

std::vector<Table1Representative> table1_representatives(const std::vector<Table1Op>& ops,
                                                         const std::vector<HypeTable1Row>& table) {
  std::vector<Table1Representative> reps;
  for (const HypeTable1Row& row : table) {
    PaperOpType type = PaperOpType::kOther;
    const auto& types = table1_types();
    if (!parse_paper_op_type(row.op, type) ||
        std::find(types.begin(), types.end(), type) == types.end())
      throw UserError("Table 1 row " + row.op + " " + size_class_name(row.size) +
                      ": not an op type the calibration knows (MatMul, Conv2D, "
                      "Conv2DBackpropFilter, Conv2DBackpropInput, BiasAddGrad, Mul, Transpose)");
    Table1Representative r;
    r.type = type;
    r.size = row.size;
    r.row_bytes = table1_gpu_bytes(row);
    double best = INFINITY;
    for (const Table1Op& op : ops) {
      if (op.type != type) continue;
      ++r.of_type;
      const double bytes = op_work(op.op, 4).bytes;
      const double distance = std::abs(std::log(bytes / r.row_bytes));
      if (distance < best) {
        best = distance;
        r.op = op;
        r.op_bytes = bytes;
      }
    }
    if (r.of_type == 0)
      throw UserError("Table 1 row " + row.op + ": the models have no op of that type");
    reps.push_back(r);
  }
  return reps;
}

}  // namespace trainsim
