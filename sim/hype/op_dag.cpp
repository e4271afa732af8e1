#include "sim/hype/op_dag.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <stdexcept>

namespace trainsim {

Pass op_pass(LayerOpSlot slot) {
  switch (slot) {
    case LayerOpSlot::kForward:
      return Pass::kForward;
    case LayerOpSlot::kBackwardWeight:
      return Pass::kBackwardWeight;
    case LayerOpSlot::kUpdate:
      return Pass::kUpdate;
    case LayerOpSlot::kLossGrad:
    case LayerOpSlot::kGradSum:
    case LayerOpSlot::kBackwardData:
      break;
  }
  return Pass::kBackwardData;
}

OpDag::OpDag() : graph_(TaskGraph::given(1, {}, {})) {}

int OpDag::add_node(const DagNode& node) {
  Task t;
  t.pass = op_pass(node.slot);
  t.stage = node.op.layer;
  nodes_.push_back(node);
  return graph_.add_task(t);
}

void OpDag::add_edge(int from, int to, EdgeData data, std::int64_t bytes, TensorId tensor) {
  if (from == to || from < 0 || to < 0 || from >= size() || to >= size())
    throw std::logic_error("OpDag::add_edge: bad edge " + std::to_string(from) + " -> " +
                           std::to_string(to));
  Edge e;
  e.from = from;
  e.data = data;
  e.bytes = bytes;
  e.tensor = tensor;
  graph_.add_dep(to, e);
}

namespace {

// Builds the DAG from the op stream, tracking who wrote and who read each tensor.
class DagBuilder {
 public:
  DagBuilder(const NetShape& net, const std::vector<LayerOps>& ops, const DagOptions& options)
      : net_(net), ops_(ops), options_(options) {
    consumers_.resize(net.size());
    for (std::size_t l = 0; l < net.size(); ++l)
      for (int in : net.layer(l).inputs)
        if (in >= 0) consumers_[static_cast<std::size_t>(in)].push_back(static_cast<int>(l));
  }

  OpDag build() {
    for (const auto& events : {forward_events(net_), backward_events(net_), update_events(net_)})
      for (const StepEvent& e : events) {
        const std::optional<Op>& op = slot_op(ops_[e.layer], e.slot);
        if (!op) continue;
        add(*op, e);
        if (options_.bias_ops) add_bias_op(*op, e);
      }
    return std::move(dag_);
  }

 private:
  struct Write {
    int node;
    std::int64_t words;
    bool in_place;  // the writer read the tensor too (a gradient sum, an update)
  };
  struct Source {
    int node;
    std::int64_t bytes;
    TensorId tensor;
  };

  // Whole bytes: words narrower than a byte still move in bytes.
  static std::int64_t bytes_of(const Op& op, std::int64_t words) {
    return (words * op.word_bits + 7) / 8;
  }

  // TensorFlow's separate bias ops (DagOptions::bias_ops) for a layer whose forward GEMM or
  // convolution has a bias (one per output channel): BiasAdd after the forward op, in place on
  // its output, and BiasAddGrad beside the backward-weight op, summing the output gradient over
  // every position into the bias's gradient, which the update reads.
  void add_bias_op(const Op& op, const StepEvent& e) {
    const bool array = op.kind == OpKind::kGemm || op.kind == OpKind::kConv;
    if (!array || !net_.has_params(e.layer) || !net_.layer_spec(e.layer).bias) return;
    const int layer = static_cast<int>(e.layer);
    const std::int64_t biases = net_.layer(e.layer).out.c;
    if (e.slot == LayerOpSlot::kForward) {
      const TensorUse out = op.outputs[0];
      Op b = Op::make_eltwise({out.words, 1, 1, 1}, OpRole::kForward, layer);
      b.eltwise.kernel = EltwiseKernel::kBroadcast;
      b.word_bits = op.word_bits;
      b.inputs[0] = out;
      b.inputs[1] = {tensor_id(TensorKind::kWeight, layer, 1), biases};
      b.outputs[0] = out;
      add(b, e, PaperOpType::kBiasAdd);
    } else if (e.slot == LayerOpSlot::kBackwardWeight) {
      for (const TensorUse& in : op.inputs)
        if (in.id != kNoTensor && tensor_id_kind(in.id) == TensorKind::kGradient) {
          // A reduction: every gradient value read once, a bias's worth written.
          Op b = Op::make_eltwise({in.words, 1, 0, 1}, OpRole::kBackwardWeight, layer);
          b.eltwise.kernel = EltwiseKernel::kReduction;
          b.word_bits = op.word_bits;
          b.inputs[0] = in;
          b.outputs[0] = {tensor_id(TensorKind::kWeightGrad, layer), biases};
          add(b, e, PaperOpType::kBiasAddGrad);
          return;
        }
    }
  }

  void add(const Op& op, const StepEvent& e, std::optional<PaperOpType> as = std::nullopt) {
    const std::string& type = net_.layer_spec(e.layer).type;
    const int n = dag_.add_node({op, e.slot, as ? *as : paper_op_type(op, type, e.slot)});
    for (const TensorUse& in : op.inputs) {
      if (in.id == kNoTensor) continue;
      std::vector<Source> from;
      sources(in.id, from);
      // A reader of a slice of what a writer wrote (a concat's gradient, routed to one of its
      // inputs) reads only its own words; a gradient sum reads one reader's gradient from each.
      std::int64_t words = in.words;
      if (e.slot == LayerOpSlot::kGradSum) words /= std::max(1, net_.layer(e.layer).consumers);
      for (const Source& s : from)
        dag_.add_edge(s.node, n, EdgeData::kTensor, std::min(s.bytes, bytes_of(op, words)),
                      s.tensor);
      readers_[in.id].push_back(n);
    }
    for (const TensorUse& out : op.outputs) {
      if (out.id == kNoTensor) continue;
      std::vector<int>& readers = readers_[out.id];
      for (int r : readers)
        if (r != n) dag_.add_edge(r, n, EdgeData::kNone, 0, out.id);
      const bool in_place = std::find(readers.begin(), readers.end(), n) != readers.end();
      readers.clear();
      writes_[out.id].push_back({n, out.words, in_place});
    }
  }

  // Who the current value of `id` comes from. The last in-place writer holds all of it;
  // otherwise every writer so far contributed a part, and so does whatever the tensor aliases.
  void sources(TensorId id, std::vector<Source>& out) {
    const std::vector<Write>& w = writes_[id];
    for (std::size_t i = w.size(); i-- > 0;) {
      if (w[i].in_place) {
        for (std::size_t j = i; j < w.size(); ++j) out.push_back(source(w[j], id));
        return;
      }
    }
    for (const Write& x : w) out.push_back(source(x, id));
    alias_sources(id, out);
  }

  Source source(const Write& w, TensorId id) const {
    return {w.node, bytes_of(dag_.node(w.node).op, w.words), id};
  }

  void alias_sources(TensorId id, std::vector<Source>& out) {
    const TensorKind kind = tensor_id_kind(id);
    const int layer = tensor_id_layer(id);
    if (layer < 0) return;  // the input batch comes from outside the iteration
    const auto l = static_cast<std::size_t>(layer);
    if (kind == TensorKind::kActivation && writes_[id].empty()) {
      // A concat or flatten: its output is its inputs' outputs, side by side.
      for (int in : net_.layer(l).inputs) sources(tensor_id(TensorKind::kActivation, in), out);
    } else if (kind == TensorKind::kGradient) {
      // Readers that issue no backward op (add, concat, flatten) route their own gradient.
      for (int c : consumers_[l])
        if (routes_gradient(static_cast<std::size_t>(c)))
          sources(tensor_id(TensorKind::kGradient, c), out);
    }
  }

  bool routes_gradient(std::size_t l) const {
    const LayerOps& o = ops_[l];
    return !o.backward_data && !o.loss_grad && !net_.has_params(l);
  }

  const NetShape& net_;
  const std::vector<LayerOps>& ops_;
  DagOptions options_;
  std::vector<std::vector<int>> consumers_;
  std::map<TensorId, std::vector<Write>> writes_;
  std::map<TensorId, std::vector<int>> readers_;  // since the last write
  OpDag dag_;
};

}  // namespace

OpDag build_op_dag(const NetShape& net, const std::vector<LayerOps>& ops,
                   const DagOptions& options) {
  if (ops.size() != net.size())
    throw std::logic_error("build_op_dag: ops for " + std::to_string(ops.size()) +
                           " layers, the network has " + std::to_string(net.size()));
  return DagBuilder(net, ops, options).build();
}

OpDag build_op_dag(const NetShape& net, int batch, int word_bits, const OptimizerSpec& optimizer,
                   const DagOptions& options) {
  return build_op_dag(net, lower_network(net, batch, word_bits, optimizer), options);
}

DagTimes dag_times(const OpDag& dag, const std::vector<double>& duration) {
  if (static_cast<int>(duration.size()) != dag.size())
    throw std::logic_error("dag_times: " + std::to_string(duration.size()) + " durations for " +
                           std::to_string(dag.size()) + " nodes");
  const std::vector<int> order = dag.topological_order();
  if (static_cast<int>(order.size()) != dag.size())
    throw std::logic_error("dag_times: the graph has a cycle");
  const auto n = static_cast<std::size_t>(dag.size());
  auto d = [&](int i) { return duration[static_cast<std::size_t>(i)]; };
  DagTimes t;
  t.asap.assign(n, 0);
  for (int i : order)
    for (const Edge& e : dag.graph().deps(i)) {
      const int p = e.from;
      t.asap[static_cast<std::size_t>(i)] =
          std::max(t.asap[static_cast<std::size_t>(i)], t.asap[static_cast<std::size_t>(p)] + d(p));
    }
  for (int i : order) t.makespan = std::max(t.makespan, t.asap[static_cast<std::size_t>(i)] + d(i));
  t.alap.assign(n, 0);
  t.slack.assign(n, 0);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int i = *it;
    double finish = t.makespan;
    for (int u : dag.graph().users(i))
      finish = std::min(finish, t.alap[static_cast<std::size_t>(u)]);
    t.alap[static_cast<std::size_t>(i)] = finish - d(i);
    t.slack[static_cast<std::size_t>(i)] =
        std::max(0.0, t.alap[static_cast<std::size_t>(i)] - t.asap[static_cast<std::size_t>(i)]);
  }
  return t;
}

}  // namespace trainsim
