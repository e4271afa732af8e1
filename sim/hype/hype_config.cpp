#include "sim/hype/hype_config.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/devices/device_config.h"
#include "sim/devices/device_identity.h"
#include "sim/devices/system_config.h"
#include "sim/hype/op_types.h"
#include "sim/yaml/key_ranges.h"

namespace trainsim {

double HypeSpec::static_w() const {
  double w = host_static_w;
  if (gpu) w += gpus * gpu->build()->static_w();
  if (offload) w += offloads * offload->build()->static_w();
  return w;
}

namespace {

// PCIe 3.0 x16 as He et al. measured it (Sec. 3.4): 512 KB from the CPU took 0.547 ms to an
// S10 and 1.198 ms to a V100. One point per link cannot separate latency from bandwidth; with
// 12 GB/s [assumed: PCIe 3.0 x16's 15.75 GB/s raw at ~75% efficiency] the rest is latency,
// which makes the two points exact (docs/hype.md#links).
constexpr double kPcieGbps = 12;
constexpr double kKiB512 = 512 * 1024;
HostLink paper_link(double ms_for_512k) {
  HostLink l;
  l.bandwidth_gbps = kPcieGbps;
  l.latency_s = ms_for_512k * 1e-3 - kKiB512 / (kPcieGbps * 1e9);
  l.pj_per_bit = 6;  // [assumed] a PCIe 3.0 SerDes lane, a few pJ/bit
  return l;
}

HostLink parse_link(const ConfigNode& node, HostLink l) {
  ConfigMap m = node.as_map();
  m.allow_only({"bandwidth_gbps", "latency_us", "pj_per_bit"});
  if (auto v = m.get("bandwidth_gbps"))
    l.bandwidth_gbps = v->as_double_in(key_range::kBandwidthGbps);
  if (auto v = m.get("latency_us")) l.latency_s = v->as_double_in(key_range::kLatencyUs) * 1e-6;
  if (auto v = m.get("pj_per_bit")) l.pj_per_bit = v->as_double_non_negative();
  return l;
}

// The device a system's entry is, as Hype's runtime prices ops: its model, or for an
// accelerator entry the `accelerator` device kind's model of it.
std::shared_ptr<const DeviceModelSpec> device_model_of(const DeviceSpec& d, const ConfigNode& at) {
  if (d.model) return d.model;
  if (d.accelerator.energy.unit != "pJ")
    at.fail("a Hype device needs an energy table in pJ to give joules and watts; '" +
            d.accelerator.energy.name + "' is in " + d.accelerator.energy.unit + " units");
  return entry_device_model(d);
}

// The GPUs are the system's first kind of device, the offload devices its second, in that
// order: `devices: [{device: v100}, {device: s10_gx2500, count: 3}]`. `node`: the system as
// the experiment writes it (null: a named system, whose links are only noted as unused).
void devices_from_system(const SystemSpec& sys, const ConfigNode* node, const ConfigNode& hype,
                         HypeSpec& s) {
  const ConfigNode& at = node ? *node : hype;
  if (node != nullptr)
    for (const char* key : {"topology", "link", "links"})
      if (auto v = node->as_map().get(key))
        v->fail(std::string("a hype: system's devices talk over the host (hype.links), so its "
                            "system has no `") +
                key + ":`");
  // Kinds of device in order of appearance; a kind is equal devices (not just equal names:
  // two entries of one accelerator with different dataflows are two kinds).
  std::vector<std::pair<std::size_t, int>> kinds;  // first device, count
  for (std::size_t i = 0; i < sys.devices.size(); ++i) {
    if (kinds.empty() || !same_device(sys.devices[kinds.back().first], sys.devices[i]))
      kinds.push_back({i, 0});
    ++kinds.back().second;
  }
  if (kinds.size() > 2) {
    std::string listed;
    for (const auto& k : kinds)
      listed += (listed.empty() ? "" : ", ") + sys.devices[k.first].name();
    at.fail(
        "a hype: system is GPUs, then at most one kind of offload device (system.devices "
        "lists " +
        std::to_string(kinds.size()) + " kinds: " + listed + ")");
  }
  s.gpu = device_model_of(sys.devices.front(), at);
  s.gpus = kinds[0].second;
  s.gpu_key = sys.devices.front().where.empty() ? "system.devices" : sys.devices.front().where;
  if (kinds.size() == 2) {
    s.offload = device_model_of(sys.devices[kinds[1].first], at);
    s.offloads = kinds[1].second;
  }
}

}  // namespace

HypeSpec parse_hype(const ConfigNode& node, const std::string& experiment_path,
                    const SystemSpec* system, const ConfigNode* system_node) {
  ConfigMap m = node.as_map();
  m.allow_only({"gpu", "gpus", "offload", "offloads", "links", "policy", "offload_types",
                "power_cap_w", "thresholds", "overlap_rule", "bias_ops", "dvfs", "host_static_w",
                "sample_ms"});
  HypeSpec s;
  s.raw = YAML::Clone(node.yaml());
  if (system != nullptr) {
    for (const char* key : {"gpu", "gpus", "offload", "offloads"})
      if (auto v = m.get(key))
        v->fail(std::string("a hype: over the experiment's system takes its devices from "
                            "system.devices; `") +
                key + ":` is for a hype: without a system");
    devices_from_system(*system, system_node, node, s);
  } else {
    s.gpu = parse_device_ref(m.require("gpu"), experiment_path);
    if (auto v = m.get("gpus")) s.gpus = v->as_int_in(key_range::kDevices);
    if (auto v = m.get("offload")) s.offload = parse_device_ref(*v, experiment_path);
    if (auto v = m.get("offloads")) {
      s.offloads = v->as_int_in(IntRange{0, key_range::kDevices.max});
      if (s.offloads > 0 && !s.offload) v->fail("offload devices need `offload:` (a device)");
    } else if (s.offload) {
      s.offloads = s.gpus;  // one per GPU
    }
  }
  if (s.offloads % s.gpus != 0)
    m.node().fail(
        sformat("offloads: %d offload devices do not divide among %d GPUs", s.offloads, s.gpus));
  if (s.offloads / s.gpus > kMaxOffloadDevices)
    m.node().fail(sformat("offloads: at most %d offload devices per GPU (got %d)",
                          kMaxOffloadDevices, s.offloads / s.gpus));
  s.gpu_link = paper_link(1.198);
  s.offload_link = paper_link(0.547);
  if (auto v = m.get("links")) {
    ConfigMap l = v->as_map();
    l.allow_only({"gpu", "offload"});
    if (auto g = l.get("gpu")) s.gpu_link = parse_link(*g, s.gpu_link);
    if (auto o = l.get("offload")) {
      if (s.offloads == 0) o->fail("a link to nowhere: the system has no offload devices");
      s.offload_link = parse_link(*o, s.offload_link);
    }
  }
  if (auto v = m.get("policy")) {
    try {
      s.policy = hype_policy_info(v->as_nonempty_string()).name;  // an alias's policy
    } catch (const UserError& e) {
      v->fail(e.what());
    }
  }
  if (auto v = m.get("overlap_rule")) {
    if (!parse_overlap_rule(v->as_nonempty_string(), s.overlap_rule))
      v->fail("expected window, previous or off, got " + v->describe());
  }
  if (auto v = m.get("bias_ops")) s.bias_ops = v->as_bool();
  if (auto v = m.get("dvfs")) {
    ConfigMap d = v->as_map();
    d.allow_only({"period_ms", "step", "min_scale", "hysteresis_w", "gamma"});
    if (auto x = d.get("period_ms"))
      s.dvfs.period_s = x->as_double_in(key_range::kDvfsPeriodMs) * 1e-3;
    if (auto x = d.get("step")) s.dvfs.step = x->as_double_fraction();
    if (auto x = d.get("min_scale")) s.dvfs.min_scale = x->as_double_fraction();
    if (auto x = d.get("hysteresis_w")) s.dvfs.hysteresis_w = x->as_double_non_negative();
    if (auto x = d.get("gamma")) s.dvfs.gamma = x->as_double_non_negative();
  }
  if (auto v = m.get("host_static_w")) s.host_static_w = v->as_double_non_negative();
  if (auto v = m.get("sample_ms")) {
    s.sample_ms = v->as_double_in(key_range::kSampleMs);
    if (s.sample_ms < 1e-3) v->fail("at least 0.001 (1 us)");
  }
  if (auto v = m.get("thresholds")) {
    ConfigMap t = v->as_map();
    t.allow_only({"bandwidth_gbps", "ipc", "combine"});
    if (auto c = t.get("combine")) {
      if (!parse_threshold_combine(c->as_nonempty_string(), s.thresholds.combine))
        c->fail("expected and or or, got " + c->describe());
    }
    auto bw = t.get("bandwidth_gbps");
    auto ipc = t.get("ipc");
    if (bw || ipc) {
      if (!bw || !ipc) v->fail("give both bandwidth_gbps and ipc, or neither (auto)");
      s.auto_thresholds = false;
      s.thresholds.bandwidth_gbps = bw->as_double_non_negative();
      s.thresholds.ipc = ipc->as_double_non_negative();
    }
  }
  if (auto v = m.get("power_cap_w")) {
    s.power_cap_w = v->as_double_positive();
    const double floor = s.static_w();
    if (s.power_cap_w < floor)
      v->fail(sformat("%.6g W is below the system's static power, %.6g W", s.power_cap_w, floor));
  } else if (hype_policy_info(s.policy).needs_power_cap) {
    m.node().fail("policy " + s.policy + " needs power_cap_w");
  }
  // A placement given as data: the op types, by TensorFlow's names (docs/hype.md).
  const bool takes_types = hype_policy_info(s.policy).takes_offload_types;
  if (auto v = m.get("offload_types")) {
    if (!takes_types)
      v->fail("offload_types is the placement of policy listed (policy is " + s.policy + ")");
    for (const ConfigNode& t : v->as_sequence()) {
      PaperOpType type{};
      if (!parse_paper_op_type(t.as_nonempty_string(), type)) {
        std::string known;
        for (int k = 0; k < kNumPaperOpTypes; ++k)
          known += std::string(known.empty() ? "" : ", ") +
                   paper_op_type_name(static_cast<PaperOpType>(k));
        t.fail("unknown op type '" + t.as_string() + "' (known: " + known + ")");
      }
      if (std::find(s.offload_types.begin(), s.offload_types.end(), type) == s.offload_types.end())
        s.offload_types.push_back(type);
    }
  } else if (takes_types) {
    m.node().fail("policy " + s.policy +
                  " needs offload_types: the op types it places on the "
                  "offload devices, e.g. [MatMul, Conv2D]");
  }
  // A policy that scales the GPU's clock needs a GPU that has one (a GPU model; trainsim's
  // accelerators and the FPGA kernels run at one clock).
  if (hype_policy_info(s.policy).scales_clock && !s.gpu->build()->at_clock(1.0, 1.0)) {
    const std::string what = "policy " + s.policy + " scales the GPUs' clock, and device '" +
                             s.gpu->name + "' (" + s.gpu_key + ", kind " + s.gpu->kind +
                             ") has none to scale";
    if (auto v = m.get("policy")) v->fail(what);
    m.node().fail(what);
  }
  return s;
}

SystemSpec implied_system(const ConfigNode& node, const HypeSpec& h,
                          const std::string& experiment_path, const SimulationSpec& sim) {
  ConfigMap m = node.as_map();
  SystemSpec s;
  s.name = "hype";
  s.source = experiment_path;
  s.implied_by = "hype";
  DeviceSpec gpu = device_entry(h.gpu, m.require("gpu"), sim);
  gpu.where = h.gpu_key;
  for (int i = 0; i < h.gpus; ++i) s.devices.push_back(gpu);
  if (h.offloads > 0) {
    DeviceSpec off = device_entry(h.offload, m.require("offload"), sim);
    off.where = "hype.offload";
    for (int i = 0; i < h.offloads; ++i) s.devices.push_back(off);
  }
  return s;
}

}  // namespace trainsim
