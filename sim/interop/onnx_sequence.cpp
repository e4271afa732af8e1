// The ONNX importer's sequence operators (onnx_importer.h): the views a Reshape or Transpose
// makes of a layer's output (attention's head split), which trainsim's batched_matmul reads in
// place, and the operators of transformer encoders: embeddings, GELU, the products of two
// layers' outputs, folded weight transposes.
#include <algorithm>
#include <cmath>

#include "sim/core/error.h"
#include "sim/interop/onnx_importer.h"

namespace trainsim {
namespace onnx_detail {

View Importer::view(const std::string& t) const {
  auto it = views_.find(t);
  return it == views_.end() ? View{} : it->second;
}

void Importer::need_natural(const onnx::NodeProto& n, const std::string& t) const {
  if (view(t).form != Form::kNatural)
    fail(n, "reads '" + t + "', a " +
                (view(t).form == Form::kFlat
                     ? "flattened sequence"
                     : "per-head view of a layer's output (a Reshape or Transpose)") +
                ", which trainsim's " + n.op_type() + " layer cannot read in place");
}

void Importer::keep_view(const onnx::NodeProto& n, const std::string& t) {
  if (view(t).form != Form::kNatural) views_[n.output(0)] = view(t);
}

std::vector<const onnx::NodeProto*> Importer::readers(const std::string& t) const {
  auto it = users_.find(t);
  return it == users_.end() ? std::vector<const onnx::NodeProto*>{} : it->second;
}

const onnx::NodeProto* Importer::sole_reader(const std::string& t, const char* op) const {
  const auto r = readers(t);
  // With an output to follow: a node of none is refused when its turn comes.
  return r.size() == 1 && r[0]->op_type() == op && r[0]->output_size() >= 1 ? r[0] : nullptr;
}

bool Importer::scalar(const std::string& t, float& value) const {
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

std::string Importer::other_input(const onnx::NodeProto& m, const std::string& t) {
  if (m.input_size() != 2) return "";
  if (m.input(0) == t) return m.input(1);
  if (m.input(1) == t) return m.input(0);
  return "";
}

std::string Importer::scope(const onnx::NodeProto& n) {
  const auto slash = n.name().rfind('/');
  return slash == std::string::npos || slash == 0 ? "" : n.name().substr(0, slash);
}

std::string Importer::perm_text(const Dims& p) {
  std::string s;
  for (std::int64_t v : p) s += (s.empty() ? "" : " ") + std::to_string(v);
  return "(" + s + ")";
}

Dims Importer::permutation(const onnx::NodeProto& n, std::size_t rank) const {
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

void Importer::fold_transpose(const onnx::NodeProto& n) {
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

void Importer::embedding(const onnx::NodeProto& n, int index) {
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

bool Importer::gelu(const onnx::NodeProto& n, int index) {
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

void Importer::operand(const onnx::NodeProto& n, const std::string& t, std::int64_t& heads,
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

void Importer::batched_matmul(const onnx::NodeProto& n, int index) {
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

void Importer::transpose(const onnx::NodeProto& n) {
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

bool Importer::reshape_view(const onnx::NodeProto& n) {
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
             out[1] == in[1] * in[2] && (n.op_type() == "Reshape" || attr_int(n, "axis", 1) == 1)) {
    // Position by position, where trainsim holds features by position: the same values in
    // another order, which only the loss reads (checked when anything else does).
    alias(n, x, View{Form::kFlat, 1});
  } else {
    return false;
  }
  return true;
}

}  // namespace onnx_detail
}  // namespace trainsim
