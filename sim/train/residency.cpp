#include "sim/train/residency.h"

#include <initializer_list>
#include <limits>
#include <utility>

#include "mapping/buffer_mapping.h"
#include "sim/core/error.h"

namespace trainsim {

namespace {

// A tensor two consecutive ops share: op i writes it (`produced`) or reads it too, op i+1
// reads it.
struct Link {
  bool exists = false;
  bool produced = false;
  int from_slot = 0;  ///< op i's output slot (produced) or input slot
  int to_slot = 0;    ///< op i+1's input slot
  TensorId id = kNoTensor;
  std::int64_t words = 0;
};

// The slots whose tensors residency can keep: an array op's ifmap and filter (unless the
// filter lives in a memory of its own) and its ofmap; any listed tensor of an element-wise
// op that goes through DRAM. Grouped ops (repeat > 1) run their groups one after another
// and are left alone.
bool input_slot(const Op& op, int i) {
  if (op.repeat != 1 || op.inputs[static_cast<std::size_t>(i)].id == kNoTensor) return false;
  if (op.kind == OpKind::kElementwise) return op.eltwise.dram;
  return i == 0 || (i == 1 && !op.resident_filter);
}
bool output_slot(const Op& op, int i) {
  if (op.repeat != 1 || op.outputs[static_cast<std::size_t>(i)].id == kNoTensor) return false;
  if (op.kind == OpKind::kElementwise) return op.eltwise.dram;
  return i == 0;
}

// The largest tensor op `a` writes or reads and op `b` reads, of at most `max_words` (a
// larger one cannot stay whole in the buffer).
Link find_link(const Op& a, const Op& b, std::int64_t max_words) {
  Link best;
  for (int j = 0; j < kMaxOpInputs; ++j) {
    if (!input_slot(b, j)) continue;
    const TensorUse& t = b.inputs[static_cast<std::size_t>(j)];
    if (t.words > max_words) continue;
    auto consider = [&](bool produced, int slot) {
      if (best.exists && t.words <= best.words) return;
      best = {true, produced, slot, j, t.id, t.words};
    };
    // A tensor an op both reads and writes (the weights in an update) is its new value.
    bool written = false;
    for (int k = 0; k < kMaxOpOutputs; ++k)
      if (output_slot(a, k) && a.outputs[static_cast<std::size_t>(k)].id == t.id) {
        consider(true, k);
        written = true;
      }
    if (written) continue;
    for (int k = 0; k < kMaxOpInputs; ++k)
      if (input_slot(a, k) && a.inputs[static_cast<std::size_t>(k)].id == t.id) consider(false, k);
  }
  return best;
}

// Whether any op after `after` reads tensor `id`.
bool read_later(const std::vector<const Op*>& ops, std::size_t after, TensorId id) {
  for (std::size_t j = after + 1; j < ops.size(); ++j)
    for (const TensorUse& t : ops[j]->inputs)
      if (t.id == id) return true;
  return false;
}

// Cycles, then DRAM bytes. Time first: a carry takes buffer space from both ops' tiles, and
// smaller tiles can move the same bytes in many more transfers, each paying the DRAM
// latency (a batch-1 dense layer ran 26x slower for 1% less traffic when bytes came first).
// Carries that do not slow the step down are still taken for the traffic they save, and most
// make it faster: the next op's first fetch, exposed before its first tile, shrinks.
using Cost = std::pair<double, double>;
const Cost kInfeasible{std::numeric_limits<double>::infinity(), 0};

Cost operator+(const Cost& a, const Cost& b) {
  return {a.first + b.first, a.second + b.second};
}

std::vector<Residency> plan(const std::vector<const Op*>& ops, bool whole_step, CostModel& cost) {
  const std::size_t n = ops.size();
  std::vector<Residency> out(n);
  if (n == 0) return out;
  std::vector<Link> links(n);        // links[i]: between op i and op i+1
  std::vector<bool> dead(n, false);  // nobody after op i+1 reads link i's tensor
  // A carried tensor must leave at least half the buffer to the ops' own tiles: one that
  // fills it would force them into tiny tiles that move far more than the carry saves.
  const std::int64_t max_words = BufferCapacity::of(cost.accelerator()).total_words / 2;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    links[i] = find_link(*ops[i], *ops[i + 1], max_words);
    if (links[i].exists) dead[i] = !read_later(ops, i + 1, links[i].id);
  }

  // The flags of op i with the incoming link carried (`in`) and the outgoing one (`out`).
  auto flags = [&](std::size_t i, bool in, bool out) {
    Residency r;
    int on_chip_slot = -1;
    if (in) {
      on_chip_slot = links[i - 1].to_slot;
      r.in_on_chip |= static_cast<std::uint8_t>(1u << on_chip_slot);
    }
    if (out) {
      const Link& l = links[i];
      const auto bit = static_cast<std::uint8_t>(1u << l.from_slot);
      if (l.produced) {
        r.out_keep |= bit;
        if (whole_step && !tensor_persistent(l.id) && dead[i]) r.out_drop |= bit;
      } else if (l.from_slot != on_chip_slot) {
        r.in_keep |= bit;
      }
    }
    return r;
  };
  auto op_cost = [&](std::size_t i, bool in, bool out) -> Cost {
    Op op = *ops[i];
    op.residency = flags(i, in, out);
    if (!op.residency.any()) {
      const OpStats& s = cost.cost(op);  // must fit: errors here are the op's own
      return {static_cast<double>(s.cycles()), static_cast<double>(s.dram_bytes())};
    }
    try {
      const OpStats& s = cost.cost(op);
      return {static_cast<double>(s.cycles()), static_cast<double>(s.dram_bytes())};
    } catch (const UserError&) {
      return kInfeasible;  // the carried tensor does not fit beside the op's tiles
    }
  };

  // best[i][s]: least cost of ops 0..i with link i carried (s = 1) or not; from[i][s] the
  // state of link i-1 that achieves it.
  std::vector<std::array<Cost, 2>> best(n, {kInfeasible, kInfeasible});
  std::vector<std::array<int, 2>> from(n, {0, 0});
  for (std::size_t i = 0; i < n; ++i) {
    const int out_states = (i + 1 < n && links[i].exists) ? 2 : 1;
    const int in_states = (i > 0 && links[i - 1].exists) ? 2 : 1;
    for (int s = 0; s < out_states; ++s) {
      for (int t = 0; t < in_states; ++t) {
        const Cost prev = i == 0 ? Cost{0, 0} : best[i - 1][t];
        if (prev.first == kInfeasible.first) continue;
        const Cost c = prev + op_cost(i, t == 1, s == 1);
        if (c < best[i][s]) best[i][s] = c, from[i][s] = t;
      }
    }
  }
  int s = 0;
  for (std::size_t i = n; i-- > 0;) {
    const int t = from[i][s];
    out[i] = flags(i, t == 1, s == 1);
    s = t;
  }
  return out;
}

// The fields of an op the plan depends on. push_back into a vector whose capacity is kept
// between calls: this runs for every op of every batch.
void append_key(const Op& op, std::vector<std::int64_t>& key) {
  auto put = [&key](std::initializer_list<std::int64_t> values) {
    for (std::int64_t v : values) key.push_back(v);
  };
  put({static_cast<std::int64_t>(op.kind), static_cast<std::int64_t>(op.role), op.layer, op.repeat,
       op.resident_filter, op.word_bits});
  const ConvShape& c = op.conv;
  switch (op.kind) {
    case OpKind::kGemm:
      put({op.gemm.m, op.gemm.n, op.gemm.k});
      break;
    case OpKind::kConv:
      put({c.batch, c.channels, c.height, c.width, c.filters, c.kernel_h, c.kernel_w, c.stride,
           c.pad});
      break;
    case OpKind::kElementwise:
      put({op.eltwise.elements, op.eltwise.reads, op.eltwise.writes, op.eltwise.flops,
           op.eltwise.dram});
      break;
  }
  for (const TensorUse& t : op.inputs) put({t.id, t.words});
  for (const TensorUse& t : op.outputs) put({t.id, t.words});
}

}  // namespace

std::vector<Residency> plan_residency(const std::vector<Op>& ops, bool whole_step,
                                      CostModel& cost) {
  std::vector<const Op*> ptrs;
  for (const Op& op : ops) ptrs.push_back(&op);
  return plan(ptrs, whole_step, cost);
}

void ResidencyPlanner::plan(std::vector<OpRequest>& ops, bool whole_step, CostModel& cost) {
  // The key is built in a buffer kept between calls: this runs once per batch and unit.
  key_.assign(1, whole_step);
  for (const OpRequest& r : ops) append_key(r.op, key_);
  auto it = cache_.find(key_);
  if (it == cache_.end()) {
    std::vector<const Op*> ptrs;
    for (const OpRequest& r : ops) ptrs.push_back(&r.op);
    it = cache_.emplace(key_, trainsim::plan(ptrs, whole_step, cost)).first;
  }
  for (std::size_t i = 0; i < ops.size(); ++i) ops[i].op.residency = it->second[i];
}

}  // namespace trainsim
