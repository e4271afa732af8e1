// The `fpga` device kind: its YAML keys (configs/devices/s10_gx2500.yaml documents each) and
// where each lands in FpgaSpec. A design the device cannot hold is an error here, at its key.
#include "sim/devices/fpga_model.h"
#include "sim/devices/kinds.h"
#include "sim/yaml/key_ranges.h"

namespace trainsim {
namespace {

const std::vector<std::string> kSimdWidths = {"1", "2", "4", "8", "16"};

int parse_simd(const ConfigNode& node) {
  return std::stoi(node.as_choice(kSimdWidths));
}

// A list of distinct values in increasing order, each read by `read`.
template <class Read>
std::vector<int> parse_values(const ConfigNode& node, Read read) {
  std::vector<int> values;
  for (const ConfigNode& item : node.as_sequence()) {
    const int v = read(item);
    if (!values.empty() && v <= values.back()) item.fail("values must increase, without repeats");
    values.push_back(v);
  }
  if (values.empty()) node.fail("needs at least one value");
  return values;
}

void parse_space(const ConfigNode& node, FpgaSpec& f) {
  ConfigMap m = node.as_map();
  m.allow_only({"compute_units", "simd", "work_group", "unroll"});
  FpgaDesignSpace& s = f.space;
  s.compute_units = parse_values(m.require("compute_units"), [](const ConfigNode& n) {
    return n.as_int_in(key_range::kComputeUnits);
  });
  s.simd = parse_values(m.require("simd"), parse_simd);
  s.work_group = parse_values(m.require("work_group"), [](const ConfigNode& n) {
    return n.as_int_in(key_range::kWorkGroup);
  });
  const ConfigNode unroll = m.require("unroll");
  const std::vector<ConfigNode> range = unroll.as_sequence();
  if (range.size() != 2) unroll.fail("expected [min, max]: every unroll degree from min to max");
  s.unroll_min = range[0].as_int_in(key_range::kUnroll);
  s.unroll_max = range[1].as_int_in(key_range::kUnroll);
  if (s.unroll_max < s.unroll_min)
    range[1].fail("must be >= min (" + std::to_string(s.unroll_min) + ")");
  if (s.size() > key_range::kMaxDesignSpace)
    node.fail("the space has " + std::to_string(s.size()) + " designs, at most " +
              std::to_string(key_range::kMaxDesignSpace));
  for (int cu : s.compute_units)
    for (int simd : s.simd)
      for (int wg : s.work_group)
        if (design_problem({cu, simd, wg, s.unroll_min}, f.resources, FpgaSpec::kWordBytes).empty())
          return;
  node.fail("no design of the space fits the device's resources");
}

void parse_design(const ConfigNode& node, const FpgaSpec& f, FpgaDesign& d) {
  ConfigMap m = node.as_map();
  m.allow_only({"compute_units", "simd", "work_group", "unroll"});
  d.compute_units = m.require("compute_units").as_int_in(key_range::kComputeUnits);
  d.simd = parse_simd(m.require("simd"));
  d.work_group = m.require("work_group").as_int_in(key_range::kWorkGroup);
  d.unroll = m.require("unroll").as_int_in(key_range::kUnroll);
  const std::string problem = design_problem(d, f.resources, FpgaSpec::kWordBytes);
  if (!problem.empty()) node.fail("design " + d.describe() + " does not fit: " + problem);
}

// `kernels:` type -> `search`, or class -> design for the classes pinned (the others searched).
void parse_kernels(const ConfigNode& node, FpgaSpec& f) {
  ConfigMap m = node.as_map();
  std::vector<std::string> types;
  for (int t = 0; t < kNumKernelTypes; ++t)
    types.push_back(kernel_type_name(static_cast<KernelType>(t)));
  m.allow_only(types);
  for (int t = 0; t < kNumKernelTypes; ++t) {
    auto v = m.get(types[static_cast<std::size_t>(t)]);
    if (!v) continue;
    FpgaSpec::Kernels& k = f.kernels[static_cast<std::size_t>(t)];
    k.present = true;
    if (v->is_scalar()) {
      v->as_choice({"search"});
      continue;
    }
    ConfigMap classes = v->as_map();
    classes.allow_only({"small", "medium", "large"});
    for (int c = 0; c < kNumSizeClasses; ++c)
      if (auto d = classes.get(size_class_name(static_cast<SizeClass>(c))))
        parse_design(*d, f, k.pinned[static_cast<std::size_t>(c)].emplace());
  }
}

void parse_fit(const ConfigNode& node, FpgaSpec& f) {
  ConfigMap m = node.as_map();
  m.allow_only({"fmax_base_mhz", "fmax_dsp", "fmax_ram", "fmax_cu", "efficiency", "work_group_half",
                "traffic_factor", "launch_us", "power_dsp", "power_ram", "power_memory"});
  if (auto v = m.get("fmax_base_mhz")) f.fmax.base_mhz = v->as_double_in(key_range::kClockMhz);
  if (auto v = m.get("fmax_dsp")) f.fmax.dsp = v->as_double_non_negative();
  if (auto v = m.get("fmax_ram")) f.fmax.ram = v->as_double_non_negative();
  if (auto v = m.get("fmax_cu")) f.fmax.cu = v->as_double_non_negative();
  if (auto v = m.get("efficiency")) f.efficiency = v->as_double_fraction();
  if (auto v = m.get("work_group_half")) f.work_group_half = v->as_double_non_negative();
  if (auto v = m.get("traffic_factor")) f.traffic_factor = v->as_double_positive();
  if (auto v = m.get("launch_us")) f.launch_us = v->as_double_in(key_range::kLatencyUs);
  if (auto v = m.get("power_dsp")) f.power_dsp = v->as_double_non_negative();
  if (auto v = m.get("power_ram")) f.power_ram = v->as_double_non_negative();
  if (auto v = m.get("power_memory")) f.power_memory = v->as_double_non_negative();
}

class FpgaKind final : public DeviceKind {
 public:
  std::string name() const override { return "fpga"; }
  std::string description() const override {
    return "analytic FPGA: OpenCL kernels per op type and size class from a design-space search "
           "(compute units, SIMD, work group, unroll) within DSP and RAM, bounded by memory "
           "bandwidth; power = static + dynamic by resources used";
  }
  std::vector<std::string> keys() const override {
    return {"clock_mhz", "memory_gbps", "resources", "power", "design_space", "kernels", "fit"};
  }
  std::shared_ptr<DeviceModelSpec> parse(const ConfigMap& m, const std::string&) const override {
    auto f = std::make_shared<FpgaSpec>();
    f->clock_mhz = m.require("clock_mhz").as_double_in(key_range::kClockMhz);
    f->memory_gbps = m.require("memory_gbps").as_double_in(key_range::kBandwidthGbps);
    ConfigMap res = m.require("resources").as_map();
    res.allow_only({"dsp", "ram_blocks", "ram_block_bytes"});
    f->resources.dsp = res.require("dsp").as_int64_in(key_range::kFpgaBlocks);
    f->resources.ram_blocks = res.require("ram_blocks").as_int64_in(key_range::kFpgaBlocks);
    if (auto v = res.get("ram_block_bytes"))
      f->resources.ram_block_bytes = v->as_int64_in(key_range::kRamBlockBytes);
    ConfigMap power = m.require("power").as_map();
    power.allow_only({"static_w", "dynamic_max_w"});
    f->static_w = power.require("static_w").as_double_non_negative();
    f->dynamic_max_w = power.require("dynamic_max_w").as_double_positive();
    parse_space(m.require("design_space"), *f);
    if (auto v = m.get("kernels")) {
      parse_kernels(*v, *f);
    } else {
      for (auto& k : f->kernels) k.present = true;  // every type, each class searched
    }
    if (auto v = m.get("fit")) parse_fit(*v, *f);
    return f;
  }
};

}  // namespace

const DeviceKind& fpga_device_kind() {
  static const FpgaKind k;
  return k;
}

}  // namespace trainsim
