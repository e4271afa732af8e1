#include "sim/interop/onnx_fold.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace trainsim {

namespace {

using Dims = std::vector<std::int64_t>;
constexpr std::int64_t kMaxValues = std::int64_t{1} << 20;

// An integer tensor: dims and values in row-major order.
struct Ints {
  Dims dims;
  std::vector<std::int64_t> v;
  int type = onnx::TensorProto::INT64;
};

std::optional<std::int64_t> count(const Dims& d) {
  std::int64_t n = 1;
  for (std::int64_t x : d) {
    if (x < 0 || (x > 0 && n > kMaxValues / x)) return std::nullopt;
    n *= x;
  }
  return n;
}

bool integral(int t) {
  return t == onnx::TensorProto::INT64 || t == onnx::TensorProto::INT32 ||
         t == onnx::TensorProto::BOOL;
}

std::optional<Ints> from_proto(const onnx::TensorProto& p) {
  if (!integral(p.data_type()) || p.has_data_location()) return std::nullopt;
  Ints t;
  t.type = p.data_type();
  t.dims.assign(p.dims().begin(), p.dims().end());
  const auto n = count(t.dims);
  if (!n) return std::nullopt;
  const std::string& raw = p.raw_data();
  if (p.data_type() == onnx::TensorProto::INT64) {
    t.v.assign(p.int64_data().begin(), p.int64_data().end());
    if (t.v.empty() && raw.size() == static_cast<std::size_t>(*n) * 8) {
      t.v.resize(static_cast<std::size_t>(*n));
      std::copy(raw.begin(), raw.end(), reinterpret_cast<char*>(t.v.data()));
    }
  } else {
    t.v.assign(p.int32_data().begin(), p.int32_data().end());
    const std::size_t width = p.data_type() == onnx::TensorProto::BOOL ? 1 : 4;
    if (t.v.empty() && raw.size() == static_cast<std::size_t>(*n) * width) {
      for (std::size_t i = 0; i < raw.size(); i += width) {
        std::int32_t x = 0;
        std::copy(raw.begin() + static_cast<std::ptrdiff_t>(i),
                  raw.begin() + static_cast<std::ptrdiff_t>(i + width),
                  reinterpret_cast<char*>(&x));
        t.v.push_back(width == 1 ? (x & 0xff) : x);
      }
    }
  }
  if (static_cast<std::int64_t>(t.v.size()) != *n) return std::nullopt;
  return t;
}

onnx::TensorProto to_proto(const std::string& name, const Ints& t) {
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(t.type);
  for (std::int64_t d : t.dims) p.add_dims(d);
  for (std::int64_t x : t.v) {
    if (t.type == onnx::TensorProto::INT64) {
      p.add_int64_data(x);
    } else {
      p.add_int32_data(static_cast<std::int32_t>(x));
    }
  }
  return p;
}

// Row-major strides of d.
Dims strides(const Dims& d) {
  Dims s(d.size(), 1);
  for (std::size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

// Numpy broadcasting of several shapes, or nothing if they do not broadcast.
std::optional<Dims> broadcast(const std::vector<Dims>& shapes) {
  std::size_t rank = 0;
  for (const Dims& d : shapes) rank = std::max(rank, d.size());
  Dims out(rank, 1);
  for (const Dims& d : shapes)
    for (std::size_t i = 0; i < d.size(); ++i) {
      std::int64_t& o = out[rank - d.size() + i];
      if (d[i] == o || d[i] == 1) continue;
      if (o != 1) return std::nullopt;
      o = d[i];
    }
  if (!count(out)) return std::nullopt;
  return out;
}

// The value of t at the flat index `at` of the broadcast shape `out`.
std::int64_t at_broadcast(const Ints& t, const Dims& out, std::int64_t at) {
  const Dims so = strides(out), st = strides(t.dims);
  std::int64_t idx = 0;
  const std::size_t off = out.size() - t.dims.size();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t coord = (at / so[i]) % out[i];
    if (i >= off && t.dims[i - off] != 1) idx += coord * st[i - off];
  }
  return t.v[static_cast<std::size_t>(idx)];
}

std::optional<Ints> elementwise(
    const std::vector<const Ints*>& ins, int type,
    const std::function<std::int64_t(const std::vector<std::int64_t>&)>& f) {
  std::vector<Dims> shapes;
  for (const Ints* t : ins) shapes.push_back(t->dims);
  const auto out = broadcast(shapes);
  if (!out) return std::nullopt;
  Ints r;
  r.type = type;
  r.dims = *out;
  const std::int64_t n = *count(*out);
  std::vector<std::int64_t> args(ins.size());
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < ins.size(); ++k) args[k] = at_broadcast(*ins[k], *out, i);
    r.v.push_back(f(args));
  }
  return r;
}

std::int64_t attr_int(const onnx::NodeProto& n, const char* name, std::int64_t dflt) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return dflt;
}
std::optional<Dims> attr_ints(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return Dims(a.ints().begin(), a.ints().end());
  return std::nullopt;
}

// A valid axis of a tensor of `rank` dimensions, or -1.
std::int64_t axis_of(std::int64_t a, std::int64_t rank) {
  if (a < 0) a += rank;
  return a >= 0 && a < rank ? a : -1;
}

// Integer arithmetic that wraps instead of overflowing (undefined for signed integers): the
// values are a file's, and a fuzzed file holds any.
std::int64_t wrap(std::uint64_t v) {
  return static_cast<std::int64_t>(v);
}
std::int64_t add(std::int64_t a, std::int64_t b) {
  return wrap(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
std::int64_t sub(std::int64_t a, std::int64_t b) {
  return wrap(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
std::int64_t mul(std::int64_t a, std::int64_t b) {
  return wrap(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}

// Evaluates n on its inputs; nothing if the operator, its attributes or sizes are not ones
// the folder takes.
std::optional<Ints> evaluate(const onnx::NodeProto& n, const std::vector<const Ints*>& in) {
  const std::string& op = n.op_type();
  auto arity = [&](std::size_t lo, std::size_t hi) {
    if (in.size() < lo || in.size() > hi) return false;
    for (const Ints* t : in)
      if (t == nullptr) return false;
    return true;
  };
  if ((op == "Identity" || op == "Cast") && arity(1, 1)) {
    Ints r = *in[0];
    if (op == "Cast") {
      r.type = static_cast<int>(attr_int(n, "to", 0));
      if (!integral(r.type)) return std::nullopt;
      if (r.type == onnx::TensorProto::BOOL)
        for (auto& x : r.v) x = x != 0;
    }
    return r;
  }
  if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Equal") && arity(2, 2)) {
    const int type = op == "Equal" ? onnx::TensorProto::BOOL : in[0]->type;
    if (op == "Div")
      for (std::int64_t x : in[1]->v)
        if (x == 0 || x == -1) return std::nullopt;  // -1: INT64_MIN / -1 overflows
    return elementwise(in, type, [&](const std::vector<std::int64_t>& a) -> std::int64_t {
      if (op == "Add") return add(a[0], a[1]);
      if (op == "Sub") return sub(a[0], a[1]);
      if (op == "Mul") return mul(a[0], a[1]);
      if (op == "Div") return a[0] / a[1];
      return a[0] == a[1];
    });
  }
  if (op == "Where" && arity(3, 3))
    return elementwise(in, in[1]->type,
                       [](const std::vector<std::int64_t>& a) { return a[0] ? a[1] : a[2]; });
  if (op == "Expand" && arity(2, 2)) {
    const Ints shape_as{in[1]->v, std::vector<std::int64_t>(
                                      static_cast<std::size_t>(count(in[1]->v).value_or(0)), 0)};
    if (!count(in[1]->v)) return std::nullopt;
    return elementwise({in[0], &shape_as}, in[0]->type,
                       [](const std::vector<std::int64_t>& a) { return a[0]; });
  }
  if ((op == "Unsqueeze" || op == "Squeeze") && arity(1, 2)) {
    Dims axes = in.size() == 2 ? in[1]->v : attr_ints(n, "axes").value_or(Dims{});
    Ints r = *in[0];
    if (op == "Unsqueeze") {
      const std::int64_t rank = static_cast<std::int64_t>(r.dims.size() + axes.size());
      for (auto& a : axes)
        if ((a = axis_of(a, rank)) < 0) return std::nullopt;
      std::sort(axes.begin(), axes.end());
      for (std::int64_t a : axes) {
        if (a > static_cast<std::int64_t>(r.dims.size())) return std::nullopt;
        r.dims.insert(r.dims.begin() + a, 1);
      }
    } else {
      Dims kept;
      for (std::size_t i = 0; i < r.dims.size(); ++i) {
        const bool listed =
            axes.empty() ? r.dims[i] == 1
                         : std::any_of(axes.begin(), axes.end(), [&](std::int64_t a) {
                             return axis_of(a, r.dims.size()) == static_cast<std::int64_t>(i);
                           });
        if (listed && r.dims[i] != 1) return std::nullopt;
        if (!listed) kept.push_back(r.dims[i]);
      }
      r.dims = kept;
    }
    return r;
  }
  if (op == "Concat" && arity(1, 64)) {
    const std::int64_t rank = static_cast<std::int64_t>(in[0]->dims.size());
    const std::int64_t axis = axis_of(attr_int(n, "axis", 0), rank);
    if (axis != 0 || rank != 1) return std::nullopt;  // shape vectors
    Ints r;
    r.type = in[0]->type;
    for (const Ints* t : in) {
      if (t->dims.size() != 1) return std::nullopt;
      r.v.insert(r.v.end(), t->v.begin(), t->v.end());
    }
    r.dims = {static_cast<std::int64_t>(r.v.size())};
    return r;
  }
  if (op == "Gather" && arity(2, 2)) {
    const Ints &data = *in[0], &idx = *in[1];
    if (data.dims.size() != 1 || axis_of(attr_int(n, "axis", 0), 1) != 0) return std::nullopt;
    Ints r;
    r.type = data.type;
    r.dims = idx.dims;
    for (std::int64_t i : idx.v) {
      if (i < 0) i += data.dims[0];
      if (i < 0 || i >= data.dims[0]) return std::nullopt;
      r.v.push_back(data.v[static_cast<std::size_t>(i)]);
    }
    return r;
  }
  if (op == "Reshape" && arity(2, 2)) {
    Ints r = *in[0];
    Dims d = in[1]->v;
    std::int64_t known = 1, infer = -1;
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (d[i] == 0 && attr_int(n, "allowzero", 0) == 0) {
        if (i >= r.dims.size()) return std::nullopt;
        d[i] = r.dims[i];
      }
      if (d[i] == -1) {
        if (infer >= 0) return std::nullopt;
        infer = static_cast<std::int64_t>(i);
      } else if (d[i] < 0) {
        return std::nullopt;
      } else {
        known *= d[i];
        if (known > kMaxValues) return std::nullopt;
      }
    }
    const std::int64_t total = static_cast<std::int64_t>(r.v.size());
    if (infer >= 0) {
      if (known == 0 || total % known) return std::nullopt;
      d[static_cast<std::size_t>(infer)] = total / known;
    }
    if (count(d) != total) return std::nullopt;
    r.dims = d;
    return r;
  }
  if (op == "Slice" && arity(3, 5)) {
    const Ints& data = *in[0];
    const std::int64_t rank = static_cast<std::int64_t>(data.dims.size());
    const Dims &starts = in[1]->v, &ends = in[2]->v;
    Dims axes, steps;
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
    if (in.size() > 3) axes = in[3]->v;
    steps.assign(starts.size(), 1);
    if (in.size() > 4) steps = in[4]->v;
    if (ends.size() != starts.size() || axes.size() != starts.size() ||
        steps.size() != starts.size())
      return std::nullopt;
    Dims lo(static_cast<std::size_t>(rank), 0), step(static_cast<std::size_t>(rank), 1),
        out = data.dims;
    for (std::size_t k = 0; k < starts.size(); ++k) {
      const std::int64_t a = axis_of(axes[k], rank);
      if (a < 0 || steps[k] != 1) return std::nullopt;  // unit steps: what exports use
      const std::int64_t dim = data.dims[static_cast<std::size_t>(a)];
      auto clamp = [&](std::int64_t v) {
        if (v < 0) v += dim;
        return std::max<std::int64_t>(0, std::min(v, dim));
      };
      const std::int64_t b = clamp(starts[k]), e = clamp(ends[k]);
      lo[static_cast<std::size_t>(a)] = b;
      out[static_cast<std::size_t>(a)] = std::max<std::int64_t>(0, e - b);
    }
    Ints r;
    r.type = data.type;
    r.dims = out;
    const Dims so = strides(out), sd = strides(data.dims);
    const std::int64_t total = *count(out);
    for (std::int64_t i = 0; i < total; ++i) {
      std::int64_t idx = 0;
      for (std::size_t d = 0; d < out.size(); ++d) idx += ((i / so[d]) % out[d] + lo[d]) * sd[d];
      r.v.push_back(data.v[static_cast<std::size_t>(idx)]);
    }
    return r;
  }
  if (op == "Range" && arity(3, 3)) {
    if (in[0]->v.size() != 1 || in[1]->v.size() != 1 || in[2]->v.size() != 1) return std::nullopt;
    const std::int64_t start = in[0]->v[0], limit = in[1]->v[0], delta = in[2]->v[0];
    if (delta == 0) return std::nullopt;
    Ints r;
    r.type = in[0]->type;
    // Counted, not stepped: a step past the limit could overflow.
    const long double steps = std::ceil((static_cast<long double>(limit) - start) / delta);
    if (steps > kMaxValues) return std::nullopt;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(steps); ++i)
      r.v.push_back(add(start, mul(i, delta)));
    r.dims = {static_cast<std::int64_t>(r.v.size())};
    return r;
  }
  if (op == "ConstantOfShape" && arity(1, 1)) {
    Ints r;
    r.dims = in[0]->v;
    const auto total = count(r.dims);
    if (!total) return std::nullopt;
    std::int64_t fill = 0;
    for (const auto& a : n.attribute())
      if (a.name() == "value") {
        const auto v = from_proto(a.t());
        if (!v || v->v.size() != 1) return std::nullopt;  // a float fill is not integer work
        fill = v->v[0];
        r.type = v->type;
      }
    r.v.assign(static_cast<std::size_t>(*total), fill);
    return r;
  }
  return std::nullopt;
}

// One pass over the nodes; returns how many it folded.
int fold_once(onnx::ModelProto& model) {
  onnx::GraphProto& g = *model.mutable_graph();
  std::map<std::string, Ints> known;
  for (const auto& t : g.initializer())
    if (auto v = from_proto(t)) known[t.name()] = *v;
  std::map<std::string, Dims> shapes;  // tensors of fully known dimensions
  auto note = [&](const onnx::ValueInfoProto& vi) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
    Dims d;
    for (const auto& dim : vi.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_value()) return;
      d.push_back(dim.dim_value());
    }
    shapes[vi.name()] = d;
  };
  for (const auto& vi : g.input()) note(vi);
  for (const auto& vi : g.value_info()) note(vi);
  std::set<std::string> outputs;
  for (const auto& o : g.output()) outputs.insert(o.name());

  std::vector<onnx::NodeProto> kept;
  std::vector<onnx::TensorProto> made;
  int folded = 0;
  for (const auto& n : g.node()) {
    std::optional<Ints> r;
    if (n.op_type() == "Constant" && n.output_size() == 1) {
      for (const auto& a : n.attribute())
        if (a.name() == "value") r = from_proto(a.t());
    } else if (n.op_type() == "Shape" && n.input_size() == 1 && shapes.count(n.input(0))) {
      const Dims& d = shapes.at(n.input(0));
      const std::int64_t rank = static_cast<std::int64_t>(d.size());
      std::int64_t start = attr_int(n, "start", 0), end = attr_int(n, "end", rank);
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<std::int64_t>(start, 0, rank);
      end = std::clamp<std::int64_t>(end, start, rank);
      r = Ints{{end - start}, Dims(d.begin() + start, d.begin() + end)};
    } else if (n.output_size() == 1 && n.input_size() > 0 &&
               (n.domain().empty() || n.domain() == "ai.onnx")) {
      std::vector<const Ints*> in;
      for (const auto& name : n.input()) {
        auto it = known.find(name);
        in.push_back(name.empty() || it == known.end() ? nullptr : &it->second);
      }
      // An optional input left out is an empty name: only trailing ones are.
      while (!in.empty() && n.input(static_cast<int>(in.size()) - 1).empty()) in.pop_back();
      r = evaluate(n, in);
    }
    if (r && count(r->dims) && !outputs.count(n.output(0))) {
      known[n.output(0)] = *r;
      made.push_back(to_proto(n.output(0), *r));
      ++folded;
    } else {
      kept.push_back(n);
    }
  }
  if (folded == 0) return 0;
  g.clear_node();
  for (auto& n : kept) *g.add_node() = std::move(n);
  for (auto& t : made) *g.add_initializer() = std::move(t);
  return folded;
}

// ONNX 1.12's shape inference trusts the values that give shapes: a Reshape or Expand target
// of a billion values is a tensor of a billion dimensions, a ConstantOfShape of [2^58] a 1-D
// tensor that long, which an Expand then makes the rank of its output, allocating a
// dimension record each until memory runs out (24 GB, found by the fuzzer). So every shape
// a node takes from a known constant is checked before a pass, and every inferred shape after
// it. No network has a tensor of more than kMaxRank dimensions or a dimension past an int.
constexpr std::int64_t kMaxRank = 32;
constexpr std::int64_t kMaxDim = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kMaxShapeValues = std::int64_t{1} << 22;

[[noreturn]] void refuse(const onnx::NodeProto& n, const std::string& why) {
  throw std::invalid_argument("node '" + n.name() + "' (" + n.op_type() + "): " + why);
}

void check_given_shapes(const onnx::ModelProto& model) {
  std::map<std::string, Ints> known;
  for (const auto& t : model.graph().initializer())
    if (auto v = from_proto(t)) known[t.name()] = *v;
  for (const auto& n : model.graph().node())
    if (n.op_type() == "Constant" && n.output_size() == 1)
      for (const auto& a : n.attribute())
        if (a.name() == "value")
          if (auto v = from_proto(a.t())) known[n.output(0)] = *v;
  auto given = [&](const onnx::NodeProto& n, int k) -> const Ints* {
    if (n.input_size() <= k) return nullptr;
    auto it = known.find(n.input(k));
    return it == known.end() ? nullptr : &it->second;
  };
  for (const auto& n : model.graph().node()) {
    const std::string& op = n.op_type();
    const int k = op == "ConstantOfShape" ? 0 : 1;
    if (op != "Reshape" && op != "Expand" && op != "Tile" && op != "ConstantOfShape") continue;
    const Ints* shape = given(n, k);
    if (shape == nullptr) continue;
    if (static_cast<std::int64_t>(shape->v.size()) > kMaxRank)
      refuse(n, "its shape input has " + std::to_string(shape->v.size()) +
                    " values: a tensor of more than " + std::to_string(kMaxRank) + " dimensions");
    long double size = 1;
    for (std::int64_t v : shape->v) {
      if (v < (op == "Reshape" ? -1 : 0) || v > kMaxDim)
        refuse(n, "its shape input holds " + std::to_string(v) + ", not a dimension");
      size *= static_cast<long double>(std::max<std::int64_t>(v, 1));
    }
    if (op == "ConstantOfShape" && size > kMaxShapeValues)
      refuse(n, "makes a constant of more than " + std::to_string(kMaxShapeValues) + " values");
  }
  for (const auto& n : model.graph().node()) {
    if (n.op_type() != "Range") continue;
    const Ints *a = given(n, 0), *b = given(n, 1), *d = given(n, 2);
    if (!a || !b || !d || a->v.size() != 1 || b->v.size() != 1 || d->v.size() != 1) continue;
    if (d->v[0] == 0) refuse(n, "its step is 0");
    const long double count = std::ceil((static_cast<long double>(b->v[0]) - a->v[0]) / d->v[0]);
    if (count > kMaxShapeValues)
      refuse(n, "counts " + std::to_string(static_cast<double>(count)) + " values");
  }
}

void check_inferred_shapes(const onnx::GraphProto& g) {
  for (const auto& vi : g.value_info()) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) continue;
    const auto& shape = vi.type().tensor_type().shape();
    if (shape.dim_size() > kMaxRank)
      throw std::invalid_argument("'" + vi.name() + "' would have " +
                                  std::to_string(shape.dim_size()) + " dimensions");
    for (const auto& d : shape.dim())
      if (d.has_dim_value() && (d.dim_value() < 0 || d.dim_value() > kMaxDim))
        throw std::invalid_argument("'" + vi.name() + "' would have a dimension of " +
                                    std::to_string(d.dim_value()));
  }
}

}  // namespace

void check_onnx_shapes(const onnx::ModelProto& model) {
  check_given_shapes(model);
  check_inferred_shapes(model.graph());
}

int fold_integer_constants(onnx::ModelProto& model) {
  int total = 0;
  // One pass folds what the shapes inferred so far determine (a Reshape's target from the
  // Shape of a tensor the previous pass gave a shape); a transformer needs a few a layer.
  for (int pass = 0; pass < 4096; ++pass) {
    // Inferred afresh each pass: a type inferred without a shape before a fold is not
    // refined by a later inference, which merges into what value_info holds. Without ONNX's
    // data propagation: this folding does its work, and ONNX 1.12's propagation through a
    // Reshape whose target holds a value below -1 dereferences null (found by the fuzzer).
    model.mutable_graph()->clear_value_info();
    check_given_shapes(model);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, false));
    check_inferred_shapes(model.graph());
    const int folded = fold_once(model);
    total += folded;
    if (folded == 0) break;
  }
  model.mutable_graph()->clear_value_info();
  return total;
}

}  // namespace trainsim
