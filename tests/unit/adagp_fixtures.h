#pragma once
// Small networks, data and a pass recorder shared by the ADA-GP unit tests.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sim/core/rng.h"
#include "sim/nn/network.h"
#include "sim/techniques/adagp.h"
#include "sim/techniques/adagp_settings.h"
#include "sim/train/trainer.h"

namespace trainsim::test {

inline LayerSpec layer(const std::string& type, int n = 0, int kernel = 0) {
  LayerSpec l;
  l.type = type;
  l.name = type + std::to_string(n) + "_" + std::to_string(kernel);
  if (type == "dense") l.units = n;
  if (type == "conv2d") l.filters = n, l.kernel = kernel;
  return l;
}

// conv2d(1 -> 2, 3x3) on 1x5x5: output 2x3x3; then dense(18 -> 3).
inline NetworkSpec tiny_cnn() {
  NetworkSpec n;
  n.name = "tiny_cnn";
  n.input = {1, 5, 5};
  n.classes = 3;
  n.layers = {layer("conv2d", 2, 3), layer("flatten"), layer("dense", 3), layer("softmax")};
  return n;
}

// 16 -> 8 -> relu -> 3.
inline NetworkSpec tiny_mlp() {
  NetworkSpec n;
  n.name = "tiny_mlp";
  n.input = {1, 4, 4};
  n.classes = 3;
  n.layers = {layer("flatten"), layer("dense", 8), layer("relu"), layer("dense", 3),
              layer("softmax")};
  return n;
}

// Every weight and bias of a network, flattened.
inline std::vector<float> all_weights(Network<float>& net) {
  std::vector<float> w;
  for (Param<float>* p : net.params())
    w.insert(w.end(), p->value.data(), p->value.data() + p->value.size());
  return w;
}

// The first 10 training samples of the tiny data set as the input of a forward pass.
inline void first_batch(const Dataset& data, const Network<float>& net, ForwardPass<float>& pass) {
  pass.acts.resize(1);
  pass.acts[0].resize(10, net.input_shape());
  const auto values = static_cast<std::ptrdiff_t>(10 * net.input_shape().size());
  std::copy(data.train.images.begin(), data.train.images.begin() + values, pass.acts[0].data());
}

// The tiny MLP trained with ADA-GP (1 warm-up epoch, then k:1 GP:BP, Phase GP doing
// `phase_gp`) by SGD, batch 10.
inline ExperimentSpec tiny_adagp_spec(double momentum, int k = 2,
                                      const std::string& phase_gp = "predict") {
  ExperimentSpec spec;
  spec.network = tiny_mlp();
  spec.training.batch_size = 10;
  spec.training.optimizer.kind = "sgd";
  spec.training.optimizer.lr = 0.05;
  spec.training.optimizer.momentum = momentum;
  spec.training.optimizer.reduction = "mean";
  spec.sim.technique.kind = "adagp-efficient";
  spec.sim.technique.own<AdaGpSettings>().warmup_epochs = 1;
  spec.sim.technique.own<AdaGpSettings>().schedule = {{{k, 1, 0}}};
  spec.sim.technique.own<AdaGpSettings>().phase_gp = phase_gp;
  return spec;
}

// Three classes, each a bright quadrant plus noise: learnable in a few batches.
inline Dataset tiny_data(int count) {
  Dataset d;
  d.name = "tiny";
  d.channels = 1, d.height = 4, d.width = 4, d.classes = 3;
  Rng rng(5);
  for (DataSplit* s : {&d.train, &d.test}) {
    s->count = count;
    for (int i = 0; i < count; ++i) {
      const int label = i % 3;
      s->labels.push_back(static_cast<std::uint8_t>(label));
      for (int p = 0; p < 16; ++p) {
        const bool on = (p / 8 == label % 2) && ((p % 4) / 2 == label / 2 || label == 2);
        s->images.push_back(static_cast<float>((on ? 0.8 : 0.1) + 0.1 * rng.uniform()));
      }
    }
  }
  return d;
}

// `count` side x side grey images of `classes` classes: class c brightens a band of rows
// of its own, plus noise. Learnable in a few batches by an MLP or a CNN.
inline Dataset band_data(int count, int side, int classes) {
  Dataset d;
  d.name = "bands";
  d.channels = 1, d.height = side, d.width = side, d.classes = classes;
  Rng rng(11);
  const int band = std::max(1, side / classes);
  for (DataSplit* s : {&d.train, &d.test}) {
    s->count = count;
    for (int i = 0; i < count; ++i) {
      const int label = i % classes;
      s->labels.push_back(static_cast<std::uint8_t>(label));
      for (int r = 0; r < side; ++r)
        for (int c = 0; c < side; ++c) {
          const bool on = r / band == label;
          s->images.push_back(static_cast<float>((on ? 0.7 : 0.1) + 0.2 * rng.uniform()));
        }
    }
  }
  return d;
}

inline void fill(Tensor<float>& t, Rng& rng, double scale = 1) {
  for (std::size_t k = 0; k < t.size(); ++k) t[k] = static_cast<float>(scale * rng.uniform(-1, 1));
}

// Records what a technique reports, per batch.
struct Recorder : PassObserver {
  struct Batch {
    int phase = -1, forward = 0, backward = 0, updates = 0;
    std::map<int, int> predictor;  // pass -> calls
    bool operator==(const Batch& o) const {
      return phase == o.phase && forward == o.forward && backward == o.backward &&
             updates == o.updates && predictor == o.predictor;
    }
  };
  std::vector<Batch> batches;
  Batch cur;
  void on_phase(int p) override { cur.phase = p; }
  void on_forward(std::size_t, int) override { ++cur.forward; }
  void on_loss_grad(std::size_t, int) override { ++cur.backward; }
  void on_backward_data(std::size_t, int) override { ++cur.backward; }
  void on_backward_weight(std::size_t, int) override { ++cur.backward; }
  void on_grad_sum(std::size_t, int) override { ++cur.backward; }
  void on_update(std::size_t, int) override { ++cur.updates; }
  void on_technique_op(std::size_t, int pass, std::int64_t) override { ++cur.predictor[pass]; }
  void on_batch_end(Phase phase, int) override {
    if (phase == Phase::kTrain) batches.push_back(cur);
    cur = Batch{};
  }
};

}  // namespace trainsim::test
