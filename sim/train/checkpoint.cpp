#include "sim/train/checkpoint.h"

#include <cstdio>
#include <systemc>

#include "models/dram_channel.h"
#include "sim/core/error.h"
#include "sim/io/checksum.h"
#include "sim/io/file_set.h"
#include "sim/nn/tensor_state.h"
#include "sim/techniques/technique.h"

namespace trainsim {

// The structs below are archived member by member. These guards fail the build when one
// changes, so a new member cannot silently be left out of checkpoints (resumed runs would
// then differ from uninterrupted ones): update the archive() next to the guard, then the
// size.
static_assert(sizeof(OpStats) == 328, "OpStats changed: update archive(OpStats&)");
// OpTotals::energy (64 bytes) is not archived: it is priced from the counts after loading.
static_assert(sizeof(OpTotals) == 416, "OpTotals changed: update archive(OpTotals&)");
static_assert(sizeof(EpochMetrics) == 168, "EpochMetrics changed: update archive(EpochMetrics&)");

namespace {

constexpr char kMagic[] = "trainsim checkpoint";
// 2: a CRC-32 trailer over the whole file (1 had none). 3: per-phase sums only for a technique
// with phases (2 held three for every technique). 4: per-layer sums for kNumRoles (16) roles, room
// for the roles techniques register (3 held 10), each unit's array and vector work, and the
// timeline's ops. 6: speculative backprop's stored passes hold what their layers saved for the
// backward pass (batchnorm's statistics, dropout's masks). 7: the output accumulator's counts.
constexpr std::uint32_t kFormat = 7;
constexpr std::size_t kTrailerBytes = 4;

// FNV-1a: identifies the configuration a checkpoint belongs to.
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// The build's layout signature: a checkpoint is raw memory of these types.
std::string build_signature() {
  return std::string(TRAINSIM_VERSION) + " OpStats " + std::to_string(sizeof(OpStats)) +
         " EpochMetrics " + std::to_string(sizeof(EpochMetrics)) + " float " +
         std::to_string(sizeof(float));
}

}  // namespace

void archive(StateArchive& a, OpStats& s) {
  a.value(s.macs);
  a.value(s.compute_cycles);
  a.value(s.stall_cycles);
  a.value(s.vector_ops);
  a.value(s.pes);
  std::uint64_t n = s.mapping.size();
  a.value(n);
  if (a.loading()) s.mapping.resize(a.check_count(n, 8));
  for (auto& [name, value] : s.mapping) {
    a.string(name);
    a.value(value);
  }
  a.value(s.rf);
  a.value(s.noc);
  a.value(s.buffer);
  a.value(s.acc);
  a.value(s.dram_read_bytes);
  a.value(s.dram_write_bytes);
  a.value(s.onchip_read_bytes);
  a.value(s.skipped_write_bytes);
  a.value(s.compulsory_dram_bytes);
}

void archive(StateArchive& a, OpTotals& t) {
  archive(a, t.stats);
  a.value(t.ops);
  a.value(t.elapsed_cycles);
  a.value(t.update_cycles);
}

// `stats` archives the technique's per-layer statistics (TechniqueInfo::layer_stats); a
// technique without them stores an empty list, a count of 0.
void archive(StateArchive& a, EpochMetrics& m, const TechniqueInfo::LayerStatsReport& stats) {
  a.value(m.epoch);
  a.value(m.batches);
  a.value(m.train);
  a.value(m.test);
  a.value(m.train_seconds);
  a.value(m.train_macs);
  a.value(m.test_seconds);
  a.value(m.technique);
  if (stats.archive != nullptr) {
    stats.archive(a, m.layer_stats);
    return;
  }
  std::uint64_t none = 0;
  a.value(none);
  if (none != 0) throw UserError("checkpoint out of step: it holds another technique's statistics");
}

void archive(StateArchive& a, RunEpoch& e, const TechniqueInfo::LayerStatsReport& stats) {
  archive(a, e.metrics, stats);
  for (OpTotals& t : e.sim) archive(a, t);
}

void Trainer::checkpoint(StateArchive& a) {
  a.section("trainer");
  a.value(epoch_);
  std::string rng = shuffle_rng_.state();
  a.string(rng);
  if (a.loading()) shuffle_rng_.set_state(rng);
  const std::size_t samples = order_.size();
  a.vector(order_);
  std::uint64_t params = params_.size();
  a.value(params);
  if (order_.size() != samples || params != params_.size())
    throw UserError("checkpoint out of step: it holds another dataset size or network");
  for (Param<float>* p : params_) archive(a, *p);
  // Only networks with such state (batchnorm, dropout) write the section, so checkpoints of
  // the others keep their bytes.
  if (network_.has_state()) {
    a.section("network state");
    network_.archive_state(a);
  }
  a.section("optimizer");
  optimizer_->checkpoint(a);
  a.section("technique");
  technique_->checkpoint(a, *optimizer_);
}

void SessionRecord::archive(StateArchive& a) {
  for (OpTotals& t : totals_) trainsim::archive(a, t);
  for (OpTotals& t : epoch_) trainsim::archive(a, t);
  for (auto& phase : layer_roles_) {
    std::uint64_t layers = phase.size();
    a.value(layers);
    if (layers != phase.size()) throw UserError("checkpoint out of step: another network");
    for (auto& row : phase)
      for (OpTotals& t : row) trainsim::archive(a, t);
  }
  for (OpTotals& t : unit_totals_) trainsim::archive(a, t);
  for (auto& unit : unit_work_)
    for (OpTotals& t : unit) trainsim::archive(a, t);
  a.vector(trace_);
  a.value(trace_flushes_);
  for (OpTotals& t : phase_totals_) trainsim::archive(a, t);
  trainsim::archive(a, discarded_);
  a.value(step_begin_);
  a.value(step_cycles_);
  a.value(steps_);
  a.value(epoch_step_cycles_);
  a.value(epoch_steps_);
}

void AcceleratorSession::checkpoint(StateArchive& a) {
  a.section("session");
  if (!pending_[0].empty() || !pending_[1].empty())
    throw std::logic_error("AcceleratorSession::checkpoint with ops pending");
  record_.archive(a);
  a.value(phase_);
  // Simulated time and the shared channels' counters: all that carries over between batches.
  AcceleratorNode::Carried carried = node_.carried();
  a.value(carried.cycles);
  for (auto& channel : carried.channels)
    for (std::int64_t& v : channel) a.value(v);
  if (a.loading()) {
    if (carried.cycles < node_.cycles())
      throw UserError("checkpoint out of step: simulated time runs backwards");
    node_.restore(carried);
  }
}

namespace {

void archive_run(StateArchive& a, const std::string& config_yaml, RunProgress& progress,
                 Trainer& trainer, AcceleratorSession* session) {
  std::string magic = kMagic;
  a.string(magic);
  if (magic != kMagic) throw UserError("not a trainsim checkpoint");
  std::uint32_t format = kFormat;
  a.value(format);
  std::string build = build_signature();
  a.string(build);
  if (format != kFormat || build != build_signature())
    throw UserError("written by another build of trainsim (" + build + "; this is " +
                    build_signature() + "): it can only be resumed by that build");
  std::uint64_t config = fnv1a(config_yaml);
  a.value(config);
  if (config != fnv1a(config_yaml))
    throw UserError("written for another configuration (config.resolved.yaml changed since)");
  bool simulated = session != nullptr;
  a.value(simulated);
  if (simulated != (session != nullptr))
    throw UserError(simulated ? "written by trainsim run: resume it with trainsim run --resume"
                              : "written by trainsim train: resume it with trainsim train "
                                "--resume");
  a.value(progress.load_seconds);
  a.section("epochs");
  // As a.vector() writes a list: its count, then each epoch.
  const TechniqueInfo::LayerStatsReport& stats =
      technique_info(trainer.spec().sim.technique).layer_stats;
  std::uint64_t epochs = progress.epochs.size();
  a.value(epochs);
  if (a.loading()) progress.epochs.resize(a.check_count(epochs, 1));
  for (RunEpoch& e : progress.epochs) archive(a, e, stats);
  trainer.checkpoint(a);
  if (session) session->checkpoint(a);
  a.section("end");
}

}  // namespace

std::string checkpoint_bytes(const std::string& config_yaml, RunProgress& progress,
                             Trainer& trainer, AcceleratorSession* session) {
  StateWriter w;
  archive_run(w, config_yaml, progress, trainer, session);
  std::string bytes = w.data();
  const std::uint32_t crc = crc32_of(bytes);
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  return bytes;
}

void load_checkpoint(const std::string& path, const std::string& config_yaml, RunProgress& progress,
                     Trainer& trainer, AcceleratorSession* session) {
  std::string bytes;
  if (!read_file_bytes(path, 0, bytes)) throw UserError("cannot read checkpoint '" + path + "'");
  try {
    // The version first, so that a checkpoint of another format is named as such rather
    // than as damaged.
    {
      StateReader head(bytes, path);
      std::string magic;
      head.string(magic);
      if (magic != kMagic) throw UserError("not a trainsim checkpoint");
      std::uint32_t format = 0;
      head.value(format);
      if (format != kFormat)
        throw UserError("checkpoint format " + std::to_string(format) + ", this trainsim reads " +
                        std::to_string(kFormat) +
                        ": it can only be resumed by the build that "
                        "wrote it");
    }
    if (bytes.size() < kTrailerBytes) throw UserError("truncated");
    std::uint32_t stored = 0;
    for (std::size_t i = 0; i < kTrailerBytes; ++i)
      stored |= static_cast<std::uint32_t>(
                    static_cast<unsigned char>(bytes[bytes.size() - kTrailerBytes + i]))
                << (8 * i);
    bytes.resize(bytes.size() - kTrailerBytes);
    if (crc32_of(bytes) != stored)
      throw UserError(
          "damaged (its checksum does not match): it cannot be resumed; run the experiment "
          "again with --force");
    StateReader r(std::move(bytes), path);
    archive_run(r, config_yaml, progress, trainer, session);
    if (!r.at_end()) throw UserError("trailing bytes after the end section");
    // Energies are not saved: they follow from the counts, so the accelerator prices the
    // restored epochs again (the session's running sums are priced at the next epoch's end).
    if (session)
      for (RunEpoch& e : progress.epochs)
        for (OpTotals& t : e.sim) price_totals(t, session->accelerator());
  } catch (const UserError& e) {
    const std::string what = e.what();
    if (what.rfind(path, 0) == 0) throw;  // already names the file
    throw UserError(path + ": " + what);
  }
}

}  // namespace trainsim
