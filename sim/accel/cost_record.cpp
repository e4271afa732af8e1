// The cost model's memo records (CostModel::encode, decode): an op's key and its OpStats as
// bytes for the on-disk memo (sim/io/memo_store.h), and back.
#include "sim/accel/cost_model.h"

namespace trainsim {

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
  w.put(s.acc);
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
  r.get(s.acc);
  for (Count& v : s.dram_read_bytes) v = r.u64();
  for (Count& v : s.dram_write_bytes) v = r.u64();
  s.onchip_read_bytes = r.u64();
  s.skipped_write_bytes = r.u64();
  s.compulsory_dram_bytes = r.u64();
  return r.done();
}

}  // namespace trainsim
