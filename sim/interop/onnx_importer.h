#pragma once
// The ONNX importer's inside (sim/interop/onnx_import.h is its interface): the Importer that
// walks a model's nodes and turns them into trainsim layers. Its work is split by subject:
// onnx_import.cpp reads the model, checks it, and turns image and dense operators into layers;
// onnx_sequence.cpp follows attention's views and turns sequence operators into layers;
// onnx_operators.cpp lists what is taken. Only these files see ONNX's headers.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/interop/onnx_import.h"
#include "sim/spec/specs.h"

namespace trainsim {
namespace onnx_detail {

using Dims = std::vector<std::int64_t>;

inline std::string dims_text(const Dims& d) {
  std::string s;
  for (std::int64_t v : d)
    s += (s.empty() ? "" : "x") + (v < 0 ? std::string("?") : std::to_string(v));
  return s.empty() ? "scalar" : s;
}

// The number of values of dimensions d: 0 if any is 0 (before a running product of the others
// can overflow, found by the fuzzer), saturated at the largest int64 (which no check accepts).
inline std::int64_t product(const Dims& d) {
  for (std::int64_t v : d)
    if (v == 0) return 0;
  std::int64_t p = 1;
  for (std::int64_t v : d)
    if (__builtin_mul_overflow(p, v, &p)) return std::numeric_limits<std::int64_t>::max();
  return p;
}

inline Dims dims_of(const onnx::TypeProto& t) {
  Dims d;
  if (!t.has_tensor_type() || !t.tensor_type().has_shape()) return d;
  for (const auto& dim : t.tensor_type().shape().dim())
    d.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  return d;
}

inline bool integral(int elem) {
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
  Importer(const std::string& bytes, const std::string& path, const std::string& name);

  OnnxImport run();

 private:
  [[noreturn]] void fail(const std::string& why) const;
  [[noreturn]] void fail(const onnx::NodeProto& n, const std::string& why) const;

  void read(const std::string& bytes);

  // ONNX's shape inference divides by strides, dilations and groups without checking them
  // (a MaxPool with a stride of 0 stops the process with SIGFPE, found by the fuzzer), so
  // the window attributes of every node are checked before it runs.
  void check_window_attributes() const;

  // ONNX graphs list their nodes in topological order, each input named before it is read.
  // Shape inference dereferences a missing input's type (a SEGV in ONNX 1.12, found by the
  // fuzzer), so a name no input, initializer or earlier node gives is refused first.
  void check_references() const;

  void note_value(const onnx::ValueInfoProto& vi);

  void find_input(const onnx::GraphProto& g);

  // ---- attributes ----
  const onnx::AttributeProto* attr(const onnx::NodeProto& n, const std::string& a) const;
  std::int64_t attr_int(const onnx::NodeProto& n, const std::string& a, std::int64_t dflt) const;
  float attr_float(const onnx::NodeProto& n, const std::string& a, float dflt) const;
  Dims attr_ints(const onnx::NodeProto& n, const std::string& a, Dims dflt) const;

  // ---- tensors ----
  bool is_constant(const std::string& t) const;
  Dims init_dims(const onnx::NodeProto& n, int k, const char* what) const;
  Dims checked_dims(const onnx::NodeProto& n, const onnx::TensorProto* t, const char* what) const;
  bool has_input(const onnx::NodeProto& n, int k) const;
  Dims shape(const onnx::NodeProto& n, const std::string& t) const;
  // The layer that produced activation t.
  const std::string& source(const onnx::NodeProto& n, const std::string& t) const;

  std::string layer_name(const onnx::NodeProto& n, int index, const std::string& hint = "");

  // Appends a layer reading `inputs` (activation tensors) and producing n.output(0).
  // Its output reads the layer as the layer holds it (Form::kNatural) unless the caller says
  // otherwise; `hint` names a layer made of several nodes.
  LayerSpec& add(const onnx::NodeProto& n, int index, const std::string& type,
                 const std::vector<std::string>& inputs, const std::string& hint = "");

  // n's output is t, read the same way (or as `v`).
  void alias(const onnx::NodeProto& n, const std::string& t);
  void alias(const onnx::NodeProto& n, const std::string& t, View v);

  View view(const std::string& t) const;
  // Layers other than element-wise ones and batched_matmul read their input as it is held.
  void need_natural(const onnx::NodeProto& n, const std::string& t) const;
  // Element-wise layers keep their input's view: the same values in the same places.
  void keep_view(const onnx::NodeProto& n, const std::string& t);

  // The nodes that read tensor t, each once, in graph order (from users_).
  std::vector<const onnx::NodeProto*> readers(const std::string& t) const;
  const onnx::NodeProto* sole_reader(const std::string& t, const char* op) const;

  // The values of a float constant (an initializer, or a Constant node's value) of one value.
  bool scalar(const std::string& t, float& value) const;
  // The other input of a two-input node, if `t` is one of its inputs.
  static std::string other_input(const onnx::NodeProto& m, const std::string& t);
  // The node's name without its last part ("/layers.0/gelu/Div" -> "/layers.0/gelu").
  static std::string scope(const onnx::NodeProto& n);

  // Symmetric 2-D pads ([h_begin, w_begin, h_end, w_end]) and equal strides, as LayerSpec holds.
  void window(const onnx::NodeProto& n, LayerSpec& l, const Dims& kernel);

  // A MatMul's single reader, if it is an Add of a constant vector of `units` values: its bias.
  const onnx::NodeProto* bias_add(const onnx::NodeProto& n, std::int64_t units) const;

  // The integer values of a constant (an initializer or a Constant node's output).
  Dims int_values(const onnx::NodeProto& n, const std::string& t) const;

  // A zero Pad of height and width only, as PyTorch exports a padded average pool: kept for
  // the pooling or convolution that reads it (window()), which takes it as its padding.
  void pad(const onnx::NodeProto& n, const std::string& x);

  static std::string perm_text(const Dims& p);
  // The permutation a Transpose gives (reversed axes by default), checked to be one.
  Dims permutation(const onnx::NodeProto& n, std::size_t rank) const;

  // A Transpose of a weight (PyTorch's Linear exports W^T so): folded, the layer reads the
  // weight with the dimensions permuted and counts the initializer's parameters.
  void fold_transpose(const onnx::NodeProto& n);

  // Gather from a constant table by token ids: trainsim's embedding, which reads the input's
  // ids. Ids that are constants (positions 0 .. S-1, one segment) cost the same lookup.
  void embedding(const onnx::NodeProto& n, int index);

  // GELU as PyTorch exports nn.GELU (before opset 20): x * (1 + erf(x / sqrt 2)) * 0.5, from
  // its Div. One gelu layer for the five nodes; false if the Div starts no such chain.
  bool gelu(const onnx::NodeProto& n, int index);

  // How a MatMul operand reads its layer: heads, and whether transposed.
  void operand(const onnx::NodeProto& n, const std::string& t, std::int64_t& heads,
               bool& transposed) const;

  // A product of two layers' outputs (attention's Q K^T and P V): trainsim's batched_matmul.
  void batched_matmul(const onnx::NodeProto& n, int index);

  // A Transpose of a layer's output that trainsim reads in place.
  void transpose(const onnx::NodeProto& n);

  // Reshapes and flattenings of sequences that are views: the head split and its undoing, and
  // the flattening of the output. False for the others (an image's flatten is a layer).
  bool reshape_view(const onnx::NodeProto& n);

  void node(const onnx::NodeProto& n, int index);

  void finish(const onnx::GraphProto& g);

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
  std::map<std::string, std::vector<const onnx::NodeProto*>> users_;  // tensor -> its readers
  std::set<const onnx::NodeProto*> absorbed_;
  std::set<std::string> names_;
  std::int64_t init_params_ = 0;
};

}  // namespace onnx_detail
}  // namespace trainsim
