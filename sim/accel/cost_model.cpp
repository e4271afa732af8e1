#include "sim/accel/cost_model.h"

#include <cstring>
#include <sstream>
#include <utility>
#include <vector>

#include "mapping/bounds.h"
#include "mapping/problem.h"
#include "sim/accel/fast_context.h"
#include "sim/accel/memory_model.h"
#include "sim/accel/scalesim_memory.h"
#include "sim/core/interrupt.h"
#include "sim/io/memo_store.h"

namespace trainsim {

OpStats evaluate_op(const Op& op, const AcceleratorSpec& acc, const Dataflow& df) {
  if (op.repeat > 1) {
    // The repetitions (groups) run one after another, each as the op alone: its operands
    // stream in and its results out, so every count scales, stall included.
    Op one = op;
    one.repeat = 1;
    return evaluate_op(one, acc, df).repeated(op.repeat);
  }
  const MemoryModel& memory = memory_model_or_throw(acc.memory);
  FastContext ctx(acc, &df);
  OpStats s = op.kind == OpKind::kElementwise ? memory.run_elementwise(op, acc, ctx)
                                              : memory.run(op, acc, df, ctx);
  // A limited buffer port serves the op's buffer accesses alongside everything else.
  const std::int64_t cycles = std::max(ctx.now(), buffer_port_cycles(s, acc));
  s.stall_cycles = cycles - s.compute_cycles;
  s.compulsory_dram_bytes = compulsory_dram_bytes(op, acc, df);
  return s;
}

Count compulsory_dram_bytes(const Op& op, const AcceleratorSpec& acc, const Dataflow& df) {
  const Count wb = static_cast<Count>(acc.word_bytes());
  if (op.kind != OpKind::kElementwise) {
    const TrafficBound b = traffic_bound(make_problem(op, df.gemm_based()), 0);
    return checked_mul(static_cast<Count>(b.compulsory_words), wb, "compulsory bytes");
  }
  const ElementwiseShape& e = op.eltwise;
  if (!e.dram) return 0;
  // The tensors the op lists, else its element count times its reads and writes (as the
  // memory models count them).
  Count words = 0;
  for (const TensorUse& t : op.inputs) words += static_cast<Count>(t.words);
  for (const TensorUse& t : op.outputs) words += static_cast<Count>(t.words);
  if (words == 0) words = static_cast<Count>(e.elements) * static_cast<Count>(e.reads + e.writes);
  return checked_mul(words, wb, "compulsory bytes");
}

std::string counts_key(const AcceleratorSpec& a, const Dataflow& df) {
  std::ostringstream k;
  k << std::hexfloat;  // exact doubles
  k << df.name() << '|' << a.rows << 'x' << a.cols << ',' << a.chain_psums << '|' << a.clock_ghz
    << '|' << a.word_bits << '|' << a.rf.input_words << ',' << a.rf.weight_words << ','
    << a.rf.psum_words << ',' << a.rf.keep_psums << '|' << a.buffer.shared << ',' << a.buffer.kib
    << ',' << a.buffer.ifmap_kib << ',' << a.buffer.filter_kib << ',' << a.buffer.ofmap_kib << ','
    << a.buffer.double_buffer << ',' << a.buffer.banks << ',' << a.buffer.words_per_cycle << ','
    << a.buffer.port_words_per_cycle << '|' << a.accumulator.words << ',' << a.accumulator.bits
    << '|' << a.noc_words_per_cycle << '|' << a.dram.bandwidth_gbps << ',' << a.dram.latency_cycles
    << '|' << a.vector_lanes << '|' << a.memory << '|';
  for (std::int64_t t : a.mapping.tile) k << t << ',';
  k << a.mapping.stationary << ',' << static_cast<int>(a.mapping.objective);
  return k.str();
}

std::shared_ptr<CostModel::Cache> CostModel::shared_cache(const std::string& key) {
  // A few accelerators per thread at a time (a run's, a second unit's, a system's devices);
  // the oldest is dropped beyond that, so that a long-lived process does not grow without end.
  constexpr std::size_t kKept = 16;
  thread_local std::vector<std::pair<std::string, std::shared_ptr<Cache>>> caches;
  for (auto& [k, c] : caches)
    if (k == key) return c;
  if (caches.size() == kKept) caches.erase(caches.begin());
  caches.emplace_back(key, std::make_shared<Cache>());
  caches.back().second->counts_key = key;
  return caches.back().second;
}

CostModel::CostModel(const AcceleratorSpec& acc, const Dataflow& df)
    : acc_(acc), df_(df), cache_(shared_cache(counts_key(acc, df))) {
  read_memo();
}

void CostModel::read_memo() {
  const MemoStore* memo = active_memo();
  if (!memo || cache_->memo_generation == active_memo_generation()) return;
  for (const std::string& record : memo->load(cache_->counts_key, &cache_->memo_read)) {
    Key k{};
    OpStats s;
    // A record that does not decode is not used: the op is priced again.
    if (decode(record, k, s)) cache_->costs.emplace(k, std::move(s));
  }
  cache_->memo_generation = active_memo_generation();
}

bool CostModel::Key::operator==(const Key& o) const {
  return kind == o.kind && role == o.role && word_bits == o.word_bits &&
         resident_filter == o.resident_filter && residency == o.residency && repeat == o.repeat &&
         std::memcmp(d, o.d, sizeof d) == 0 && std::memcmp(words, o.words, sizeof words) == 0;
}

std::size_t CostModel::KeyHash::operator()(const Key& k) const {
  std::size_t h = static_cast<std::size_t>(k.kind) * 31 + static_cast<std::size_t>(k.role);
  h = h * 1000003u ^ static_cast<std::size_t>(k.word_bits);
  h = h * 1000003u ^ static_cast<std::size_t>(k.resident_filter);
  const Residency& r = k.residency;
  h = h * 1000003u ^ (static_cast<std::size_t>(r.in_on_chip) | std::size_t{r.in_keep} << 8 |
                      std::size_t{r.out_keep} << 16 | std::size_t{r.out_drop} << 24);
  h = h * 1000003u ^ static_cast<std::size_t>(k.repeat);
  for (std::int64_t v : k.d) h = h * 1000003u ^ static_cast<std::size_t>(v);
  for (std::int64_t v : k.words) h = h * 1000003u ^ static_cast<std::size_t>(v);
  return h;
}

CostModel::Key CostModel::key_of(const Op& op) {
  Key k{op.kind, op.role, op.word_bits, op.resident_filter, op.residency, op.repeat, {}, {}};
  switch (op.kind) {
    case OpKind::kGemm:
      k.d[0] = op.gemm.m, k.d[1] = op.gemm.n, k.d[2] = op.gemm.k;
      break;
    case OpKind::kConv: {
      const ConvShape& c = op.conv;
      const std::int64_t v[9] = {c.batch,    c.channels, c.height, c.width, c.filters,
                                 c.kernel_h, c.kernel_w, c.stride, c.pad};
      std::memcpy(k.d, v, sizeof v);
      break;
    }
    case OpKind::kElementwise:
      k.d[0] = op.eltwise.elements, k.d[1] = op.eltwise.reads, k.d[2] = op.eltwise.writes,
      k.d[3] = op.eltwise.flops, k.d[4] = op.eltwise.dram;
      for (int i = 0; i < kMaxOpInputs; ++i)
        k.words[i] = op.inputs[static_cast<std::size_t>(i)].words;
      for (int i = 0; i < kMaxOpOutputs; ++i)
        k.words[kMaxOpInputs + i] = op.outputs[static_cast<std::size_t>(i)].words;
      break;
  }
  return k;
}

const OpStats& CostModel::cost(const Op& op) {
  const Key k = key_of(op);
  auto it = cache_->costs.find(k);
  if (it != cache_->costs.end()) return it->second;
  check_interrupt();  // planning a batch prices each of its distinct ops first
  const OpStats& s = cache_->costs.emplace(k, evaluate_op(op, acc_, df_)).first->second;
  if (MemoStore* memo = active_memo()) memo->append(cache_->counts_key, encode(k, s));
  return s;
}

}  // namespace trainsim
