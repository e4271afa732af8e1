// The paper's op types (sim/hype/op_types.h): every lowered op of the zoo's networks gets the
// TensorFlow type He et al. would call it, gradient sums are AddN, updates are named by their
// optimizer, and the types trainsim folds into other ops say where.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "sim/core/paths.h"
#include "sim/hype/op_types.h"
#include "sim/techniques/technique.h"
#include "sim/workload/lowering.h"
#include "sim/workload/network_config.h"
#include "tests/support/paper_type_counts.h"

using namespace trainsim;
using trainsim::test::paper_type_counts;

namespace {

NetworkSpec zoo(const std::string& name) {
  return load_network(configs_root() + "/networks/" + name + ".yaml");
}

}  // namespace

TEST_CASE("Paper op types: names round-trip and folded types say where they went", "[hype]") {
  std::set<std::string> names;
  for (int i = 0; i < kNumPaperOpTypes; ++i) {
    const auto t = static_cast<PaperOpType>(i);
    PaperOpType back = PaperOpType::kOther;
    REQUIRE(parse_paper_op_type(paper_op_type_name(t), back));
    CHECK(back == t);
    names.insert(paper_op_type_name(t));
  }
  CHECK(names.size() == static_cast<std::size_t>(kNumPaperOpTypes));
  PaperOpType t;
  CHECK_FALSE(parse_paper_op_type("Conv3D", t));
  // The Table 1 types trainsim issues no op of.
  for (PaperOpType folded : {PaperOpType::kBiasAdd, PaperOpType::kBiasAddGrad, PaperOpType::kMul,
                             PaperOpType::kTranspose, PaperOpType::kL2Loss})
    CHECK(std::string(folded_into(folded)).size() > 10);
  CHECK(std::string(folded_into(PaperOpType::kConv2DBackpropFilter)).empty());
}

TEST_CASE("Paper op types of LeNet-5's and ResNet-50's lowered ops", "[hype]") {
  OptimizerSpec sgd;
  const NetworkSpec lenet = zoo("lenet5");
  const auto l5 = paper_type_counts(NetShape(lenet), sgd);
  // 2 convs (the first without backward-data), 3 dense layers, 4 activations, 2 pools.
  CHECK(l5.at("Conv2D") == 2);
  CHECK(l5.at("Conv2DBackpropFilter") == 2);
  CHECK(l5.at("Conv2DBackpropInput") == 1);
  CHECK(l5.at("MatMul") == 9);
  CHECK(l5.at("SoftmaxCrossEntropyWithLogits") == 1);
  CHECK(l5.at("Softmax") == 1);
  CHECK(l5.at("ApplyGradientDescent") == 5);
  CHECK(l5.count("AddN") == 0);
  CHECK(l5.count("Other") == 0);

  OptimizerSpec momentum;
  momentum.momentum = 0.9;
  const NetworkSpec resnet = zoo("resnet50_imagenet");
  const NetShape r50(resnet);
  const auto r = paper_type_counts(r50, momentum);
  // 53 convolutions (the stem without backward-data), 53 batch norms, 16 residual adds.
  CHECK(r.at("Conv2D") == 53);
  CHECK(r.at("Conv2DBackpropFilter") == 53);
  CHECK(r.at("Conv2DBackpropInput") == 52);
  CHECK(r.at("BatchNorm") == 53);
  CHECK(r.at("BatchNormGrad") == 2 * 53);
  CHECK(r.at("Add") == 16);
  CHECK(r.at("MatMul") == 3);
  CHECK(r.at("MaxPool") == 1);
  CHECK(r.at("AvgPool") == 1);
  CHECK(r.at("ApplyMomentum") == 53 + 53 + 1);
  CHECK(r.at("Relu") == r.at("ReluGrad"));
  // Every block's input is read by its first conv and by the shortcut (the add, or the
  // downsample conv): one gradient sum each.
  CHECK(r.at("AddN") == 16);

  OptimizerSpec adam;
  adam.kind = "adam";
  CHECK(paper_type_counts(r50, adam).at("ApplyAdam") == 107);
}

TEST_CASE("Paper op types: a gradient sum is AddN also on an activation layer", "[hype]") {
  // A ReLU read by two layers has both a ReluGrad and an AddN of the same role and layer.
  const NetworkSpec spec = zoo("resnet50_imagenet");  // NetShape refers to it
  const NetShape r50(spec);
  const auto ops = lower_network(r50, 2, 32, OptimizerSpec{});
  int relus_summed = 0;
  for (std::size_t l = 0; l < r50.size(); ++l) {
    if (r50.layer_spec(l).type != "relu" || !ops[l].grad_sum) continue;
    ++relus_summed;
    CHECK(is_gradient_sum(*ops[l].grad_sum));
    CHECK_FALSE(is_gradient_sum(*ops[l].backward_data));
    CHECK(paper_op_type(*ops[l].grad_sum, "relu") == PaperOpType::kAddN);
    CHECK(paper_op_type(*ops[l].backward_data, "relu") == PaperOpType::kReluGrad);
  }
  CHECK(relus_summed > 0);
  // A technique's ops are typed by their kind.
  Op pred = Op::make_gemm({4, 4, 4}, technique_role("pred-fw"), 3);
  CHECK(paper_op_type(pred, "conv2d") == PaperOpType::kMatMul);
  CHECK(paper_op_type(Op::make_eltwise({16}, technique_role("store"), 3), "relu") ==
        PaperOpType::kOther);
  ConvShape c;
  CHECK(paper_op_type(Op::make_conv(c, technique_role("pred-bw")), "dense") ==
        PaperOpType::kConv2DBackpropFilter);
}
