// Configuration parsing: shipped configs, every error case (with file:line:col and key
// path), --set overrides, and the resolved_yaml() round trip.
#include <catch2/catch.hpp>

#include <algorithm>

#include "tests/support/config_errors.h"

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "sim/core/error.h"
#include "sim/core/parallel.h"
#include "sim/core/paths.h"
#include "sim/run/experiment_file.h"
#include "sim/workload/network_lookup.h"

namespace fs = std::filesystem;
using namespace trainsim;

using trainsim::test::check_error;
using trainsim::test::error_of;
using trainsim::test::pos_of;

namespace {

// A fresh directory per test case, with experiments/ and networks/ side by side like the
// shipped configs/ tree, so `network: <name>` can find ../networks/<name>.yaml.
class TempConfigs {
 public:
  TempConfigs() {
    static int counter = 0;
    root_ = fs::path(TRAINSIM_TEST_TMP) /
            ("config-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(root_);
    fs::create_directories(root_ / "experiments");
    fs::create_directories(root_ / "networks");
  }
  ~TempConfigs() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::string write(const std::string& rel, const std::string& text) const {
    fs::path p = root_ / rel;
    std::ofstream(p) << text;
    return p.string();
  }
  std::string experiment(const std::string& text) const {
    return write("experiments/exp.yaml", text);
  }
  fs::path root() const { return root_; }

 private:
  fs::path root_;
};

std::string experiment_error(const TempConfigs& tmp, const std::string& text,
                             const std::vector<std::string>& overrides = {}) {
  std::string path = tmp.experiment(text);
  return error_of([&] { load_experiment(path, overrides); });
}

const char* const kInlineNet = R"(network:
  input: [1, 8, 8]
  classes: 3
  layers:
    - {type: flatten}
    - {type: dense, units: 3}
    - {type: softmax}
dataset:
  name: mnist
)";

std::string with_inline_net(const std::string& extra) {
  return kInlineNet + extra;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Shipped configs

TEST_CASE("quickstart experiment loads with its values and defaults", "[config]") {
  ExperimentSpec s = load_experiment(configs_root() + "/experiments/quickstart.yaml");
  CHECK(s.name == "quickstart");
  CHECK(s.network.name == "seed_mlp");
  CHECK(fs::path(s.network.source).filename() == "seed_mlp.yaml");
  REQUIRE(s.network.layers.size() == 7);
  CHECK(s.network.layers[0].type == "flatten");
  CHECK(s.network.layers[0].name == "flatten0");
  CHECK(s.network.layers[1].name == "fc1");
  CHECK(s.network.layers[1].units == 16);
  CHECK(s.network.layers[1].bias);
  CHECK(s.network.layers[2].type == "leaky_relu");
  CHECK(s.network.layers[2].name == "leaky_relu2");
  CHECK(s.network.layers[2].slope == 0.01);
  CHECK(s.network.layers[5].units == 10);
  CHECK(s.network.layers[6].type == "softmax");
  CHECK(s.network.input == std::array<int, 3>{{1, 28, 28}});
  CHECK(s.network.classes == 10);
  CHECK(s.network.init.scheme == "pytorch_default");
  CHECK(s.dataset.name == "mnist");
  CHECK(s.dataset.path.empty());
  CHECK(s.dataset.train_limit == 0);
  CHECK(s.training.epochs == 1);
  CHECK(s.training.batch_size == 15);
  CHECK(s.training.eval_batch_size == 500);
  CHECK(s.training.seed == 1);
  CHECK(s.training.shuffle);
  CHECK_FALSE(s.training.drop_last);
  CHECK(s.training.threads == default_threads());  // all cores, at most kMaxThreads
  CHECK(s.training.optimizer.kind == "sgd");
  CHECK(s.training.optimizer.lr == 0.01);
  CHECK(s.training.optimizer.reduction == "sum");
  CHECK(s.training.optimizer.clip == 5.0);
  CHECK(s.training.optimizer.momentum == 0.0);
  CHECK(s.output.dir == "runs/quickstart");
}

TEST_CASE("shipped networks load", "[config]") {
  // The trainable networks; the rest are the shape-only zoo (tests/unit/test_zoo.cpp).
  const std::vector<std::string> names = shipped_network_names();
  for (const char* n : {"lenet5", "seed_mlp", "small_cnn", "vgg16_cifar10", "resnet50_imagenet"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  // 13 models x 2 datasets, AlexNet on ImageNet, DCGAN's two networks, PyTorch's example DCGAN
  // (the measured H100 iterations', docs/gpu.md), BERT-Large and BERT-base with 2 layers (the
  // ONNX import's transformer, docs/interop.md); ResNet-8, ResNet-20, VGG-11, MobileNetV2 at
  // width 0.5 and DenseNet-BC-40 for Fashion-MNIST.
  CHECK(names.size() == 3 + 27 + 5 + 5);

  NetworkSpec mlp = load_network(configs_root() + "/networks/seed_mlp.yaml");
  CHECK(mlp.name == "seed_mlp");
  CHECK(mlp.layers.size() == 7);
  CHECK(mlp.layers[3].units == 16);

  NetworkSpec lenet = load_network(configs_root() + "/networks/lenet5.yaml");
  CHECK(lenet.name == "lenet5");
  REQUIRE(lenet.layers.size() == 13);
  const LayerSpec& conv1 = lenet.layers[0];
  CHECK(conv1.name == "conv1");
  CHECK(conv1.filters == 6);
  CHECK(conv1.kernel == 5);
  CHECK(conv1.padding == 2);
  CHECK(conv1.stride == 1);
  const LayerSpec& pool = lenet.layers[2];
  CHECK(pool.type == "maxpool2d");
  CHECK(pool.name == "maxpool2d2");
  CHECK(pool.kernel == 2);
  CHECK(pool.stride == 2);  // defaults to the kernel
  CHECK(lenet.layers[3].padding == 0);
  CHECK(lenet.layers[11].name == "fc3");
  CHECK(lenet.layers[11].units == 10);
  CHECK(lenet.layers[12].type == "softmax");

  NetworkSpec cnn = load_network(configs_root() + "/networks/small_cnn.yaml");
  CHECK(cnn.name == "small_cnn");
  REQUIRE(cnn.layers.size() == 11);
  CHECK(cnn.layers[3].stride == 2);
  CHECK(cnn.layers[3].padding == 1);
  CHECK(cnn.layers[5].type == "avgpool2d");
  CHECK(cnn.layers[5].stride == 1);  // explicit stride wins over the kernel default
  CHECK(cnn.layers[9].units == 10);
}

// ---------------------------------------------------------------------------------------
// Network resolution

TEST_CASE("network names and paths resolve", "[config]") {
  TempConfigs tmp;
  tmp.write("networks/tnet.yaml", R"(input: [1, 4, 4]
layers:
  - {type: flatten}
  - {type: dense, units: 10, bias: false}
  - {type: softmax}
)");
  SECTION("name via ../networks") {
    ExperimentSpec s = load_experiment(tmp.experiment("network: tnet\ndataset: {name: mnist}\n"));
    CHECK(s.name == "exp");
    CHECK(s.output.dir == "runs/exp");
    CHECK(s.network.name == "tnet");  // file stem
    CHECK(s.network.input == std::array<int, 3>{{1, 4, 4}});
    CHECK_FALSE(s.network.layers[1].bias);
    CHECK(fs::path(s.network.source) == (tmp.root() / "networks/tnet.yaml").lexically_normal());
  }
  SECTION("path relative to the experiment") {
    ExperimentSpec s =
        load_experiment(tmp.experiment("network: ../networks/tnet.yaml\ndataset: {name: mnist}\n"));
    CHECK(s.network.name == "tnet");
  }
  SECTION("shipped name wins") {
    ExperimentSpec s = load_experiment(tmp.experiment("network: lenet5\ndataset: {name: x}\n"));
    CHECK(s.network.name == "lenet5");
    CHECK(s.network.layers.size() == 13);
  }
  SECTION("inline") {
    ExperimentSpec s = load_experiment(tmp.experiment(with_inline_net("")));
    CHECK(s.network.source == "<inline>");
    CHECK(s.network.layers[1].name == "dense1");
  }
  SECTION("unknown name") {
    std::string text = "network: nosuchnet\ndataset: {name: mnist}\n";
    std::string msg = experiment_error(tmp, text);
    check_error(msg, tmp.root() / "experiments/exp.yaml", pos_of(text, "nosuchnet"), "network",
                "unknown network 'nosuchnet'");
    CHECK(msg.find("seed_mlp") != std::string::npos);  // lists the shipped ones
  }
  SECTION("missing path") {
    std::string msg = experiment_error(tmp, "network: nets/x.yaml\ndataset: {name: mnist}\n");
    CHECK(msg.find("network file 'nets/x.yaml' not found") != std::string::npos);
  }
  SECTION("a network file read again gives its network; a changed one, the new network") {
    // The process keeps the network of a file it parsed while the file's bytes are the same
    // (network_of_file): loads after an edit, or after a broken edit, must see the file as is.
    const std::string exp = tmp.experiment("network: tnet\ndataset: {name: mnist}\n");
    const ExperimentSpec first = load_experiment(exp);
    CHECK(load_experiment(exp).network.layers.size() == first.network.layers.size());
    tmp.write("networks/tnet.yaml",
              "input: [1, 4, 4]\nlayers:\n  - {type: flatten}\n  - {type: dense, units: 7}\n"
              "  - {type: dense, units: 10}\n  - {type: softmax}\n");
    const ExperimentSpec edited = load_experiment(exp);
    REQUIRE(edited.network.layers.size() == first.network.layers.size() + 1);
    CHECK(edited.network.layers[1].bias);
    const std::string broken = "input: [1, 4, 4]\nlayers:\n  - {type: dense, units: 0}\n";
    const std::string net_path = tmp.write("networks/tnet.yaml", broken);
    for (int twice = 0; twice < 2; ++twice)
      check_error(experiment_error(tmp, "network: tnet\ndataset: {name: mnist}\n"),
                  fs::path(net_path).lexically_normal().string(), pos_of(broken, "0}"),
                  "network.layers.0.units", "must be in [1, 1048576], got 0");
  }
  SECTION("errors inside the network file name the network file") {
    std::string net = "layers:\n  - {type: dense, units: 0}\n  - {type: softmax}\n";
    std::string net_path = tmp.write("networks/bad.yaml", net);
    std::string msg = experiment_error(tmp, "network: bad\ndataset: {name: mnist}\n");
    check_error(msg, fs::path(net_path).lexically_normal().string(), pos_of(net, "0}"),
                "network.layers.0.units", "must be in [1, 1048576], got 0");
    // Loaded on its own, the path is relative to the network file.
    msg = error_of([&] { load_network(net_path); });
    check_error(msg, net_path, pos_of(net, "0}"), "layers.0.units", "must be in [1, 1048576]");
  }
}

// ---------------------------------------------------------------------------------------
// Errors in experiment files

TEST_CASE("missing and malformed files", "[config]") {
  TempConfigs tmp;
  std::string missing = (tmp.root() / "experiments/nope.yaml").string();
  std::string msg = error_of([&] { load_experiment(missing); });
  CHECK(msg.find(missing) != std::string::npos);
  msg = error_of([&] { load_network(missing); });
  CHECK(msg.find(missing) != std::string::npos);

  std::string text = "name: x\ntraining: [1, 2\n";
  std::string path = tmp.experiment(text);
  msg = error_of([&] { load_experiment(path); });
  INFO(msg);
  CHECK(msg.rfind(path + ":", 0) == 0);
  CHECK(msg.find("malformed YAML") != std::string::npos);
  CHECK(msg.find(":3:1:") != std::string::npos);  // yaml-cpp reports the end of input
}

TEST_CASE("unknown keys list the allowed ones", "[config]") {
  TempConfigs tmp;
  std::string file = tmp.root() / "experiments/exp.yaml";
  std::string text = with_inline_net("trainig:\n  epochs: 2\n");
  std::string msg = experiment_error(tmp, text);
  check_error(msg, file, pos_of(text, "trainig"), "trainig", "unknown key 'trainig'");
  CHECK(msg.find("allowed: name, network, dataset, training, output") != std::string::npos);

  text = with_inline_net("training:\n  optimizer:\n    kind: adam\n    momentum: 0.9\n");
  msg = experiment_error(tmp, text);
  check_error(msg, file, pos_of(text, "momentum"), "training.optimizer.momentum",
              "unknown key 'momentum' (allowed: kind, lr, beta1, beta2, epsilon");

  text = with_inline_net("output: {dir: x, file: y}\n");
  msg = experiment_error(tmp, text);
  check_error(msg, file, pos_of(text, "file:"), "output.file", "allowed: dir");

  // A key of another layer type.
  text = std::string(kInlineNet)
             .replace(std::string(kInlineNet).find("{type: flatten}"), 15,
                      "{type: flatten, units: 3}");
  msg = experiment_error(tmp, text);
  check_error(msg, file, pos_of(text, "units: 3}"), "network.layers.0.units",
              "unknown key 'units' (allowed: type, name, from)");

  msg = experiment_error(tmp, with_inline_net("training: {epochs: 1, epochs: 2}\n"));
  CHECK(msg.find("training.epochs: duplicate key 'epochs'") != std::string::npos);
}

TEST_CASE("wrong types", "[config]") {
  TempConfigs tmp;
  std::string file = tmp.root() / "experiments/exp.yaml";
  struct Case {
    std::string extra, needle, key, what;
  };
  const Case cases[] = {
      {"training: {batch_size: abc}\n", "abc", "training.batch_size",
       "expected an integer, got 'abc'"},
      {"training: {batch_size: 1.5}\n", "1.5", "training.batch_size",
       "expected an integer, got '1.5'"},
      {"training: {epochs: true}\n", "true", "training.epochs", "expected an integer"},
      {"training: {epochs: 0x10}\n", "0x10", "training.epochs", "expected an integer"},
      {"training: {epochs: \"3\"}\n", "\"3\"", "training.epochs", "expected an integer"},
      {"training: {shuffle: yes}\n", "yes", "training.shuffle",
       "expected true or false, got 'yes'"},
      {"training: {shuffle: 1}\n", "1}", "training.shuffle", "expected true or false"},
      {"training: {drop_last: maybe}\n", "maybe", "training.drop_last",
       "expected true or false, got 'maybe'"},
      {"training: {eval_batch_size: 0}\n", "0}", "training.eval_batch_size",
       "must be in [1, 65536], got 0"},
      {"training: {optimizer: {lr: fast}}\n", "fast", "training.optimizer.lr",
       "expected a number, got 'fast'"},
      {"training: {optimizer: {lr: .nan}}\n", ".nan", "training.optimizer.lr", "expected a number"},
      {"training: 5\n", "5", "training", "expected a mapping, got '5'"},
      {"training: [1]\n", "[1]", "training", "expected a mapping, got a sequence"},
      {"training: {seed: -1}\n", "-1", "training.seed", "must be >= 0, got -1"},
      {"training: {seed: 1.0}\n", "1.0", "training.seed", "expected an integer"},
      {"training: {batch_size: 99999999999}\n", "9999", "training.batch_size",
       "must be in [1, 65536], got 99999999999"},
      {"training: {threads: 0}\n", "0}", "training.threads", "must be in [1, 8], got 0"},
      {"training: {threads: -2}\n", "-2", "training.threads", "must be in [1, 8], got -2"},
      {"training: {threads: 9}\n", "9}", "training.threads", "must be in [1, 8], got 9"},
      {"training: {threads: all}\n", "all", "training.threads", "expected an integer"},
      {"output: {dir: [a]}\n", "[a]", "output.dir", "expected a string, got a sequence"},
      {"name: {a: 1}\n", "{a", "name", "expected a string, got a mapping"},
  };
  for (const auto& c : cases) {
    std::string text = with_inline_net(c.extra);
    check_error(experiment_error(tmp, text), file, pos_of(text, c.needle), c.key, c.what);
  }
  // Values of the wrong type inside the network.
  std::string text = "network: [seed_mlp]\ndataset: {name: mnist}\n";
  check_error(experiment_error(tmp, text), file, "1:10", "network", "expected a network name");
  text = "network: {layers: {type: softmax}}\ndataset: {name: mnist}\n";
  check_error(experiment_error(tmp, text), file, pos_of(text, "{type"), "network.layers",
              "expected a sequence, got a mapping");
  text = "network: {layers: [softmax]}\ndataset: {name: mnist}\n";
  check_error(experiment_error(tmp, text), file, pos_of(text, "softmax"), "network.layers.0",
              "expected a mapping, got 'softmax'");
  text = "network: {input: [1, 2], layers: [{type: softmax}]}\ndataset: {name: mnist}\n";
  check_error(experiment_error(tmp, text), file, pos_of(text, "[1"), "network.input",
              "expected 3 integers");
  text =
      "dataset: {name: mnist}\nnetwork:\n  layers:\n    - type: dense\n      units:\n"
      "    - type: softmax\n";
  check_error(experiment_error(tmp, text), file, pos_of(text, "units"), "network.layers.0.units",
              "expected an integer, got nothing (null)");
}

TEST_CASE("out-of-range values", "[config]") {
  TempConfigs tmp;
  std::string file = tmp.root() / "experiments/exp.yaml";
  struct Case {
    std::string extra, needle, key, what;
  };
  const Case cases[] = {
      {"training:\n  batch_size: -3\n", "-3", "training.batch_size",
       "must be in [1, 65536], got -3"},
      {"training: {epochs: 0}\n", "0}", "training.epochs", "must be in [1, 10000], got 0"},
      {"training: {optimizer: {lr: 0}}\n", "0}", "training.optimizer.lr", "must be > 0, got 0"},
      {"training: {optimizer: {lr: -1e-3}}\n", "-1e", "training.optimizer.lr", "must be > 0"},
      {"training: {optimizer: {momentum: 1}}\n", "1}", "training.optimizer.momentum",
       "must be in [0, 1), got 1"},
      {"training: {optimizer: {momentum: -0.1}}\n", "-0.1", "training.optimizer.momentum",
       "must be in [0, 1)"},
      {"training: {optimizer: {clip: -1}}\n", "-1", "training.optimizer.clip",
       "must be >= 0, got -1"},
      {"training: {optimizer: {weight_decay: -0.5}}\n", "-0.5", "training.optimizer.weight_decay",
       "must be >= 0"},
      {"training: {optimizer: {kind: adam, beta1: 1.0}}\n", "1.0", "training.optimizer.beta1",
       "must be in [0, 1)"},
      {"training: {optimizer: {kind: adam, beta2: 2}}\n", "2}", "training.optimizer.beta2",
       "must be in [0, 1)"},
      {"training: {optimizer: {kind: adam, epsilon: 0}}\n", "0}", "training.optimizer.epsilon",
       "must be > 0"},
      {"training: {optimizer: {lr_steps: [3, 2]}}\n", "2]", "training.optimizer.lr_steps.1",
       "epochs must increase: 2 after 3"},
      {"training: {optimizer: {lr_steps: [0]}}\n", "0]", "training.optimizer.lr_steps.0",
       "must be in [1, 10000], got 0"},
      {"training: {optimizer: {lr_steps: 5}}\n", "5}", "training.optimizer.lr_steps",
       "expected a sequence"},
      {"training: {optimizer: {kind: adam, lr_factor: 0}}\n", "0}", "training.optimizer.lr_factor",
       "must be in (0, 1], got 0"},
      {"output: {dir: ''}\n", "''", "output.dir", "must not be empty"},
  };
  for (const auto& c : cases) {
    std::string text = with_inline_net(c.extra);
    check_error(experiment_error(tmp, text), file, pos_of(text, c.needle), c.key, c.what);
  }
  std::string text = "dataset: {name: mnist, train_limit: -1}\nnetwork: seed_mlp\n";
  check_error(experiment_error(tmp, text), file, pos_of(text, "-1"), "dataset.train_limit",
              "must be in [0, 1099511627776], got -1");
  text = "dataset: {name: mnist, test_limit: -5}\nnetwork: seed_mlp\n";
  check_error(experiment_error(tmp, text), file, pos_of(text, "-5"), "dataset.test_limit",
              "must be in [0, 1099511627776]");
}

TEST_CASE("missing required keys and unknown enum values", "[config]") {
  TempConfigs tmp;
  std::string file = tmp.root() / "experiments/exp.yaml";
  std::string text = "name: x\ndataset: {name: mnist}\n";
  check_error(experiment_error(tmp, text), file, "1:1", "network", "missing required key");
  text = "network: seed_mlp\ndataset:\n  path: /tmp\n";
  check_error(experiment_error(tmp, text), file, "2:1", "dataset.name", "missing required key");
  text = "network: seed_mlp\n";
  check_error(experiment_error(tmp, text), file, "1:1", "dataset", "missing required key");

  text = with_inline_net("training: {optimizer: {reduction: avg}}\n");
  check_error(experiment_error(tmp, text), file, pos_of(text, "avg"),
              "training.optimizer.reduction", "must be one of sum, mean, got 'avg'");
  text = with_inline_net("training: {optimizer: {kind: rmsprop}}\n");
  check_error(experiment_error(tmp, text), file, pos_of(text, "rmsprop"), "training.optimizer.kind",
              "unknown optimizer 'rmsprop' (known: sgd, adam)");
}

// ---------------------------------------------------------------------------------------
// Errors in network definitions

TEST_CASE("network validation", "[config]") {
  TempConfigs tmp;
  const std::string head = "input: [1, 8, 8]\nlayers:\n";
  struct Case {
    std::string layers, needle, key, what;
  };
  const Case cases[] = {
      {"  - {name: a}\n  - {type: softmax}\n", "{name", "layers.0.type", "missing required key"},
      {"  - {type: dense}\n  - {type: softmax}\n", "{type: dense", "layers.0.units",
       "missing required key"},
      {"  - {type: conv2d, kernel: 3}\n  - {type: softmax}\n", "{type: conv2d", "layers.0.filters",
       "missing required key"},
      {"  - {type: conv2d, filters: 3}\n  - {type: softmax}\n", "{type: conv2d", "layers.0.kernel",
       "missing required key"},
      {"  - {type: maxpool2d}\n  - {type: softmax}\n", "{type: max", "layers.0.kernel",
       "missing required key"},
      {"  - {type: avgpool2d}\n  - {type: softmax}\n", "{type: avg", "layers.0.kernel",
       "missing required key"},
      {"  - {type: dense, units: 0}\n  - {type: softmax}\n", "0}", "layers.0.units",
       "must be in [1, 1048576], got 0"},
      {"  - {type: conv2d, filters: 0, kernel: 3}\n  - {type: softmax}\n", "0,", "layers.0.filters",
       "must be in [1, 1048576]"},
      {"  - {type: conv2d, filters: 2, kernel: 0}\n  - {type: softmax}\n", "0}", "layers.0.kernel",
       "must be in [1, 4096]"},
      {"  - {type: conv2d, filters: 2, kernel: 3, stride: 0}\n  - {type: softmax}\n", "0}",
       "layers.0.stride", "must be in [1, 4096]"},
      {"  - {type: maxpool2d, kernel: 2, stride: 0}\n  - {type: softmax}\n", "0}",
       "layers.0.stride", "must be in [1, 4096]"},
      {"  - {type: conv2d, filters: 2, kernel: 3, padding: -1}\n  - {type: softmax}\n", "-1",
       "layers.0.padding", "must be in [0, 4096], got -1"},
      {"  - {type: leaky_relu, slope: -0.5}\n  - {type: softmax}\n", "-0.5", "layers.0.slope",
       "must be >= 0"},
      {"  - {type: dense, units: 4, bias: maybe}\n  - {type: softmax}\n", "maybe", "layers.0.bias",
       "expected true or false, got 'maybe'"},
      {"  - {type: dense, units: 2.5}\n  - {type: softmax}\n", "2.5", "layers.0.units",
       "expected an integer, got '2.5'"},
      {"  - {type: lstm}\n  - {type: softmax}\n", "lstm", "layers.0.type",
       "unknown layer type 'lstm' (known: dense, conv2d"},
      {"  - {type: dense, units: 4}\n", "dense", "layers.0.type",
       "the last layer must be 'softmax', 'sigmoid' or 'sink', got 'dense'"},
      // The Hype-training workloads' layer types (a softmax may come anywhere now).
      {"  - {type: dropout, rate: 1}\n  - {type: softmax}\n", "1}", "layers.0.rate",
       "must be in [0, 1), got 1"},
      {"  - {type: reshape}\n  - {type: softmax}\n", "{type: reshape", "layers.0.shape",
       "missing required key"},
      {"  - {type: reshape, shape: [64, 1]}\n  - {type: softmax}\n", "[64", "layers.0.shape",
       "expected [channels, height, width], got 2 values"},
      {"  - {type: linear, units: 4, heads: 2}\n  - {type: softmax}\n", "heads", "layers.0.heads",
       "unknown key 'heads'"},
      {"  - {type: embedding, units: 4}\n  - {type: softmax}\n", "{type: embedding",
       "layers.0.vocab", "missing required key"},
      {"  - {type: conv2d_transpose, filters: 2, kernel: 3, output_padding: -1}\n"
       "  - {type: softmax}\n",
       "-1", "layers.0.output_padding", "must be in [0, 4096], got -1"},
      {"  - {type: batched_matmul, heads: 0, from: [input, input]}\n  - {type: softmax}\n", "0,",
       "layers.0.heads", "must be in [1, 1048576], got 0"},
      {"  - {type: dense, units: 4, name: x}\n  - {type: relu, name: x}\n  - {type: softmax}\n",
       "x}\n  - {type: softmax", "layers.1.name", "duplicate layer name 'x'"},
      // A default name can clash with an explicit one.
      {"  - {type: relu, name: dense1}\n  - {type: dense, units: 4}\n  - {type: softmax}\n",
       "{type: dense", "layers.1", "duplicate layer name 'dense1'"},
      {"  - {type: relu, name: ''}\n  - {type: softmax}\n", "''", "layers.0.name",
       "must not be empty"},
      {"  - {type: source, shape: [1, 4, 4]}\n  - {type: sink, from: source0}\n"
       "  - {type: softmax}\n",
       "sink", "layers.1.type", "a sink must be the last layer"},
      {"  - {type: source}\n  - {type: sink, from: source0}\n", "{type: source}", "layers.0.shape",
       "missing required key"},
      {"  - {type: source, shape: [1, 4]}\n  - {type: sink, from: source0}\n", "[1, 4]",
       "layers.0.shape", "expected [channels, height, width], got 2 values"},
      {"  - {type: source, shape: [1, 4, 4]}\n  - {type: sink}\n", "{type: sink}", "layers.1.from",
       "missing required key"},
  };
  for (const auto& c : cases) {
    std::string text = head + c.layers;
    std::string path = tmp.write("networks/n.yaml", text);
    check_error(error_of([&] { load_network(path); }), path, pos_of(text, c.needle), c.key, c.what);
  }

  const Case top_cases[] = {
      {"input: [0, 28, 28]\n", "0,", "input.0", "must be in [1, 1048576], got 0"},
      {"input: [1, 28, x]\n", "x]", "input.2", "expected an integer"},
      {"classes: 1\n", "1", "classes", "must be in [2, 1048576], got 1"},
      {"init: {scheme: lecun}\n", "lecun", "init.scheme",
       "must be one of pytorch_default, he_uniform, he_normal, xavier_uniform, uniform"},
      {"init: {scheme: uniform, scale: 0}\n", "0}", "init.scale", "must be > 0"},
      {"init: {seed: 3}\n", "seed", "init.seed", "unknown key 'seed' (allowed: scheme, scale)"},
      {"layer: []\n", "layer", "layer", "unknown key 'layer'"},
      {"layers: []\n", "[]", "layers", "at least one layer"},
  };
  for (const auto& c : top_cases) {
    std::string text =
        c.layers + (c.layers.rfind("layer", 0) == 0 ? std::string()
                                                    : std::string("layers: [{type: softmax}]\n"));
    std::string path = tmp.write("networks/n.yaml", text);
    check_error(error_of([&] { load_network(path); }), path, pos_of(text, c.needle), c.key, c.what);
  }
  std::string path = tmp.write("networks/n.yaml", "input: [1, 2, 3]\n");
  check_error(error_of([&] { load_network(path); }), path, "1:1", "layers", "missing required key");

  // Explicit values, defaults and names of a valid network.
  std::string ok =
      "name: mynet\ninit: {scheme: uniform, scale: 0.25}\nclasses: 4\nlayers:\n"
      "  - {type: conv2d, filters: 2, kernel: 3, bias: false}\n"
      "  - {type: avgpool2d, kernel: 3}\n  - {type: leaky_relu}\n"
      "  - {type: flatten, name: flat}\n  - {type: dense, units: 4}\n"
      "  - {type: softmax, name: out}\n";
  NetworkSpec net = load_network(tmp.write("networks/ok.yaml", ok));
  CHECK(net.name == "mynet");
  CHECK(net.classes == 4);
  CHECK(net.init.scheme == "uniform");
  CHECK(net.init.scale == 0.25);
  CHECK(net.input == std::array<int, 3>{{1, 28, 28}});
  CHECK_FALSE(net.layers[0].bias);
  CHECK(net.layers[0].stride == 1);
  CHECK(net.layers[1].stride == 3);
  CHECK(net.layers[2].slope == 0.01);
  CHECK(net.layers[2].name == "leaky_relu2");
  CHECK(net.layers[3].name == "flat");
  CHECK(net.layers[4].name == "dense4");
  CHECK(net.layers[5].name == "out");
}

// ---------------------------------------------------------------------------------------
// Overrides

TEST_CASE("overrides change the tree before validation", "[config]") {
  TempConfigs tmp;
  std::string quickstart = configs_root() + "/experiments/quickstart.yaml";
  SECTION("scalar") {
    ExperimentSpec s = load_experiment(quickstart, {"training.batch_size=32", "name=qs2"});
    CHECK(s.training.batch_size == 32);
    CHECK(s.name == "qs2");
    CHECK(s.output.dir == "runs/qs2");
  }
  SECTION("nested new keys") {
    ExperimentSpec s =
        load_experiment(quickstart, {"training.optimizer.momentum=0.9", "dataset.train_limit=100",
                                     "output.dir=/tmp/out", "training.shuffle=false"});
    CHECK(s.training.optimizer.momentum == 0.9);
    CHECK(s.training.optimizer.clip == 5.0);  // the rest of the mapping is kept
    CHECK(s.dataset.train_limit == 100);
    CHECK(s.output.dir == "/tmp/out");
    CHECK_FALSE(s.training.shuffle);

    std::string path = tmp.experiment("network: seed_mlp\ndataset: {name: mnist}\n");
    s = load_experiment(path, {"training.optimizer.kind=adam", "training.optimizer.beta2=0.99"});
    CHECK(s.training.optimizer.kind == "adam");
    CHECK(s.training.optimizer.beta2 == 0.99);
  }
  SECTION("network layer field of a named network") {
    ExperimentSpec s = load_experiment(quickstart, {"network.layers.1.units=32"});
    CHECK(s.network.layers[1].units == 32);
    CHECK(s.network.layers[3].units == 16);
    CHECK(s.network.name == "seed_mlp");
    CHECK(fs::path(s.network.source).filename() == "seed_mlp.yaml");
  }
  SECTION("network layer field of an inline network, and lists") {
    std::string path = tmp.experiment(with_inline_net(""));
    ExperimentSpec s = load_experiment(
        path,
        {"network.layers.1.units=7", "network.input=[3, 16, 16]", "network.layers.1.bias=false",
         "network.classes=7"});  // the shapes must work out: they are checked on load
    CHECK(s.network.layers[1].units == 7);
    CHECK_FALSE(s.network.layers[1].bias);
    CHECK(s.network.input == std::array<int, 3>{{3, 16, 16}});
  }
  SECTION("replacing the network, then editing it") {
    ExperimentSpec s =
        load_experiment(quickstart, {"network=lenet5", "network.layers.0.filters=4"});
    CHECK(s.network.name == "lenet5");
    CHECK(s.network.layers[0].filters == 4);
  }
  SECTION("empty experiment file filled by overrides") {
    std::string path = tmp.experiment("");
    ExperimentSpec s = load_experiment(path, {"network=seed_mlp", "dataset.name=mnist"});
    CHECK(s.network.name == "seed_mlp");
    CHECK(s.dataset.name == "mnist");
  }
}

TEST_CASE("override errors name the override", "[config]") {
  TempConfigs tmp;
  std::string quickstart = configs_root() + "/experiments/quickstart.yaml";
  auto err = [&](std::vector<std::string> o) {
    return error_of([&] { load_experiment(quickstart, o); });
  };
  CHECK(err({"training.batch_size"}).find("--set training.batch_size: expected key.path=value") !=
        std::string::npos);
  CHECK(err({"=3"}).find("--set =3: ") == 0);
  CHECK(err({"a..b=1"}).find("--set a..b=1: empty key") == 0);
  CHECK(err({"training.epochs=[1"}).find("--set training.epochs=[1: malformed value") == 0);
  CHECK(err({"network.layers.9.units=3"}).find("index 9 is out of range") != std::string::npos);
  CHECK(err({"dataset.name.x=3"}).find("'dataset.name' is a single value") != std::string::npos);

  CHECK(err({"training.batch_size=0"}) ==
        "--set training.batch_size: training.batch_size: must be in [1, 65536], got 0");
  CHECK(err({"training.batch_size=abc"}) ==
        "--set training.batch_size: training.batch_size: expected an integer, got 'abc'");
  CHECK(err({"training.optimizer.beta1=0.5"})
            .find("--set training.optimizer.beta1: training.optimizer.beta1: unknown key") == 0);
  CHECK(err({"trainig.epochs=3"}).find("--set trainig.epochs: trainig: unknown key") == 0);
  CHECK(err({"network.layers.1.units=0"}) ==
        "--set network.layers.1.units: network.layers.1.units: must be in [1, 1048576], got 0");
  CHECK(err({"network.layers.1={type: dense}"})
            .find("--set network.layers.1: network.layers.1.units: missing required key") == 0);
  CHECK(err({"network=nosuch"}).find("--set network: network: unknown network 'nosuch'") == 0);

  // A value the override did not touch keeps its file location, in the inlined file.
  std::string net = "layers:\n  - {type: dense, units: 4, bias: maybe}\n  - {type: softmax}\n";
  std::string net_path = tmp.write("networks/bad.yaml", net);
  std::string exp = tmp.experiment("network: bad\ndataset: {name: mnist}\n");
  std::string msg = error_of([&] { load_experiment(exp, {"network.layers.0.units=8"}); });
  check_error(msg, fs::path(net_path).lexically_normal().string(), pos_of(net, "maybe"),
              "network.layers.0.bias", "expected true or false");
  // And experiment-file errors stay in the experiment file.
  std::string text = "network: seed_mlp\ndataset: {name: mnist}\ntraining: {epochs: 0}\n";
  exp = tmp.experiment(text);
  msg = error_of([&] { load_experiment(exp, {"training.batch_size=4"}); });
  check_error(msg, exp, pos_of(text, "0}"), "training.epochs", "must be in [1, 10000]");
}

// ---------------------------------------------------------------------------------------
// resolved_yaml

namespace {

void check_same_spec(const ExperimentSpec& a, const ExperimentSpec& b) {
  CHECK(a.name == b.name);
  CHECK(a.network.name == b.network.name);
  CHECK(a.network.input == b.network.input);
  CHECK(a.network.classes == b.network.classes);
  CHECK(a.network.init.scheme == b.network.init.scheme);
  CHECK(a.network.init.scale == b.network.init.scale);
  REQUIRE(a.network.layers.size() == b.network.layers.size());
  for (std::size_t i = 0; i < a.network.layers.size(); ++i) {
    const LayerSpec& x = a.network.layers[i];
    const LayerSpec& y = b.network.layers[i];
    INFO("layer " << i);
    CHECK(x.type == y.type);
    CHECK(x.name == y.name);
    CHECK(x.units == y.units);
    CHECK(x.filters == y.filters);
    CHECK(x.kernel == y.kernel);
    CHECK(x.stride == y.stride);
    CHECK(x.padding == y.padding);
    CHECK(x.slope == y.slope);
    CHECK(x.bias == y.bias);
  }
  CHECK(a.dataset.name == b.dataset.name);
  CHECK(a.dataset.path == b.dataset.path);
  CHECK(a.dataset.train_limit == b.dataset.train_limit);
  CHECK(a.dataset.test_limit == b.dataset.test_limit);
  const TrainingSpec& s = a.training;
  const TrainingSpec& t = b.training;
  CHECK(s.epochs == t.epochs);
  CHECK(s.batch_size == t.batch_size);
  CHECK(s.eval_batch_size == t.eval_batch_size);
  CHECK(s.seed == t.seed);
  CHECK(s.shuffle == t.shuffle);
  CHECK(s.drop_last == t.drop_last);
  CHECK(s.threads == t.threads);
  CHECK(s.optimizer.kind == t.optimizer.kind);
  CHECK(s.optimizer.lr == t.optimizer.lr);  // exact: doubles must round-trip
  CHECK(s.optimizer.momentum == t.optimizer.momentum);
  CHECK(s.optimizer.weight_decay == t.optimizer.weight_decay);
  CHECK(s.optimizer.reduction == t.optimizer.reduction);
  CHECK(s.optimizer.clip == t.optimizer.clip);
  CHECK(s.optimizer.beta1 == t.optimizer.beta1);
  CHECK(s.optimizer.beta2 == t.optimizer.beta2);
  CHECK(s.optimizer.epsilon == t.optimizer.epsilon);
  CHECK(a.output.dir == b.output.dir);
}

void check_round_trip(const TempConfigs& tmp, const ExperimentSpec& spec) {
  std::string text = resolved_yaml(spec);
  INFO(text);
  CHECK(resolved_yaml(spec) == text);  // deterministic
  std::string path = tmp.write("experiments/resolved.yaml", text);
  ExperimentSpec back = load_experiment(path);
  check_same_spec(spec, back);
  CHECK(back.network.source == "<inline>");
  CHECK(resolved_yaml(back) == text);
}

}  // namespace

TEST_CASE("resolved_yaml round-trips", "[config]") {
  TempConfigs tmp;
  SECTION("quickstart") {
    ExperimentSpec s = load_experiment(configs_root() + "/experiments/quickstart.yaml");
    std::string text = resolved_yaml(s);
    // Every default is spelled out, with the network inlined.
    CHECK(text.find("name: quickstart") != std::string::npos);
    CHECK(text.find("dir: runs/quickstart") != std::string::npos);
    CHECK(text.find("{type: flatten, name: flatten0}") != std::string::npos);
    CHECK(text.find("{type: dense, name: fc1, units: 16, bias: true}") != std::string::npos);
    CHECK(text.find("momentum: 0") != std::string::npos);
    CHECK(text.find("path: \"\"") != std::string::npos);
    check_round_trip(tmp, s);
  }
  SECTION("adam, awkward doubles, every layer type") {
    std::string text =
        "name: awkward\nnetwork: small_cnn\ndataset: {name: fashion-mnist, path: null_dir, "
        "train_limit: 123, test_limit: 45}\n"
        "training:\n  epochs: 3\n  batch_size: 7\n  eval_batch_size: 9\n  seed: "
        "18446744073709551615\n"
        "  shuffle: false\n  drop_last: true\n  threads: 3\n  optimizer: {kind: adam, lr: "
        "0.30000000000000004, "
        "beta1: 0.123456789012345678, epsilon: 1e-300, weight_decay: 5e-4, reduction: mean, "
        "clip: 0.1}\noutput: {dir: 'out dir/x: y'}\n";
    ExperimentSpec s = load_experiment(
        tmp.experiment(text),
        {"network.layers.1.slope=0.2", "network.init.scheme=uniform", "network.init.scale=0.1"});
    CHECK(s.training.optimizer.lr == 0.1 + 0.2);
    CHECK(s.training.seed == 18446744073709551615ull);
    CHECK(s.training.threads == 3);
    CHECK(s.training.drop_last);
    CHECK(s.training.eval_batch_size == 9);
    check_round_trip(tmp, s);
  }
  SECTION("names that look like other YAML types") {
    std::string text =
        "name: 'null'\nnetwork: {name: '123', input: [10, 1, 1], layers: [{type: softmax, name: "
        "'true'}]}\ndataset: {name: '~'}\n";
    ExperimentSpec s = load_experiment(tmp.experiment(text));
    CHECK(s.name == "null");
    CHECK(s.dataset.name == "~");
    check_round_trip(tmp, s);
  }
}

TEST_CASE("a config path to a device is an error, not an endless read", "[config]") {
  // (Networks, accelerators and energy tables must be regular files to be found at all.)
  CHECK_THROWS_WITH(load_experiment("/dev/zero"),
                    Catch::Contains("/dev/zero: experiment file is larger than 16 MiB"));
}

TEST_CASE("An epoch's batches: the last one partial, or left out with drop_last", "[config]") {
  TrainingSpec t;
  t.batch_size = 32;
  EpochBatches b = t.epoch_batches(50000);
  CHECK(b.full == 1562);
  CHECK(b.rest == 16);
  CHECK(b.count() == 1563);
  CHECK(t.trained_samples(50000) == 50000);
  b = t.epoch_batches(64);
  CHECK(b.full == 2);
  CHECK(b.rest == 0);
  CHECK(b.count() == 2);
  CHECK(t.epoch_batches(20).count() == 1);  // one partial batch
  t.drop_last = true;
  b = t.epoch_batches(50000);
  CHECK(b.full == 1562);
  CHECK(b.rest == 0);
  CHECK(b.count() == 1562);
  CHECK(t.trained_samples(50000) == 49984);
  CHECK(t.trained_samples(64) == 64);
  CHECK_THROWS_WITH(t.epoch_batches(20),
                    "training.drop_last: the 20 training sample(s) make no "
                    "full batch of 32 (training.batch_size); lower it or set "
                    "training.drop_last: false");
}
