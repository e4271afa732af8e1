#pragma once
// The op DAG of one training iteration: its nodes are the ops a backprop step issues (in the
// order sim/workload/step_order.h gives, the order the shape-only runs time them), its edges
// the dependencies their tensors make (TensorIds, sim/workload/op.h):
//   * data (read after write): the op that wrote a tensor -> each op that reads it, carrying
//     the bytes the writer wrote (or the reader's, if it reads less: a slice of a concat's
//     gradient). Tensors no op writes are resolved to what makes them up: a
//     concat's (or flatten's) output to its inputs' producers; the gradient of a layer read by
//     an add or a concat (whose backward routes dY and issues no op) to the producers of that
//     reader's gradient. A layer read by several layers has its readers' gradients written one
//     after another and summed by its gradient sum (AddN), which depends on all of them.
//   * order (write after read): every op that reads a layer's weights -> the update that
//     overwrites them, so the update follows the weights' last reader. Carries no bytes.
// Tensors from outside the iteration (the input batch, the weights and optimizer state at its
// start) have no producer. Parallel dependencies between the same two ops are one edge. Bytes
// are whole bytes: a tensor of words narrower than a byte is rounded up.
//
// Given a duration per op, dag_times() gives each op's earliest and latest start (ASAP, ALAP)
// with no resource limits, and its slack: how long it can slip without lengthening the
// iteration (Hype-training's critical-path rule for small ops, He et al. Sec. 3.3).
#include <cstdint>
#include <vector>

#include "models/platform/task_graph.h"
#include "sim/hype/op_types.h"
#include "sim/spec/specs.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/step_order.h"

namespace trainsim {

struct DagNode {
  Op op;
  LayerOpSlot slot = LayerOpSlot::kForward;
  PaperOpType type = PaperOpType::kOther;
};

/// The op graph: the ops as nodes (their payload) over a task graph (models/platform/
/// task_graph.h), the graph type pipeline schedules order, whose task i is node i: its pass
/// from the op's slot, its stage the op's layer, device 0 until something places it. Data
/// dependencies are EdgeData::kTensor edges, order dependencies kNone edges of 0 bytes.
class OpDag {
 public:
  OpDag();
  /// Adds an op; its index (the index of its task).
  int add_node(const DagNode& node);
  /// Adds the dependency from -> to (data: EdgeData::kTensor; order: kNone), or merges it
  /// into an existing edge between the two (TaskGraph::add_dep). std::logic_error for an edge
  /// to itself or to a node that does not exist.
  void add_edge(int from, int to, EdgeData data, std::int64_t bytes = 0,
                TensorId tensor = kNoTensor);

  int size() const { return static_cast<int>(nodes_.size()); }
  const DagNode& node(int i) const { return nodes_[static_cast<std::size_t>(i)]; }
  /// The graph itself: what node i waits for is graph().deps(i), who waits for it
  /// graph().users(i).
  const TaskGraph& graph() const { return graph_; }
  /// The nodes in an order where every edge goes forward (Kahn's algorithm, ties by index);
  /// empty if the graph has a cycle (and nodes).
  std::vector<int> topological_order() const { return graph_.topological_order(); }

 private:
  std::vector<DagNode> nodes_;
  TaskGraph graph_;
};

/// The pass a task of an op in `slot` has in the task graph (a loss gradient and a gradient
/// sum are backward-data work).
Pass op_pass(LayerOpSlot slot);

struct DagOptions {
  /// Add TensorFlow's BiasAdd and BiasAddGrad as ops of their own, which trainsim's lowering
  /// folds into the forward op (its partial sums start at the bias) and leaves out (the bias
  /// gradient is summed with the weight gradient): the op graph a framework on a GPU runs
  /// (Hype-training's, `hype.bias_ops`). Off: the op stream exactly as the accelerator runs it.
  bool bias_ops = false;
};

/// The DAG of one backprop iteration of `net` whose layers lowered to `ops`
/// (lower_network()).
OpDag build_op_dag(const NetShape& net, const std::vector<LayerOps>& ops,
                   const DagOptions& options = {});
/// The same, lowering `net` at `batch` samples, `word_bits`-bit words and `optimizer`'s update.
OpDag build_op_dag(const NetShape& net, int batch, int word_bits, const OptimizerSpec& optimizer,
                   const DagOptions& options = {});

struct DagTimes {
  std::vector<double> asap;   ///< earliest start of each node
  std::vector<double> alap;   ///< latest start that keeps the makespan
  std::vector<double> slack;  ///< alap - asap (>= 0; 0 on a critical path)
  double makespan = 0;        ///< the longest path: the iteration with unlimited devices
};

/// Earliest and latest starts of every node for `duration` (one per node, >= 0) with edges
/// taking no time. std::logic_error if the sizes differ or the graph has a cycle.
DagTimes dag_times(const OpDag& dag, const std::vector<double>& duration);

}  // namespace trainsim
