#include "sim/interop/scalesim_inputs.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/core/error.h"
#include "sim/yaml/key_ranges.h"

namespace trainsim {

namespace {

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(trim(cell));
  while (!out.empty() && out.back().empty()) out.pop_back();  // SCALE-Sim ends rows with ','
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::int64_t positive(const std::string& text, const std::string& where, const std::string& what) {
  std::int64_t v = 0;
  std::size_t used = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || v < 1 || v > (std::int64_t{1} << 30))
    throw UserError(where + ": " + what + " must be an integer in [1, 2^30], got '" + text + "'");
  return v;
}

}  // namespace

std::vector<ScaleSimLayer> read_scalesim_topology(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(path + ": cannot open the SCALE-Sim topology file");
  std::string line;
  int line_no = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++line_no;
    header = fields(line);
  }
  if (header.empty()) throw UserError(path + ": empty topology file");
  const bool gemm = header.size() == 4 && lower(header[1]) == "m";
  const bool conv = header.size() >= 8 && lower(header[1]).find("ifmap") != std::string::npos;
  if (!gemm && !conv)
    throw UserError(path + ":" + std::to_string(line_no) +
                    ": not a SCALE-Sim topology header (expected 'Layer, M, N, K,' or 'Layer "
                    "name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
                    "Num Filter, Strides,')");
  std::vector<ScaleSimLayer> layers;
  while (std::getline(in, line)) {
    ++line_no;
    const std::vector<std::string> f = fields(line);
    if (f.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_no);
    if (f.size() != header.size())
      throw UserError(where + ": " + std::to_string(f.size()) + " fields, the header has " +
                      std::to_string(header.size()));
    ScaleSimLayer l;
    l.name = f[0];
    l.line = line_no;
    auto v = [&](std::size_t i) { return positive(f[i], where, header[i]); };
    if (gemm) {
      l.op = Op::make_gemm({v(1), v(2), v(3)}, OpRole::kForward);
    } else {
      ConvShape c;
      c.height = v(1);
      c.width = v(2);
      c.kernel_h = v(3);
      c.kernel_w = v(4);
      c.channels = v(5);
      c.filters = v(6);
      c.stride = v(7);  // v3's separate stride columns: the first (height) one
      if (c.kernel_h > c.height || c.kernel_w > c.width)
        throw UserError(where + ": the filter is larger than the ifmap");
      l.op = Op::make_conv(c, OpRole::kForward);
    }
    // Each field is at most 2^30, their products are not: an op past the limits every network
    // layer obeys (sim/workload/size_limits.h: 2^36 MACs per sample) is refused here.
    long double macs = 1;
    for (std::size_t i = 1; i < f.size(); ++i) macs *= static_cast<long double>(v(i));
    if (macs > static_cast<long double>(std::int64_t{1} << 40) * (1 << 12))
      throw UserError(where + ": the layer is too large to time (more than 2^52 MACs)");
    layers.push_back(l);
  }
  if (layers.empty()) throw UserError(path + ": the topology has no layers");
  return layers;
}

NetworkSpec scalesim_topology_network(const std::string& path) {
  const std::vector<ScaleSimLayer> rows = read_scalesim_topology(path);
  NetworkSpec net;
  net.name = std::filesystem::path(path).stem().string();
  net.source = path;
  net.description = "SCALE-Sim topology " + path + ": " + std::to_string(rows.size()) +
                    " independent rows, each from a source of its ifmap to the sink";
  std::map<std::string, int> lines;  // layer name -> the row that made it
  LayerSpec sink;
  sink.type = "sink";
  sink.name = "sink";
  for (const ScaleSimLayer& row : rows) {
    const std::string where = path + ":" + std::to_string(row.line);
    // A layer of a network keeps to the config's key ranges (sim/yaml/key_ranges.h), so
    // that config.resolved.yaml reads back; the topology reader allows up to 2^30.
    auto in_range = [&](std::int64_t v, IntRange r, const char* column) {
      if (v > r.max)
        throw UserError(where + ": " + column + " " + std::to_string(v) +
                        " is more than a network layer takes (" + std::to_string(r.max) + ")");
      return static_cast<int>(v);
    };
    LayerSpec in, layer;
    in.type = "source";
    layer.type = "conv2d";
    layer.bias = false;  // SCALE-Sim's layers have none
    if (row.op.kind == OpKind::kGemm) {
      const GemmShape& g = row.op.gemm;
      in.shape = {
          {in_range(g.k, key_range::kExtent, "K"), in_range(g.m, key_range::kExtent, "M"), 1}};
      layer.filters = in_range(g.n, key_range::kExtent, "N");
      layer.kernel = 1;
    } else {
      const ConvShape& c = row.op.conv;
      in.shape = {{in_range(c.channels, key_range::kExtent, "Channels"),
                   in_range(c.height, key_range::kExtent, "IFMAP Height"),
                   in_range(c.width, key_range::kExtent, "IFMAP Width")}};
      layer.filters = in_range(c.filters, key_range::kExtent, "Num Filter");
      layer.kernel = in_range(c.kernel_h, key_range::kWindow, "Filter Height");
      layer.kernel_w = in_range(c.kernel_w, key_range::kWindow, "Filter Width");
      layer.stride = in_range(c.stride, key_range::kWindow, "Strides");
    }
    layer.name = row.name;
    in.name = row.name + ".ifmap";
    layer.from = {in.name};
    if (row.name.empty()) throw UserError(where + ": the layer has no name");
    // `from: input` means the network input, so no layer may be called that.
    if (row.name == "input") throw UserError(where + ": a layer may not be called 'input'");
    for (const std::string& name : {layer.name, in.name}) {
      const auto [it, fresh] = lines.emplace(name, row.line);
      if (!fresh)
        throw UserError(where + ": layer name '" + name + "' is used twice (also line " +
                        std::to_string(it->second) + ")");
    }
    sink.from.push_back(layer.name);
    net.layers.push_back(in);
    net.layers.push_back(layer);
  }
  if (lines.count(sink.name))
    throw UserError(path + ":" + std::to_string(lines[sink.name]) +
                    ": the name 'sink' is taken by the network's last layer");
  net.layers.push_back(sink);
  return net;
}

AcceleratorSpec apply_scalesim_config(const std::string& path, AcceleratorSpec acc,
                                      std::string* dataflow) {
  std::ifstream in(path);
  if (!in) throw UserError(path + ": cannot open the SCALE-Sim config file");
  std::map<std::string, std::pair<std::string, int>> values;  // lower-case key -> value, line
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';' || t[0] == '[') continue;
    const std::size_t sep = t.find_first_of(":=");
    if (sep == std::string::npos)
      throw UserError(path + ":" + std::to_string(line_no) + ": expected 'Key: value'");
    values[lower(trim(t.substr(0, sep)))] = {trim(t.substr(sep + 1)), line_no};
  }
  auto get = [&](const std::string& key) -> const std::pair<std::string, int>* {
    auto it = values.find(lower(key));
    return it == values.end() ? nullptr : &it->second;
  };
  auto number = [&](const std::string& key, std::int64_t& into) {
    if (const auto* v = get(key))
      into = positive(v->first, path + ":" + std::to_string(v->second), key);
  };
  std::int64_t rows = acc.rows, cols = acc.cols;
  number("ArrayHeight", rows);
  number("ArrayWidth", cols);
  if (rows > 4096 || cols > 4096) throw UserError(path + ": the array is larger than 4096 x 4096");
  acc.rows = static_cast<int>(rows);
  acc.cols = static_cast<int>(cols);
  if (const auto* v = get("Dataflow")) {
    const std::string df = lower(v->first);
    // SCALE-Sim's own three names, the values its Dataflow key takes.
    if (df != "os" && df != "ws" && df != "is")  // kind-name ok: SCALE-Sim's names
      throw UserError(path + ":" + std::to_string(v->second) +
                      ": Dataflow must be os, ws or is, got '" + v->first + "'");
    acc.dataflow = df;
    if (dataflow) *dataflow = df;
  } else if (dataflow) {
    dataflow->clear();
  }
  auto sram = [&](const std::string& key, double& kib) {
    std::int64_t v = 0;
    number(key, v);
    if (v > 0) kib = static_cast<double>(v);
  };
  sram("IfmapSramSzkB", acc.buffer.ifmap_kib);
  sram("FilterSramSzkB", acc.buffer.filter_kib);
  sram("OfmapSramSzkB", acc.buffer.ofmap_kib);
  // SCALE-Sim's CALC interface bandwidth (the DRAM keeps up, no stalls) is what trainsim's
  // scalesim memory model computes; USER (a fixed DRAM bandwidth with stalls) is not modelled,
  // so it is refused rather than silently run as CALC. `Bandwidth` only matters for USER.
  std::int64_t bw = 0;
  number("Bandwidth", bw);
  if (const auto* v = get("InterfaceBandwidth")) {
    const std::string mode = lower(v->first);
    if (mode == "user")
      throw UserError(path + ":" + std::to_string(v->second) +
                      ": InterfaceBandwidth: USER is not modelled (trainsim reproduces SCALE-Sim's "
                      "CALC mode); use CALC");
    if (mode != "calc")
      throw UserError(path + ":" + std::to_string(v->second) +
                      ": InterfaceBandwidth must be CALC or USER, got '" + v->first + "'");
  }
  acc.memory = "scalesim";
  acc.name = "scalesim:" + path;
  return acc;
}

}  // namespace trainsim
