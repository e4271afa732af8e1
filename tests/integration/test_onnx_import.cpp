// ONNX import (sim/interop/onnx_import.h, `network: {onnx: FILE}`, `trainsim import`) against
// PyTorch's own exports of zoo networks (tests/data/onnx, written by tools/onnx_fixtures.py
// from the network files): each imports as the file it came from (the same layers, shapes,
// graph and parameter count, and the same op stream, so the same cycles and energy), and bad
// models are one line and exit 2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "sim/core/error.h"
#include "sim/interop/onnx_import.h"
#include "sim/interop/onnx_network.h"
#include "sim/io/file_set.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/network_yaml.h"
#include "tests/integration/cli_runner.h"
#include "tests/support/network_yaml.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

const std::string kData = std::string(TRAINSIM_SOURCE_DIR) + "/tests/data/onnx/";

NetworkSpec zoo(const std::string& name) {
  const std::string file = std::string(TRAINSIM_SOURCE_DIR) + "/configs/networks/" + name + ".yaml";
  return network_from_yaml(read_text_file(file), file);
}

// The same network up to layer names: types, hyper-parameters, shapes, graph, parameters.
void require_same_network(const NetworkSpec& got, const NetworkSpec& want) {
  REQUIRE(got.input == want.input);
  REQUIRE(got.classes == want.classes);
  const NetShape a(got), b(want);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("layer " << i << ": " << a.layer_spec(i).name << " against " << b.layer_spec(i).name);
    const LayerSpec &x = a.layer_spec(i), &y = b.layer_spec(i);
    CHECK(x.type == y.type);
    CHECK(x.filters == y.filters);
    CHECK(x.units == y.units);
    CHECK(x.kernel == y.kernel);
    CHECK(x.kernel_width() == y.kernel_width());
    CHECK(x.padding == y.padding);
    CHECK(x.padding_width() == y.padding_width());
    CHECK(x.groups == y.groups);
    CHECK(x.heads == y.heads);
    CHECK(x.transpose_b == y.transpose_b);
    CHECK(x.vocab == y.vocab);
    if (x.type == "conv2d" || x.type == "dense" || x.type == "linear") CHECK(x.bias == y.bias);
    if (x.type == "dropout") CHECK(x.rate == y.rate);
    if (x.type != "maxpool2d" && x.type != "avgpool2d") CHECK(x.stride == y.stride);
    CHECK(a.layer(i).out == b.layer(i).out);
    CHECK(a.layer(i).inputs == b.layer(i).inputs);
    CHECK(a.layer(i).params == b.layer(i).params);
  }
  CHECK(a.param_count() == b.param_count());
  CHECK(a.forward_macs() == b.forward_macs());
}

// PyTorch's exporter merges a concatenation read only by another into that one (Inception-V3's
// 3x3 and 1x3/3x1 splits: 15 concats in the file, 11 in the ONNX graph). The same tensor in the
// same channel order, and a concat moves and computes nothing in trainsim's timing, so the
// file is compared with its own nested concats merged the same way.
NetworkSpec merge_nested_concats(NetworkSpec net) {
  for (bool merged = true; merged;) {
    merged = false;
    for (std::size_t d = 0; d < net.layers.size() && !merged; ++d) {
      if (net.layers[d].type != "concat") continue;
      const std::string name = net.layers[d].name;
      std::vector<std::size_t> readers;
      for (std::size_t i = 0; i < net.layers.size(); ++i)
        for (const auto& f : net.layers[i].from)
          if (f == name) readers.push_back(i);
      // A layer without `from` reads the one before it.
      if (d + 1 < net.layers.size() && net.layers[d + 1].from.empty()) readers.push_back(d + 1);
      if (readers.size() != 1 || net.layers[readers[0]].type != "concat") continue;
      std::vector<std::string>& from = net.layers[readers[0]].from;
      auto at = std::find(from.begin(), from.end(), name);
      at = from.erase(at);
      from.insert(at, net.layers[d].from.begin(), net.layers[d].from.end());
      net.layers.erase(net.layers.begin() + static_cast<std::ptrdiff_t>(d));
      merged = true;
    }
  }
  return net;
}

}  // namespace

TEST_CASE("PyTorch's ONNX exports of eight zoo networks import as the files they came from",
          "[onnx]") {
  for (const char* name :
       {"resnet8_fashion", "resnet50_cifar10", "vgg16_cifar10", "mobilenetv2_cifar10",
        "densenet121_cifar10", "inceptionv3_imagenet", "dcgan64_gd_celeba", "bert_base2_squad"}) {
    INFO(name);
    const OnnxImport imported = import_onnx(kData + name + ".onnx");
    CHECK(imported.producer.rfind("pytorch", 0) == 0);
    const NetworkSpec net = onnx_network(kData + name + ".onnx");
    CHECK(net.name == name);
    const NetworkSpec want = merge_nested_concats(zoo(name));
    if (std::string(name) == "inceptionv3_imagenet")
      CHECK(want.layers.size() == zoo(name).layers.size() - 4);
    require_same_network(net, want);
    // Every initializer was understood: the network's own count equals theirs.
    const NetShape shape(net);
    CHECK(shape.param_count() == imported.initializer_parameters);
    // The imported network reads back from the text written for it.
    require_same_network(network_from_yaml(network_yaml(net)), want);
  }
}

TEST_CASE("An experiment naming an ONNX model runs as one naming the network file", "[onnx]") {
  // Shape only (CIFAR-10 and ImageNet have no images here): the same cycles, energy and
  // traffic per epoch on adagp_ws180, for each of the five CNNs of the zoo exported.
  const std::string dir = fresh_dir("onnx_run");
  auto run = [&](const std::string& tag, const std::string& network, const std::string& data) {
    const std::string exp = dir + "/" + tag + ".yaml";
    write_file(exp, "name: " + tag + "\nnumerics: none\nnetwork: " + network +
                        "\ndataset: {name: " + data +
                        ", train_limit: 64, test_limit: 32}\n"
                        "training: {epochs: 1, batch_size: 32}\naccelerator: adagp_ws180\n");
    const CliResult r = run_trainsim({"run", exp, "-o", dir + "/" + tag, "-q"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return read_file(dir + "/" + tag + "/epochs.csv");
  };
  for (const auto& [name, data] :
       std::vector<std::pair<std::string, std::string>>{{"vgg16_cifar10", "cifar10"},
                                                        {"mobilenetv2_cifar10", "cifar10"},
                                                        {"densenet121_cifar10", "cifar10"},
                                                        {"inceptionv3_imagenet", "imagenet"},
                                                        {"bert_base2_squad", "squad"}}) {
    INFO(name);
    const std::string f = run(name + "_file", name, data);
    const std::string o = run(name + "_onnx", "{onnx: " + kData + name + ".onnx}", data);
    for (const char* column : {"cycles", "energy", "dram_bytes", "eval_cycles"})
      CHECK(epochs_csv_value(o, 1, column) == epochs_csv_value(f, 1, column));
  }
  const std::string a = run("file", "resnet50_cifar10", "cifar10");
  const std::string b = run("onnx", "{onnx: " + kData + "resnet50_cifar10.onnx}", "cifar10");
  for (const char* column : {"cycles", "energy", "dram_bytes", "eval_cycles"})
    CHECK(epochs_csv_value(b, 1, column) == epochs_csv_value(a, 1, column));
  CHECK(epochs_csv_value(a, 1, "cycles") > 0);
  // The resolved configuration holds the network itself: it runs without the model file.
  const std::string resolved = read_file(dir + "/onnx/config.resolved.yaml");
  CHECK(resolved.find("type: conv2d") != std::string::npos);
  const CliResult again =
      run_trainsim({"run", dir + "/onnx/config.resolved.yaml", "-o", dir + "/again", "-q"});
  REQUIRE(again.exit_code == 0);
  CHECK(epochs_csv_value(read_file(dir + "/again/epochs.csv"), 1, "cycles") ==
        epochs_csv_value(a, 1, "cycles"));
}

TEST_CASE("trainsim import writes a network file that trains as the zoo's", "[onnx]") {
  const std::string dir = fresh_dir("onnx_cli");
  const std::string out = dir + "/resnet8.yaml";
  const CliResult r =
      run_trainsim({"import", kData + "resnet8_fashion.onnx", "-o", out, "--name", "resnet8"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("32 ONNX nodes -> 32 layers, 77,754 trainable parameters, input 1x28x28, 10 "
                   "classes") != std::string::npos);
  const NetworkSpec written = network_from_yaml(read_file(out), out);
  CHECK(written.name == "resnet8");
  require_same_network(written, zoo("resnet8_fashion"));
  // It never replaces a file unasked.
  write_file(dir + "/mine.yaml", "keep me\n");
  const CliResult exists =
      run_trainsim({"import", kData + "vgg16_cifar10.onnx", "-o", dir + "/mine.yaml"});
  CHECK(exists.exit_code == 2);
  CHECK(exists.err.find("exists (--force replaces it)") != std::string::npos);
  CHECK(read_file(dir + "/mine.yaml") == "keep me\n");
  CHECK(run_trainsim({"import", kData + "vgg16_cifar10.onnx", "-o", dir + "/mine.yaml", "-f", "-q"})
            .exit_code == 0);
  CHECK(read_file(dir + "/mine.yaml").find("type: maxpool2d") != std::string::npos);
  // A transformer: its integer nodes (position ids, head split sizes) fold to constants, and
  // attention becomes linear, batched_matmul, softmax and gelu layers.
  const CliResult bert =
      run_trainsim({"import", kData + "bert_base2_squad.onnx", "-o", dir + "/bert.yaml"});
  REQUIRE(bert.exit_code == 0);
  CHECK(bert.out.find("274 ONNX nodes -> 43 layers, 38,014,466 trainable parameters, input "
                      "1x384x1, 768 classes") != std::string::npos);
  const OnnxImport folded = import_onnx(kData + "bert_base2_squad.onnx");
  CHECK(folded.nodes == 274);
  CHECK(folded.folded > 0);
  CHECK(folded.opset == 17);
  // Opset 20's own Gelu node, which ONNX 1.12 has no schema for, is a gelu layer all the same.
  const NetworkSpec gelu = onnx_network(kData + "gelu_opset20.onnx");
  std::vector<std::string> types;
  for (const LayerSpec& l : gelu.layers) types.push_back(l.type);
  CHECK(types == std::vector<std::string>{"embedding", "linear", "gelu", "linear", "softmax"});
  CHECK(gelu.classes == 32);
  // The help lists the operators.
  const CliResult help = run_trainsim({"import", "--help"});
  CHECK(help.exit_code == 0);
  for (const char* op : {"Conv -> conv2d", "BatchNormalization -> batchnorm", "Pad ->"})
    CHECK(help.out.find(op) != std::string::npos);
  // Trained for real from the imported file, one small epoch.
  require_dataset("fashion-mnist");
  const std::string exp = dir + "/train.yaml";
  write_file(exp, "name: t\nnetwork: {onnx: " + kData +
                      "resnet8_fashion.onnx}\ndataset: {name: fashion-mnist, train_limit: 64, "
                      "test_limit: 32}\ntraining: {epochs: 1, batch_size: 32}\n");
  const CliResult trained = run_trainsim({"train", exp, "-o", dir + "/trained", "-q"});
  REQUIRE(trained.exit_code == 0);
  CHECK(epochs_csv_value(read_file(dir + "/trained/epochs.csv"), 1, "test_accuracy") >= 0);
}

TEST_CASE("Bad ONNX models are one line naming the file and the node, exit 2", "[onnx]") {
  const std::string dir = fresh_dir("onnx_bad");
  // A truncated file.
  const std::string whole = read_file(kData + "resnet8_fashion.onnx");
  write_file(dir + "/truncated.onnx", whole.substr(0, whole.size() / 2));
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {dir + "/truncated.onnx", {"truncated.onnx", "not a complete ONNX model"}},
      {kData + "bad_operator.onnx", {"bad_operator.onnx", "node 'erf' (Erf)", "operator 'Erf'"}},
      {kData + "bad_two_outputs.onnx", {"2 outputs ('y', 'z')", "one"}},
      {kData + "bad_dynamic_shape.onnx", {"input 'img'", "not fixed", "example input"}},
      {kData + "bad_attention.onnx",
       {"bad_attention.onnx", "node 'gram' (MatMul)", "first operand is transposed"}},
      {kData + "bad_bias.onnx",
       {"bad_bias.onnx", "40 trainable parameters where the model's initializers hold 41"}},
      {dir + "/missing.onnx", {"missing.onnx"}},
  };
  for (const auto& [model, mentions] : cases) {
    INFO(model);
    const CliResult r = run_trainsim({"import", model, "-o", dir + "/out.yaml"});
    require_clean_failure(r, dir + "/out.yaml", mentions);
    const std::string exp = dir + "/exp.yaml";
    write_file(exp, "name: e\nnumerics: none\nnetwork: {onnx: " + model +
                        "}\ndataset: {name: cifar10}\ntraining: {epochs: 1}\n");
    require_clean_failure(run_trainsim({"run", exp, "-o", dir + "/run"}), dir + "/run", mentions);
  }
  CHECK_FALSE(exists(dir + "/out.yaml"));
  // In-process: the same one-line UserError.
  CHECK_THROWS_AS(import_onnx(kData + "bad_operator.onnx"), UserError);
  // Shapes no network has are refused before ONNX's shape inference builds them (it would
  // take all the memory there is: a Reshape target of 2^58 found by the fuzzer).
  const std::string corpus = std::string(TRAINSIM_SOURCE_DIR) + "/tests/fuzz/corpus/onnx/";
  try {
    import_onnx(corpus + "reshape_target_huge.onnx");
    FAIL("a Reshape target of 2^58 was accepted");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("node '/Reshape' (Reshape): its shape input holds "
                                     "360287970189639679, not a dimension") != std::string::npos);
  }
}
