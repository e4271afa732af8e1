#include "sim/interop/onnx_import.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "sim/core/error.h"
#include "sim/interop/onnx_fold.h"
#include "sim/interop/onnx_importer.h"
#include "sim/io/file_set.h"
#include "sim/nn/layer_registry.h"

namespace trainsim {
namespace onnx_detail {

Importer::Importer(const std::string& bytes, const std::string& path, const std::string& name)
    : path_(path) {
  read(bytes);
  net_.name = name.empty() ? std::filesystem::path(path).stem().string() : name;
  net_.source = path;
  net_.init = InitSpec{};
}

OnnxImport Importer::run() {
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
    for (const auto& in : n.input()) {
      auto& users = users_[in];
      if (users.empty() || users.back() != &n) users.push_back(&n);  // a node once
    }
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

void Importer::fail(const std::string& why) const {
  throw UserError(path_ + ": " + why);
}

void Importer::fail(const onnx::NodeProto& n, const std::string& why) const {
  fail("node '" + n.name() + "' (" + n.op_type() + "): " + why);
}

void Importer::read(const std::string& bytes) {
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
    check_onnx_shapes(model_);
    onnx::shape_inference::InferShapes(model_, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(true, 1, false));
    check_onnx_shapes(model_);
  } catch (const std::exception& e) {
    std::string what = e.what();
    what.erase(std::remove(what.begin(), what.end(), '\n'), what.end());
    fail("shape inference failed: " + what);
  }
}

void Importer::check_window_attributes() const {
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

void Importer::check_references() const {
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

void Importer::note_value(const onnx::ValueInfoProto& vi) {
  shapes_[vi.name()] = dims_of(vi.type());
  elem_[vi.name()] = vi.type().has_tensor_type() ? vi.type().tensor_type().elem_type() : 0;
}

void Importer::find_input(const onnx::GraphProto& g) {
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

const onnx::AttributeProto* Importer::attr(const onnx::NodeProto& n, const std::string& a) const {
  for (const auto& x : n.attribute())
    if (x.name() == a) return &x;
  return nullptr;
}

std::int64_t Importer::attr_int(const onnx::NodeProto& n, const std::string& a,
                                std::int64_t dflt) const {
  const auto* x = attr(n, a);
  return x ? x->i() : dflt;
}

float Importer::attr_float(const onnx::NodeProto& n, const std::string& a, float dflt) const {
  const auto* x = attr(n, a);
  return x ? x->f() : dflt;
}

Dims Importer::attr_ints(const onnx::NodeProto& n, const std::string& a, Dims dflt) const {
  const auto* x = attr(n, a);
  return x ? Dims(x->ints().begin(), x->ints().end()) : dflt;
}

bool Importer::is_constant(const std::string& t) const {
  return inits_.count(t) || constants_.count(t);
}

Dims Importer::init_dims(const onnx::NodeProto& n, int k, const char* what) const {
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

Dims Importer::checked_dims(const onnx::NodeProto& n, const onnx::TensorProto* t,
                            const char* what) const {
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

bool Importer::has_input(const onnx::NodeProto& n, int k) const {
  return n.input_size() > k && !n.input(k).empty();
}

Dims Importer::shape(const onnx::NodeProto& n, const std::string& t) const {
  auto it = shapes_.find(t);
  if (it == shapes_.end() || it->second.empty())
    fail(n, "shape inference gave no shape for '" + t + "'");
  return it->second;
}

const std::string& Importer::source(const onnx::NodeProto& n, const std::string& t) const {
  auto it = producer_.find(t);
  if (it == producer_.end())
    fail(n, is_constant(t) ? "reads the constant '" + t + "' where trainsim needs a layer's output"
                           : "reads '" + t + "', which no supported node produced");
  return it->second;
}

std::string Importer::layer_name(const onnx::NodeProto& n, int index, const std::string& hint) {
  std::string s = hint.empty() ? n.name() : hint;
  std::replace(s.begin(), s.end(), '/', '.');
  while (!s.empty() && s.front() == '.') s.erase(s.begin());
  if (s.empty()) {
    s = n.op_type();
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    s += "_" + std::to_string(index);
  }
  if (s == "input") s = "input_layer";
  std::string unique = s;
  for (int k = 2; names_.count(unique); ++k) unique = s + "_" + std::to_string(k);
  names_.insert(unique);
  return unique;
}

LayerSpec& Importer::add(const onnx::NodeProto& n, int index, const std::string& type,
                         const std::vector<std::string>& inputs, const std::string& hint) {
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

void Importer::alias(const onnx::NodeProto& n, const std::string& t) {
  alias(n, t, view(t));
}

void Importer::alias(const onnx::NodeProto& n, const std::string& t, View v) {
  producer_[n.output(0)] = source(n, t);
  views_[n.output(0)] = v;
}

void Importer::window(const onnx::NodeProto& n, LayerSpec& l, const Dims& kernel) {
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

const onnx::NodeProto* Importer::bias_add(const onnx::NodeProto& n, std::int64_t units) const {
  // Read by exactly one node (an output no node reads has no bias to take).
  const auto r = readers(n.output(0));
  if (r.size() != 1) return nullptr;
  const onnx::NodeProto& m = *r[0];
  if (m.op_type() != "Add" || m.input_size() != 2 || m.output_size() != 1) return nullptr;
  for (int k = 0; k < 2; ++k) {
    if (m.input(k) != n.output(0)) continue;
    auto it = inits_.find(m.input(1 - k));
    if (it != inits_.end() && it->second->dims_size() == 1 && it->second->dims(0) == units)
      return &m;
  }
  return nullptr;
}

Dims Importer::int_values(const onnx::NodeProto& n, const std::string& t) const {
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

void Importer::pad(const onnx::NodeProto& n, const std::string& x) {
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
  const auto r = readers(n.output(0));
  for (const onnx::NodeProto* m : r)
    if (m->op_type() != "AveragePool" && m->op_type() != "MaxPool" && m->op_type() != "Conv")
      fail(n,
           "is read by a " + m->op_type() + "; trainsim pads only in a pooling or a convolution");
  if (r.size() != 1) fail(n, "is read by " + std::to_string(r.size()) + " nodes, not one");
  pads_[n.output(0)] = {p[2], p[3]};
  alias(n, x);
}

void Importer::node(const onnx::NodeProto& n, int index) {
  const std::string& op = n.op_type();
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    fail(n, "is in domain '" + n.domain() + "', not ONNX's own");
  if (absorbed_.count(&n)) return;
  if (op == "Constant") {
    for (const auto& o : n.output()) constants_.insert(o);
    if (const auto* v = attr(n, "value"); v && n.output_size() == 1)
      constant_values_[n.output(0)] = &v->t();
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
  if (n.output_size() == 0) fail(n, "has no output");
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
    if (n.output_size() > 1 && !n.output(1).empty()) fail(n, "its Indices output is not supported");
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
      if (auto it = constant_values_.find(n.input(1)); it != constant_values_.end()) p = it->second;
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
    for (const auto& o : model_.graph().output()) is_output = is_output || o.name() == n.output(0);
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
    fail(n,
         "operator '" + op + "' is not supported (`trainsim import --help` lists those that are)");
  }
}

void Importer::finish(const onnx::GraphProto& g) {
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

}  // namespace onnx_detail

OnnxImport import_onnx(const std::string& path, const std::string& name) {
  // A model's weights make the file tens or hundreds of megabytes: read in blocks.
  std::string bytes;
  if (!read_file_bytes(path, 0, bytes)) throw UserError(path + ": cannot read the file");
  return import_onnx_bytes(bytes, path, name);
}

OnnxImport import_onnx_bytes(const std::string& bytes, const std::string& where,
                             const std::string& name) {
  return onnx_detail::Importer(bytes, where, name).run();
}

}  // namespace trainsim
