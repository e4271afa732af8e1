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
  k << df.name() << '|' << a.rows << 'x' << a.cols << '|' << a.clock_ghz << '|' << a.word_bits
    << '|' << a.rf.input_words << ',' << a.rf.weight_words << ',' << a.rf.psum_words << '|'
    << a.buffer.shared << ',' << a.buffer.kib << ',' << a.buffer.ifmap_kib << ','
    << a.buffer.filter_kib << ',' << a.buffer.ofmap_kib << ',' << a.buffer.double_buffer << ','
    << a.buffer.banks << ',' << a.buffer.words_per_cycle << ',' << a.buffer.port_words_per_cycle
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

namespace {

// An op's key and cost as a memo record: every field as a LEB128 varint (signed ones
// zigzagged: most counts are small, so a record is a fifth of what fixed words take), the
// mapping's names as a length and bytes, so that a record reads back to the same values. The
// memo is only read by the build that wrote it (sim/io/memo_store.h), so the layout may change
// with the code.
class RecordWriter {
 public:
  void put(std::uint64_t v) {
    do {
      const auto byte = static_cast<unsigned char>(v & 0x7f);
      v >>= 7;
      out += static_cast<char>(v ? byte | 0x80 : byte);
    } while (v);
  }
  void put(std::int64_t v) {
    put((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
  }
  void put(const std::string& s) {
    put(static_cast<std::uint64_t>(s.size()));
    out += s;
  }
  void put(const AccessCounts& a) {
    for (int o = 0; o < kNumOperands; ++o) put(a.reads[static_cast<std::size_t>(o)]);
    for (int o = 0; o < kNumOperands; ++o) put(a.writes[static_cast<std::size_t>(o)]);
  }
  std::string out;
};

class RecordReader {
 public:
  explicit RecordReader(const std::string& in) : in_(in) {}
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= in_.size()) break;
      const auto byte = static_cast<unsigned char>(in_[at_++]);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    ok_ = false;  // ran out, or longer than 64 bits
    return 0;
  }
  std::int64_t i64() {
    const std::uint64_t z = u64();
    return static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1);
  }
  std::string str() {
    const std::uint64_t n = u64();
    if (!ok_ || in_.size() - at_ < n) {
      ok_ = false;
      return "";
    }
    std::string s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  void get(AccessCounts& a) {
    for (int o = 0; o < kNumOperands; ++o) a.reads[static_cast<std::size_t>(o)] = u64();
    for (int o = 0; o < kNumOperands; ++o) a.writes[static_cast<std::size_t>(o)] = u64();
  }
  /// Every field read, and nothing left over.
  bool done() const { return ok_ && at_ == in_.size(); }

 private:
  const std::string& in_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace

std::string CostModel::encode(const Key& k, const OpStats& s) {
  RecordWriter w;
  w.put(static_cast<std::uint64_t>(k.kind));
  w.put(static_cast<std::uint64_t>(k.role));
  w.put(static_cast<std::int64_t>(k.word_bits));
  w.put(static_cast<std::uint64_t>(k.resident_filter));
  const Residency& r = k.residency;
  w.put(static_cast<std::uint64_t>(r.in_on_chip | r.in_keep << 8 | r.out_keep << 16 |
                                   r.out_drop << 24));
  w.put(k.repeat);
  for (std::int64_t v : k.d) w.put(v);
  for (std::int64_t v : k.words) w.put(v);
  w.put(s.macs);
  w.put(s.compute_cycles);
  w.put(s.stall_cycles);
  w.put(s.vector_ops);
  w.put(s.pes);
  w.put(static_cast<std::uint64_t>(s.mapping.size()));
  for (const auto& [name, value] : s.mapping) {
    w.put(name);
    w.put(value);
  }
  w.put(s.rf);
  w.put(s.noc);
  w.put(s.buffer);
  for (Count v : s.dram_read_bytes) w.put(v);
  for (Count v : s.dram_write_bytes) w.put(v);
  w.put(s.onchip_read_bytes);
  w.put(s.skipped_write_bytes);
  w.put(s.compulsory_dram_bytes);
  return std::move(w.out);
}

bool CostModel::decode(const std::string& record, Key& k, OpStats& s) {
  RecordReader r(record);
  k.kind = static_cast<OpKind>(r.u64());
  k.role = static_cast<OpRole>(r.u64());
  k.word_bits = static_cast<int>(r.i64());
  k.resident_filter = r.u64() != 0;
  const std::uint64_t res = r.u64();
  k.residency.in_on_chip = static_cast<std::uint8_t>(res & 0xff);
  k.residency.in_keep = static_cast<std::uint8_t>(res >> 8 & 0xff);
  k.residency.out_keep = static_cast<std::uint8_t>(res >> 16 & 0xff);
  k.residency.out_drop = static_cast<std::uint8_t>(res >> 24 & 0xff);
  k.repeat = r.i64();
  for (std::int64_t& v : k.d) v = r.i64();
  for (std::int64_t& v : k.words) v = r.i64();
  s.macs = r.u64();
  s.compute_cycles = r.i64();
  s.stall_cycles = r.i64();
  s.vector_ops = r.u64();
  s.pes = r.i64();
  const std::uint64_t n = r.u64();
  s.mapping.clear();
  for (std::uint64_t i = 0; i < n && i <= record.size(); ++i) {
    std::string name = r.str();
    s.mapping.emplace_back(std::move(name), r.i64());
  }
  r.get(s.rf);
  r.get(s.noc);
  r.get(s.buffer);
  for (Count& v : s.dram_read_bytes) v = r.u64();
  for (Count& v : s.dram_write_bytes) v = r.u64();
  s.onchip_read_bytes = r.u64();
  s.skipped_write_bytes = r.u64();
  s.compulsory_dram_bytes = r.u64();
  return r.done();
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
