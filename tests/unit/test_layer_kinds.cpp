// The layer types of the Hype-training workloads (sim/workload/layers/): each one's lowering
// (ops, GEMM and convolution shapes, tensors), conv2d_transpose against the convolution it
// mirrors, shape errors, their numerics where they have them, and the paper op types they get.
#include <catch2/catch.hpp>

#include <memory>

#include "sim/core/rng.h"
#include "sim/hype/op_types.h"
#include "sim/io/file_set.h"
#include "sim/nn/activation.h"
#include "sim/nn/network.h"
#include "sim/workload/lowering.h"
#include "sim/workload/network_config.h"
#include "tests/support/config_errors.h"
#include "tests/support/temp_dir.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

// A network file with `layers` on input [c, h, w], loaded; its NetShape and ops at `batch`.
struct Lowered {
  NetworkSpec spec;
  std::unique_ptr<NetShape> net;
  std::vector<LayerOps> ops;
  const LayerOps& at(const std::string& name) const {
    for (std::size_t i = 0; i < spec.layers.size(); ++i)
      if (spec.layers[i].name == name) return ops[i];
    FAIL("no layer " << name);
    return ops.front();
  }
  const LayerShape& shape(const std::string& name) const {
    for (std::size_t i = 0; i < spec.layers.size(); ++i)
      if (spec.layers[i].name == name) return net->layer(i);
    FAIL("no layer " << name);
    return net->layer(0);
  }
};

std::string write_network(const TempDir& tmp, const std::string& input, int classes,
                          const std::string& layers) {
  const std::string path = tmp / "net.yaml";
  write_text_file(
      path, "input: " + input + "\nclasses: " + std::to_string(classes) + "\nlayers:\n" + layers);
  return path;
}

Lowered lower(const std::string& input, int classes, const std::string& layers, int batch) {
  TempDir tmp("layer-kinds");
  Lowered l;
  l.spec = load_network(write_network(tmp, input, classes, layers));
  l.net = std::make_unique<NetShape>(l.spec);
  OptimizerSpec sgd;
  l.ops = lower_network(*l.net, batch, 16, sgd);
  return l;
}

// The error NetShape (or the loader) gives for a network.
std::string shape_error(const std::string& input, int classes, const std::string& layers) {
  TempDir tmp("layer-kinds-err");
  const std::string path = write_network(tmp, input, classes, layers);
  return error_of([&] {
    const NetworkSpec spec = load_network(path);
    NetShape net(spec);
  });
}

}  // namespace

TEST_CASE("conv2d_transpose lowers to the passes of the convolution it mirrors",
          "[shape][lowering]") {
  // DCGAN's 5x5 stride-2 'SAME' step, 1024x4x4 -> 512x8x8, against the conv 512x8x8 -> 1024x4x4.
  const Lowered t = lower("[1024, 4, 4]", 3,
                          "  - {type: conv2d_transpose, name: t, filters: 512, kernel: 5, stride: "
                          "2, padding: 2, output_padding: 1, bias: false}\n"
                          "  - {type: flatten}\n  - {type: dense, units: 3}\n  - {type: softmax}\n",
                          8);
  const Lowered c = lower("[512, 8, 8]", 3,
                          "  - {type: conv2d, name: c, filters: 1024, kernel: 5, stride: 2, "
                          "padding: 2, bias: false}\n"
                          "  - {type: flatten}\n  - {type: dense, units: 3}\n  - {type: softmax}\n",
                          8);
  CHECK(t.shape("t").out == Shape{512, 8, 8});
  CHECK(c.shape("c").out == Shape{1024, 4, 4});
  CHECK(t.shape("t").params == c.shape("c").params);  // 1024 x 512 x 5 x 5
  CHECK(t.shape("t").params == 13107200);
  const LayerOps &to = t.at("t"), &co = c.at("c");
  REQUIRE(to.forward);
  REQUIRE(to.backward_data);
  REQUIRE(to.backward_weight);
  // Same geometry, passes exchanged: forward = the conv's backward-data and back.
  CHECK(to.forward->conv == co.forward->conv);
  CHECK(to.forward->role == OpRole::kBackwardData);
  CHECK(to.backward_data->role == OpRole::kForward);
  CHECK(to.backward_weight->role == OpRole::kBackwardWeight);
  CHECK(lower_to_gemm(*to.forward) == lower_to_gemm(*co.backward_data));
  CHECK(lower_to_gemm(*to.backward_data) == lower_to_gemm(*co.forward));
  CHECK(lower_to_gemm(*to.backward_weight) == lower_to_gemm(*co.backward_weight));
  // As executed (im2col over the stride-dilated map, as every strided conv's backward-data):
  // stride^2 times the useful MACs.
  CHECK(to.forward->macs() == co.backward_data->macs());
  CHECK(to.forward->macs() == 4 * co.forward->macs());
  // Its input is the mirrored conv's output gradient; its weights are read by both passes.
  CHECK(to.forward->inputs[0].id == tensor_id(TensorKind::kActivation, -1));
  CHECK(to.forward->outputs[0].id == tensor_id(TensorKind::kActivation, 0));
  CHECK(to.backward_weight->outputs[0].id == tensor_id(TensorKind::kWeightGrad, 0));
  // As TensorFlow names them.
  CHECK(paper_op_type(*to.forward, *t.net) == PaperOpType::kConv2DBackpropInput);
  CHECK(paper_op_type(*to.backward_data, *t.net) == PaperOpType::kConv2D);
  CHECK(paper_op_type(*to.backward_weight, *t.net) == PaperOpType::kConv2DBackpropFilter);
}

TEST_CASE("linear and batched_matmul lower to GEMMs over positions and heads",
          "[shape][lowering]") {
  // One attention head pair on 6 positions of 8 features: scores Q K^T, context P V.
  const Lowered l = lower("[8, 6, 1]", 2 * 6,
                          "  - {type: linear, name: q, units: 8}\n"
                          "  - {type: linear, name: k, units: 8, from: input}\n"
                          "  - {type: linear, name: v, units: 8, from: input}\n"
                          "  - {type: batched_matmul, name: s, heads: 2, transpose_b: true, "
                          "from: [q, k]}\n"
                          "  - {type: softmax, name: p}\n"
                          "  - {type: batched_matmul, name: c, heads: 2, from: [p, v]}\n"
                          "  - {type: linear, name: head, units: 2}\n"
                          "  - {type: softmax, name: out}\n",
                          3);
  // linear: M = batch x positions.
  const LayerOps& q = l.at("q");
  CHECK(q.forward->gemm == GemmShape{3 * 6, 8, 8});
  CHECK(q.backward_data->gemm == GemmShape{3 * 6, 8, 8});
  CHECK(q.backward_weight->gemm == GemmShape{8, 8, 3 * 6});
  CHECK(l.shape("q").params == 8 * 8 + 8);
  CHECK(l.at("head").forward->gemm == GemmShape{3 * 6, 2, 8});
  // Scores: per head 6 x 4 times (6 x 4)^T, 2 heads x 3 samples; out 2 x 6 features, 6 positions.
  CHECK(l.shape("s").out == Shape{12, 6, 1});
  const LayerOps& s = l.at("s");
  CHECK(s.forward->gemm == GemmShape{6, 6, 4});
  CHECK(s.forward->repeat == 3 * 2);
  CHECK(s.backward_data->gemm == GemmShape{6, 4, 6});       // dQ = dS K
  CHECK(s.backward_weight->gemm == GemmShape{6, 4, 6});     // dK = dS^T Q
  CHECK(s.backward_weight->role == OpRole::kBackwardData);  // a data gradient
  CHECK(s.backward_data->outputs[0].id == tensor_id(TensorKind::kGradient, 0));
  CHECK(s.backward_weight->outputs[0].id == tensor_id(TensorKind::kGradient, 1));
  CHECK(s.forward->inputs[1].id == tensor_id(TensorKind::kActivation, 1));
  // Context: per head P (6 x 6) V (6 x 4).
  CHECK(l.shape("c").out == Shape{8, 6, 1});
  const LayerOps& c = l.at("c");
  CHECK(c.forward->gemm == GemmShape{6, 4, 6});
  CHECK(c.backward_data->gemm == GemmShape{6, 6, 4});    // dP = dC V^T
  CHECK(c.backward_weight->gemm == GemmShape{6, 4, 6});  // dV = P^T dC
  for (const auto* op : {&c.forward, &c.backward_data, &c.backward_weight})
    CHECK((*op)->macs() == 3 * 2 * 6 * 6 * 4);
  // The softmax in the middle has a Jacobian product, the last one the loss gradient.
  const LayerOps &p = l.at("p"), &out = l.at("out");
  CHECK(p.backward_data);
  CHECK_FALSE(p.loss_grad);
  CHECK(p.backward_data->inputs[0].id == tensor_id(TensorKind::kActivation, 4));
  CHECK(out.loss_grad);
  CHECK_FALSE(out.backward_data);
  // The step issues both operand gradients (the second in the backward-weight slot).
  int weight_slots = 0;
  for (const StepEvent& e : backward_events(*l.net))
    if (e.slot == LayerOpSlot::kBackwardWeight && !l.net->has_params(e.layer)) ++weight_slots;
  CHECK(weight_slots == 2);
  CHECK(paper_op_type(*s.backward_weight, *l.net) == PaperOpType::kBatchMatMul);
  CHECK(paper_op_type(*s.backward_weight, "batched_matmul", LayerOpSlot::kBackwardWeight) ==
        PaperOpType::kBatchMatMul);
  CHECK(paper_op_type(*p.backward_data, *l.net) == PaperOpType::kSoftmaxGrad);
  CHECK(paper_op_type(*q.forward, *l.net) == PaperOpType::kMatMul);
}

TEST_CASE("element-wise, normalization, embedding and reshape layers lower as documented",
          "[shape][lowering]") {
  const int b = 4;
  const Lowered l = lower("[1, 5, 1]", 2,
                          "  - {type: embedding, name: e, vocab: 100, units: 6}\n"
                          "  - {type: layernorm, name: n}\n"
                          "  - {type: dropout, name: d, rate: 0.1}\n"
                          "  - {type: gelu, name: g}\n"
                          "  - {type: tanh, name: t}\n"
                          "  - {type: reshape, name: r, shape: [3, 10, 1]}\n"
                          "  - {type: linear, name: fc, units: 1}\n"
                          "  - {type: flatten}\n  - {type: dense, units: 1}\n"
                          "  - {type: sigmoid, name: out}\n",
                          b);
  const std::int64_t values = b * 6 * 5;
  // embedding: gather forward, scatter-add backward-weight, no gradient for the ids.
  const LayerOps& e = l.at("e");
  CHECK(l.shape("e").params == 600);
  CHECK(e.forward->eltwise.elements == values);
  CHECK(e.backward_weight->eltwise.elements == values);
  CHECK_FALSE(e.backward_data);
  CHECK(e.update->eltwise.elements == 600);
  CHECK(paper_op_type(*e.forward, *l.net) == PaperOpType::kGatherV2);
  CHECK(paper_op_type(*e.backward_weight, *l.net) == PaperOpType::kUnsortedSegmentSum);
  // layernorm: batchnorm's ops (scale and shift per feature).
  const Lowered bn = lower("[6, 5, 1]", 2,
                           "  - {type: batchnorm, name: n}\n  - {type: flatten}\n"
                           "  - {type: dense, units: 1}\n  - {type: sigmoid}\n",
                           b);
  const LayerOps &n = l.at("n"), &bo = bn.at("n");
  CHECK(l.shape("n").params == 12);
  for (auto slot :
       {LayerOpSlot::kForward, LayerOpSlot::kBackwardData, LayerOpSlot::kBackwardWeight}) {
    const auto &a = slot_op(n, slot), &c = slot_op(bo, slot);
    REQUIRE(a);
    REQUIRE(c);
    CHECK(a->eltwise.elements == c->eltwise.elements);
    CHECK(a->eltwise.reads == c->eltwise.reads);
    CHECK(a->eltwise.flops == c->eltwise.flops);
  }
  CHECK(paper_op_type(*n.forward, *l.net) == PaperOpType::kNorm);
  CHECK(paper_op_type(*n.backward_data, *l.net) == PaperOpType::kNormGrad);
  // dropout: the mask written beside y and read by the gradient (a Mul).
  const LayerOps& d = l.at("d");
  CHECK(d.forward->outputs[1].id == tensor_id(TensorKind::kActivation, 2, 1));
  CHECK(d.backward_data->inputs[0].id == d.forward->outputs[1].id);
  CHECK(paper_op_type(*d.forward, *l.net) == PaperOpType::kDropout);
  CHECK(paper_op_type(*d.backward_data, *l.net) == PaperOpType::kMul);
  // gelu, tanh: one op each way over every value.
  for (const char* name : {"d", "g", "t"}) {
    INFO(name);
    const LayerOps& o = l.at(name);
    CHECK(o.forward->eltwise.elements == values);
    CHECK(o.backward_data->eltwise.elements == values);
    CHECK(o.backward_data->role == OpRole::kActivationGrad);
    CHECK_FALSE(o.backward_weight);
  }
  CHECK(paper_op_type(*l.at("g").backward_data, *l.net) == PaperOpType::kGeluGrad);
  CHECK(paper_op_type(*l.at("t").forward, *l.net) == PaperOpType::kTanh);
  // reshape: no op; its reader reads (and writes the gradient of) the tanh's tensors.
  const LayerOps& r = l.at("r");
  CHECK_FALSE(r.forward);
  CHECK_FALSE(r.backward_data);
  CHECK(l.shape("fc").in == Shape{3, 10, 1});
  CHECK(l.at("fc").forward->gemm == GemmShape{b * 10, 1, 3});
  CHECK(l.at("fc").forward->inputs[0].id == tensor_id(TensorKind::kActivation, 4));
  CHECK(l.at("fc").backward_data->outputs[0].id == tensor_id(TensorKind::kGradient, 4));
  // sigmoid last: the binary cross-entropy gradient, nothing else backward.
  const LayerOps& out = l.at("out");
  CHECK(out.loss_grad);
  CHECK_FALSE(out.backward_data);
  CHECK(paper_op_type(*out.loss_grad, *l.net) == PaperOpType::kSigmoidCrossEntropy);
  CHECK(paper_op_type(*out.forward, *l.net) == PaperOpType::kSigmoid);
  // A sigmoid elsewhere is an activation: its derivative from y.
  const Lowered gate = lower("[4, 1, 1]", 3,
                             "  - {type: dense, units: 4}\n  - {type: sigmoid, name: s}\n"
                             "  - {type: dense, units: 3}\n  - {type: softmax}\n",
                             b);
  const LayerOps& s = gate.at("s");
  REQUIRE(s.backward_data);
  CHECK_FALSE(s.loss_grad);
  CHECK(s.backward_data->inputs[0].id == tensor_id(TensorKind::kActivation, 1));
  CHECK(paper_op_type(*s.backward_data, *gate.net) == PaperOpType::kSigmoidGrad);
}

TEST_CASE("the new layer types reject impossible shapes with one line naming the layer",
          "[shape][config]") {
  struct Case {
    std::string input, layers, what;
  };
  const std::string tail =
      "  - {type: flatten}\n  - {type: dense, units: 2}\n  - {type: softmax}\n";
  const Case cases[] = {
      {"[4, 3, 3]", "  - {type: reshape, name: r, shape: [5, 3, 3]}\n" + tail,
       "layer 'r' (reshape): shape 5x3x3 has 45 values, the input 4x3x3 36"},
      {"[4, 3, 3]",
       "  - {type: conv2d_transpose, name: t, filters: 2, kernel: 3, stride: 2, "
       "output_padding: 2}\n" +
           tail,
       "layer 't' (conv2d_transpose): output_padding 2 must be smaller than the stride 2"},
      {"[4, 1, 1]",
       "  - {type: conv2d_transpose, name: t, filters: 2, kernel: 1, padding: 1}\n" + tail,
       "layer 't' (conv2d_transpose): padding 1 leaves no output of input 4x1x1"},
      {"[4, 3, 3]",
       "  - {type: conv2d_transpose, name: t, filters: 2, kernel: 3, padding: [1, 0]}\n" + tail,
       "layer 't' (conv2d_transpose): padding [1, 0] must be the same on both axes"},
      {"[4, 6, 1]", "  - {type: batched_matmul, name: m, heads: 3, from: [input, input]}\n" + tail,
       "layer 'm' (batched_matmul): heads 3 must divide the features of both inputs (4 and 4)"},
      {"[4, 6, 1]", "  - {type: batched_matmul, name: m, heads: 2, from: [input, input]}\n" + tail,
       "layer 'm' (batched_matmul): A is 6 x 2 per head, B 6 x 2: the inner dimensions differ"},
      {"[4, 6, 1]", "  - {type: batched_matmul, name: m, from: input}\n" + tail,
       "layer 'm' (batched_matmul): needs two inputs in `from` (A and B), got 1"},
      {"[2, 6, 1]", "  - {type: embedding, name: e, vocab: 10, units: 4}\n" + tail,
       "layer 'e' (embedding): reads one token id per position: its input must have 1 channel"},
  };
  for (const Case& c : cases) {
    const std::string msg = shape_error(c.input, 2, c.layers);
    INFO(msg);
    CHECK(msg.find(c.what) != std::string::npos);
    CHECK(msg.find("net.yaml") != std::string::npos);
  }
  // A sigmoid output is one binary decision.
  std::string msg = shape_error("[4, 1, 1]", 2, "  - {type: sigmoid}\n");
  CHECK(msg.find("a sigmoid output is one binary decision: it must have 1 value (has 4)") !=
        std::string::npos);
}

TEST_CASE("tanh, sigmoid, GELU reshape and dropout train but a sigmoid output is timed only",
          "[nn][shape]") {
  TempDir tmp("layer-kinds-numerics");
  const std::string path =
      write_network(tmp, "[1, 4, 4]", 3,
                    "  - {type: conv2d, filters: 2, kernel: 3, padding: 1}\n"
                    "  - {type: tanh}\n  - {type: reshape, shape: [4, 2, 4]}\n"
                    "  - {type: sigmoid}\n  - {type: flatten}\n  - {type: dense, units: 5}\n"
                    "  - {type: gelu}\n  - {type: dense, units: 3}\n  - {type: softmax}\n");
  const NetworkSpec spec = load_network(path);
  Network<double> net(spec);
  const NetShape shape(spec);
  REQUIRE(shape.size() == net.size());
  CHECK(shape.param_count() == net.param_count());
  for (std::size_t i = 0; i < net.size(); ++i) {
    CHECK(shape.layer(i).out == net.layer(i).out_shape());
    CHECK(net.layer(i).type() == spec.layers[i].type);
  }
  // The derivatives: central differences of each activation at a few points.
  for (Smooth fn : {Smooth::kTanh, Smooth::kSigmoid, Smooth::kGelu}) {
    SmoothActivation<double> act(Shape{5, 1, 1}, fn);
    INFO(act.type());
    Tensor<double> x(1, Shape{5, 1, 1}), y, dy(1, Shape{5, 1, 1}), dx;
    const double points[5] = {-2.5, -0.7, 0.0, 0.4, 3.1};
    for (int i = 0; i < 5; ++i) x.data()[i] = points[i], dy.data()[i] = 1.0;
    act.forward(x, y);
    act.backward_data(x, y, dy, dx);
    for (int i = 0; i < 5; ++i) {
      const double h = 1e-6;
      Tensor<double> xp = x, xm = x, yp, ym;
      xp.data()[i] += h;
      xm.data()[i] -= h;
      act.forward(xp, yp);
      act.forward(xm, ym);
      CHECK(dx.data()[i] == Approx((yp.data()[i] - ym.data()[i]) / (2 * h)).epsilon(1e-6));
    }
  }
  SmoothActivation<double> gelu(Shape{1, 1, 1}, Smooth::kGelu);
  Tensor<double> x(1, Shape{1, 1, 1}), y;
  x.data()[0] = 1.0;
  gelu.forward(x, y);
  CHECK(y.data()[0] == Approx(0.8411919906));  // 0.5 (1 + tanh(0.79788456 x 1.044715))
  // Dropout trains (tests/unit/test_graph_network.cpp); a sigmoid output is timed only.
  const std::string dropout = write_network(tmp, "[1, 4, 4]", 3,
                                            "  - {type: flatten}\n  - {type: dense, units: 3}\n"
                                            "  - {type: dropout}\n  - {type: softmax}\n");
  const NetworkSpec with_dropout = load_network(dropout);
  CHECK(Network<float>(with_dropout).param_count() == 51);
  const std::string sigmoid_out =
      write_network(tmp, "[1, 4, 4]", 2,
                    "  - {type: flatten}\n  - {type: dense, units: 1}\n  - {type: sigmoid}\n");
  const NetworkSpec binary = load_network(sigmoid_out);
  CHECK(NetShape(binary).param_count() == 17);
  CHECK(error_of([&] { Network<float> n(binary); }).find("numerics: none") != std::string::npos);
}
