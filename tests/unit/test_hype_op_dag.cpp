// The op DAG of a training iteration (sim/hype/op_dag.h): every edge of two tiny hand networks
// (a chain with a flatten; a graph with a residual add, a concat and gradient sums), the
// properties every iteration's DAG must have on LeNet-5, ResNet-50 and Inception-V3 (acyclic,
// one source, every op reachable and feeding an update, updates after the weights' last
// readers, edge bytes) on LeNet-5, ResNet-50, Inception-V3, DCGAN and BERT-Large, and ASAP /
// ALAP / slack on a hand DAG.
#include <catch2/catch.hpp>

#include <set>
#include <tuple>

#include "sim/core/paths.h"
#include "sim/hype/op_dag.h"
#include "sim/workload/network_config.h"
#include "tests/support/dag_edges.h"
#include "tests/support/layer_spec.h"

using namespace trainsim;
using trainsim::test::layer_spec;

namespace {

// A network of `layers` on `channels` x size x size inputs and three classes.
NetworkSpec network(const std::string& name, int channels, int size,
                    std::vector<LayerSpec> layers) {
  NetworkSpec spec;
  spec.name = name;
  spec.input = {channels, size, size};
  spec.classes = 3;
  spec.layers = std::move(layers);
  return spec;
}

// (from, to, kind) of every edge.
using EdgeSet = std::set<std::tuple<int, int, EdgeData>>;
EdgeSet edge_set(const OpDag& dag) {
  EdgeSet s;
  for (const test::DagEdgeView& e : test::dag_edges(dag)) s.insert({e.from, e.to, e.data});
  return s;
}

// Nodes reachable from `from` following edges forward (or backward).
std::vector<bool> reach(const OpDag& dag, int from, bool forward) {
  std::vector<bool> seen(static_cast<std::size_t>(dag.size()));
  std::vector<int> stack = {from};
  seen[static_cast<std::size_t>(from)] = true;
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    std::vector<int> next_nodes;
    if (forward) {
      next_nodes = dag.graph().users(n);
    } else {
      for (const Edge& e : dag.graph().deps(n)) next_nodes.push_back(e.from);
    }
    for (int next : next_nodes) {
      if (!seen[static_cast<std::size_t>(next)]) {
        seen[static_cast<std::size_t>(next)] = true;
        stack.push_back(next);
      }
    }
  }
  return seen;
}

// The properties every iteration's DAG has. Its sources are the forward passes of the
// `inputs` first ops, which read only the network input and their weights (one in a CNN,
// BERT's three embeddings).
void check_iteration_dag(const NetShape& net, const OpDag& dag, int inputs = 1) {
  REQUIRE(dag.size() > 0);
  const std::vector<int> order = dag.topological_order();
  REQUIRE(static_cast<int>(order.size()) == dag.size());  // acyclic
  // Built in issue order, every edge already points forward.
  for (const test::DagEdgeView& e : test::dag_edges(dag)) CHECK(e.from < e.to);
  std::vector<int> sources, expected;
  for (int i = 0; i < dag.size(); ++i)
    if (dag.graph().deps(i).empty()) sources.push_back(i);
  for (int i = 0; i < inputs; ++i) expected.push_back(i);
  REQUIRE(sources == expected);
  std::vector<bool> from_input(static_cast<std::size_t>(dag.size()));
  for (int s : sources) {
    CHECK(dag.node(s).slot == LayerOpSlot::kForward);
    const std::vector<bool> r = reach(dag, s, true);
    for (std::size_t k = 0; k < r.size(); ++k) from_input[k] = from_input[k] || r[k];
  }
  // Every op is reachable from it, and every op feeds some update (no dead work).
  std::vector<bool> feeds_update(static_cast<std::size_t>(dag.size()));
  int updates = 0;
  for (int i = 0; i < dag.size(); ++i) {
    CHECK(from_input[static_cast<std::size_t>(i)]);
    if (dag.node(i).slot != LayerOpSlot::kUpdate) continue;
    ++updates;
    CHECK(dag.graph().users(i).empty());  // nothing in the iteration follows an update
    const std::vector<bool> up = reach(dag, i, false);
    for (std::size_t k = 0; k < up.size(); ++k) feeds_update[k] = feeds_update[k] || up[k];
  }
  for (int i = 0; i < dag.size(); ++i) {
    INFO(i << " " << dag.node(i).op.describe());
    CHECK(feeds_update[static_cast<std::size_t>(i)]);
  }
  int with_params = 0;
  for (std::size_t l = 0; l < net.size(); ++l) with_params += net.has_params(l) ? 1 : 0;
  CHECK(updates == with_params);
  // Every reader of a layer's weights comes before that layer's update, by an order edge.
  for (int u = 0; u < dag.size(); ++u) {
    if (dag.node(u).slot != LayerOpSlot::kUpdate) continue;
    const TensorId w = tensor_id(TensorKind::kWeight, dag.node(u).op.layer);
    for (int r = 0; r < dag.size(); ++r) {
      if (r == u) continue;
      bool reads = false;
      for (const TensorUse& in : dag.node(r).op.inputs) reads = reads || in.id == w;
      if (!reads) continue;
      bool ordered = false;
      ordered = dag.graph().edge(r, u) != nullptr;
      CHECK(ordered);
      CHECK(r < u);
    }
  }
  // Data edges carry bytes, order edges none.
  for (const test::DagEdgeView& e : test::dag_edges(dag)) {
    if (e.data == EdgeData::kTensor) {
      CHECK(e.bytes > 0);
    } else {
      CHECK(e.bytes == 0);
    }
  }
}

NetworkSpec zoo(const std::string& name) {
  return load_network(configs_root() + "/networks/" + name + ".yaml");
}

}  // namespace

TEST_CASE("Op DAG of a chain: every edge by hand", "[hype][dag]") {
  LayerSpec conv = layer_spec("conv2d", "conv");
  conv.filters = 2, conv.kernel = 3, conv.padding = 1;
  LayerSpec fc = layer_spec("dense", "fc");
  fc.units = 3;
  const NetworkSpec spec = network("chain", 1, 8,
                                   {conv, layer_spec("relu", "act"), layer_spec("flatten", "flat"),
                                    fc, layer_spec("softmax", "out")});
  const NetShape net(spec);
  const OpDag dag = build_op_dag(net, 4, 16, OptimizerSpec{});
  // conv fw, relu, fc fw, softmax; loss gradient, fc bwd-weight, fc bwd-data, relu grad, conv
  // bwd-weight (the first layer computes no input gradient); the two updates.
  REQUIRE(dag.size() == 11);
  const PaperOpType types[] = {PaperOpType::kConv2D,
                               PaperOpType::kRelu,
                               PaperOpType::kMatMul,
                               PaperOpType::kSoftmax,
                               PaperOpType::kSoftmaxCrossEntropy,
                               PaperOpType::kMatMul,
                               PaperOpType::kMatMul,
                               PaperOpType::kReluGrad,
                               PaperOpType::kConv2DBackpropFilter,
                               PaperOpType::kApplyGradientDescent,
                               PaperOpType::kApplyGradientDescent};
  for (int i = 0; i < dag.size(); ++i) CHECK(dag.node(i).type == types[i]);
  const EdgeData D = EdgeData::kTensor, O = EdgeData::kNone;
  const EdgeSet expected = {
      {0, 1, D}, {1, 2, D},  {2, 3, D},  {3, 4, D},  // forward, and the loss reads the output
      {1, 5, D}, {4, 5, D},                          // fc dW = X^T dY: X through the flatten
      {4, 6, D},                                     // fc dX = dY W^T
      {6, 7, D}, {0, 7, D},                          // relu grad: dY and the conv's output
      {7, 8, D},                                     // conv dW
      {8, 9, D}, {5, 10, D},                         // updates read the weight gradients
      {0, 9, O}, {2, 10, O}, {6, 10, O},             // ... after the weights' readers
  };
  CHECK(edge_set(dag) == expected);
  check_iteration_dag(net, dag);
  // Edges name the tensor; its id unpacks to its kind and layer.
  CHECK(tensor_id_kind(test::dag_edges(dag).front().tensor) == TensorKind::kActivation);
  CHECK(tensor_id_layer(test::dag_edges(dag).front().tensor) == 0);
  CHECK(tensor_id_layer(tensor_id(TensorKind::kGradient, -1)) == -1);
  // Bytes: the relu's output, 4 x 2 x 8 x 8 words of 2 bytes, to the fc's forward pass.
  for (const test::DagEdgeView& e : test::dag_edges(dag))
    if (e.from == 1 && e.to == 2) CHECK(e.bytes == 4 * 128 * 2);
}

TEST_CASE("Op DAG of a graph: a residual add, a concat and gradient sums", "[hype][dag]") {
  LayerSpec stem = layer_spec("conv2d", "stem");
  stem.filters = 2, stem.kernel = 1, stem.bias = false;
  LayerSpec b = layer_spec("conv2d", "b");
  b.filters = 2, b.kernel = 1, b.bias = false;
  LayerSpec sum = layer_spec("add", "sum");
  sum.from = {"b", "a"};
  LayerSpec cat = layer_spec("concat", "cat");
  cat.from = {"sum", "stem"};
  LayerSpec fc = layer_spec("dense", "fc");
  fc.units = 3;
  const NetworkSpec spec =
      network("graph", 1, 4,
              {stem, layer_spec("relu", "a"), b, sum, cat, layer_spec("flatten", "flat"), fc,
               layer_spec("softmax", "out")});
  const NetShape net(spec);
  REQUIRE(net.layer(1).consumers == 2);  // a: read by b and the add
  REQUIRE(net.layer(0).consumers == 2);  // stem: read by a and the concat
  const OpDag dag = build_op_dag(net, 2, 32, OptimizerSpec{});
  // 0 stem, 1 a, 2 b, 3 sum (the concat and flatten issue nothing), 4 fc, 5 softmax; 6 loss
  // gradient, 7 fc dW, 8 fc dX, 9 b dW, 10 b dX, 11 AddN of a, 12 relu grad, 13 AddN of the
  // stem, 14 stem dW; 15-17 updates of stem, b, fc.
  REQUIRE(dag.size() == 18);
  CHECK(dag.node(11).type == PaperOpType::kAddN);
  CHECK(dag.node(13).type == PaperOpType::kAddN);
  CHECK(dag.node(3).type == PaperOpType::kAdd);
  const EdgeData D = EdgeData::kTensor, O = EdgeData::kNone;
  const EdgeSet expected = {
      {0, 1, D},
      {1, 2, D},
      {2, 3, D},
      {1, 3, D},  // a -> b -> sum, a -> sum
      {3, 4, D},
      {0, 4, D},  // the concat is the sum's and stem's output
      {4, 5, D},
      {5, 6, D},
      {3, 7, D},
      {0, 7, D},
      {6, 7, D},  // fc dW reads the concat and dY
      {6, 8, D},
      {1, 9, D},
      {8, 9, D},   // b's dY is the add's, which is the concat's slice:
                   // fc's dX
      {8, 10, D},  // b's dX reads the same dY
      {10, 11, D},
      {8, 11, D},  // a's gradient sum: from b's dX and through the add
      {0, 12, D},
      {11, 12, D},  // relu grad: the stem's output and the summed gradient
      {12, 13, D},
      {8, 13, D},  // the stem's gradient sum: relu grad and the concat's slice
      {13, 14, D},
      {14, 15, D},
      {9, 16, D},
      {7, 17, D},
      {0, 15, O},
      {2, 16, O},
      {10, 16, O},
      {4, 17, O},
      {8, 17, O},
  };
  CHECK(edge_set(dag) == expected);
  CHECK(test::dag_edges(dag).size() == 30);
  check_iteration_dag(net, dag);
  // A slice of a concat's gradient: b reads 2 x 2 x 4 x 4 words of fc's 2 x 4 x 4 x 4.
  for (const test::DagEdgeView& e : test::dag_edges(dag)) {
    if (e.from == 8 && e.to == 9) CHECK(e.bytes == 2 * 32 * 4);
    if (e.from == 8 && e.to == 13) CHECK(e.bytes == 2 * 32 * 4);
    if (e.from == 10 && e.to == 11) CHECK(e.bytes == 2 * 32 * 4);
    if (e.from == 8 && e.to == 11) CHECK(e.bytes == 2 * 32 * 4);
    if (e.from == 0 && e.to == 4) CHECK(e.bytes == 2 * 32 * 4);  // the stem's part of the concat
  }
}

TEST_CASE("Op DAGs of LeNet-5, ResNet-50 and Inception-V3", "[hype][dag]") {
  OptimizerSpec momentum;
  momentum.momentum = 0.9;
  for (const char* name : {"lenet5", "resnet50_imagenet", "inceptionv3_imagenet"}) {
    INFO(name);
    const NetworkSpec spec = zoo(name);  // NetShape refers to it
    const NetShape net(spec);
    const OpDag dag = build_op_dag(net, 32, 16, momentum);
    check_iteration_dag(net, dag);
    // As many nodes as the step issues ops.
    const auto ops = lower_network(net, 32, 16, momentum);
    int issued = 0;
    for (const auto& events : {forward_events(net), backward_events(net), update_events(net)})
      for (const StepEvent& e : events) issued += slot_op(ops[e.layer], e.slot) ? 1 : 0;
    CHECK(dag.size() == issued);
  }
}

TEST_CASE("Op DAGs of DCGAN and BERT-Large", "[hype][dag]") {
  OptimizerSpec adam;
  adam.kind = "adam";
  struct Case {
    const char* name;
    int batch, inputs, ops, data_edges, order_edges;
  };
  // A GAN step of 128 images: the discriminator's at 2 x 128, the generator's at 128;
  // BERT-Large at the paper's batch of 10. Ops: forward (layers but flatten and reshape), the
  // loss gradient, backward (bwd-data where something below trains; bwd-weight with
  // parameters or a second operand; gradient sums), updates: the discriminator 13 + 1 + 19 +
  // 8, the chain 27 + 1 + 42 + 17, BERT 416 + 1 + 656 + 197 (an encoder layer: 25 backward
  // ops and 2 gradient sums). Order edges: each layer's weight readers (forward, bwd-data)
  // before its update.
  for (const Case& c :
       {Case{"dcgan_d_celeba", 256, 1, 41, 54, 15}, Case{"dcgan_gd_celeba", 128, 1, 87, 118, 33},
        Case{"bert_large_squad", 10, 3, 1270, 1921, 391}}) {
    INFO(c.name);
    const NetworkSpec spec = zoo(c.name);
    const NetShape net(spec);
    const OpDag dag = build_op_dag(net, c.batch, 32, adam);
    check_iteration_dag(net, dag, c.inputs);
    int data = 0;
    for (const test::DagEdgeView& e : test::dag_edges(dag))
      data += e.data == EdgeData::kTensor ? 1 : 0;
    CHECK(dag.size() == c.ops);
    CHECK(data == c.data_edges);
    CHECK(static_cast<int>(test::dag_edges(dag).size()) - data == c.order_edges);
  }
}

TEST_CASE("ASAP, ALAP and slack on a hand DAG", "[hype][dag]") {
  // Durations in brackets; 5 stands alone.
  //   0 (1) -> 1 (2) -> 3 (1) -> 4 (1)
  //   0 (1) -> 2 (5) -> 3
  //   5 (1)
  OpDag dag;
  for (int i = 0; i < 6; ++i) dag.add_node({});
  dag.add_edge(0, 1, EdgeData::kTensor, 8);
  dag.add_edge(0, 2, EdgeData::kTensor, 8);
  dag.add_edge(1, 3, EdgeData::kTensor, 8);
  dag.add_edge(2, 3, EdgeData::kNone);
  dag.add_edge(3, 4, EdgeData::kTensor, 8);
  dag.add_edge(3, 4, EdgeData::kTensor, 4);  // merged with the one before
  REQUIRE(test::dag_edges(dag).size() == 5);
  CHECK(test::dag_edges(dag).back().bytes == 12);
  const DagTimes t = dag_times(dag, {1, 2, 5, 1, 1, 1});
  CHECK(t.makespan == 8);
  CHECK(t.asap == std::vector<double>{0, 1, 1, 6, 7, 0});
  CHECK(t.alap == std::vector<double>{0, 4, 1, 6, 7, 7});
  CHECK(t.slack == std::vector<double>{0, 3, 0, 0, 0, 7});
  CHECK_THROWS_AS(dag_times(dag, {1, 2, 3}), std::logic_error);
  CHECK_THROWS_AS(dag.add_edge(2, 2, EdgeData::kTensor), std::logic_error);
  dag.add_edge(4, 0, EdgeData::kNone);  // a cycle
  CHECK(dag.topological_order().empty());
  CHECK_THROWS_AS(dag_times(dag, {1, 2, 5, 1, 1, 1}), std::logic_error);
}

TEST_CASE("Op DAG with TensorFlow's bias ops", "[hype][dag]") {
  const NetworkSpec spec = load_network(configs_root() + "/networks/lenet5.yaml");
  const NetShape net(spec);
  const OpDag plain = build_op_dag(net, 32, 32, OptimizerSpec{});
  DagOptions options;
  options.bias_ops = true;
  const OpDag dag = build_op_dag(net, 32, 32, OptimizerSpec{}, options);
  int biased = 0;
  for (std::size_t l = 0; l < net.size(); ++l)
    if (net.has_params(l) && net.layer_spec(l).bias) ++biased;
  REQUIRE(biased == 5);  // two convolutions, three dense layers
  // One BiasAdd and one BiasAddGrad per biased layer, and nothing else new.
  CHECK(dag.size() == plain.size() + 2 * biased);
  CHECK_FALSE(dag.topological_order().empty());
  int adds = 0, grads = 0;
  for (int i = 0; i < dag.size(); ++i) {
    const DagNode& n = dag.node(i);
    // Whether node i has an edge from (in) or to an op of its own layer in `role`.
    auto has_edge = [&](bool in, OpRole role, bool array) {
      std::vector<int> others;
      if (in) {
        for (const Edge& e : dag.graph().deps(i)) others.push_back(e.from);
      } else {
        others = dag.graph().users(i);
      }
      for (int other : others) {
        const DagNode& o = dag.node(other);
        if (o.op.layer == n.op.layer && o.op.role == role &&
            (o.op.kind != OpKind::kElementwise) == array)
          return true;
      }
      return false;
    };
    if (n.type == PaperOpType::kBiasAdd) {
      ++adds;
      // After its layer's forward op, in place on the output it reads.
      CHECK(dag.graph().deps(i).size() == 1);
      CHECK(has_edge(true, OpRole::kForward, true));
      CHECK(n.op.inputs[0].id == n.op.outputs[0].id);
      // The layer's readers read it, not the forward op any more.
      for (int u : dag.graph().users(i)) CHECK(dag.graph().edge(i, u)->bytes > 0);
    }
    if (n.type == PaperOpType::kBiasAddGrad) {
      ++grads;
      // Summed into the bias gradient the update reads.
      CHECK(has_edge(false, OpRole::kUpdate, false));
      CHECK(n.op.eltwise.writes == 0);
    }
  }
  CHECK(adds == biased);
  CHECK(grads == biased);
}
