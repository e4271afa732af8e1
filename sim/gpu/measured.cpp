#include "sim/gpu/measured.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include "sim/core/csv.h"
#include "sim/core/error.h"
#include "sim/io/file_set.h"
#include "sim/io/output_target.h"

namespace trainsim {

namespace {

struct NameClass {
  const char* name;
  GpuOpClass::Kind kind;
  EltwiseKernel eltwise;
};

// The op names of gpu_ref.py and the kernel each is priced as.
constexpr NameClass kNames[] = {
    {"MatMul", GpuOpClass::Kind::kGemm, EltwiseKernel::kMap},
    {"Conv2D", GpuOpClass::Kind::kConv, EltwiseKernel::kMap},
    {"Conv2DBackpropInput", GpuOpClass::Kind::kConv, EltwiseKernel::kMap},
    {"Conv2DBackpropFilter", GpuOpClass::Kind::kConv, EltwiseKernel::kMap},
    {"Mul", GpuOpClass::Kind::kEltwise, EltwiseKernel::kMap},
    {"Add", GpuOpClass::Kind::kEltwise, EltwiseKernel::kMap},
    {"Relu", GpuOpClass::Kind::kEltwise, EltwiseKernel::kMap},
    {"ReluGrad", GpuOpClass::Kind::kEltwise, EltwiseKernel::kMap},
    {"BiasAdd", GpuOpClass::Kind::kEltwise, EltwiseKernel::kBroadcast},
    {"Transpose", GpuOpClass::Kind::kEltwise, EltwiseKernel::kTranspose},
    {"BiasAddGrad", GpuOpClass::Kind::kEltwise, EltwiseKernel::kReduction},
    {"L2Loss", GpuOpClass::Kind::kEltwise, EltwiseKernel::kReduction},
    {"Softmax", GpuOpClass::Kind::kEltwise, EltwiseKernel::kSoftmax},
    {"MaxPool", GpuOpClass::Kind::kEltwise, EltwiseKernel::kPooling},
    {"MaxPoolGrad", GpuOpClass::Kind::kEltwise, EltwiseKernel::kPoolingGrad},
    {"FusedBatchNorm", GpuOpClass::Kind::kEltwise, EltwiseKernel::kNormalization},
};

// A CSV file with named columns.
class Table {
 public:
  Table(const std::string& dir, const std::string& name, const std::vector<std::string>& needed)
      : path_(dir + "/" + name) {
    note_input_path(path_);
    try {
      rows_ = parse_csv(read_text_file(path_));
    } catch (const std::invalid_argument& e) {
      throw UserError(path_ + ": " + e.what());
    }
    if (rows_.empty()) throw UserError(path_ + ":1: empty file, expected a header line");
    for (std::size_t i = 0; i < rows_[0].size(); ++i) columns_[rows_[0][i]] = i;
    std::string all;
    for (const std::string& c : needed) all += (all.empty() ? "" : ", ") + c;
    for (const std::string& c : needed)
      if (!columns_.count(c))
        throw UserError(path_ + ":1: missing column '" + c + "' (needs " + all + ")");
  }
  std::size_t size() const { return rows_.size() - 1; }
  std::string where(std::size_t i) const { return path_ + ":" + std::to_string(i + 2); }
  const std::string& cell(std::size_t i, const std::string& column) const {
    const std::vector<std::string>& r = rows_[i + 1];
    const std::size_t c = columns_.at(column);
    if (c >= r.size())
      throw UserError(where(i) + ": expected " + std::to_string(rows_[0].size()) + " cells, got " +
                      std::to_string(r.size()));
    return r[c];
  }
  double number(std::size_t i, const std::string& column, bool positive = false) const {
    const std::string& text = cell(i, column);
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || !std::isfinite(v) || v < 0 || (positive && v == 0))
      throw UserError(where(i) + ": " + column + ": expected a number " +
                      (positive ? "> 0" : ">= 0") + ", got '" + text + "'");
    return v;
  }
  GpuPrecision precision(std::size_t i) const {
    GpuPrecision p;
    if (!parse_gpu_precision(cell(i, "precision"), p))
      throw UserError(where(i) + ": precision: expected fp32, fp16 or bf16, got '" +
                      cell(i, "precision") + "'");
    return p;
  }
  // "AxBxC..." as `count` positive integers.
  std::vector<std::int64_t> dims(std::size_t i, const std::string& column,
                                 std::size_t count) const {
    const std::string& text = cell(i, column);
    std::vector<std::int64_t> out;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t x = text.find('x', start);
      const std::string part = text.substr(start, x == std::string::npos ? x : x - start);
      std::size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(part, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != part.size() || v <= 0) break;
      out.push_back(v);
      if (x == std::string::npos) break;
      start = x + 1;
    }
    if (out.size() != count)
      throw UserError(where(i) + ": " + column + ": expected " + std::to_string(count) +
                      " positive integers joined by 'x', got '" + text + "'");
    return out;
  }

 private:
  std::string path_;
  std::vector<std::vector<std::string>> rows_;
  std::map<std::string, std::size_t> columns_;
};

GpuOpClass class_of(const Table& t, std::size_t i, GpuOpClass::Kind expected) {
  const std::string& op = t.cell(i, "op");
  GpuOpClass cls;
  if (!gpu_op_class(op, cls))
    throw UserError(t.where(i) + ": op '" + op + "' has no kernel class (known: " + gpu_op_names() +
                    ")");
  if (cls.kind != expected)
    throw UserError(t.where(i) + ": op '" + op + "' is a " + cls.name() +
                    " op, which this file does not hold");
  return cls;
}

TensorUse tensor(std::int64_t words) {
  return {tensor_id(TensorKind::kActivation, -1, 0), words};
}

// An element-wise op of `elements` values with the tensors trainsim's lowering lists for it.
Op eltwise_op(const std::string& name, EltwiseKernel kernel, std::int64_t e) {
  const std::int64_t channels = 64;  // gpu_ref.py's per-channel tensors: 16 x 64 x h x h
  std::vector<std::int64_t> in, out;
  int flops = 1;
  if (name == "Mul" || name == "Add" || name == "ReluGrad") {
    in = {e, e}, out = {e};
  } else if (name == "Relu" || name == "Transpose" || name == "Softmax") {
    in = {e}, out = {e};
    flops = name == "Softmax" ? 3 : name == "Relu" ? 1 : 0;
  } else if (name == "BiasAdd") {
    in = {e, channels}, out = {e};
  } else if (name == "BiasAddGrad") {
    in = {e}, out = {channels};
  } else if (name == "L2Loss") {
    in = {e}, out = {1}, flops = 2;
  } else if (name == "MaxPool") {  // 2x2, stride 2: a quarter as many outputs
    in = {e}, out = {e / 4}, flops = 4;
  } else if (name == "MaxPoolGrad") {  // as trainsim lowers it: x and dy read, dx written
    in = {e, e / 4}, out = {e};
  } else {  // FusedBatchNorm, training: x and the scale and shift read, y written
    in = {e, 2 * channels}, out = {e}, flops = 6;
  }
  Op op = Op::make_eltwise({e, static_cast<int>(in.size()), static_cast<int>(out.size()), flops},
                           OpRole::kForward);
  if (name == "MaxPool") op.eltwise = {e / 4, 4, 1, 4};  // as lowered: outputs, window reads
  op.eltwise.kernel = kernel;
  for (std::size_t k = 0; k < in.size(); ++k) op.inputs[k] = tensor(in[k]);
  for (std::size_t k = 0; k < out.size(); ++k) op.outputs[k] = tensor(out[k]);
  return op;
}

std::string matmul_group(std::int64_t m, std::int64_t k, std::int64_t n) {
  if (m == 3840) return "bert";  // BERT-Large at batch 10 x 384 tokens
  if (m == 256 && (k == 9216 || k == 25088 || n == 1000)) return "fc";
  return "grid";
}

}  // namespace

std::string GpuOpClass::name() const {
  switch (kind) {
    case Kind::kGemm:
      return "gemm";
    case Kind::kConv:
      return "conv";
    case Kind::kEltwise:
      break;
  }
  return eltwise_kernel_name(eltwise);
}

bool gpu_op_class(const std::string& op, GpuOpClass& cls) {
  for (const NameClass& n : kNames)
    if (op == n.name) {
      cls.kind = n.kind;
      cls.eltwise = n.eltwise;
      return true;
    }
  return false;
}

std::string gpu_op_names() {
  std::string out;
  for (const NameClass& n : kNames) out += (out.empty() ? "" : ", ") + std::string(n.name);
  return out;
}

GpuMeasurements load_gpu_measurements(const std::string& dir) {
  GpuMeasurements m;
  m.dir = dir;
  {
    const Table t(dir, "matmul.csv", {"op", "precision", "mkn", "seconds", "joules"});
    for (std::size_t i = 0; i < t.size(); ++i) {
      GpuMeasuredOp r;
      r.where = t.where(i);
      r.op = t.cell(i, "op");
      r.cls = class_of(t, i, GpuOpClass::Kind::kGemm);
      r.precision = t.precision(i);
      const auto d = t.dims(i, "mkn", 3);
      r.model_op = Op::make_gemm({d[0], d[2], d[1]});
      r.group = matmul_group(d[0], d[1], d[2]);
      r.label = t.cell(i, "mkn");
      r.seconds = t.number(i, "seconds", true);
      r.joules = t.number(i, "joules");
      m.ops.push_back(r);
    }
  }
  {
    const Table t(dir, "conv.csv",
                  {"op", "precision", "layer", "input", "filter", "stride", "pad", "output",
                   "seconds", "joules"});
    for (std::size_t i = 0; i < t.size(); ++i) {
      GpuMeasuredOp r;
      r.where = t.where(i);
      r.op = t.cell(i, "op");
      r.cls = class_of(t, i, GpuOpClass::Kind::kConv);
      r.precision = t.precision(i);
      const auto in = t.dims(i, "input", 4), w = t.dims(i, "filter", 4),
                 out = t.dims(i, "output", 4);
      ConvShape c;
      c.batch = in[0], c.channels = in[1], c.height = in[2], c.width = in[3];
      c.filters = w[0], c.kernel_h = w[2], c.kernel_w = w[3];
      c.stride = static_cast<std::int64_t>(t.number(i, "stride", true));
      c.pad = static_cast<std::int64_t>(t.number(i, "pad"));
      if (w[1] != c.channels || out[0] != c.batch || out[1] != c.filters || out[2] != c.out_h() ||
          out[3] != c.out_w())
        throw UserError(t.where(i) + ": output " + t.cell(i, "output") +
                        " is not what input, filter, stride and pad give (" +
                        std::to_string(c.batch) + "x" + std::to_string(c.filters) + "x" +
                        std::to_string(c.out_h()) + "x" + std::to_string(c.out_w()) + ")");
      const OpRole role = r.op == "Conv2D"                ? OpRole::kForward
                          : r.op == "Conv2DBackpropInput" ? OpRole::kBackwardData
                                                          : OpRole::kBackwardWeight;
      r.model_op = Op::make_conv(c, role);
      r.label = t.cell(i, "layer");
      r.group = r.label.substr(0, r.label.find('_'));
      r.seconds = t.number(i, "seconds", true);
      r.joules = t.number(i, "joules");
      m.ops.push_back(r);
    }
  }
  {
    const Table t(dir, "elementwise.csv", {"op", "precision", "elements", "seconds", "joules"});
    for (std::size_t i = 0; i < t.size(); ++i) {
      GpuMeasuredOp r;
      r.where = t.where(i);
      r.op = t.cell(i, "op");
      r.cls = class_of(t, i, GpuOpClass::Kind::kEltwise);
      r.precision = t.precision(i);
      const auto e = static_cast<std::int64_t>(t.number(i, "elements", true));
      r.model_op = eltwise_op(r.op, r.cls.eltwise, e);
      r.group = r.op;
      r.label = r.op + " " + t.cell(i, "elements");
      r.seconds = t.number(i, "seconds", true);
      r.joules = t.number(i, "joules");
      m.ops.push_back(r);
    }
  }
  {
    const Table t(dir, "models.csv", {"model", "precision", "seconds_per_iter", "joules_per_iter"});
    for (std::size_t i = 0; i < t.size(); ++i)
      m.iterations.push_back({t.cell(i, "model"), t.precision(i),
                              t.number(i, "seconds_per_iter", true),
                              t.number(i, "joules_per_iter", true)});
  }
  {
    const Table t(dir, "model_ops.csv",
                  {"model", "precision", "op", "calls", "device_us", "input_shapes"});
    for (std::size_t i = 0; i < t.size(); ++i)
      m.profile.push_back({t.cell(i, "model"), t.precision(i), t.cell(i, "op"),
                           static_cast<int>(t.number(i, "calls")), t.number(i, "device_us"),
                           t.cell(i, "input_shapes")});
  }
  return m;
}

}  // namespace trainsim
