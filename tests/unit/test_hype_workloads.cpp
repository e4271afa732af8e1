// The Hype-training paper's workloads in the zoo (configs/networks, tools/gen_zoo.py):
// parameter counts against the published figures (BERT-Large, AlexNet, DCGAN as PyTorch's
// example counts it), the paper's op type of every op of BERT-Large and DCGAN, and their
// iterations on the Hype runtime.
#include <catch2/catch.hpp>

#include <map>

#include "sim/core/paths.h"
#include "sim/devices/device_config.h"
#include "sim/hype/hype_model.h"
#include "sim/hype/op_types.h"
#include "sim/io/file_set.h"
#include "sim/workload/lowering.h"
#include "sim/workload/network_config.h"
#include "tests/support/paper_type_counts.h"
#include "tests/support/temp_dir.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

NetworkSpec zoo(const std::string& name) {
  return load_network(configs_root() + "/networks/" + name + ".yaml");
}

std::int64_t zoo_params(const std::string& name) {
  const NetworkSpec spec = zoo(name);
  return NetShape(spec).param_count();
}

// A network file of `layers` on `input` with two classes, loaded.
NetworkSpec network(const TempDir& tmp, const std::string& input, const std::string& layers) {
  const std::string path = tmp / "net.yaml";
  write_text_file(path, "input: " + input + "\nclasses: 2\nlayers:\n" + layers);
  return load_network(path);
}

}  // namespace

TEST_CASE("Hype-training workloads: parameter counts against the published figures",
          "[shape][zoo][hype]") {
  // BERT-Large: Hugging Face's bert-large-uncased has 335,141,888 parameters with its pooler
  // (1024 x 1024 + 1024), which SQuAD does not use; the span head adds 1024 x 2 + 2. Devlin
  // et al. round it to 340M.
  const NetworkSpec bert = zoo("bert_large_squad");
  const NetShape bert_shape(bert);
  CHECK(bert_shape.param_count() == 335141888 - 1049600 + 2050);
  CHECK(bert_shape.param_count() == Approx(340e6).epsilon(0.02));
  CHECK(bert.layers.size() == 416);
  // torchvision's AlexNet.
  CHECK(zoo_params("alexnet_imagenet") == 61100840);
  // DCGAN as its paper's Fig. 1 (no published count: the layers' sum, tools/gen_zoo.py); the
  // chained network is the generator plus the discriminator.
  const std::int64_t d = zoo_params("dcgan_d_celeba");
  const std::int64_t gd = zoo_params("dcgan_gd_celeba");
  CHECK(d == 17232897);
  CHECK(gd - d == 18855043);
  // conv2d_transpose counts parameters as PyTorch's DCGAN example does: its generator has
  // 3,576,704 and its discriminator 2,765,568 (nz 100, ngf = ndf = 64, 4x4 kernels, no biases).
  TempDir tmp("dcgan-example");
  const std::string bn_relu = "  - {type: batchnorm}\n  - {type: relu}\n";
  std::string g = "  - {type: conv2d_transpose, filters: 512, kernel: 4, bias: false}\n" + bn_relu;
  for (int f : {256, 128, 64})
    g += "  - {type: conv2d_transpose, filters: " + std::to_string(f) +
         ", kernel: 4, stride: 2, padding: 1, bias: false}\n" + bn_relu;
  g += "  - {type: conv2d_transpose, filters: 3, kernel: 4, stride: 2, padding: 1, bias: false}\n"
       "  - {type: tanh}\n";
  std::string dnet =
      "  - {type: conv2d, filters: 64, kernel: 4, stride: 2, padding: 1, bias: false}\n"
      "  - {type: leaky_relu, slope: 0.2}\n";
  for (int f : {128, 256, 512})
    dnet += "  - {type: conv2d, filters: " + std::to_string(f) +
            ", kernel: 4, stride: 2, padding: 1, bias: false}\n  - {type: batchnorm}\n"
            "  - {type: leaky_relu, slope: 0.2}\n";
  dnet += "  - {type: conv2d, filters: 1, kernel: 4, bias: false}\n  - {type: sigmoid}\n";
  const NetworkSpec example_d = network(tmp, "[3, 64, 64]", dnet);
  const NetworkSpec example_gd = network(tmp, "[100, 1, 1]", g + dnet);
  const NetShape gd_shape(example_gd);
  CHECK(NetShape(example_d).param_count() == 2765568);
  CHECK(gd_shape.param_count() - 2765568 == 3576704);
  CHECK(gd_shape.layer(13).out == Shape{3, 64, 64});  // the generator's tanh
}

TEST_CASE("Hype-training workloads: every op has the paper's type, read off the op or the slot",
          "[hype]") {
  OptimizerSpec adam;
  adam.kind = "adam";
  struct Case {
    const char* name;
    std::map<std::string, int> counts;  // some types and how many ops of each
  };
  const Case cases[] = {
      {"bert_large_squad",
       {{"BatchMatMul", 24 * 2 * 3},
        {"Softmax", 24 + 1},
        {"SoftmaxGrad", 24},
        {"Norm", 24 * 2 + 1},
        {"NormGrad", 2 * (24 * 2 + 1)},
        {"Gelu", 24},
        {"GeluGrad", 24},
        {"Dropout", 1 + 24 * 3},
        {"Mul", 1 + 24 * 3},
        {"GatherV2", 3},
        {"UnsortedSegmentSum", 3},
        {"MatMul", 3 * (24 * 6 + 1)},
        {"Add", 1 + 24 * 2},
        {"AddN", 24 * 2},
        {"SoftmaxCrossEntropyWithLogits", 1},
        {"ApplyAdam", 3 + 1 + 24 * 8 + 1}}},
      {"dcgan_gd_celeba",
       {{"Conv2DBackpropInput", 4 + 4},
        {"Conv2D", 4 + 4},
        {"Conv2DBackpropFilter", 8},
        {"Tanh", 1},
        {"TanhGrad", 1},
        {"Sigmoid", 1},
        {"SigmoidCrossEntropyWithLogits", 1},
        {"MatMul", 3 + 2},
        {"LeakyRelu", 4}}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const NetworkSpec spec = zoo(c.name);
    const NetShape net(spec);
    std::map<std::string, int> counts = paper_type_counts(net, adam);
    CHECK(counts.count("Other") == 0);
    for (const auto& [type, n] : c.counts) {
      INFO(type);
      CHECK(counts[type] == n);
    }
  }
}

TEST_CASE("Hype runtime on BERT-Large and DCGAN: Case 1 never slower, a power cap holds",
          "[hype][runtime]") {
  HypeSpec spec;
  spec.gpu = load_device("v100");
  spec.offload = load_device("s10_gx2500");
  spec.offloads = 3;
  OptimizerSpec adam;
  adam.kind = "adam";
  // BERT-Large at the paper's batch; a GAN step of 128 images (docs/hype.md#dcgan).
  for (const auto& [name, batch] : {std::pair<const char*, int>{"bert_large_squad", 10},
                                    std::pair<const char*, int>{"dcgan_d_celeba", 256},
                                    std::pair<const char*, int>{"dcgan_gd_celeba", 128}}) {
    INFO(name);
    const NetworkSpec net_spec = zoo(name);
    const NetShape net(net_spec);
    const HypeIteration it = simulate_hype(spec, net, batch, adam);
    CHECK(it.policy.iteration_s <= it.gpu_only.iteration_s);
    // (Not its energy: the baseline is the GPU alone, without the FPGAs' static power.)
    CHECK(static_cast<int>(it.policy.run.ops.size()) == it.dag.size());
    HypeSpec capped = spec;
    capped.policy = "power-cap";
    capped.power_cap_w = 230;
    const HypeIteration c = simulate_hype(capped, net, batch, adam);
    CHECK(c.policy.peak_w <= 230 * (1 + 1e-9));
    CHECK(c.policy.violations == 0);
  }
}
