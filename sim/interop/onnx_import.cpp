#include "sim/interop/onnx_import.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>

#include "sim/core/error.h"
#include "sim/interop/onnx_fold.h"
#include "sim/nn/layer_registry.h"

namespace trainsim {

const std::vector<OnnxOperator>& onnx_operators() {
  static const std::vector<OnnxOperator> ops = {
      {"Conv", "conv2d", "2-D only; constant weight; symmetric pads; no dilation; equal strides"},
      {"ConvTranspose", "conv2d_transpose",
       "2-D only; constant weight; no groups or dilation; equal strides and pads on both axes"},
      {"Gemm", "dense", "constant B; transA = 0, alpha = beta = 1; a 2-D input"},
      {"MatMul with a constant weight",
       "dense on N x F, linear on N x S x C (with the bias of an Add of a constant vector that "
       "follows it)",
       "a 2-D weight"},
      {"MatMul of two layers' outputs",
       "batched_matmul (heads from the Reshape and Transpose "
       "that split the features; transpose_b from a Transpose of the second)",
       "N x S x C or N x G x S x C/G views of sequence layers; the first not transposed"},
      {"Gather", "embedding (from the input)",
       "a constant 2-D table along axis 0, indexed by the token ids or by constant ids (positions, "
       "segments) of the same length"},
      {"BatchNormalization", "batchnorm", "trainsim's epsilon is 1e-5 and momentum 0.1"},
      {"LayerNormalization", "layernorm", "over the last axis (the features) of N x S x C"},
      {"Relu", "relu", ""},
      {"LeakyRelu", "leaky_relu", ""},
      {"Sigmoid", "sigmoid", ""},
      {"Tanh", "tanh", ""},
      {"Gelu (opset 20)", "gelu", "either approximation"},
      {"Div, Erf, Add, Mul, Mul (GELU)", "gelu",
       "x * (1 + erf(x / sqrt 2)) * 0.5, as PyTorch exports nn.GELU"},
      {"Div or Mul by a one-value constant", "no layer: folded into the layer before it",
       "attention's 1 / sqrt(d) scale; its element-wise pass is not timed"},
      {"Add", "add",
       "two layers' outputs of one shape, or one repeated over the batch (a position "
       "embedding); no other broadcasting, no constants"},
      {"Concat", "concat", "channels (axis 1) only"},
      {"MaxPool", "maxpool2d", "2-D; symmetric pads; no dilation, no ceil_mode; equal strides"},
      {"AveragePool", "avgpool2d", "as MaxPool"},
      {"GlobalAveragePool", "global_avgpool", ""},
      {"ReduceMean", "global_avgpool",
       "over axes 2 and 3 with keepdims = 1, or over the positions (axis 1) of N x S x C with "
       "keepdims = 0"},
      {"Flatten", "flatten", "axis 1 only"},
      {"Reshape", "flatten, or no layer",
       "N x C x H x W to N x CHW (flatten); N x S x C to N x S x G x C/G and back (the head "
       "split, read in place)"},
      {"Transpose", "no layer: a view read in place, or a constant folded",
       "the head split's (0 2 1 3), keys' (0 2 3 1) and (0 1 3 2), (0 2 1) of N x S x C; any "
       "permutation of a constant"},
      {"Flatten or Reshape of N x S x C to N x SC", "no layer", "the model's output only"},
      {"Dropout", "dropout (training-mode exports; inference exports have none)", ""},
      {"Softmax", "softmax",
       "the model's output, or the last axis of attention scores (N x G x S x S)"},
      {"Sigmoid at the output",
       "sigmoid, ending the network (one value: two classes, binary "
       "cross-entropy)",
       ""},
      {"LogSoftmax", "softmax (the loss is the same cross-entropy)", "the model's output only"},
      {"Identity", "passes its input on", ""},
      {"Pad", "the padding of the pooling or convolution that reads it",
       "zeros, height and width only, the same before and after"},
      {"Constant, Shape, Gather, Unsqueeze, Concat, Slice, Expand, Equal, Where, ... on integer "
       "or boolean tensors",
       "shape and index arithmetic: folded by shape inference, no layer", ""},
  };
  return ops;
}

namespace {

using Dims = std::vector<std::int64_t>;

std::string dims_text(const Dims& d) {
  std::string s;
  for (std::int64_t v : d)
    s += (s.empty() ? "" : "x") + (v < 0 ? std::string("?") : std::to_string(v));
  return s.empty() ? "scalar" : s;
}

std::int64_t product(const Dims& d) {
  std::int64_t p = 1;
  for (std::int64_t v : d) p *= v;
  return p;
}

Dims dims_of(const onnx::TypeProto& t) {
  Dims d;
  if (!t.has_tensor_type() || !t.tensor_type().has_shape()) return d;
  for (const auto& dim : t.tensor_type().shape().dim())
    d.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  return d;
}

bool integral(int elem) {
  return elem == onnx::TensorProto::INT64 || elem == onnx::TensorProto::INT32 ||
         elem == onnx::TensorProto::BOOL;
}

// How an ONNX tensor reads the output of the trainsim layer that produced it. A sequence layer
// holds S positions of C features (C x S x 1); PyTorch's attention splits the features into G
// heads with a Reshape and a Transpose, which trainsim's batched_matmul reads in place (a
// strided view, sim/workload/layers/batched_matmul.cpp), so those nodes become views, not
// layers.
enum class Form {
  kNatural,  ///< as the layer holds it: N x C x H x W, N x F, or N x S x C
  kSplit,    ///< N x S x G x C/G: the features split into heads
  kHeads,    ///< N x G x S x C/G: one S x C/G matrix per head (a batched_matmul's output)
  kHeadsT,   ///< N x G x C/G x S: the same, transposed (keys before Q K^T)
  kFlat,     ///< N x SC: a sequence flattened position by position (only at the output)
};
struct View {
  Form form = Form::kNatural;
  std::int64_t heads = 1;
};

class Importer {
 public:
  Importer(const std::string& bytes, const std::string& path, const std::string& name)
      : path_(path) {
    read(bytes);
    net_.name = name.empty() ? std::filesystem::path(path).stem().string() : name;
    net_.source = path;
    net_.init = InitSpec{};
  }

  OnnxImport run() {
    const onnx::GraphProto& g = model_.graph();
    for (const auto& vi : g.value_info()) note_value(vi);
    for (const auto& vi : g.output()) note_value(vi);
    // After the inferred types: a folded tensor's initializer is what it is.
    for (const auto& t : g.initializer()) {
      inits_[t.name()] = &t;
      shapes_[t.name()] = Dims(t.dims().begin(), t.dims().end());
      elem_[t.name()] = t.data_type();
    }
    find_input(g);
    for (const auto& n : g.node()) {
      for (const auto& in : n.input()) ++readers_[in];
      // Every Constant's value, for patterns that look ahead (GELU's 1 and 0.5).
      if (n.op_type() == "Constant" && n.output_size() == 1)
        for (const auto& a : n.attribute())
          if (a.name() == "value") constant_values_[n.output(0)] = &a.t();
    }
    const auto& nodes = g.node();
    for (int i = 0; i < nodes.size(); ++i) node(nodes[i], i);
    finish(g);
    OnnxImport out;
    out.network = net_;
    out.initializer_parameters = init_params_;
    out.producer = model_.producer_name() +
                   (model_.producer_version().empty() ? "" : " " + model_.producer_version());
    for (const auto& o : model_.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") out.opset = o.version();
    out.nodes = nodes_;
    out.folded = folded_nodes_;
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { throw UserError(path_ + ": " + why); }
  [[noreturn]] void fail(const onnx::NodeProto& n, const std::string& why) const {
    fail("node '" + n.name() + "' (" + n.op_type() + "): " + why);
  }

  void read(const std::string& bytes) {
    if (!model_.ParseFromString(bytes) || !model_.has_graph())
      fail("not a complete ONNX model (truncated, or not ONNX's binary ModelProto)");
    check_window_attributes();
    check_references();
    try {
      // A free batch dimension is fixed at 1, so that integer arithmetic on the input's shape
      // (position ids, masks) folds to constants; trainsim's layers are per sample anyway.
      for (auto& vi : *model_.mutable_graph()->mutable_input()) {
        if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) continue;
        auto* shape = vi.mutable_type()->mutable_tensor_type()->mutable_shape();
        if (shape->dim_size() > 1 && !shape->dim(0).has_dim_value())
          shape->mutable_dim(0)->set_dim_value(1);
      }
      nodes_ = model_.graph().node_size();
      // Gelu became an ONNX operator in opset 20; ONNX 1.12 has no schema for it, so its
      // output would have no shape, nor anything after it. For shape inference it is the
      // element-wise Relu it is shaped like; node() makes it a gelu layer.
      for (auto& n : *model_.mutable_graph()->mutable_node())
        if (n.op_type() == "Gelu" && (n.domain().empty() || n.domain() == "ai.onnx")) {
          n.set_op_type("Relu");
          n.clear_attribute();  // approximate: none or tanh, the same cost in trainsim
          gelu_nodes_.insert(n.output_size() > 0 ? n.output(0) : "");
        }
      folded_nodes_ = fold_integer_constants(model_);
      // Strict: a node whose shapes do not follow from its inputs is an error, not a gap.
      onnx::shape_inference::InferShapes(model_, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(true, 1, true));
    } catch (const std::exception& e) {
      std::string what = e.what();
      what.erase(std::remove(what.begin(), what.end(), '\n'), what.end());
      fail("shape inference failed: " + what);
    }
  }

  // ONNX's shape inference divides by strides, dilations and groups without checking them
  // (a MaxPool with a stride of 0 stops the process with SIGFPE, found by the fuzzer), so
  // the window attributes of every node are checked before it runs.
  void check_window_attributes() const {
    for (const auto& n : model_.graph().node())
      for (const auto& a : n.attribute()) {
        const std::string& name = a.name();
        const bool positive =
            name == "strides" || name == "dilations" || name == "kernel_shape" || name == "group";
        const bool non_negative = name == "pads" || name == "output_padding";
        if (!positive && !non_negative) continue;
        Dims v(a.ints().begin(), a.ints().end());
        if (a.type() == onnx::AttributeProto::INT) v = {a.i()};
        std::string values;
        for (std::int64_t x : v) values += (values.empty() ? "" : " ") + std::to_string(x);
        for (std::int64_t x : v)
          if (x < (positive ? 1 : 0))
            fail(n, name + " [" + values + "]" +
                        (positive ? " must be at least 1" : " must not be negative"));
      }
  }

  // ONNX graphs list their nodes in topological order, each input named before it is read.
  // Shape inference dereferences a missing input's type (a SEGV in ONNX 1.12, found by the
  // fuzzer), so a name no input, initializer or earlier node gives is refused first.
  void check_references() const {
    const onnx::GraphProto& g = model_.graph();
    std::set<std::string> known;
    for (const auto& vi : g.input()) known.insert(vi.name());
    for (const auto& t : g.initializer()) known.insert(t.name());
    for (const auto& n : g.node()) {
      for (const auto& in : n.input())
        if (!in.empty() && !known.count(in))
          fail(n, "reads '" + in + "', which no graph input, initializer or earlier node gives");
      for (const auto& out : n.output()) known.insert(out);
    }
    for (const auto& vi : g.output())
      if (!known.count(vi.name()))
        fail("the graph output '" + vi.name() + "' is produced by no node");
  }

  void note_value(const onnx::ValueInfoProto& vi) {
    shapes_[vi.name()] = dims_of(vi.type());
    elem_[vi.name()] = vi.type().has_tensor_type() ? vi.type().tensor_type().elem_type() : 0;
  }

  void find_input(const onnx::GraphProto& g) {
    std::vector<const onnx::ValueInfoProto*> data;
    for (const auto& vi : g.input())
      if (!inits_.count(vi.name())) data.push_back(&vi);
    if (data.size() != 1) {
      std::string names;
      for (const auto* vi : data) names += (names.empty() ? "'" : ", '") + vi->name() + "'";
      fail("the graph has " + std::to_string(data.size()) + " data inputs" +
           (names.empty() ? "" : " (" + names + ")") + "; trainsim networks read one");
    }
    const Dims d = dims_of(data[0]->type());
    for (std::size_t i = 1; i < d.size(); ++i)
      if (d[i] <= 0)
        fail("input '" + data[0]->name() + "' has a dimension that is not fixed (" + dims_text(d) +
             ", dimension " + std::to_string(i) +
             "): export with an example input of the size to train");
    if (d.size() == 4) {
      net_.input = {{static_cast<int>(d[1]), static_cast<int>(d[2]), static_cast<int>(d[3])}};
    } else if (d.size() == 2 && integral(data[0]->type().tensor_type().elem_type())) {
      // Token ids, N x S: trainsim's sequences are one id per position, 1 x S x 1.
      net_.input = {{1, static_cast<int>(d[1]), 1}};
    } else if (d.size() == 2) {
      net_.input = {{static_cast<int>(d[1]), 1, 1}};
    } else {
      fail("input '" + data[0]->name() + "' has shape " + dims_text(d) +
           "; trainsim networks read N x C x H x W or N x F");
    }
    shapes_[data[0]->name()] = d;
    producer_[data[0]->name()] = "input";
    input_ = data[0]->name();
  }

  // ---- attributes ----
  const onnx::AttributeProto* attr(const onnx::NodeProto& n, const std::string& a) const {
    for (const auto& x : n.attribute())
      if (x.name() == a) return &x;
    return nullptr;
  }
  std::int64_t attr_int(const onnx::NodeProto& n, const std::string& a, std::int64_t dflt) const {
    const auto* x = attr(n, a);
    return x ? x->i() : dflt;
  }
  float attr_float(const onnx::NodeProto& n, const std::string& a, float dflt) const {
    const auto* x = attr(n, a);
    return x ? x->f() : dflt;
  }
  Dims attr_ints(const onnx::NodeProto& n, const std::string& a, Dims dflt) const {
    const auto* x = attr(n, a);
    return x ? Dims(x->ints().begin(), x->ints().end()) : dflt;
  }

  // ---- tensors ----
  bool is_constant(const std::string& t) const { return inits_.count(t) || constants_.count(t); }
  Dims init_dims(const onnx::NodeProto& n, int k, const char* what) const {
    if (n.input_size() <= k || n.input(k).empty()) fail(n, std::string("has no ") + what);
    if (auto f = folded_.find(n.input(k)); f != folded_.end()) {
      checked_dims(n, f->second.source, what);
      return f->second.dims;  // the initializer's, permuted
    }
    auto it = inits_.find(n.input(k));
    if (it == inits_.end())
      fail(n, std::string("its ") + what + " is not a constant (an initializer)");
    return checked_dims(n, it->second, what);
  }
  Dims checked_dims(const onnx::NodeProto& n, const onnx::TensorProto* t, const char* what) const {
    const Dims d(t->dims().begin(), t->dims().end());
    // Sizes a layer can have: none negative or past an int (a layer's fields are ints), and
    // their product far from overflowing (the network's own limits are checked later, by the
    // network parser). Each dimension on its own too: a zero among them makes the product
    // small while a running product of the others overflows (found by the fuzzer).
    long double size = 1;
    for (std::int64_t v : d) size *= static_cast<long double>(v);
    for (std::int64_t v : d)
      if (v < 0 || v > std::numeric_limits<std::int32_t>::max() ||
          size > static_cast<long double>(std::int64_t{1} << 50))
        fail(n, std::string("its ") + what + " has impossible dimensions " + dims_text(d));
    return d;
  }
  bool has_input(const onnx::NodeProto& n, int k) const {
    return n.input_size() > k && !n.input(k).empty();
  }
  Dims shape(const onnx::NodeProto& n, const std::string& t) const {
    auto it = shapes_.find(t);
    if (it == shapes_.end() || it->second.empty())
      fail(n, "shape inference gave no shape for '" + t + "'");
    return it->second;
  }
  // The layer that produced activation t.
  const std::string& source(const onnx::NodeProto& n, const std::string& t) const {
    auto it = producer_.find(t);
    if (it == producer_.end())
      fail(n, is_constant(t)
                  ? "reads the constant '" + t + "' where trainsim needs a layer's output"
                  : "reads '" + t + "', which no supported node produced");
    return it->second;
  }

  std::string layer_name(const onnx::NodeProto& n, int index, const std::string& hint = "") {
    std::string s = hint.empty() ? n.name() : hint;
    std::replace(s.begin(), s.end(), '/', '.');
    while (!s.empty() && s.front() == '.') s.erase(s.begin());
    if (s.empty()) {
      s = n.op_type();
      std::transform(s.begin(), s.end(), s.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      s += "_" + std::to_string(index);
    }
    if (s == "input") s = "input_layer";
    std::string unique = s;
    for (int k = 2; names_.count(unique); ++k) unique = s + "_" + std::to_string(k);
    names_.insert(unique);
    return unique;
  }

  // Appends a layer reading `inputs` (activation tensors) and producing n.output(0).
  // Its output reads the layer as the layer holds it (Form::kNatural) unless the caller says
  // otherwise; `hint` names a layer made of several nodes.
  LayerSpec& add(const onnx::NodeProto& n, int index, const std::string& type,
                 const std::vector<std::string>& inputs, const std::string& hint = "") {
    LayerSpec l;
    l.type = type;
    l.name = layer_name(n, index, hint);
    std::vector<std::string> from;
    for (const auto& t : inputs) from.push_back(source(n, t));
    // Sequential unless it reads something other than its predecessor's output.
    const std::string previous = net_.layers.empty() ? "input" : net_.layers.back().name;
    if (!(from.size() == 1 && from[0] == previous)) l.from = from;
    producer_[n.output(0)] = l.name;
    views_.erase(n.output(0));
    net_.layers.push_back(l);
    return net_.layers.back();
  }

  // n's output is t, read the same way (or as `v`).
  void alias(const onnx::NodeProto& n, const std::string& t) { alias(n, t, view(t)); }
  void alias(const onnx::NodeProto& n, const std::string& t, View v) {
    producer_[n.output(0)] = source(n, t);
    views_[n.output(0)] = v;
  }

  View view(const std::string& t) const {
    auto it = views_.find(t);
    return it == views_.end() ? View{} : it->second;
  }
  // Layers other than element-wise ones and batched_matmul read their input as it is held.
  void need_natural(const onnx::NodeProto& n, const std::string& t) const {
    if (view(t).form != Form::kNatural)
      fail(n, "reads '" + t + "', a " +
                  (view(t).form == Form::kFlat
                       ? "flattened sequence"
                       : "per-head view of a layer's output (a Reshape or Transpose)") +
                  ", which trainsim's " + n.op_type() + " layer cannot read in place");
  }
  // Element-wise layers keep their input's view: the same values in the same places.
  void keep_view(const onnx::NodeProto& n, const std::string& t) {
    if (view(t).form != Form::kNatural) views_[n.output(0)] = view(t);
  }

  // The nodes that read tensor t.
  std::vector<const onnx::NodeProto*> readers(const std::string& t) const {
    std::vector<const onnx::NodeProto*> r;
    for (const auto& m : model_.graph().node())
      for (const auto& in : m.input())
        if (in == t) {
          r.push_back(&m);
          break;
        }
    return r;
  }
  const onnx::NodeProto* sole_reader(const std::string& t, const char* op) const {
    const auto r = readers(t);
    return r.size() == 1 && r[0]->op_type() == op ? r[0] : nullptr;
  }

  // The values of a float constant (an initializer, or a Constant node's value) of one value.
  bool scalar(const std::string& t, float& value) const {
    const onnx::TensorProto* p = nullptr;
    if (auto it = inits_.find(t); it != inits_.end()) p = it->second;
    if (auto it = constant_values_.find(t); it != constant_values_.end()) p = it->second;
    if (p == nullptr || p->data_type() != onnx::TensorProto::FLOAT) return false;
    std::int64_t count = 1;
    for (std::int64_t d : p->dims()) count *= d;
    if (count != 1) return false;
    if (p->float_data_size() == 1) {
      value = p->float_data(0);
      return true;
    }
    if (p->raw_data().size() != sizeof(float)) return false;
    std::copy(p->raw_data().begin(), p->raw_data().end(), reinterpret_cast<char*>(&value));
    return true;
  }
  // The other input of a two-input node, if `t` is one of its inputs.
  static std::string other_input(const onnx::NodeProto& m, const std::string& t) {
    if (m.input_size() != 2) return "";
    if (m.input(0) == t) return m.input(1);
    if (m.input(1) == t) return m.input(0);
    return "";
  }
  // The node's name without its last part ("/layers.0/gelu/Div" -> "/layers.0/gelu").
  static std::string scope(const onnx::NodeProto& n) {
    const auto slash = n.name().rfind('/');
    return slash == std::string::npos || slash == 0 ? "" : n.name().substr(0, slash);
  }

  // Symmetric 2-D pads ([h_begin, w_begin, h_end, w_end]) and equal strides, as LayerSpec holds.
  void window(const onnx::NodeProto& n, LayerSpec& l, const Dims& kernel) {
    if (kernel.size() != 2) fail(n, "is not 2-D (kernel_shape " + dims_text(kernel) + ")");
    const auto* ap = attr(n, "auto_pad");
    if (ap && ap->s() != "NOTSET" && ap->s() != "VALID")
      fail(n, "auto_pad " + ap->s() + " is not supported (export with explicit pads)");
    const Dims pads = attr_ints(n, "pads", {0, 0, 0, 0});
    if (pads.size() != 4 || pads[0] != pads[2] || pads[1] != pads[3])
      fail(n, "pads " + dims_text(pads) + " are not the same before and after");
    const Dims strides = attr_ints(n, "strides", {1, 1});
    if (strides.size() != 2 || strides[0] != strides[1])
      fail(n, "strides " + dims_text(strides) + " differ between height and width");
    for (std::int64_t d : attr_ints(n, "dilations", {1, 1}))
      if (d != 1) fail(n, "is dilated; trainsim's layers are not");
    std::int64_t ph = pads[0], pw = pads[1];
    auto padded = pads_.find(n.input(0));
    if (padded != pads_.end()) {  // a zero Pad just before: this layer's own padding
      ph += padded->second[0];
      pw += padded->second[1];
      pads_.erase(padded);
    }
    l.kernel = static_cast<int>(kernel[0]);
    l.kernel_w = kernel[1] == kernel[0] ? -1 : static_cast<int>(kernel[1]);
    l.padding = static_cast<int>(ph);
    l.padding_w = pw == ph ? -1 : static_cast<int>(pw);
    l.stride = static_cast<int>(strides[0]);
  }

  // A MatMul's single reader, if it is an Add of a constant vector of `units` values: its bias.
  const onnx::NodeProto* bias_add(const onnx::NodeProto& n, std::int64_t units) const {
    if (readers_.at(n.output(0)) != 1) return nullptr;
    for (const auto& m : model_.graph().node()) {
      if (m.op_type() != "Add" || m.input_size() != 2) continue;
      for (int k = 0; k < 2; ++k) {
        if (m.input(k) != n.output(0)) continue;
        auto it = inits_.find(m.input(1 - k));
        if (it != inits_.end() && it->second->dims_size() == 1 && it->second->dims(0) == units)
          return &m;
      }
    }
    return nullptr;
  }

  // The integer values of a constant (an initializer or a Constant node's output).
  Dims int_values(const onnx::NodeProto& n, const std::string& t) const {
    const onnx::TensorProto* p = nullptr;
    if (auto it = inits_.find(t); it != inits_.end()) p = it->second;
    if (auto it = constant_values_.find(t); it != constant_values_.end()) p = it->second;
    if (p == nullptr) fail(n, "'" + t + "' is not a constant");
    Dims v(p->int64_data().begin(), p->int64_data().end());
    if (v.empty() && p->data_type() == onnx::TensorProto::INT64) {
      const std::string& raw = p->raw_data();
      v.resize(raw.size() / sizeof(std::int64_t));
      std::copy(raw.begin(),
                raw.begin() + static_cast<std::ptrdiff_t>(v.size() * sizeof(std::int64_t)),
                reinterpret_cast<char*>(v.data()));
    }
    return v;
  }

  // A zero Pad of height and width only, as PyTorch exports a padded average pool: kept for
  // the pooling or convolution that reads it (window()), which takes it as its padding.
  void pad(const onnx::NodeProto& n, const std::string& x) {
    const auto* mode = attr(n, "mode");
    if (mode && mode->s() != "constant") fail(n, "pads with mode '" + mode->s() + "', not zeros");
    if (has_input(n, 2)) {
      auto it = inits_.find(n.input(2));
      const onnx::TensorProto* v = it != inits_.end() ? it->second : nullptr;
      if (auto ct = constant_values_.find(n.input(2)); ct != constant_values_.end()) v = ct->second;
      bool zero = v != nullptr;
      if (v != nullptr)
        for (char ch : v->raw_data()) zero = zero && ch == 0;
      if (v != nullptr)
        for (float f : v->float_data()) zero = zero && f == 0.0f;
      if (!zero) fail(n, "pads with a value other than zero");
    }
    const Dims p = has_input(n, 1) ? int_values(n, n.input(1)) : attr_ints(n, "pads", {});
    if (p.size() != 8 || p[0] != 0 || p[1] != 0 || p[4] != 0 || p[5] != 0 || p[2] != p[6] ||
        p[3] != p[7])
      fail(n, "pads " + dims_text(p) + " are not the same zeros before and after height and width");
    int readers = 0;
    for (const auto& m : model_.graph().node())
      for (const auto& in : m.input())
        if (in == n.output(0)) {
          ++readers;
          if (m.op_type() != "AveragePool" && m.op_type() != "MaxPool" && m.op_type() != "Conv")
            fail(n, "is read by a " + m.op_type() +
                        "; trainsim pads only in a pooling or a convolution");
        }
    if (readers != 1) fail(n, "is read by " + std::to_string(readers) + " nodes, not one");
    pads_[n.output(0)] = {p[2], p[3]};
    alias(n, x);
  }

  static std::string perm_text(const Dims& p) {
    std::string s;
    for (std::int64_t v : p) s += (s.empty() ? "" : " ") + std::to_string(v);
    return "(" + s + ")";
  }
  // The permutation a Transpose gives (reversed axes by default), checked to be one.
  Dims permutation(const onnx::NodeProto& n, std::size_t rank) const {
    Dims p = attr_ints(n, "perm", {});
    if (p.empty())
      for (std::size_t i = rank; i-- > 0;) p.push_back(static_cast<std::int64_t>(i));
    Dims sorted = p;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i)
      if (sorted.size() != rank || sorted[i] != static_cast<std::int64_t>(i))
        fail(n,
             "perm " + perm_text(p) + " is not a permutation of " + std::to_string(rank) + " axes");
    return p;
  }

  // A Transpose of a weight (PyTorch's Linear exports W^T so): folded, the layer reads the
  // weight with the dimensions permuted and counts the initializer's parameters.
  void fold_transpose(const onnx::NodeProto& n) {
    const std::string& x = n.input(0);
    Folded f;
    if (auto it = folded_.find(x); it != folded_.end()) {
      f = it->second;
    } else if (auto init = inits_.find(x); init != inits_.end()) {
      f.source = init->second;
      f.dims = checked_dims(n, f.source, "input");
    } else {
      fail(n, "transposes the constant '" + x + "', which is not an initializer");
    }
    const Dims p = permutation(n, f.dims.size());
    Dims d;
    for (std::int64_t axis : p) d.push_back(f.dims[static_cast<std::size_t>(axis)]);
    f.dims = d;
    folded_[n.output(0)] = f;
    constants_.insert(n.output(0));
  }

  // Gather from a constant table by token ids: trainsim's embedding, which reads the input's
  // ids. Ids that are constants (positions 0 .. S-1, one segment) cost the same lookup.
  void embedding(const onnx::NodeProto& n, int index) {
    if (n.input_size() != 2) fail(n, "does not have two inputs");
    const std::string &table = n.input(0), &ids = n.input(1);
    if (!is_constant(table))
      fail(n, "gathers from '" + table + "', not a constant table; trainsim's embedding is one");
    if (attr_int(n, "axis", 0) != 0) fail(n, "gathers along an axis other than 0 (rows)");
    const Dims t = init_dims(n, 0, "table");
    if (t.size() != 2) fail(n, "its table " + dims_text(t) + " is not 2-D");
    int elem = 0;
    if (auto it = elem_.find(ids); it != elem_.end()) elem = it->second;
    if (auto it = inits_.find(ids); it != inits_.end()) elem = it->second->data_type();
    const bool from_input = producer_.count(ids) && producer_.at(ids) == "input";
    if (!from_input && !(is_constant(ids) && integral(elem)))
      fail(n, "looks up '" + ids + "', neither the token ids nor constant ids");
    const Dims d = shape(n, ids);
    if (input_.empty() || net_.input[0] != 1 || shape(n, input_).size() != 2)
      fail(n, "looks up ids, but the model's input is not N x S token ids");
    if (d.size() != 2 || d[1] != net_.input[1])
      fail(n, "looks up ids of shape " + dims_text(d) + ", not one per position of the " +
                  std::to_string(net_.input[1]) + " the input has");
    LayerSpec& l = add(n, index, "embedding", {input_});
    l.vocab = static_cast<int>(t[0]);
    l.units = static_cast<int>(t[1]);
    init_params_ += product(t);
  }

  // GELU as PyTorch exports nn.GELU (before opset 20): x * (1 + erf(x / sqrt 2)) * 0.5, from
  // its Div. One gelu layer for the five nodes; false if the Div starts no such chain.
  bool gelu(const onnx::NodeProto& n, int index) {
    float v = 0;
    if (n.input_size() != 2 || !scalar(n.input(1), v) || std::abs(v - 1.41421356f) > 1e-3f)
      return false;
    const std::string& x = n.input(0);
    const auto* erf = sole_reader(n.output(0), "Erf");
    const auto* plus = erf ? sole_reader(erf->output(0), "Add") : nullptr;
    if (!plus || !scalar(other_input(*plus, erf->output(0)), v) || v != 1.0f) return false;
    const auto* times_x = sole_reader(plus->output(0), "Mul");
    if (!times_x || other_input(*times_x, plus->output(0)) != x) return false;
    const auto* half = sole_reader(times_x->output(0), "Mul");
    if (!half || !scalar(other_input(*half, times_x->output(0)), v) || v != 0.5f) return false;
    add(n, index, "gelu", {x}, scope(n));
    keep_view(n, x);
    for (const auto* m : {erf, plus, times_x, half}) absorbed_.insert(m);
    producer_[half->output(0)] = producer_.at(n.output(0));
    views_[half->output(0)] = view(n.output(0));
    return true;
  }

  // How a MatMul operand reads its layer: heads, and whether transposed.
  void operand(const onnx::NodeProto& n, const std::string& t, std::int64_t& heads,
               bool& transposed) const {
    const View v = view(t);
    const std::size_t rank = shape(n, t).size();
    transposed = v.form == Form::kHeadsT;
    heads = v.heads;
    if ((v.form == Form::kNatural && rank == 3) ||
        ((v.form == Form::kHeads || v.form == Form::kHeadsT) && rank == 4) ||
        (v.form == Form::kHeadsT && rank == 3))
      return;
    fail(n, "multiplies '" + t + "' (" + dims_text(shape(n, t)) +
                "), not a sequence layer's N x S x C or its N x G x S x C/G heads");
  }

  // A product of two layers' outputs (attention's Q K^T and P V): trainsim's batched_matmul.
  void batched_matmul(const onnx::NodeProto& n, int index) {
    if (n.input_size() != 2) fail(n, "does not have two inputs");
    std::int64_t ga = 1, gb = 1;
    bool ta = false, tb = false;
    operand(n, n.input(0), ga, ta);
    operand(n, n.input(1), gb, tb);
    if (ta) fail(n, "its first operand is transposed; trainsim's batched_matmul transposes B only");
    if (ga != gb)
      fail(n, "multiplies " + std::to_string(ga) + " heads by " + std::to_string(gb) + " heads");
    LayerSpec& l = add(n, index, "batched_matmul", {n.input(0), n.input(1)});
    l.heads = static_cast<int>(ga);
    l.transpose_b = tb;
    // Head g's product is the features [g N, (g + 1) N) of each position: N x G x M x N.
    if (shape(n, n.output(0)).size() == 4) views_[n.output(0)] = View{Form::kHeads, ga};
  }

  // A Transpose of a layer's output that trainsim reads in place.
  void transpose(const onnx::NodeProto& n) {
    const std::string& x = n.input(0);
    const View v = view(x);
    const Dims p = permutation(n, shape(n, x).size());
    auto is = [&](Form f, Dims q) { return v.form == f && p == q; };
    Form to;
    if (is(Form::kSplit, {0, 2, 1, 3})) {
      to = Form::kHeads;
    } else if (is(Form::kHeads, {0, 2, 1, 3})) {
      to = Form::kSplit;
    } else if (is(Form::kSplit, {0, 2, 3, 1}) || is(Form::kHeads, {0, 1, 3, 2}) ||
               (is(Form::kNatural, {0, 2, 1}) && v.heads == 1)) {
      to = Form::kHeadsT;
    } else if (is(Form::kHeadsT, {0, 1, 3, 2})) {
      to = Form::kHeads;
    } else if (is(Form::kHeadsT, {0, 2, 1}) && p.size() == 3) {
      to = Form::kNatural;
    } else {
      fail(n, "permutes " + dims_text(shape(n, x)) + " by " + perm_text(p) +
                  ", not a head split or a transpose trainsim reads in place");
    }
    alias(n, x, View{to, v.heads});
  }

  // Reshapes and flattenings of sequences that are views: the head split and its undoing, and
  // the flattening of the output. False for the others (an image's flatten is a layer).
  bool reshape_view(const onnx::NodeProto& n) {
    const std::string& x = n.input(0);
    const Dims in = shape(n, x), out = shape(n, n.output(0));
    const View v = view(x);
    if (v.form == Form::kNatural && in.size() == 3 && out.size() == 4 && out[1] == in[1] &&
        out[2] > 0 && out[2] * out[3] == in[2]) {
      alias(n, x, View{Form::kSplit, out[2]});
    } else if (v.form == Form::kSplit && in.size() == 4 && out.size() == 3 && out[1] == in[1] &&
               out[2] == in[2] * in[3]) {
      alias(n, x, View{});
    } else if (v.form == Form::kNatural && in.size() == 3 && out.size() == 2 &&
               out[1] == in[1] * in[2] &&
               (n.op_type() == "Reshape" || attr_int(n, "axis", 1) == 1)) {
      // Position by position, where trainsim holds features by position: the same values in
      // another order, which only the loss reads (checked when anything else does).
      alias(n, x, View{Form::kFlat, 1});
    } else {
      return false;
    }
    return true;
  }

  void node(const onnx::NodeProto& n, int index) {
    const std::string& op = n.op_type();
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      fail(n, "is in domain '" + n.domain() + "', not ONNX's own");
    if (absorbed_.count(&n)) return;
    if (op == "Constant") {
      for (const auto& o : n.output()) constants_.insert(o);
      if (const auto* v = attr(n, "value")) constant_values_[n.output(0)] = &v->t();
      return;
    }
    // Shape and index arithmetic (integer and boolean tensors: shapes, position ids, masks):
    // shape inference has folded it into the shapes, and no layer computes it.
    if (n.output_size() > 0) {
      bool shape_only = true;
      for (const auto& o : n.output()) {
        auto it = elem_.find(o);
        shape_only = shape_only && it != elem_.end() && integral(it->second);
      }
      if (shape_only) {
        for (const auto& o : n.output()) constants_.insert(o);
        return;
      }
    }
    if (n.input_size() == 0) fail(n, "has no input");
    const std::string& x = n.input(0);
    if (op == "Transpose" && is_constant(x)) {
      fold_transpose(n);
      return;
    }
    if (op == "Gather") {
      embedding(n, index);
      return;
    }
    if (op == "Div" && gelu(n, index)) return;
    static const std::set<std::string> in_place = {
        "Relu", "LeakyRelu", "Sigmoid",   "Tanh",    "Dropout", "Identity", "Softmax", "LogSoftmax",
        "Add",  "MatMul",    "Transpose", "Reshape", "Flatten", "Div",      "Mul"};
    if (!in_place.count(op)) need_natural(n, x);
    if (op == "Conv") {
      const Dims w = init_dims(n, 1, "weight");
      if (w.size() != 4) fail(n, "is not 2-D (weight " + dims_text(w) + ")");
      LayerSpec& l = add(n, index, "conv2d", {x});
      window(n, l, attr_ints(n, "kernel_shape", {w[2], w[3]}));
      l.filters = static_cast<int>(w[0]);
      l.groups = static_cast<int>(attr_int(n, "group", 1));
      l.bias = has_input(n, 2);
      init_params_ += product(w) + (l.bias ? product(init_dims(n, 2, "bias")) : 0);
    } else if (op == "ConvTranspose") {
      const Dims w = init_dims(n, 1, "weight");
      if (w.size() != 4) fail(n, "is not 2-D (weight " + dims_text(w) + ")");
      if (attr_int(n, "group", 1) != 1) fail(n, "is grouped; trainsim's conv2d_transpose is not");
      if (attr(n, "output_shape")) fail(n, "gives output_shape; export with pads instead");
      LayerSpec& l = add(n, index, "conv2d_transpose", {x});
      window(n, l, attr_ints(n, "kernel_shape", {w[2], w[3]}));
      if (l.kernel_w >= 0 || l.padding_w >= 0)
        fail(n, "has a rectangular kernel or padding; trainsim's conv2d_transpose is square");
      const Dims op_pad = attr_ints(n, "output_padding", {0, 0});
      if (op_pad.size() != 2 || op_pad[0] != op_pad[1])
        fail(n, "output_padding " + dims_text(op_pad) + " differs between height and width");
      l.output_padding = static_cast<int>(op_pad[0]);
      l.filters = static_cast<int>(w[1]);
      l.bias = has_input(n, 2);
      init_params_ += product(w) + (l.bias ? product(init_dims(n, 2, "bias")) : 0);
    } else if (op == "Gemm") {
      const Dims b = init_dims(n, 1, "weight (B)");
      if (b.size() != 2) fail(n, "its weight " + dims_text(b) + " is not 2-D");
      if (attr_int(n, "transA", 0) != 0 || attr_float(n, "alpha", 1) != 1.0f ||
          (has_input(n, 2) && attr_float(n, "beta", 1) != 1.0f))
        fail(n, "transA, alpha or beta is not the default (Y = A B + C)");
      if (shape(n, x).size() != 2) fail(n, "its input " + dims_text(shape(n, x)) + " is not 2-D");
      LayerSpec& l = add(n, index, "dense", {x});
      l.units = static_cast<int>(attr_int(n, "transB", 0) ? b[0] : b[1]);
      l.bias = has_input(n, 2);
      init_params_ += product(b) + (l.bias ? product(init_dims(n, 2, "bias (C)")) : 0);
    } else if (op == "MatMul" && !(n.input_size() == 2 && is_constant(n.input(1)))) {
      batched_matmul(n, index);
    } else if (op == "MatMul") {
      const Dims b = init_dims(n, 1, "weight");
      if (b.size() != 2) fail(n, "its weight " + dims_text(b) + " is not 2-D");
      need_natural(n, x);
      const std::size_t rank = shape(n, x).size();
      if (rank != 2 && rank != 3)
        fail(n, "its input " + dims_text(shape(n, x)) + " is neither N x F nor N x S x C");
      const onnx::NodeProto* bias = bias_add(n, b[1]);
      // At every position of a sequence (N x S x C): trainsim's linear.
      LayerSpec& l = add(n, index, rank == 2 ? "dense" : "linear", {x});
      l.units = static_cast<int>(b[1]);
      l.bias = bias != nullptr;
      init_params_ += product(b) + (l.bias ? b[1] : 0);
      if (bias) {
        absorbed_.insert(bias);
        producer_[bias->output(0)] = l.name;
      }
    } else if (op == "LayerNormalization") {
      const std::int64_t rank = static_cast<std::int64_t>(shape(n, x).size());
      std::int64_t axis = attr_int(n, "axis", -1);
      if (axis < 0) axis += rank;
      if (rank != 3 || axis != 2)
        fail(n, "normalizes from axis " + std::to_string(axis) + " of " + dims_text(shape(n, x)) +
                    "; trainsim's layernorm normalizes the features (the last axis) of N x S x C");
      const Dims scale = init_dims(n, 1, "scale");
      add(n, index, "layernorm", {x});
      init_params_ += product(scale) + (has_input(n, 2) ? product(init_dims(n, 2, "bias")) : 0);
    } else if (op == "BatchNormalization") {
      const Dims scale = init_dims(n, 1, "scale");
      const Dims shift = init_dims(n, 2, "bias");
      add(n, index, "batchnorm", {x});
      init_params_ += product(scale) + product(shift);
    } else if (op == "Relu") {
      add(n, index, gelu_nodes_.count(n.output(0)) ? "gelu" : "relu", {x});
      keep_view(n, x);
    } else if (op == "LeakyRelu") {
      add(n, index, "leaky_relu", {x}).slope = attr_float(n, "alpha", 0.01f);
      keep_view(n, x);
    } else if (op == "Sigmoid" || op == "Tanh") {
      add(n, index, op == "Sigmoid" ? "sigmoid" : "tanh", {x});
      keep_view(n, x);
    } else if (op == "Div" || op == "Mul") {
      // A scale by one constant (attention's 1 / sqrt(d)): folded, as trainsim's batched_matmul
      // and the zoo's attention have no pass for it.
      float v = 0;
      if (n.input_size() != 2 || is_constant(x) || !scalar(n.input(1), v))
        fail(n, "is not a scale by one constant; trainsim has no element-wise " + op + " layer");
      alias(n, x);
    } else if (op == "Add") {
      if (n.input_size() != 2) fail(n, "does not have two inputs");
      for (int k = 0; k < 2; ++k)
        if (is_constant(n.input(k)))
          fail(n, "adds the constant '" + n.input(k) + "'; trainsim's add joins layers' outputs");
      Dims a = shape(n, n.input(0)), b = shape(n, n.input(1));
      // One sample's tensor repeated over the batch (a position embedding looked up by
      // constant ids, 1 x S x C): trainsim's layers hold one sample's values either way.
      if (a.size() == b.size() && !a.empty() && (a[0] == 1 || b[0] == 1)) a[0] = b[0] = 1;
      if (a != b)
        fail(n, "adds shapes " + dims_text(shape(n, n.input(0))) + " and " +
                    dims_text(shape(n, n.input(1))) + " (broadcasting)");
      const View va = view(n.input(0)), vb = view(n.input(1));
      if (va.form != vb.form || va.heads != vb.heads)
        fail(n, "adds two views of layers' outputs laid out differently");
      add(n, index, "add", {n.input(0), n.input(1)});
      keep_view(n, x);
    } else if (op == "Concat") {
      std::int64_t axis = attr_int(n, "axis", 1);
      const Dims d = shape(n, x);
      if (axis < 0) axis += static_cast<std::int64_t>(d.size());
      if (axis != 1 || d.size() != 4)
        fail(n, "concatenates along axis " + std::to_string(axis) + " of " + dims_text(d) +
                    "; trainsim joins channels");
      add(n, index, "concat", std::vector<std::string>(n.input().begin(), n.input().end()));
    } else if (op == "MaxPool" || op == "AveragePool") {
      if (attr_int(n, "ceil_mode", 0) != 0) fail(n, "ceil_mode 1 is not supported");
      if (n.output_size() > 1 && !n.output(1).empty())
        fail(n, "its Indices output is not supported");
      LayerSpec& l = add(n, index, op == "MaxPool" ? "maxpool2d" : "avgpool2d", {x});
      window(n, l, attr_ints(n, "kernel_shape", {}));
    } else if (op == "GlobalAveragePool") {
      add(n, index, "global_avgpool", {x});
    } else if (op == "ReduceMean") {
      Dims axes = attr_ints(n, "axes", {});
      if (axes.empty() && has_input(n, 1)) fail(n, "takes its axes as an input (opset 18)");
      const std::int64_t rank = static_cast<std::int64_t>(shape(n, x).size());
      for (auto& a : axes)
        if (a < 0) a += rank;
      std::sort(axes.begin(), axes.end());
      const bool image = axes == Dims{2, 3} && attr_int(n, "keepdims", 1) == 1 && rank == 4;
      // The mean over a sequence's positions, one vector per sample (mean pooling).
      const bool sequence = axes == Dims{1} && attr_int(n, "keepdims", 1) == 0 && rank == 3;
      if (!image && !sequence)
        fail(n,
             "is not a mean over height and width with keepdims = 1, nor over the positions "
             "of N x S x C with keepdims = 0");
      add(n, index, "global_avgpool", {x});
    } else if (op == "Transpose") {
      transpose(n);
    } else if ((op == "Flatten" || op == "Reshape") && reshape_view(n)) {
      // a view of the same layer output
    } else if (op == "Flatten" || op == "Reshape") {
      need_natural(n, x);
      const Dims in = shape(n, x), out = shape(n, n.output(0));
      if (op == "Flatten" && attr_int(n, "axis", 1) != 1) fail(n, "axis is not 1");
      if (out.size() != 2 || (in.size() != 4 && in.size() != 2) ||
          (in.size() == 4 && out[1] != in[1] * in[2] * in[3]))
        fail(n, "reshapes " + dims_text(in) + " to " + dims_text(out) +
                    "; trainsim flattens N x C x H x W to N x CHW only");
      if (in.size() == 2) {
        alias(n, x);  // already flat
      } else {
        add(n, index, "flatten", {x});
      }
    } else if (op == "Dropout") {
      float rate = attr_float(n, "ratio", 0.5f);
      if (has_input(n, 1)) {
        const onnx::TensorProto* p = nullptr;
        if (auto it = inits_.find(n.input(1)); it != inits_.end()) p = it->second;
        if (auto it = constant_values_.find(n.input(1)); it != constant_values_.end())
          p = it->second;
        if (p == nullptr) fail(n, "its ratio is not a constant");
        const onnx::TensorProto& t = *p;
        if (t.float_data_size() == 1) {
          rate = t.float_data(0);
        } else if (t.raw_data().size() == sizeof(float)) {
          std::copy(t.raw_data().begin(), t.raw_data().end(), reinterpret_cast<char*>(&rate));
        } else {
          fail(n, "its ratio has no value in the file");
        }
      }
      // The float's shortest decimal (0.1, not 0.10000000149011612 in double).
      char text[32];
      std::snprintf(text, sizeof text, "%.7g", static_cast<double>(rate));
      add(n, index, "dropout", {x}).rate = std::strtod(text, nullptr);
      keep_view(n, x);
    } else if (op == "Identity") {
      alias(n, x);
    } else if (op == "Pad") {
      pad(n, x);
    } else if (op == "Softmax" || op == "LogSoftmax") {
      bool is_output = false;
      for (const auto& o : model_.graph().output())
        is_output = is_output || o.name() == n.output(0);
      const std::int64_t rank = static_cast<std::int64_t>(shape(n, x).size());
      std::int64_t axis = attr_int(n, "axis", -1);
      if (axis < 0) axis += rank;
      // Inside the network: attention's probabilities, over the last axis of the scores.
      const bool attention = op == "Softmax" && rank >= 3 && axis == rank - 1;
      if (!is_output && !attention)
        fail(n,
             "is inside the network, not over the last axis of attention scores; trainsim's "
             "softmax there ends the network (with the loss)");
      add(n, index, "softmax", {x});
      if (!is_output) keep_view(n, x);
    } else {
      fail(n, "operator '" + op +
                  "' is not supported (`trainsim import --help` lists those that are)");
    }
  }

  void finish(const onnx::GraphProto& g) {
    if (g.output_size() != 1) {
      std::string names;
      for (const auto& o : g.output()) names += (names.empty() ? "'" : ", '") + o.name() + "'";
      fail("the graph has " + std::to_string(g.output_size()) + " outputs (" + names +
           "); trainsim trains networks with one");
    }
    const std::string& out = g.output(0).name();
    auto it = producer_.find(out);
    if (it == producer_.end() || it->second == "input")
      fail("the output '" + out + "' is not produced by a layer");
    const Dims d = shapes_[out];
    if (d.size() != 2 || d[1] <= 0)
      fail("the output '" + out + "' has shape " + dims_text(d) +
           "; trainsim's networks end in one vector of class scores per sample");
    net_.classes = static_cast<int>(d[1]);
    const bool last = !net_.layers.empty() && net_.layers.back().name == it->second;
    const OutputLoss loss = last ? output_loss(net_.layers.back().type) : OutputLoss::kNone;
    if (loss == OutputLoss::kBinary && d[1] == 1) {
      // One sigmoid value: trainsim's binary classifier (two classes, binary cross-entropy).
      net_.classes = 2;
    } else if (loss != OutputLoss::kCrossEntropy) {
      // Logits: trainsim's softmax, fused with the cross-entropy loss, ends the network.
      LayerSpec s;
      s.type = "softmax";
      s.name = "softmax";
      for (int k = 2; names_.count(s.name); ++k) s.name = "softmax_" + std::to_string(k);
      if (net_.layers.back().name != it->second) s.from = {it->second};
      net_.layers.push_back(s);
    }
    net_.description = "imported from " + std::filesystem::path(path_).filename().string() + " (" +
                       std::to_string(nodes_) + " ONNX nodes)";
  }

  std::string path_;
  onnx::ModelProto model_;
  NetworkSpec net_;
  std::map<std::string, Dims> shapes_;
  std::map<std::string, int> elem_;
  std::map<std::string, const onnx::TensorProto*> inits_;
  std::set<std::string> constants_;
  std::map<std::string, const onnx::TensorProto*> constant_values_;  // Constant nodes' values
  std::map<std::string, Dims> pads_;             // a Pad's output -> its height and width pads
  std::map<std::string, std::string> producer_;  // activation tensor -> layer name or "input"
  std::map<std::string, View> views_;            // activation tensor -> how it reads its layer
  struct Folded {
    const onnx::TensorProto* source = nullptr;  // the initializer
    Dims dims;                                  // its dimensions as the folded tensor has them
  };
  std::map<std::string, Folded> folded_;  // constants computed from initializers (Transpose)
  std::string input_;                     // the graph's data input
  int nodes_ = 0;                         // the graph's nodes, as the file has them
  std::set<std::string> gelu_nodes_;      // outputs of Gelu nodes (opset 20), read as Relu
  int folded_nodes_ = 0;                  // integer nodes evaluated into initializers
  std::map<std::string, int> readers_;
  std::set<const onnx::NodeProto*> absorbed_;
  std::set<std::string> names_;
  std::int64_t init_params_ = 0;
};

}  // namespace

OnnxImport import_onnx(const std::string& path, const std::string& name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot open the file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UserError(path + ": cannot read the file");
  return import_onnx_bytes(bytes, path, name);
}

OnnxImport import_onnx_bytes(const std::string& bytes, const std::string& where,
                             const std::string& name) {
  return Importer(bytes, where, name).run();
}

}  // namespace trainsim
