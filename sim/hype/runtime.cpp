#include "sim/hype/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <systemc>

#include "models/platform/executor.h"
#include "models/platform/interconnect.h"
#include "models/platform/links.h"
#include "models/platform/placement.h"
#include "models/sim_time.h"
#include "sim/core/checked_span.h"
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
    for (int u : dag.graph().users(*it)) after = std::max(after, rank[static_cast<std::size_t>(u)]);
    rank[static_cast<std::size_t>(*it)] = duration[static_cast<std::size_t>(*it)] + after;
  }
  return rank;
}

namespace {

std::size_t at(int i) {
  return static_cast<std::size_t>(i);
}

// What an offloaded op sends back to the GPU: its result as its largest reader reads it, or,
// for an update, the parameters it wrote (they live with the framework on the GPU).
double returned_bytes(const OpDag& dag, int i) {
  double out = 0;
  for (int u : dag.graph().users(i))
    out = std::max(out, static_cast<double>(dag.graph().edge(i, u)->bytes));
  const Op& op = dag.node(i).op;
  double persistent = 0;
  for (const TensorUse& u : op.outputs)
    if (u.id != kNoTensor && tensor_persistent(u.id))
      persistent += static_cast<double>(u.words) * op.word_bits / 8.0;
  return std::max(out, persistent);
}

constexpr double kPsPerS = 1e12;

// The runtime is the one engine's dispatcher (models/platform/executor.h): its decision loop
// (and the DVFS controller) run as processes of their own beside the devices, and it gives each
// device the op it holds once that op's inputs are all there.
class Runtime : public Placement {
 public:
  Runtime(const OpDag& dag, const Characterization& c, std::vector<OpSite> plan,
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
      for (OpSite& p : plan_) p = OpSite::kGpu;
    devices_ = 1 + sys.offload_count;
    net_ = std::make_unique<Interconnect>(host_star(sys, devices_));
    busy_until_.assign(at(devices_), 0);
    running_.assign(at(devices_), -1);
    running_peak_.assign(at(devices_), 0);
    held_.assign(at(devices_), -1);
    static_w_.assign(at(devices_), sys.offload ? sys.offload->static_w() : 0);
    static_w_[0] = sys.gpu->static_w();
    static_floor_ = sys.host_static_w;
    for (double w : static_w_) static_floor_ += w;
    r_.ops.resize(n);
    r_.devices.resize(at(devices_));
    r_.devices[0].name = "gpu";
    for (int d = 1; d < devices_; ++d) r_.devices[at(d)].name = "offload" + std::to_string(d - 1);
    // Links: per device, to the host then from the host (the channels' order).
    for (int d = 0; d < devices_; ++d) {
      LinkUse up, down;
      up.name = r_.devices[at(d)].name + ":to-host";
      down.name = r_.devices[at(d)].name + ":from-host";
      r_.links.push_back(up);
      r_.links.push_back(down);
    }
    if (const DvfsParams* d = policy.dvfs()) {
      const int levels = 1 + static_cast<int>((1 - d->min_scale) / d->step + 1e-9);
      level_models_.resize(at(levels));
      level_cost_.resize(at(levels));
      level_priced_.resize(at(levels));
      level_ = std::min(std::max(start_level, 0), levels - 1);
      r_.start_level = level_;
      period_ps_ = checked_round(d->period_s * kPsPerS, {"hype.dvfs.period_s", d->period_s,
                                                         "the controller's period", "ps"});
    }
    pending_.assign(n, 0);
    inputs_.assign(n, 0);
    cost_.resize(n);
    on_gpu_.assign(n, 0);
    at_host_.assign(n, 0);
    host_waiters_.resize(n);
    mask_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      pending_[i] = static_cast<int>(dag.graph().deps(static_cast<int>(i)).size());
      if (pending_[i] == 0) make_ready(static_cast<int>(i));
    }
  }

  // It decides as the iteration runs, reading the system's live state.
  PlacementTiming timing() const override { return PlacementTiming::kOnline; }

  RuntimeResult run() {
    Realized real = execute(*this, *net_);
    r_.end_level = level_;
    r_.orders = std::move(real.orders);
    collect_links(real);
    finish_totals();
    return std::move(r_);
  }

 private:
  // A move: hops over the links, in parallel, and what to do when the last has arrived.
  struct Move {
    int op = 0;          // the op it is for (a result going back: its producer)
    int remaining = 0;   // hops still on their way
    bool needed = true;  // something waits for it (staging ahead of need does not, yet)
    std::function<void()> then;
  };
  struct Hop {
    int channel = 0;
    double bytes = 0;
  };
  // A tensor from outside the iteration on its way to the host, and the device sets waiting
  // for it there.
  struct Staged {
    int move = -1;
    bool at_host = false;
    std::vector<std::uint64_t> waiting;
  };
  // The same tensor on its way down to a set of devices, and the ops that wait for it.
  struct Delivery {
    bool arrived = false;
    std::vector<int> ops;
  };

  std::int64_t now_ps() const { return executor().now_ps(); }
  double now_s() const { return static_cast<double>(now_ps()) / kPsPerS; }

  static std::int64_t to_ps(double s) {
    return checked_round(s * kPsPerS, {"hype", s, "an op's time", "ps"});
  }

  // The executor wakes the devices and stops the links; the decision loop waits on its own event.
  void abandon() override { wake_.notify(sc_core::SC_ZERO_TIME); }

  void spawn(Executor& x, bool before) override {
    if (before) {
      x.spawn([this] { dispatcher(); }, "hype_dispatch");
    } else if (period_ps_ > 0 && policy_.clock_controller()) {
      x.spawn([this] { controller(); }, "hype_dvfs");
    }
  }

  // A device runs the op the decision loop gave it (a gang's first device runs the gang's),
  // once its inputs are all there.
  int next(int d) override {
    const int i = held_[at(d)];
    if (i >= 0 && inputs_[at(i)] == 0) return i;
    return finished_ ? kDone : kWait;
  }

  std::int64_t start(int i, int) override {
    begin(i);
    return to_ps(cost_[at(i)].time_s);
  }

  void ended(int i, int d) override {
    held_[at(d)] = -1;
    ended_ops_.push_back(i);  // the decision loop completes it (absorb())
    wake_.notify(sc_core::SC_ZERO_TIME);
  }

  void delivered(int, std::int64_t tag, std::int64_t) override {
    hop_arrived(static_cast<int>(tag));
  }

  std::exception_ptr unfinished() override {
    if (done_ == at(dag_.size())) return nullptr;
    // No device may start what is left.
    try {
      stuck(static_cast<double>(last_progress_ps_) / kPsPerS);
    } catch (...) {
      return std::current_exception();
    }
  }

  // Every event at the current time (completions, arrivals, the controller) takes effect before
  // a decision: the runtime decides once what it sees at an instant, not once per event.
  static void settle() {
    while (sc_core::sc_pending_activity_at_current_time()) sc_core::wait(sc_core::SC_ZERO_TIME);
  }

  void dispatcher() {
    stage();
    for (;;) {
      check_interrupt();  // an iteration has as many decisions as ops and controller periods
      absorb();
      if (executor().stopping()) return;
      dispatch(now_s());
      if (done_ == at(dag_.size()) && moving_ == 0) break;
      sc_core::wait(wake_);
    }
    // Every op has run and every move something waited for has arrived: the devices and the
    // links are done (the DVFS controller stops by its own rule).
    finished_ = true;
    for (int d = 0; d < devices_; ++d) executor().wake(d);
    executor().links().stop();
  }

  // What happened at this instant (ops whose time is up, moves whose last hop arrived) takes
  // effect in a fixed order, ops by index then moves by index, whatever order the kernel ran
  // their processes in, and so do the zero-time consequences, until nothing is left.
  void absorb() {
    for (;;) {
      settle();
      if (ended_ops_.empty() && arrived_moves_.empty()) return;
      std::vector<int> ops, moves;
      ops.swap(ended_ops_);
      moves.swap(arrived_moves_);
      std::sort(ops.begin(), ops.end());
      std::sort(moves.begin(), moves.end());
      for (int i : ops) complete(i);
      for (int m : moves) finish_move(m);
    }
  }

  // The DVFS controller: each period, the system's average power over the period that just
  // ended decides the clock for the next one. It runs until a period ends after the last op.
  void controller() {
    for (;;) {
      const sc_core::sc_time now = sc_core::sc_time_stamp();
      sc_core::wait(after_ps(now, period_ps_) - now);
      if (executor().stopping()) return;
      const int before = level_;
      control(now_s());
      wake_.notify(sc_core::SC_ZERO_TIME);
      // It decides once more after the last op, at the first period's end at or after it; ops
      // that end at this very instant count as after its turn (the dispatcher completes them
      // after it).
      if (done_ == at(dag_.size()) && last_done_ps_ < now_ps()) return;
      // Nothing running, held or moving, ops left, and a clock that did not move: nothing can
      // change any more (the run is stuck; run() says why).
      const bool idle =
          std::all_of(running_.begin(), running_.end(), [](int r) { return r < 0; }) &&
          moving_ == 0 && ended_ops_.empty() && arrived_moves_.empty();
      if (done_ < at(dag_.size()) && idle && level_ == before) return;
    }
  }

  // The GPU's cost of op i at clock level `level` (its current clock by default).
  const OpCost& gpu_cost(int i, int level = -1) {
    if (level_cost_.empty()) return c_.ops[at(i)].gpu;
    if (level < 0) level = level_;
    std::vector<OpCost>& costs = level_cost_[at(level)];
    std::vector<char>& priced = level_priced_[at(level)];
    if (costs.empty()) {
      // The level's model is built when the run first reaches it, each op priced at its first
      // use (per-op clock fitting may look at many levels for one op).
      const DvfsParams& d = *policy_.dvfs();
      level_models_[at(level)] = sys_.gpu->at_clock(1 - level * d.step, d.gamma);
      if (!level_models_[at(level)])
        throw UserError("policy " + policy_.name() + ": device '" + sys_.gpu->name() +
                        "' has no clock to scale");
      costs.resize(at(dag_.size()));  // once: costs handed out stay where they are
      priced.assign(at(dag_.size()), 0);
    }
    if (!priced[at(i)]) {
      costs[at(i)] = level_models_[at(level)]->cost(dag_.node(i).op);
      priced[at(i)] = 1;
    }
    return costs[at(i)];
  }

  // Under a cap the GPU may never be allowed op i: its peak there at any clock it may run at,
  // with every other device idle, is over the cap.
  bool gpu_never(int i) { return admitted_level(i, static_floor_, static_w_[0]) < 0; }

  // The clock level op i runs at on the GPU if it starts now: the current one, or, for a
  // policy that fits the clock per op, the highest below it whose peak the policy admits.
  // -1 if none is admitted.
  int admitted_level(int i, double system_peak_w, double idle_static_w) {
    if (policy_.admit(system_peak_w, idle_static_w, gpu_cost(i).peak_w)) return level_;
    if (!policy_.fits_clock_per_op()) return -1;
    // The peak falls with the clock: the first level that fits is the fastest that does.
    for (int l = level_ + 1; l < static_cast<int>(level_cost_.size()); ++l)
      if (policy_.admit(system_peak_w, idle_static_w, gpu_cost(i, l).peak_w)) return l;
    return -1;
  }

  void control(double now) {
    const DvfsParams& d = *policy_.dvfs();
    const double from = now - d.period_s;
    double energy = static_floor_ * d.period_s;
    for (const Busy& b : busy_) {
      const double overlap = std::min(b.end, now) - std::max(b.start, from);
      if (overlap > 0) energy += (b.avg_w - static_w_[at(b.device)]) * overlap;
    }
    level_ = policy_.next_level(level_, static_cast<int>(level_cost_.size()), energy / d.period_s,
                                gpu_refused_);
    gpu_refused_ = false;
  }

  void make_ready(int i) { ready_.insert({-rank_[at(i)], i}); }

  // Starts a move of `hops` for op `op`; `then` runs when the last hop has arrived (at once if
  // there is nothing to move). Returns its index, or -1 if it was done at once.
  int move(int op, const std::vector<Hop>& hops, std::function<void()> then,
           bool background = false) {
    int count = 0;
    for (const Hop& h : hops) count += h.bytes > 0;
    if (count == 0) {
      then();
      return -1;
    }
    const int m = static_cast<int>(moves_.size());
    moves_.push_back({op, count, !background, std::move(then)});
    if (!background) ++moving_;
    for (const Hop& h : hops)
      if (h.bytes > 0)
        executor().links().send(h.channel, static_cast<std::int64_t>(std::ceil(h.bytes)), m,
                                background);
    return m;
  }

  void hop_arrived(int m) {
    Move& mv = moves_[at(m)];
    if (mv.needed) last_needed_ps_ = std::max(last_needed_ps_, now_ps());
    if (--mv.remaining > 0) return;
    arrived_moves_.push_back(m);  // the dispatcher finishes it (absorb())
    wake_.notify(sc_core::SC_ZERO_TIME);
  }

  // Move m's last hop has arrived: what waited for it goes on.
  void finish_move(int m) {
    Move& mv = moves_[at(m)];
    if (mv.needed) --moving_;
    std::function<void()> then = std::move(mv.then);
    if (then) then();  // may add moves: mv is not used after this
  }

  // A background move becomes one something waits for: what of it is still queued goes next.
  void need(int m) {
    Move& mv = moves_[at(m)];
    if (mv.needed || mv.remaining == 0) return;
    mv.needed = true;
    ++moving_;
    for (std::size_t c = 0; c < net_->channels().size(); ++c)
      executor().links().promote(static_cast<int>(c), m);
  }

  // Hops between the host and each device in `devices` (bit d: device d), up or down, each
  // carrying `each` bytes.
  std::vector<Hop> hops(std::uint64_t devices, bool to_host, double each) const {
    std::vector<Hop> h;
    for (int d = 0; d < devices_; ++d)
      if (devices >> d & 1) h.push_back({2 * d + (to_host ? 0 : 1), each});
    return h;
  }

  // When every producer of node i has its result on the GPU.
  bool inputs_on_gpu(int i) const {
    for (const Edge& e : dag_.graph().deps(i))
      if (!on_gpu_[at(e.from)]) return false;
    return true;
  }

  // The system's peak draw now: devices holding an op at its peak share, the others static.
  double system_peak() const {
    double p = sys_.host_static_w;
    for (int d = 0; d < devices_; ++d)
      p += running_[at(d)] >= 0 ? running_peak_[at(d)] : static_w_[at(d)];
    return p;
  }

  // Op i is given to the devices `mask` now; it starts once its inputs are there.
  void hold(int i, std::uint64_t mask, double now, const OpCost& cost) {
    const int n = __builtin_popcountll(mask);
    OpRun& o = r_.ops[at(i)];
    o.place = mask == 1 ? OpSite::kGpu : OpSite::kOffload;
    o.devices = n;
    o.first_device = __builtin_ctzll(mask);
    o.dispatch_s = now;
    mask_[at(i)] = mask;
    cost_[at(i)] = cost;
    for (int d = 0; d < devices_; ++d)
      if (mask >> d & 1) {
        running_[at(d)] = i;
        running_peak_[at(d)] = cost.peak_w / n;
        ++r_.devices[at(d)].ops;
      }
    held_[at(o.first_device)] = i;
    if (o.place == OpSite::kOffload) ++r_.offloaded;
    ready_.erase({-rank_[at(i)], i});
  }

  // Op i has its inputs: it runs from now on its devices.
  void begin(int i) {
    const OpCost& cost = cost_[at(i)];
    const std::uint64_t mask = mask_[at(i)];
    const int n = __builtin_popcountll(mask);
    OpRun& o = r_.ops[at(i)];
    const std::int64_t start = last_progress_ps_ = now_ps();
    o.start_s = static_cast<double>(start) / kPsPerS;
    o.end_s = static_cast<double>(start + to_ps(cost.time_s)) / kPsPerS;
    for (int d = 0; d < devices_; ++d)
      if (mask >> d & 1) {
        busy_until_[at(d)] = o.end_s;
        DeviceUse& u = r_.devices[at(d)];
        u.busy_s += o.end_s - o.start_s;
        u.wait_s += o.start_s - o.dispatch_s;
        u.energy_j += cost.energy_j / n;
        u.peak_w = std::max(u.peak_w, cost.peak_w / n);
        busy_.push_back({d, o.start_s, o.end_s, cost.avg_w / n, cost.peak_w / n});
      }
  }

  // One input of op i has arrived on its devices.
  void input_arrived(int i) {
    if (--inputs_[at(i)] == 0) executor().wake(r_.ops[at(i)].first_device, true);
  }

  // The time a move to the offload devices may take, by the overlap rule's reading (runtime.h):
  // the GPU op that ran last (previous); or the GPU work the move runs beside, the rest of the
  // GPU's current op and the next op it would start, plus what the target itself gains on the
  // offload devices, which pays for a move nothing hides (window).
  double overlap_window(int target, double now) {
    // GPU times at the clocks the ops run or would run at (DVFS policies scale them).
    if (sys_.overlap == OverlapRule::kPrevious)
      return last_gpu_op_ >= 0 ? cost_[at(last_gpu_op_)].time_s : 0;
    const OpCharacter& t = c_.ops[at(target)];
    double window = running_[0] >= 0 ? busy_until_[0] - now : 0;
    window += std::max(0.0, t.gpu.time_s - t.offload.time_s);
    for (const auto& [neg_rank, k] : ready_)
      if (k != target && plan_[at(k)] == OpSite::kGpu) {
        window += gpu_cost(k).time_s;
        break;
      }
    return window;
  }

  // Whether an input of op i is a tensor from outside the iteration (weights, optimizer state,
  // the batch): the previous iteration left it on the GPU.
  static bool outside(const TensorUse& u) {
    return u.id != kNoTensor &&
           (tensor_persistent(u.id) ||
            (tensor_id_kind(u.id) == TensorKind::kActivation && tensor_id_layer(u.id) < 0));
  }

  // From the iteration's start the host stages, from the GPU, the outside tensors of every op
  // planned for the offload devices, highest rank first: the plan is known before the
  // iteration, and the host's link to the GPU is otherwise idle then. Staging is background
  // traffic: data an op waits for goes first, and what a demoted op never needs stays queued.
  void stage() {
    std::vector<int> order;
    for (int i = 0; i < dag_.size(); ++i)
      if (plan_[at(i)] == OpSite::kOffload) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return rank_[at(a)] > rank_[at(b)]; });
    for (int i : order) {
      const Op& op = dag_.node(i).op;
      for (const TensorUse& u : op.inputs) {
        if (!outside(u) || staged_.count(u.id)) continue;
        const double bytes = static_cast<double>(u.words) * op.word_bits / 8.0;
        stage_tensor(u.id, i, bytes, true);
      }
    }
  }

  void stage_tensor(TensorId id, int op, double bytes, bool background) {
    staged_[id].move = -1;
    const int m = move(
        op, hops(1, true, bytes), [this, id] { at_host(id); }, background);
    if (m >= 0) staged_[id].move = m;
  }

  // A staged tensor has reached the host: it goes down to the device sets that wait for it.
  void at_host(TensorId id) {
    Staged& s = staged_[id];
    s.at_host = true;
    for (std::uint64_t mask : s.waiting) send_down(id, mask);
    s.waiting.clear();
  }

  void send_down(TensorId id, std::uint64_t mask) {
    Delivery& dl = delivered_[{id, mask}];
    const int op = dl.ops.empty() ? 0 : dl.ops.front();
    move(op, hops(mask, false, tensor_bytes_[id]), [this, id, mask] {
      Delivery& x = delivered_[{id, mask}];
      x.arrived = true;
      for (int k : x.ops) input_arrived(k);
      x.ops.clear();
    });
  }

  // Op i on the devices `mask` needs the outside tensors it reads there: each tensor goes to
  // a set of devices once per iteration, all of it to every device of a gang (the split is of
  // the batch or the rows, never of the weights), through the host.
  void prefetch(int i, std::uint64_t mask) {
    const Op& op = dag_.node(i).op;
    for (const TensorUse& u : op.inputs) {
      if (!outside(u)) continue;
      const double bytes = static_cast<double>(u.words) * op.word_bits / 8.0;
      tensor_bytes_[u.id] = std::max(tensor_bytes_[u.id], bytes);
      auto [it, first] = delivered_.try_emplace({u.id, mask});
      if (it->second.arrived) continue;
      ++inputs_[at(i)];
      it->second.ops.push_back(i);
      if (!first) continue;  // on its way already
      auto st = staged_.find(u.id);
      if (st == staged_.end()) {
        staged_[u.id].waiting.push_back(mask);
        stage_tensor(u.id, i, bytes, false);
      } else if (st->second.at_host) {
        send_down(u.id, mask);
      } else {
        st->second.waiting.push_back(mask);
        if (st->second.move >= 0) need(st->second.move);
      }
    }
  }

  // The GPU takes the best ready op it may run now: planned for it (or, with `leftovers`,
  // planned for the offload devices), its inputs on the GPU, admitted by the policy.
  bool try_gpu(double now, bool leftovers) {
    if (running_[0] >= 0) return false;
    const OpCost* best_cost = nullptr;
    int best = -1, best_level = 0;
    for (const auto& [neg_rank, i] : ready_) {
      const bool planned = plan_[at(i)] == OpSite::kGpu;
      if (planned == leftovers) continue;
      if (!inputs_on_gpu(i)) continue;
      const int level = admitted_level(i, system_peak(), static_w_[0]);
      if (level < 0) {
        gpu_refused_ = true;
        continue;
      }
      best = i;
      best_level = level;
      best_cost = &gpu_cost(i, level);
      break;
    }
    if (best < 0) return false;
    if (leftovers) {
      r_.ops[at(best)].demoted = true;
      ++r_.demoted;
    }
    last_gpu_op_ = best;
    r_.ops[at(best)].clock = level_cost_.empty() ? 1 : 1 - best_level * policy_.dvfs()->step;
    hold(best, 1, now, *best_cost);
    // Its inputs are on the GPU: it starts now, and ends when its time is up.
    busy_until_[0] = now + best_cost->time_s;
    executor().wake(0, true);
    return true;
  }

  // The offload devices take the best ready op planned for them that fits the idle devices.
  // True if one was taken or the overlap rule moved one to the GPU (which may take it now).
  bool try_offload(double now) {
    if (devices_ == 1) return false;
    bool moved = false;
    for (auto it = ready_.begin(); it != ready_.end();) {
      const int i = it->second;
      ++it;
      const OpCharacter& ch = c_.ops[at(i)];
      // An op the GPU may never be allowed under a cap goes to the offload devices rather than
      // to no one.
      const bool planned = plan_[at(i)] == OpSite::kOffload;
      if (!planned && !(ch.offload.supported && gpu_never(i))) continue;
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
      for (const Edge& edge : dag_.graph().deps(i))
        if (mask_[at(edge.from)] == 1) from_gpu += static_cast<double>(edge.bytes);
      // (Not for an op the GPU may never run: there is nowhere else for it.)
      if (from_gpu > 0 && planned && sys_.overlap != OverlapRule::kOff && policy_.overlap_rule() &&
          !gpu_never(i)) {
        // The overlap rule (Sec. 3.4), on unloaded links.
        const double moving =
            sys_.gpu_link.time_s(from_gpu) + sys_.offload_link.time_s(from_gpu / found);
        if (moving > overlap_window(i, now)) {
          plan_[at(i)] = OpSite::kGpu;
          r_.ops[at(i)].overlap_blocked = true;
          ++r_.overlap_blocked;
          moved = true;
          continue;
        }
      }
      hold(i, mask, now, ch.offload);
      // Its inputs, each counted until it has arrived on all the op's devices.
      ++inputs_[at(i)];  // held until every move below is under way
      prefetch(i, mask);
      for (const Edge& edge : dag_.graph().deps(i)) {
        const int j = edge.from;
        if (mask_[at(j)] == mask || edge.data == EdgeData::kNone) continue;
        ++inputs_[at(i)];
        const double bytes = static_cast<double>(edge.bytes);
        const double each = bytes / found;
        if (mask_[at(j)] == 1) {
          // A GPU result: sent now, through the host.
          move(i, hops(1, true, bytes), [this, i, mask, each] {
            move(i, hops(mask, false, each), [this, i] { input_arrived(i); });
          });
        } else if (at_host_[at(j)]) {
          // Another offload device's result went up to the host when it was done (complete());
          // from there it comes down now.
          move(i, hops(mask, false, each), [this, i] { input_arrived(i); });
        } else {
          host_waiters_[at(j)].push_back([this, i, mask, each] {
            move(i, hops(mask, false, each), [this, i] { input_arrived(i); });
          });
        }
      }
      input_arrived(i);
      return true;
    }
    return moved;
  }

  void dispatch(double now) {
    for (bool any = true; any;) {
      any = false;
      const bool leftovers = policy_.gpu_takes_leftovers();
      if (policy_.gpu_first()) {
        any = try_gpu(now, false) || try_offload(now) || (leftovers && try_gpu(now, true));
      } else {
        any = try_offload(now) || try_gpu(now, false) || (leftovers && try_gpu(now, true));
      }
    }
  }

  void complete(int i) {
    ++done_;
    last_done_ps_ = last_progress_ps_ = now_ps();
    const std::uint64_t mask = mask_[at(i)];
    for (int d = 0; d < devices_; ++d)
      if ((mask >> d & 1) && running_[at(d)] == i) running_[at(d)] = -1;
    if (mask == 1) {
      on_gpu_[at(i)] = 1;
    } else {
      // A gang splits GEMMs by rows and convolutions by batch (split_rows), so a split
      // backward-weight pass leaves a whole partial weight gradient on every device: each sends
      // all of it, and the host sums them. Other results are split among the devices. From
      // the host the result goes back to the GPU, and to offload ops that wait for it there.
      const double bytes = returned_bytes(dag_, i);
      const int n = __builtin_popcountll(mask);
      const bool partial_sums = dag_.node(i).op.role == OpRole::kBackwardWeight && n > 1;
      move(i, hops(mask, true, partial_sums ? bytes : bytes / n), [this, i, bytes] {
        at_host_[at(i)] = 1;
        std::vector<std::function<void()>> waiting = std::move(host_waiters_[at(i)]);
        for (auto& f : waiting) f();
        move(i, hops(1, false, bytes), [this, i] { on_gpu_[at(i)] = 1; });
      });
    }
    for (int to : dag_.graph().users(i))
      if (--pending_[at(to)] == 0) make_ready(to);
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

  // The links' counts and every hop, as the platform's links carried them.
  void collect_links(const Realized& real) {
    const std::vector<ChannelStats>& stats = real.channels;
    for (std::size_t c = 0; c < stats.size(); ++c) {
      LinkUse& u = r_.links[c];
      u.transfers = static_cast<int>(stats[c].transfers);
      u.bytes = static_cast<double>(stats[c].bytes);
      u.busy_s = static_cast<double>(stats[c].busy_ps) / kPsPerS;
      u.energy_j = stats[c].energy_pj * 1e-12;
    }
    for (const TransferRecord& t : real.transfers)
      r_.transfers.push_back(
          {t.channel, moves_[at(t.task)].op, static_cast<double>(t.start_ps) / kPsPerS,
           static_cast<double>(t.arrive_ps) / kPsPerS, static_cast<double>(t.bytes)});
  }

  // Energy of idle time, the power trace and the result's totals.
  void finish_totals() {
    // The iteration ends with its last op or the last move something waited for (staging
    // nothing needed does not hold it).
    double end = static_cast<double>(last_needed_ps_) / kPsPerS;
    for (const OpRun& o : r_.ops) end = std::max(end, o.end_s);
    r_.makespan_s = end;
    double clock_time = 0, gpu_time = 0;
    for (const OpRun& o : r_.ops)
      if (o.place == OpSite::kGpu) {
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
  std::vector<OpSite> plan_;
  const HypePolicy& policy_;
  const RuntimeSystem& sys_;
  int devices_ = 1;
  double static_floor_ = 0;  // every device idle, and the host
  std::vector<double> rank_;
  std::vector<double> busy_until_, running_peak_, static_w_;
  std::vector<int> running_, pending_, held_;
  std::vector<int> inputs_;  // per op: inputs still on their way to its devices
  std::vector<OpCost> cost_;
  std::vector<char> on_gpu_, at_host_;  // per op: its result is there
  std::vector<std::vector<std::function<void()>>> host_waiters_;
  std::vector<std::uint64_t> mask_;  // where each held op runs (bit 0: the GPU)
  std::set<std::pair<double, int>> ready_;
  std::vector<Busy> busy_;
  std::map<TensorId, Staged> staged_;
  std::map<TensorId, double> tensor_bytes_;
  std::map<std::pair<TensorId, std::uint64_t>, Delivery> delivered_;
  std::vector<Move> moves_;
  int moving_ = 0;  // moves something waits for, still under way
  // What processes saw end at this instant, for the dispatcher to take in order (absorb()).
  std::vector<int> ended_ops_, arrived_moves_;
  bool finished_ = false;  // every op done and every needed move arrived
  std::int64_t last_needed_ps_ = 0, last_done_ps_ = 0;
  std::int64_t last_progress_ps_ = 0;  // the last op's start or end
  int last_gpu_op_ = -1;
  RuntimeResult r_;
  std::size_t done_ = 0;      // ops completed
  int level_ = 0;             // the GPU's clock level (DVFS)
  bool gpu_refused_ = false;  // the cap held a ready GPU op back this controller period
  std::int64_t period_ps_ = 0;
  std::vector<std::unique_ptr<DeviceModel>> level_models_;
  std::vector<std::vector<OpCost>> level_cost_;  // per level, per op; empty until reached
  std::vector<std::vector<char>> level_priced_;  // per level, per op: level_cost_ is set
  // The engine: the links between the devices and the host, and the executor that runs the
  // devices over them (built by run(), once the state its processes read is).
  std::unique_ptr<Interconnect> net_;
  sc_core::sc_event wake_;  // something the decision loop decides on changed
};

}  // namespace

InterconnectSpec host_star(const RuntimeSystem& sys, int devices) {
  InterconnectSpec spec;
  spec.devices = devices;
  spec.has_switch = true;
  for (int d = 0; d < devices; ++d) {
    const HostLink& h = d == 0 ? sys.gpu_link : sys.offload_link;
    LinkSpec l;
    l.a = d;
    l.b = devices;
    l.bandwidth_gbps = h.bandwidth_gbps;
    l.latency_ns = h.latency_s * 1e9;
    l.pj_per_bit = h.pj_per_bit;
    l.key = d == 0 ? "hype.links.gpu" : "hype.links.offload";
    l.latency_in_us = true;
    spec.links.push_back(l);
  }
  return spec;
}

RuntimeResult run_iteration(const OpDag& dag, const Characterization& c, std::vector<OpSite> plan,
                            const HypePolicy& policy, const RuntimeSystem& sys, int start_level) {
  return Runtime(dag, c, std::move(plan), policy, sys, start_level).run();
}

}  // namespace trainsim
