#pragma once
// The work of a pipeline-parallel training run as a graph of tasks: one task per
// (batch, micro-batch, stage, pass), plus per (batch, stage, replica) the weight update and,
// when a stage has replicas (Chimera's two pipes, data-parallel copies of the pipeline), a
// marker for "this replica's gradients are complete" and the steps of a ring all-reduce of
// the stage's gradients over its replicas, which the update waits for. Edges say which task
// must finish first and how many bytes travel if the two run on different devices.
//
// A schedule (sim/pipeline/schedule.h) decides the layout (how many stages, which device
// holds each stage of each pipe, which micro-batch goes down which pipe) and the order in
// which each device runs its tasks; the platform (models/platform/) executes that order.
//
// The same type holds a graph given task by task: a Chakra trace replayed, or the op graph of
// one training iteration (sim/hype/op_dag.h: one task per op, its edges the tensors the ops
// pass each other and the orders their weights impose), which Hype's runtime places op by op.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/workload/op.h"

namespace trainsim {

/// What a task computes. A schedule that splits backward (Zero Bubble) uses kBackwardData
/// and kBackwardWeight; the others use kBackward, which is both.
enum class Pass : std::uint8_t {
  kForward,
  kBackward,
  kBackwardData,
  kBackwardWeight,
  kUpdate,    ///< the optimizer step of one stage, once per batch (after all its gradients)
  kGradDone,  ///< zero-cost marker: a replica's gradients of the batch are complete
  /// Zero-cost step k of the ring all-reduce of a replicated stage's gradients: the replica
  /// has received step k-1's chunk from the replica before it in the ring and sends step k's.
  kReduce,
};
inline constexpr int kNumPasses = 7;
/// Work of a device's communication engine, beside its compute: such a task is in no device's
/// order and runs (taking no time) as soon as its inputs are in; its outputs leave from its
/// device. A collective then overlaps the compute that follows it, as NCCL's kernels do.
inline bool beside_compute(Pass p) {
  return p == Pass::kReduce;
}
const char* pass_name(Pass p);  ///< "F", "B", "Bd", "W", "U", "G", "R"

/// A batch runs forward and backward tasks, or forward tasks only: a technique that updates
/// its weights without a backward pass (gradients it predicts) updates each stage there.
enum class BatchKind : std::uint8_t { kBackprop, kForwardOnly };

/// Where the stages live. Stages are numbered along the model (0 = the input side); a pipe
/// is one direction through the devices (Chimera has two, each with a replica of every
/// stage); a micro-batch travels one pipe.
struct PipelineLayout {
  int devices = 1;
  int stages = 1;
  std::vector<std::vector<int>> placement;  ///< [pipe][stage] -> device
  std::vector<int> micro_pipe;              ///< [micro-batch] -> pipe
  int pipes() const { return static_cast<int>(placement.size()); }
  /// The devices stage s lives on, one per pipe.
  int device(int pipe, int stage) const {
    return placement[static_cast<std::size_t>(pipe)][static_cast<std::size_t>(stage)];
  }
};

struct Task {
  Pass pass = Pass::kForward;
  int batch = 0;
  int micro = -1;  ///< -1 for kUpdate and kGradDone; kReduce: the all-reduce's step
  int stage = 0;
  int pipe = 0;  ///< the replica (kUpdate, kGradDone) or the micro-batch's pipe
  int device = 0;
  std::string label() const;  ///< e.g. "F b0 m3 s1", "R b0 k2 s1 r0"
};

/// Bytes that travel along an edge when producer and consumer are on different devices:
/// nothing (an order: the consumer must not start before the producer ends), the activations
/// or gradients crossing a stage boundary, one chunk of a ring all-reduce (the stage's
/// gradients over its number of replicas), or a tensor one op wrote and another reads (an op
/// graph's data dependency).
enum class EdgeData : std::uint8_t { kNone, kActivation, kGradient, kReduceChunk, kTensor };

struct Edge {
  int from = 0;  ///< task index
  EdgeData data = EdgeData::kNone;
  /// Bytes that travel if the two tasks are on different devices (set_edge_bytes(), or given).
  std::int64_t bytes = 0;
  /// An op graph's: the first tensor that made the dependency (kNoTensor in a pipeline's).
  TensorId tensor = kNoTensor;
};

/// What the graph needs besides the layout: the batch sequence and whether backward is
/// split into backward-data and backward-weight.
struct GraphSpec {
  int micro_batches = 1;
  std::vector<BatchKind> batches{BatchKind::kBackprop};
  bool split_backward = false;
};

class TaskGraph {
 public:
  TaskGraph(const PipelineLayout& layout, const GraphSpec& spec);
  /// A graph given task by task rather than built from a layout (a Chakra trace replayed,
  /// sim/pipeline/trace_replay.h): `deps[i]` is what task i waits for. The layout has
  /// `devices` devices and one stage; find() finds none of the tasks. The caller checks that
  /// the edges form no cycle (check_orders() finds one as a stuck order).
  static TaskGraph given(int devices, std::vector<Task> tasks, std::vector<std::vector<Edge>> deps);
  /// A given graph's next task (std::logic_error on a graph built from a layout); its index.
  int add_task(const Task& t);
  /// Adds `e` to what task `to` waits for, or merges it into the edge it already has from
  /// e.from: the bytes add up, and data outranks an order (kNone), taking e's tensor.
  /// std::logic_error for an edge to itself or between tasks that do not exist.
  void add_dep(int to, const Edge& e);
  /// The edge from -> to, or null if to does not wait for from.
  const Edge* edge(int from, int to) const;
  /// The tasks in an order where every edge goes forward (Kahn's algorithm, ties by index);
  /// empty if the edges form a cycle (and there are tasks).
  std::vector<int> topological_order() const;

  const PipelineLayout& layout() const { return layout_; }
  const GraphSpec& spec() const { return spec_; }
  std::size_t size() const { return tasks_.size(); }
  const Task& task(int i) const { return tasks_[static_cast<std::size_t>(i)]; }
  const std::vector<Task>& tasks() const { return tasks_; }
  /// What task i waits for.
  const std::vector<Edge>& deps(int i) const { return deps_[static_cast<std::size_t>(i)]; }
  /// Which tasks wait for task i (the reverse of deps).
  const std::vector<int>& users(int i) const { return users_[static_cast<std::size_t>(i)]; }
  /// Index of a task; -1 if the graph has none such.
  int find(Pass pass, int batch, int micro, int stage, int pipe = 0) const;
  /// Sets every edge's bytes to `bytes(producer, data)`: what its transfer carries, for the
  /// micro-batch size the graph is run at.
  void set_edge_bytes(const std::function<std::int64_t(const Task& from, EdgeData data)>& bytes);
  /// Whether stage s has replicas (more than one pipe holds it on different devices).
  bool replicated() const { return layout_.pipes() > 1; }
  /// Steps of each stage's ring all-reduce: 2 (replicas - 1), reduce-scatter then all-gather,
  /// each moving 1 / replicas of the gradients to the next replica; 0 without replicas.
  int reduce_steps() const { return replicated() ? 2 * (layout_.pipes() - 1) : 0; }

 private:
  int add(const Task& t);
  std::int64_t key(Pass pass, int batch, int micro, int stage, int pipe) const;

  PipelineLayout layout_;
  GraphSpec spec_;
  std::vector<Task> tasks_;
  std::vector<std::vector<Edge>> deps_;
  std::vector<std::vector<int>> users_;
  std::vector<int> index_;  // dense key -> task index
  int slots_ = 1;           // micro-batch (or all-reduce step) slots of the key, -1 included
};

/// [device] -> the indices of its tasks (TaskGraph::task) in the order it runs them; tasks
/// beside compute (beside_compute()) are in none.
using DeviceOrders = std::vector<std::vector<int>>;

/// Checks that `orders` holds every task of `g` but those beside compute exactly once, on its
/// own device, and that running them in that order cannot deadlock; throws std::logic_error
/// (StuckError for an order that cannot finish) otherwise.
void check_orders(const TaskGraph& g, const DeviceOrders& orders);

/// Checks a layout: every placement names an existing device, every pipe covers all stages,
/// every micro-batch a pipe. Throws UserError naming what is wrong.
void check_layout(const PipelineLayout& layout, int micro_batches);

}  // namespace trainsim
