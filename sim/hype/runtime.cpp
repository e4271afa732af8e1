#include "sim/hype/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>

#include "sim/core/error.h"
#include "sim/core/format.h"
#include "sim/core/interrupt.h"

namespace trainsim {

const char* overlap_rule_name(OverlapRule r) {
  switch (r) {
    case OverlapRule::kWindow:
      return "window";
    case OverlapRule::kPrevious:
      return "previous";
    case OverlapRule::kOff:
      return "off";
  }
  return "?";
}

bool parse_overlap_rule(const std::string& text, OverlapRule& r) {
  for (OverlapRule v : {OverlapRule::kWindow, OverlapRule::kPrevious, OverlapRule::kOff})
    if (text == overlap_rule_name(v)) {
      r = v;
      return true;
    }
  return false;
}

std::vector<double> upward_ranks(const OpDag& dag, const std::vector<double>& duration) {
  if (static_cast<int>(duration.size()) != dag.size())
    throw std::logic_error("upward_ranks: one duration per node needed");
  const std::vector<int> order = dag.topological_order();
  if (static_cast<int>(order.size()) != dag.size())
    throw std::logic_error("upward_ranks: the graph has a cycle");
  std::vector<double> rank(duration.size(), 0);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    double after = 0;
    for (int e : dag.out_edges(*it))
      after = std::max(after, rank[static_cast<std::size_t>(dag.edges()[e].to)]);
    rank[static_cast<std::size_t>(*it)] = duration[static_cast<std::size_t>(*it)] + after;
  }
  return rank;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::size_t at(int i) {
  return static_cast<std::size_t>(i);
}

// What an offloaded op sends back to the GPU: its result as its largest reader reads it, or,
// for an update, the parameters it wrote (they live with the framework on the GPU).
double returned_bytes(const OpDag& dag, int i) {
  double out = 0;
  for (int e : dag.out_edges(i)) out = std::max(out, dag.edges()[at(e)].bytes);
  const Op& op = dag.node(i).op;
  double persistent = 0;
  for (const TensorUse& u : op.outputs)
    if (u.id != kNoTensor && tensor_persistent(u.id))
      persistent += static_cast<double>(u.words) * op.word_bits / 8.0;
  return std::max(out, persistent);
}

class Runtime {
 public:
  Runtime(const OpDag& dag, const Characterization& c, std::vector<Placement> plan,
          const HypePolicy& policy, const RuntimeSystem& sys, int start_level)
      : dag_(dag), c_(c), plan_(std::move(plan)), policy_(policy), sys_(sys) {
    const std::size_t n = at(dag.size());
    if (c.ops.size() != n || plan_.size() != n)
      throw std::logic_error("run_iteration: one cost and one placement per node needed");
    if (!sys.gpu || sys.offload_count < 0 || sys.offload_count > kMaxOffloadDevices ||
        (sys.offload_count > 0 && !sys.offload))
      throw std::logic_error("run_iteration: a GPU and 0-63 offload devices needed");
    // The key ranges keep a device's rates finite and positive (sim/yaml/key_ranges.h); what
    // is left is a combination of its fit figures (a traffic factor of 1e300) that prices an
    // op at no finite time, which is the device file's to fix.
    for (std::size_t i = 0; i < c.ops.size(); ++i) {
      const double t = c.ops[i].gpu.time_s;
      if (!std::isfinite(t) || t < 0)
        throw UserError(sformat(
            "hype.gpu: device '%s' prices %s at %g s: its figures "
            "(peak_tflops, memory_gbps, fit) give no finite time",
            sys.gpu->name().c_str(), dag.node(static_cast<int>(i)).op.describe().c_str(), t));
    }
    std::vector<double> gpu_time(n);
    for (std::size_t i = 0; i < n; ++i) gpu_time[i] = c.ops[i].gpu.time_s;
    rank_ = upward_ranks(dag, gpu_time);
    if (sys.offload_count == 0)
      for (Placement& p : plan_) p = Placement::kGpu;
    devices_ = 1 + sys.offload_count;
    busy_until_.assign(at(devices_), 0);
    running_.assign(at(devices_), -1);
    running_peak_.assign(at(devices_), 0);
    static_w_.assign(at(devices_), sys.offload ? sys.offload->static_w() : 0);
    static_w_[0] = sys.gpu->static_w();
    static_floor_ = sys.host_static_w;
    for (double w : static_w_) static_floor_ += w;
    r_.ops.resize(n);
    r_.devices.resize(at(devices_));
    r_.devices[0].name = "gpu";
    for (int d = 1; d < devices_; ++d) r_.devices[at(d)].name = "offload" + std::to_string(d - 1);
    // Links: per device, to the host then from the host.
    for (int d = 0; d < devices_; ++d) {
      LinkUse up, down;
      up.name = r_.devices[at(d)].name + ":to-host";
      down.name = r_.devices[at(d)].name + ":from-host";
      r_.links.push_back(up);
      r_.links.push_back(down);
    }
    link_free_.assign(r_.links.size(), 0);
    if (const DvfsParams* d = policy.dvfs()) {
      const int levels = 1 + static_cast<int>((1 - d->min_scale) / d->step + 1e-9);
      level_models_.resize(at(levels));
      level_cost_.resize(at(levels));
      level_ = std::min(std::max(start_level, 0), levels - 1);
      r_.start_level = level_;
      events_.push({d->period_s, kControl});
    }
    pending_.assign(n, 0);
    finish_.assign(n, kNaN);
    at_gpu_.assign(n, kNaN);
    at_host_.assign(n, kNaN);
    mask_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      pending_[i] = static_cast<int>(dag.in_edges(static_cast<int>(i)).size());
      if (pending_[i] == 0) make_ready(static_cast<int>(i));
    }
  }

  RuntimeResult run() {
    double now = 0;
    for (;;) {
      check_interrupt();  // an iteration has as many events as ops and controller periods
      dispatch(now);
      if (events_.empty()) break;
      now = events_.top().first;
      while (!events_.empty() && events_.top().first <= now) {
        const int op = events_.top().second;
        events_.pop();
        if (op >= 0) {
          complete(op, now);
          ++done_;
        } else if (op == kControl) {
          control(now);
        }
      }
    }
    if (done_ != at(dag_.size())) stuck(now);
    r_.end_level = level_;
    finish_totals();
    return std::move(r_);
  }

 private:
  using Event = std::pair<double, int>;  // time, completed op (-1: data arrived, kControl)
  static constexpr int kControl = -2;    // the DVFS controller's turn

  // The GPU's cost of op i at its current clock.
  const OpCost& gpu_cost(int i) {
    if (level_cost_.empty()) return c_.ops[at(i)].gpu;
    std::vector<OpCost>& costs = level_cost_[at(level_)];
    if (costs.empty()) {
      // Priced when the controller first reaches the level.
      const DvfsParams& d = *policy_.dvfs();
      level_models_[at(level_)] = sys_.gpu->at_clock(1 - level_ * d.step, d.gamma);
      if (!level_models_[at(level_)])
        throw UserError("policy " + policy_.name() + ": device '" + sys_.gpu->name() +
                        "' has no clock to scale");
      costs.reserve(at(dag_.size()));
      for (int k = 0; k < dag_.size(); ++k)
        costs.push_back(level_models_[at(level_)]->cost(dag_.node(k).op));
    }
    return costs[at(i)];
  }

  // The DVFS controller: the system's average power over the period that just ended decides
  // the clock for the next one.
  void control(double now) {
    const DvfsParams& d = *policy_.dvfs();
    const double from = now - d.period_s;
    double energy = static_floor_ * d.period_s;
    for (const Busy& b : busy_) {
      const double overlap = std::min(b.end, now) - std::max(b.start, from);
      if (overlap > 0) energy += (b.avg_w - static_w_[at(b.device)]) * overlap;
    }
    level_ = policy_.next_level(level_, static_cast<int>(level_cost_.size()), energy / d.period_s);
    if (done_ < at(dag_.size())) events_.push({now + d.period_s, kControl});
  }

  void make_ready(int i) { ready_.insert({-rank_[at(i)], i}); }

  const HostLink& link_of(int device) const {
    return device == 0 ? sys_.gpu_link : sys_.offload_link;
  }

  void count_hop(int device, bool to_host, double bytes, double serial) {
    LinkUse& u = r_.links[at(2 * device + (to_host ? 0 : 1))];
    ++u.transfers;
    u.bytes += bytes;
    u.busy_s += serial;
    u.energy_j += bytes * 8 * link_of(device).pj_per_bit * 1e-12;
  }

  // One hop of `bytes` over link `l` of `device`, starting no earlier than `t0`; returns the
  // arrival time.
  double hop(int device, bool to_host, double bytes, double t0, int op) {
    const int l = 2 * device + (to_host ? 0 : 1);
    const HostLink& h = link_of(device);
    const double start = std::max(t0, link_free_[at(l)]);
    const double serial = bytes / (h.bandwidth_gbps * 1e9);
    link_free_[at(l)] = start + serial;
    count_hop(device, to_host, bytes, serial);
    const double end = start + serial + h.latency_s;
    r_.transfers.push_back({l, op, start, end, bytes});
    return end;
  }

  // Sends `bytes` between the host and every device in `devices` (bit 0: the GPU, bit d:
  // offload device d - 1), up to the host or down from it, each device `per_device` of them
  // (bytes split evenly if 0), starting at `t0`; returns the time the last arrives.
  double hops(std::uint64_t devices, bool to_host, double bytes, double t0, int op,
              double per_device = 0) {
    if (bytes <= 0) return t0;
    const double each = per_device > 0 ? per_device : bytes / __builtin_popcountll(devices);
    double last = t0;
    for (int d = 0; d < devices_; ++d)
      if (devices >> d & 1) last = std::max(last, hop(d, to_host, each, t0, op));
    return last;
  }
  double up(std::uint64_t from, double bytes, double t0, int op, double per_device = 0) {
    return hops(from, true, bytes, t0, op, per_device);
  }
  double down(std::uint64_t to, double bytes, double t0, int op) {
    return hops(to, false, bytes, t0, op);
  }

  // Moves `bytes` from the devices in `from` to those in `to` through the host.
  double move(std::uint64_t from, std::uint64_t to, double bytes, double t0, int op) {
    if (bytes <= 0) return t0;
    return down(to, bytes, up(from, bytes, t0, op), op);
  }

  // When node i's inputs are all on the GPU (all its producers are done).
  double gpu_data_time(int i) const {
    double t = 0;
    for (int e : dag_.in_edges(i)) {
      const int j = dag_.edges()[at(e)].from;
      t = std::max(t, mask_[at(j)] == 1 ? finish_[at(j)] : at_gpu_[at(j)]);
    }
    return t;
  }

  // The system's peak draw now: devices holding an op at its peak share, the others static.
  double system_peak() const {
    double p = sys_.host_static_w;
    for (int d = 0; d < devices_; ++d)
      p += running_[at(d)] >= 0 ? running_peak_[at(d)] : static_w_[at(d)];
    return p;
  }

  void start_on(int i, std::uint64_t mask, double now, double start, const OpCost& cost) {
    const int n = __builtin_popcountll(mask);
    OpRun& o = r_.ops[at(i)];
    o.place = mask == 1 ? Placement::kGpu : Placement::kOffload;
    o.devices = n;
    o.first_device = __builtin_ctzll(mask);
    o.dispatch_s = now;
    o.start_s = start;
    o.end_s = start + cost.time_s;
    mask_[at(i)] = mask;
    for (int d = 0; d < devices_; ++d)
      if (mask >> d & 1) {
        busy_until_[at(d)] = o.end_s;
        running_[at(d)] = i;
        running_peak_[at(d)] = cost.peak_w / n;
        DeviceUse& u = r_.devices[at(d)];
        ++u.ops;
        u.busy_s += cost.time_s;
        u.wait_s += start - now;
        u.energy_j += cost.energy_j / n;
        u.peak_w = std::max(u.peak_w, cost.peak_w / n);
        busy_.push_back({d, start, o.end_s, cost.avg_w / n, cost.peak_w / n});
      }
    events_.push({o.end_s, i});
    if (o.place == Placement::kOffload) ++r_.offloaded;
    ready_.erase({-rank_[at(i)], i});
  }

  // The time a move to the offload devices may take, by the overlap rule's reading (runtime.h):
  // the GPU op that ran last (previous); or the GPU work the move runs beside, the rest of the
  // GPU's current op and the next op it would start, plus what the target itself gains on the
  // offload devices, which pays for a move nothing hides (window).
  double overlap_window(int target, double now) const {
    if (sys_.overlap == OverlapRule::kPrevious)
      return last_gpu_op_ >= 0 ? c_.ops[at(last_gpu_op_)].gpu.time_s : 0;
    const OpCharacter& t = c_.ops[at(target)];
    double window = running_[0] >= 0 ? busy_until_[0] - now : 0;
    window += std::max(0.0, t.gpu.time_s - t.offload.time_s);
    for (const auto& [neg_rank, k] : ready_)
      if (k != target && plan_[at(k)] == Placement::kGpu) {
        window += c_.ops[at(k)].gpu.time_s;
        break;
      }
    return window;
  }

  // The op's inputs from outside the iteration (weights, optimizer state, the batch) on the
  // offload devices `mask`: the previous iteration left them on the GPU, so they may travel
  // from the iteration's start, queued on the links like every transfer (a link's queue only
  // grows, so a prefetch may use the link after its last transfer, not in earlier gaps). Each
  // tensor goes to a set of devices once per iteration, all of it to every device of a gang
  // (the split is of the batch or the rows, never of the weights). Returns their arrival.
  double prefetch(int i, std::uint64_t mask) {
    const Op& op = dag_.node(i).op;
    double arrival = 0;
    for (const TensorUse& u : op.inputs) {
      if (u.id == kNoTensor) continue;
      const bool outside =
          tensor_persistent(u.id) ||
          (tensor_id_kind(u.id) == TensorKind::kActivation && tensor_id_layer(u.id) < 0);
      if (!outside) continue;
      const auto key = std::make_pair(u.id, mask);
      auto it = prefetched_.find(key);
      if (it == prefetched_.end()) {
        const double bytes = static_cast<double>(u.words) * op.word_bits / 8.0;
        const double at_host = up(1, bytes, 0, i);
        it = prefetched_.emplace(key, down(mask, bytes * __builtin_popcountll(mask), at_host, i))
                 .first;
      }
      arrival = std::max(arrival, it->second);
    }
    return arrival;
  }

  // The GPU takes the best ready op it may run now: planned for it (or, with `leftovers`,
  // planned for the offload devices), its inputs on the GPU, admitted by the policy.
  bool try_gpu(double now, bool leftovers) {
    if (running_[0] >= 0) return false;
    const OpCost* best_cost = nullptr;
    int best = -1;
    for (const auto& [neg_rank, i] : ready_) {
      const bool planned = plan_[at(i)] == Placement::kGpu;
      if (planned == leftovers) continue;
      if (gpu_data_time(i) > now) continue;
      const OpCost& g = gpu_cost(i);
      if (!policy_.admit(system_peak(), static_w_[0], g.peak_w)) continue;
      best = i;
      best_cost = &g;
      break;
    }
    if (best < 0) return false;
    if (leftovers) {
      r_.ops[at(best)].demoted = true;
      ++r_.demoted;
    }
    last_gpu_op_ = best;
    r_.ops[at(best)].clock = level_cost_.empty() ? 1 : 1 - level_ * policy_.dvfs()->step;
    start_on(best, 1, now, now, *best_cost);
    return true;
  }

  // The offload devices take the best ready op planned for them that fits the idle devices.
  // True if one started or the overlap rule moved one to the GPU (which may take it now).
  bool try_offload(double now) {
    if (devices_ == 1) return false;
    bool moved = false;
    for (auto it = ready_.begin(); it != ready_.end();) {
      const int i = it->second;
      ++it;
      const OpCharacter& ch = c_.ops[at(i)];
      // Under a cap the GPU may never be allowed an op (its peak there with every other
      // device idle is over the cap); the offload devices take it rather than no one.
      const bool gpu_never = !policy_.admit(static_floor_, static_w_[0], ch.gpu.peak_w);
      if (plan_[at(i)] != Placement::kOffload && !(gpu_never && ch.offload.supported)) continue;
      std::uint64_t mask = 0;
      int found = 0;
      for (int d = 1; d < devices_ && found < ch.offload_devices; ++d)
        if (running_[at(d)] < 0) {
          mask |= std::uint64_t{1} << d;
          ++found;
        }
      if (found < ch.offload_devices) continue;
      if (!policy_.admit(system_peak(), found * static_w_[1], ch.offload.peak_w)) continue;
      // What must come from the GPU now: the results of GPU ops it reads.
      double from_gpu = 0;
      for (int e : dag_.in_edges(i)) {
        const DagEdge& edge = dag_.edges()[at(e)];
        if (mask_[at(edge.from)] == 1) from_gpu += edge.bytes;
      }
      // (Not for an op the GPU may never run: there is nowhere else for it.)
      if (from_gpu > 0 && plan_[at(i)] == Placement::kOffload && !gpu_never &&
          sys_.overlap != OverlapRule::kOff) {
        // The overlap rule (Sec. 3.4), on unloaded links.
        const double moving =
            sys_.gpu_link.time_s(from_gpu) + sys_.offload_link.time_s(from_gpu / found);
        if (moving > overlap_window(i, now)) {
          plan_[at(i)] = Placement::kGpu;
          r_.ops[at(i)].overlap_blocked = true;
          ++r_.overlap_blocked;
          moved = true;
          continue;
        }
      }
      double start = std::max(now, prefetch(i, mask));
      for (int e : dag_.in_edges(i)) {
        const DagEdge& edge = dag_.edges()[at(e)];
        const int j = edge.from;
        if (mask_[at(j)] == mask || edge.kind == DepKind::kOrder) continue;
        if (mask_[at(j)] == 1) {
          // A GPU result: sent now, through the host.
          start = std::max(start, move(1, mask, edge.bytes, now, i));
        } else {
          // Another offload device's result went up to the host when it was done (complete());
          // from there it comes down now, once it has arrived.
          start = std::max(start, down(mask, edge.bytes, std::max(now, at_host_[at(j)]), i));
        }
      }
      start_on(i, mask, now, start, ch.offload);
      return true;
    }
    return moved;
  }

  void dispatch(double now) {
    for (bool any = true; any;) {
      any = false;
      if (policy_.gpu_first()) {
        any = try_gpu(now, false) || try_offload(now) || try_gpu(now, true);
      } else {
        any = try_offload(now) || try_gpu(now, false) || try_gpu(now, true);
      }
    }
    // Ops whose inputs are still on their way to the GPU wake it when they arrive.
    if (running_[0] < 0)
      for (const auto& [neg_rank, i] : ready_) {
        const double t = gpu_data_time(i);
        if (t > now && wake_.insert(t).second) events_.push({t, -1});
      }
  }

  void complete(int i, double now) {
    finish_[at(i)] = now;
    const std::uint64_t mask = mask_[at(i)];
    for (int d = 0; d < devices_; ++d)
      if ((mask >> d & 1) && running_[at(d)] == i) running_[at(d)] = -1;
    if (mask != 1) {
      // A gang splits GEMMs by rows and convolutions by batch (split_rows), so a split
      // backward-weight pass leaves a whole partial weight gradient on every device: each sends
      // all of it, and the host sums them. Other results are split among the devices.
      const double bytes = returned_bytes(dag_, i);
      const bool partial_sums =
          dag_.node(i).op.role == OpRole::kBackwardWeight && __builtin_popcountll(mask) > 1;
      at_host_[at(i)] = up(mask, bytes, now, i, partial_sums ? bytes : 0);
      at_gpu_[at(i)] = down(1, bytes, at_host_[at(i)], i);
      events_.push({at_gpu_[at(i)], -1});
    }
    for (int e : dag_.out_edges(i)) {
      const int to = dag_.edges()[at(e)].to;
      if (--pending_[at(to)] == 0) make_ready(to);
    }
  }

  [[noreturn]] void stuck(double now) const {
    const int i = ready_.empty() ? -1 : ready_.begin()->second;
    if (i < 0) throw std::logic_error("run_iteration: ops never became ready (a cycle?)");
    const OpCharacter& ch = c_.ops[at(i)];
    throw UserError(sformat(
        "hype.power_cap_w: under the power cap %.6g W no device may start op %d (layer %d, %s) "
        "at %.6g s: its peak is %.6g W on the GPU%s, with the system at %.6g W",
        policy_.power_cap_w(), i, dag_.node(i).op.layer, paper_op_type_name(dag_.node(i).type), now,
        ch.gpu.peak_w,
        devices_ > 1 ? sformat(" and %.6g W on the offload devices", ch.offload.peak_w).c_str()
                     : "",
        system_peak()));
  }

  // Energy of idle time, the power trace and the result's totals.
  void finish_totals() {
    double end = 0;
    for (const OpRun& o : r_.ops) end = std::max(end, o.end_s);
    for (const TransferRun& t : r_.transfers) end = std::max(end, t.end_s);
    r_.makespan_s = end;
    double clock_time = 0, gpu_time = 0;
    for (const OpRun& o : r_.ops)
      if (o.place == Placement::kGpu) {
        clock_time += o.clock * (o.end_s - o.start_s);
        gpu_time += o.end_s - o.start_s;
      }
    r_.mean_clock = gpu_time > 0 ? clock_time / gpu_time : 1;
    for (int d = 0; d < devices_; ++d) {
      DeviceUse& u = r_.devices[at(d)];
      u.energy_j += static_w_[at(d)] * std::max(0.0, end - u.busy_s);
      u.peak_w = std::max(u.peak_w, static_w_[at(d)]);
      r_.device_energy_j += u.energy_j;
    }
    for (const LinkUse& l : r_.links) r_.link_energy_j += l.energy_j;
    r_.host_energy_j = sys_.host_static_w * end;
    // The trace: every device's change of draw, summed over the boundaries.
    std::map<double, std::pair<double, double>> delta;  // time -> (avg, peak) change
    double base = sys_.host_static_w;
    for (int d = 0; d < devices_; ++d) base += static_w_[at(d)];
    for (const Busy& b : busy_) {
      const double s = static_w_[at(b.device)];
      delta[b.start].first += b.avg_w - s;
      delta[b.start].second += b.peak_w - s;
      delta[b.end].first -= b.avg_w - s;
      delta[b.end].second -= b.peak_w - s;
    }
    double avg = base, peak = base;
    r_.power.push_back({0, base, base});
    r_.peak_w = base;
    for (const auto& [t, dp] : delta) {
      avg += dp.first;
      peak += dp.second;
      if (t >= end) break;
      if (r_.power.back().t_s == t) r_.power.pop_back();
      r_.power.push_back({t, avg, peak});
      r_.peak_w = std::max(r_.peak_w, peak);
    }
  }

  struct Busy {
    int device;
    double start, end, avg_w, peak_w;
  };

  const OpDag& dag_;
  const Characterization& c_;
  std::vector<Placement> plan_;
  const HypePolicy& policy_;
  const RuntimeSystem& sys_;
  int devices_ = 1;
  double static_floor_ = 0;  // every device idle, and the host
  std::vector<double> rank_;
  std::vector<double> busy_until_, running_peak_, static_w_, link_free_;
  std::vector<int> running_, pending_;
  std::vector<double> finish_, at_gpu_, at_host_;
  std::vector<std::uint64_t> mask_;  // where each finished op ran (bit 0: the GPU)
  std::set<std::pair<double, int>> ready_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::vector<Busy> busy_;
  std::set<double> wake_;  // data arrivals already waited for
  std::map<std::pair<TensorId, std::uint64_t>, double> prefetched_;  // arrival per device set
  int last_gpu_op_ = -1;
  RuntimeResult r_;
  std::size_t done_ = 0;  // ops completed
  int level_ = 0;         // the GPU's clock level (DVFS)
  std::vector<std::unique_ptr<DeviceModel>> level_models_;
  std::vector<std::vector<OpCost>> level_cost_;  // per level, per op; empty until reached
};

}  // namespace

RuntimeResult run_iteration(const OpDag& dag, const Characterization& c,
                            std::vector<Placement> plan, const HypePolicy& policy,
                            const RuntimeSystem& sys, int start_level) {
  return Runtime(dag, c, std::move(plan), policy, sys, start_level).run();
}

}  // namespace trainsim
