#include "sim/gpu/iteration.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "sim/core/csv.h"
#include "sim/core/paths.h"
#include "sim/hype/op_dag.h"
#include "sim/nn/layer_registry.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/network_config.h"

namespace trainsim {

namespace {

// The category an op of trainsim's stream falls in, as gpu_aten_category() sorts the
// profile's: by its layer's type and the slot it fills.
std::string category(const DagNode& n, const std::string& layer_type) {
  switch (n.type) {
    case PaperOpType::kBiasAdd:
      return "bias add";
    case PaperOpType::kBiasAddGrad:
      return "bias grad";
    default:
      break;
  }
  const bool backward = n.slot == LayerOpSlot::kBackwardData ||
                        n.slot == LayerOpSlot::kBackwardWeight || n.slot == LayerOpSlot::kGradSum;
  if (n.slot == LayerOpSlot::kUpdate) return "update";
  if (n.slot == LayerOpSlot::kLossGrad) return "loss";
  const LayerTypeInfo* info = find_layer_type(layer_type);
  switch (info ? info->family : LayerFamily::kOther) {
    case LayerFamily::kConv:
    case LayerFamily::kConvTranspose:
      return backward ? "conv backward" : "conv forward";
    case LayerFamily::kDense:
    case LayerFamily::kLinear:
      return "matmul";
    case LayerFamily::kPool:
      return backward ? "pooling grad" : "pooling";
    case LayerFamily::kNorm:
      return backward ? "normalization grad" : "normalization";
    case LayerFamily::kOther:
      break;
  }
  // The types that can end a network with a loss: the profile counts a softmax's kernels and
  // a sigmoid's forward as the loss's.
  const OutputLoss loss = info ? info->loss : OutputLoss::kNone;
  if (loss == OutputLoss::kCrossEntropy) return "loss";
  if (loss == OutputLoss::kBinary && n.slot == LayerOpSlot::kForward) return "loss";
  return backward ? "activation grad" : "activation";
}

// A cast of `words` fp32 values to 16 bits (or back): 4 bytes read and 2 written per value,
// counted in 2-byte words.
Op cast_op(std::int64_t words, int layer, bool to_half) {
  Op op = Op::make_eltwise({words, 1, 1, 0}, OpRole::kForward, layer);
  op.inputs[0] = {tensor_id(TensorKind::kWeight, layer, 2), to_half ? 2 * words : words};
  op.outputs[0] = {tensor_id(TensorKind::kWeight, layer, 3), to_half ? words : 2 * words};
  return op;
}

std::string num(const char* f, double v) {
  char s[64];
  std::snprintf(s, sizeof s, f, v);
  return s;
}

}  // namespace

GpuIterationResult price_gpu_iteration(const GpuSpec& gpu, const NetworkSpec& spec, int batch,
                                       const OptimizerSpec& optimizer) {
  const NetShape net(spec);
  const OpDag dag = build_op_dag(net, batch, 8 * gpu.word_bytes(), optimizer, {true});
  GpuIterationResult r;
  r.network = spec.name;
  r.precision = gpu.precision;
  r.batch = batch;
  const GpuModel model(gpu);
  const GpuFit& f = gpu.fit();

  // The stream: under mixed precision, autocast casts the input batch and every parameter
  // tensor of a GEMM or convolution (the weights, and the bias apart) to 16 bits before its
  // layer's forward op, and their gradients back after its backward-weight and bias-gradient
  // ops; the loss runs in fp32, so its input is cast up before it and its gradient down after
  // (the profile's copy_ of [256, 1000] for AlexNet, of [256] for DCGAN); then the DAG's ops
  // in issue order.
  std::vector<GpuIterationOp> stream;
  auto add = [&](const Op& op, const std::string& type, const std::string& cat) {
    GpuIterationOp o;
    o.type = type, o.category = cat, o.op = op;
    o.layer = op.layer >= 0 ? net.layer_spec(static_cast<std::size_t>(op.layer)).name : "input";
    stream.push_back(o);
  };
  const bool half = gpu.tensor();
  // A layer's bias: its output channels (units), when the DAG adds one.
  std::vector<std::int64_t> bias(net.size(), 0);
  for (int i = 0; i < dag.size(); ++i)
    if (dag.node(i).type == PaperOpType::kBiasAdd) {
      const auto l = static_cast<std::size_t>(dag.node(i).op.layer);
      bias[l] = net.layer(l).out.c;
    }
  auto weights = [&](int layer) -> std::int64_t {
    const LayerFamily f = layer_family(net.layer_spec(static_cast<std::size_t>(layer)).type);
    const bool gemm = f == LayerFamily::kConv || f == LayerFamily::kConvTranspose ||
                      f == LayerFamily::kDense || f == LayerFamily::kLinear;
    const auto l = static_cast<std::size_t>(layer);
    return gemm ? net.layer(l).params - bias[l] : 0;
  };
  if (half) {
    const auto& in = spec.input;
    add(cast_op(std::int64_t{batch} * in[0] * in[1] * in[2], -1, true), "Cast", "cast");
  }
  // cuDNN computes batch norm's data and parameter gradients in one kernel, which reads x and
  // dY once (trainsim's DAG has two ops, as an accelerator runs them): the first of the two
  // in issue order stands for both, the parameter gradient's outputs and flops joined to the
  // data gradient's op; the second is skipped.
  std::vector<int> norm_data(net.size(), -1), norm_weight(net.size(), -1);
  for (int i = 0; i < dag.size(); ++i) {
    const DagNode& n = dag.node(i);
    const auto l = static_cast<std::size_t>(n.op.layer);
    if (layer_family(net.layer_spec(l).type) != LayerFamily::kNorm) continue;
    if (n.slot == LayerOpSlot::kBackwardData) norm_data[l] = i;
    if (n.slot == LayerOpSlot::kBackwardWeight) norm_weight[l] = i;
  }
  auto node_at = [&](int i) -> std::optional<DagNode> {
    const DagNode& n = dag.node(i);
    const auto l = static_cast<std::size_t>(n.op.layer);
    const bool grad =
        n.slot == LayerOpSlot::kBackwardData || n.slot == LayerOpSlot::kBackwardWeight;
    if (!grad || norm_data[l] < 0 || norm_weight[l] < 0) return n;
    if (i != std::min(norm_data[l], norm_weight[l])) return std::nullopt;
    DagNode joined = dag.node(norm_data[l]);
    const Op& dw = dag.node(norm_weight[l]).op;
    for (const TensorUse& t : dw.outputs)
      for (TensorUse& slot : joined.op.outputs)
        if (slot.id == kNoTensor && slot.words == 0) {
          slot = t;
          break;
        }
    joined.op.eltwise.flops += dw.eltwise.flops;
    return joined;
  };
  bool loss_cast = false;
  for (int i = 0; i < dag.size(); ++i) {
    const std::optional<DagNode> node = node_at(i);
    if (!node) continue;
    const DagNode& n = *node;
    const int layer = n.op.layer;
    const auto l = static_cast<std::size_t>(layer);
    const std::string& type = net.layer_spec(l).type;
    const std::string cat = category(n, type);
    const std::int64_t logits = std::int64_t{batch} * net.layer(l).in.size();
    if (half && n.slot == LayerOpSlot::kForward && n.type != PaperOpType::kBiasAdd &&
        weights(layer)) {
      add(cast_op(weights(layer), layer, true), "Cast", "cast");
      if (bias[l] > 0) add(cast_op(bias[l], layer, true), "Cast", "cast");
    }
    if (half && cat == "loss" && n.slot == LayerOpSlot::kForward && !loss_cast) {
      add(cast_op(logits, layer, false), "Cast", "cast");
      loss_cast = true;
    }
    add(n.op, paper_op_type_name(n.type), cat);
    if (half && n.slot == LayerOpSlot::kBackwardWeight && n.type != PaperOpType::kBiasAddGrad &&
        weights(layer))
      add(cast_op(weights(layer), layer, false), "Cast", "cast");
    if (half && n.type == PaperOpType::kBiasAddGrad && bias[l] > 0)
      add(cast_op(bias[l], layer, false), "Cast", "cast");
    if (half && n.slot == LayerOpSlot::kLossGrad) add(cast_op(logits, layer, true), "Cast", "cast");
  }

  double issue = 0, end = 0, op_j = 0;
  for (GpuIterationOp& o : stream) {
    o.cost = model.cost(o.op, o.choice);
    issue += f.host_op_us * 1e-6;
    o.start_s = std::max(issue, end);
    end = o.start_s + o.cost.time_s;
    r.device_s += o.cost.time_s;
    op_j += o.cost.avg_w * o.cost.time_s;
  }
  r.host_s = issue;
  r.seconds = end;
  // The ops' energy, and the gaps between them at the GPU's active idle power.
  r.joules = op_j + (gpu.static_w + f.active_idle_w) * (r.seconds - r.device_s);
  r.ops = std::move(stream);

  CsvTable csv({"index", "type", "category", "layer", "op", "algorithm", "tile", "splits",
                "tensor_cores", "start_us", "model_us", "avg_w", "bytes"});
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const GpuIterationOp& o = r.ops[i];
    csv.row()
        .cell(static_cast<std::int64_t>(i))
        .cell(o.type)
        .cell(o.category)
        .cell(o.layer)
        .cell(o.op.describe())
        .cell(o.choice.algorithm)
        .cell(o.choice.tile_m
                  ? std::to_string(o.choice.tile_m) + "x" + std::to_string(o.choice.tile_n)
                  : "")
        .cell(o.choice.splits)
        .cell(o.choice.tensor_cores ? "yes" : "no")
        .num("%.3f", o.start_s * 1e6)
        .num("%.3f", o.cost.time_s * 1e6)
        .num("%.1f", o.cost.avg_w)
        .num("%.0f", o.cost.bytes);
  }
  r.ops_csv = csv.text();
  return r;
}

std::string gpu_iteration_network(const std::string& model) {
  if (model == "alexnet") return "alexnet_imagenet";
  if (model == "dcgan") return "dcgan64_gd_celeba";
  return "";
}

std::string gpu_aten_category(const GpuProfiledOp& p) {
  const std::string& n = p.op;
  if (n.rfind("aten::", 0) != 0) return "";  // kernels, the optimizer's step: inside an aten op
  static const std::map<std::string, std::string> names = {
      {"aten::cudnn_convolution", "conv forward"},
      {"aten::cudnn_convolution_transpose", "conv forward"},
      {"aten::convolution_backward", "conv backward"},
      {"aten::addmm", "matmul"},
      {"aten::mm", "matmul"},
      {"aten::sum", "bias grad"},
      {"aten::clamp_min_", "activation"},
      {"aten::leaky_relu_", "activation"},
      {"aten::tanh", "activation"},
      {"aten::native_dropout", "activation"},
      {"aten::threshold_backward", "activation grad"},
      {"aten::leaky_relu_backward", "activation grad"},
      {"aten::tanh_backward", "activation grad"},
      {"aten::native_dropout_backward", "activation grad"},
      {"aten::max_pool2d_with_indices", "pooling"},
      {"aten::_adaptive_avg_pool2d", "pooling"},
      {"aten::max_pool2d_with_indices_backward", "pooling grad"},
      {"aten::_adaptive_avg_pool2d_backward", "pooling grad"},
      {"aten::cudnn_batch_norm", "normalization"},
      {"aten::native_batch_norm", "normalization"},
      {"aten::cudnn_batch_norm_backward", "normalization grad"},
      {"aten::native_batch_norm_backward", "normalization grad"},
      {"aten::_log_softmax", "loss"},
      {"aten::nll_loss_forward", "loss"},
      {"aten::_log_softmax_backward_data", "loss"},
      {"aten::nll_loss_backward", "loss"},
      {"aten::log_sigmoid_forward", "loss"},
      {"aten::sigmoid", "loss"},
      {"aten::sub_", "loss"},
      {"aten::mul_", "loss"},
      {"aten::mean", "loss"},
      {"aten::div_", "loss"},
      {"aten::_foreach_mul_", "update"},
      {"aten::_foreach_add_", "update"},
      {"aten::copy_", "cast"},
  };
  // A bias add is an in-place add of a [1, C, 1, 1] tensor; other adds (batch norm's step
  // counter) are bookkeeping.
  if (n == "aten::add_")
    return p.input_shapes.find(", 1, 1]") != std::string::npos ? "bias add" : "other";
  const auto it = names.find(n);
  return it == names.end() ? "other" : it->second;
}

std::vector<GpuIterationResult> price_gpu_iterations(const GpuSpec& gpu,
                                                     const GpuMeasurements& data) {
  std::vector<GpuIterationResult> out;
  OptimizerSpec sgd;
  sgd.kind = "sgd";
  sgd.momentum = 0.9;
  for (const GpuMeasuredIteration& m : data.iterations) {
    const std::string network = gpu_iteration_network(m.model);
    if (network.empty() || gpu.peak(m.precision) <= 0) continue;
    const NetworkSpec spec = load_network(configs_root() + "/networks/" + network + ".yaml");
    GpuIterationResult r = price_gpu_iteration(gpu.with_precision(m.precision), spec, 256, sgd);
    r.model = m.model;
    r.measured_s = m.seconds;
    r.measured_j = m.joules;
    // Per category: the model's ops against the profile's aten ops.
    std::map<std::string, std::pair<double, int>> model_us, measured_us;
    for (const GpuIterationOp& o : r.ops) {
      auto& v = model_us[o.category];
      v.first += o.cost.time_s * 1e6;
      v.second += 1;
    }
    for (const GpuProfiledOp& p : data.profile) {
      if (p.model != m.model || p.precision != m.precision) continue;
      const std::string cat = gpu_aten_category(p);
      if (cat.empty()) continue;
      auto& v = measured_us[cat];
      v.first += p.device_us;
      v.second += p.calls;
    }
    std::map<std::string, int> all;
    for (const auto& [k, v] : model_us) all[k] = 0;
    for (const auto& [k, v] : measured_us) all[k] = 0;
    CsvTable csv({"category", "model_ops", "model_us", "profile_calls", "profile_us", "error_pct"});
    for (const auto& [k, unused] : all) {
      (void)unused;
      const auto mo = model_us.count(k) ? model_us[k] : std::make_pair(0.0, 0);
      const auto me = measured_us.count(k) ? measured_us[k] : std::make_pair(0.0, 0);
      csv.row()
          .cell(k)
          .cell(mo.second)
          .num("%.1f", mo.first)
          .cell(me.second)
          .num("%.1f", me.first)
          .cell(me.first > 0 ? num("%.1f", (mo.first / me.first - 1) * 100) : "");
    }
    r.types_csv = csv.text();
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace trainsim
