#include "sim/report/run_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

#include "sim/accel/energy.h"
#include "sim/core/csv.h"
#include "sim/core/format.h"
#include "sim/report/op_report.h"
#include "sim/report/stats_header.h"
#include "sim/report/train_report.h"
#include "sim/report/units.h"
#include "sim/techniques/technique.h"

namespace trainsim {

namespace {

const char* kPhaseNames[kNumPhases] = {"train", "eval"};

double seconds(std::int64_t cycles, const AcceleratorSpec& acc) {
  return static_cast<double>(cycles) / (acc.clock_ghz * 1e9);
}

}  // namespace

nlohmann::ordered_json totals_json(const OpTotals& t, const AcceleratorSpec& acc) {
  nlohmann::ordered_json j;
  j["ops"] = t.ops;
  j["elapsed_cycles"] = t.elapsed_cycles;
  j["seconds"] = seconds(t.elapsed_cycles, acc);
  j["stats"] = stats_json(t.stats, acc);
  // Ops that run side by side (two units) take less time than their cycles add up to.
  j["stats"]["utilization"] = t.utilization();
  // A sum of ops has no single mapping: the key is left out rather than shown empty.
  if (t.stats.mapping.empty()) j["stats"].erase("mapping");
  j["energy"] = energy_json(t.energy, acc.energy.unit);
  return j;
}

namespace {

// A layer's ops by role: sums of ops that ran among others, so no elapsed time of their own.
nlohmann::ordered_json layer_totals_json(const OpTotals& t, const AcceleratorSpec& acc) {
  nlohmann::ordered_json j = totals_json(t, acc);
  j.erase("elapsed_cycles");
  j.erase("seconds");
  return j;
}

}  // namespace

namespace {

nlohmann::ordered_json counts_json(const TechniqueCounts& c) {
  nlohmann::ordered_json j;
  j["steps"] = c.steps;
  j["hits"] = c.hits;
  j["misses"] = c.misses;
  j["cold"] = c.cold;
  if (c.hit_rate() >= 0) j["hit_rate"] = c.hit_rate();
  j["max_distance"] = c.max_distance;
  return j;
}

}  // namespace

std::string run_epochs_csv(const std::vector<RunEpoch>& epochs, const AcceleratorSpec& acc) {
  const std::string& unit = acc.energy.unit;
  EpochTable table(unit, {"batches", "cycles", "dram_bytes", "eval_cycles",
                          energy_column("eval_energy", unit), "step_cycles", "hit_rate"});
  for (const RunEpoch& e : epochs) {
    const OpStats& tr = e.sim[0].stats;
    EpochCells c = metrics_cells(e.metrics);
    c.seconds = seconds(e.sim[0].elapsed_cycles, acc);
    if (c.seconds > 0)
      c.samples_per_second = static_cast<double>(e.metrics.train.samples) / c.seconds;
    c.energy = e.sim[0].energy.total();
    table.row(c)
        .cell(e.metrics.batches)
        .cell(e.sim[0].elapsed_cycles)
        .cell(tr.dram_bytes())
        .cell(e.sim[1].elapsed_cycles)
        .num("%.6e", e.sim[1].energy.total())
        .num("%.3f", e.step_cycles())
        .cell(e.metrics.technique.hit_rate() >= 0 ? fmt("%.6f", e.metrics.technique.hit_rate())
                                                  : std::string());
  }
  return table.text();
}

std::string run_layers_csv(const AcceleratorSession& session) {
  const AcceleratorSpec& acc = session.accelerator();
  const NetShape& net = session.shape();
  CsvTable csv({"phase",
                "layer",
                "name",
                "type",
                "role",
                "ops",
                "macs",
                "cycles",
                "compute_cycles",
                "stall_cycles",
                "utilization",
                "compute_utilization",
                "rf_reads",
                "rf_writes",
                "noc_transfers",
                "buffer_reads",
                "buffer_writes",
                "dram_bytes",
                "compulsory_dram_bytes",
                energy_column("energy", acc.energy.unit)});
  for (int p = 0; p < kNumPhases; ++p) {
    const auto& table = session.record().layer_roles(static_cast<Phase>(p));
    for (std::size_t l = 0; l < table.size(); ++l) {
      for (int r = 0; r < kNumRoles; ++r) {
        const OpTotals& t = table[l][static_cast<std::size_t>(r)];
        if (t.ops == 0) continue;
        const OpStats& s = t.stats;
        csv.row()
            .cell(kPhaseNames[p])
            .cell(static_cast<std::int64_t>(l))
            .cell(net.layer_spec(l).name)
            .cell(net.layer_spec(l).type)
            .cell(role_name(static_cast<OpRole>(r)))
            .cell(t.ops)
            .cell(s.macs)
            .cell(s.cycles())
            .cell(s.compute_cycles)
            .cell(s.stall_cycles)
            .num("%.6f", s.utilization())
            .num("%.6f", s.compute_utilization())
            .cell(s.rf.total_reads())
            .cell(s.rf.total_writes())
            .cell(s.noc.total_reads() + s.noc.total_writes())
            .cell(s.buffer.total_reads())
            .cell(s.buffer.total_writes())
            .cell(s.dram_bytes())
            .cell(s.compulsory_dram_bytes)
            .num("%.6e", t.energy.total());
      }
    }
  }
  return csv.text();
}

std::string run_stats_json(const ExperimentSpec& spec, const Dataset& data, Network<float>& net,
                           const std::vector<RunEpoch>& epochs, AcceleratorSession& session,
                           std::int64_t storage_bytes, const std::string& status) {
  const AcceleratorSpec& acc = session.accelerator();
  nlohmann::ordered_json j = stats_header(RunKind::kRun, spec.name);
  j["status"] = status;
  j["energy_unit"] = acc.energy.unit;
  j["accelerator"] = {{"name", acc.name},
                      {"array", std::to_string(acc.rows) + "x" + std::to_string(acc.cols)},
                      {"pes", acc.pes()},
                      {"dataflow", session.dataflow().name()},
                      {"clock_ghz", acc.clock_ghz},
                      {"word_bits", acc.word_bits},
                      {"buffer_kib", acc.buffer_kib()},
                      {"dram_gbps", acc.dram.bandwidth_gbps},
                      {"energy_table", acc.energy.name}};
  j["technique"] = spec.sim.technique.label();
  {
    TechniqueCounts all;
    for (const RunEpoch& e : epochs) {
      const TechniqueCounts& c = e.metrics.technique;
      all.steps += c.steps, all.hits += c.hits, all.misses += c.misses, all.cold += c.cold;
      all.max_distance = std::max(all.max_distance, c.max_distance);
    }
    nlohmann::ordered_json t = counts_json(all);
    t["storage_bytes"] = storage_bytes;
    const TechniqueInfo& own = technique_info(spec.sim.technique);
    if (own.report_settings) own.report_settings(spec.sim.technique, t);
    if (own.speculates) {
      t["second_unit"] = totals_json(session.record().unit_totals()[1], acc);
      t["discarded"] = totals_json(session.record().discarded(), acc);
    }
    const TechniqueInfo& info = technique_info(spec.sim.technique);
    if (session.record().phased()) {
      for (std::size_t ph = 0; ph < info.phases.size(); ++ph)
        t["phases"][info.phases[ph].key] = totals_json(session.record().phase_totals()[ph], acc);
      t["extra_storage_bytes"] = session.extra_storage_bytes();
      t["extra_pes"] = session.extra_pes();
    }
    j["technique_stats"] = t;
  }
  j["fidelity"] = spec.sim.fidelity;
  j["network"] = {{"name", spec.network.name}, {"parameters", net.param_count()}};
  j["dataset"] = {
      {"name", data.name}, {"train_samples", data.train.count}, {"test_samples", data.test.count}};
  for (int p = 0; p < kNumPhases; ++p)
    j["totals"][kPhaseNames[p]] =
        totals_json(session.record().totals()[static_cast<std::size_t>(p)], acc);
  j["simulated_cycles"] = session.simulated_cycles();
  for (const RunEpoch& e : epochs) {
    nlohmann::ordered_json je;
    je["epoch"] = e.metrics.epoch;
    je["batches"] = e.metrics.batches;
    je["train"] = {{"loss", e.metrics.train.loss}, {"accuracy", e.metrics.train.accuracy}};
    je["test"] = {{"loss", e.metrics.test.loss}, {"accuracy", e.metrics.test.accuracy}};
    je["step_cycles"] = e.step_cycles();
    je["technique"] = counts_json(e.metrics.technique);
    add_layer_stats(spec.sim.technique, e.metrics.layer_stats, net, je);
    for (int p = 0; p < kNumPhases; ++p)
      je["sim"][kPhaseNames[p]] = totals_json(e.sim[static_cast<std::size_t>(p)], acc);
    j["epochs"].push_back(std::move(je));
  }
  for (std::size_t l = 0; l < net.size(); ++l) {
    nlohmann::ordered_json jl;
    jl["layer"] = l;
    jl["name"] = net.layer_spec(l).name;
    jl["type"] = net.layer(l).type();
    for (int p = 0; p < kNumPhases; ++p) {
      const auto& row = session.record().layer_roles(static_cast<Phase>(p))[l];
      for (int r = 0; r < kNumRoles; ++r) {
        const OpTotals& t = row[static_cast<std::size_t>(r)];
        if (t.ops == 0) continue;
        jl[kPhaseNames[p]][role_name(static_cast<OpRole>(r))] = layer_totals_json(t, acc);
      }
    }
    j["layers"].push_back(std::move(jl));
  }
  // Per unit: who was busy, over both phases. A technique's second unit ran on the main array
  // and vector unit unless it has an array of its own, which is then a unit of its own: each
  // unit's busy time is at most the run's, as one unit runs one op at a time.
  const auto& work = session.record().unit_work();
  const bool own = session.own_unit();
  OpStats array = work[0][0].stats, vector = work[0][1].stats;
  if (!own) {
    array += work[1][0].stats;
    vector += work[1][1].stats;
  }
  array.pes = acc.pes();
  vector.pes = acc.vector_lanes;
  const std::int64_t all_cycles =
      session.record().totals()[0].elapsed_cycles + session.record().totals()[1].elapsed_cycles;
  auto busy = [&](std::int64_t c) {
    return all_cycles ? static_cast<double>(c) / all_cycles : 0.0;
  };
  j["units"]["pe_array"] = {{"busy_cycles", array.compute_cycles},
                            {"busy_fraction", busy(array.compute_cycles)},
                            {"macs", array.macs},
                            {"compute_utilization", array.compute_utilization()}};
  j["units"]["vector_unit"] = {{"busy_cycles", vector.compute_cycles},
                               {"busy_fraction", busy(vector.compute_cycles)},
                               {"ops", vector.vector_ops}};
  AccessCounts buffer = array.buffer;
  buffer += vector.buffer;
  if (own) {
    OpStats unit_array = work[1][0].stats;
    const OpStats& unit_vector = work[1][1].stats;
    unit_array.pes = session.extra_pes();
    j["units"]["technique_array"] = {{"name", own_array_spec(session.hardware(), acc).name},
                                     {"pes", session.extra_pes()},
                                     {"busy_cycles", unit_array.compute_cycles},
                                     {"busy_fraction", busy(unit_array.compute_cycles)},
                                     {"macs", unit_array.macs},
                                     {"compute_utilization", unit_array.compute_utilization()},
                                     {"vector_busy_cycles", unit_vector.compute_cycles},
                                     {"vector_ops", unit_vector.vector_ops}};
    buffer += unit_array.buffer;
    buffer += unit_vector.buffer;
  }
  j["units"]["global_buffer"] = {{"reads", buffer.total_reads()},
                                 {"writes", buffer.total_writes()}};
  const BufferPort& port = session.node().buffer_port();
  j["units"]["buffer_port"] = {{"words", port.units_moved()},
                               {"limited", port.limited()},
                               {"busy_cycles", port.busy_cycles()},
                               {"contention_cycles", port.contention_cycles()}};
  j["units"]["dram_channel"] = {
      {"bytes", session.node().dram().bytes_moved()},
      {"busy_cycles", session.node().dram().busy_cycles()},
      {"busy_fraction", busy(session.node().dram().busy_cycles())},
      {"stall_cycles",
       array.stall_cycles + vector.stall_cycles +
           (own ? work[1][0].stats.stall_cycles + work[1][1].stats.stall_cycles : 0)}};
  if (!epochs.empty()) {
    const RunEpoch& last = epochs.back();
    j["final"] = {{"epochs", last.metrics.epoch},
                  {"test_accuracy", last.metrics.test.accuracy},
                  {"train_cycles", session.record().totals()[0].elapsed_cycles},
                  {"train_seconds", seconds(session.record().totals()[0].elapsed_cycles, acc)},
                  {"train_energy", session.record().totals()[0].energy.total()},
                  {"energy_unit", acc.energy.unit}};
  }
  return j.dump(2) + "\n";
}

std::string run_summary(const std::vector<RunEpoch>& epochs, AcceleratorSession& session) {
  const AcceleratorSpec& acc = session.accelerator();
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-6s %14s %12s %12s %14s %8s %8s\n", "phase", "cycles", "seconds",
                "DRAM MB", "energy", "util", "stall");
  out += buf;
  for (int p = 0; p < kNumPhases; ++p) {
    const OpTotals& t = session.record().totals()[static_cast<std::size_t>(p)];
    const OpStats& s = t.stats;
    const double e = t.energy.total();
    const std::int64_t cycles = t.elapsed_cycles;
    std::snprintf(buf, sizeof buf, "%-6s %14lld %12.6f %12.3f %11.4g %s %7.1f%% %7.1f%%\n",
                  kPhaseNames[p], static_cast<long long>(cycles), seconds(cycles, acc),
                  static_cast<double>(s.dram_bytes()) / 1e6, e,
                  acc.energy.unit == "pJ" ? "pJ" : "  ", 100.0 * t.utilization(),
                  cycles ? 100.0 * static_cast<double>(s.stall_cycles) / cycles : 0.0);
    out += buf;
  }
  const TechniqueInfo& info = technique_info(session.technique());
  // A speculating technique's line: its hits, misses and the work its second unit did. Only
  // for one (ADA-GP-MAX's predictor array also does second-unit work, and has no hits).
  if (info.speculates) {
    TechniqueCounts all;
    for (const RunEpoch& e : epochs) {
      all.hits += e.metrics.technique.hits;
      all.misses += e.metrics.technique.misses;
      all.cold += e.metrics.technique.cold;
    }
    const double train_e = session.record().totals()[0].energy.total();
    const double spec_e = session.record().unit_totals()[1].energy.total();
    const double wasted = session.record().discarded().energy.total();
    std::snprintf(buf, sizeof buf,
                  "%s: %lld hits, %lld misses, %lld cold (hit rate %.4f)\n"
                  "  speculative work %.4g (%.1f%% of training energy), discarded %.4g (%.1f%%)\n",
                  info.report_name.c_str(), static_cast<long long>(all.hits),
                  static_cast<long long>(all.misses), static_cast<long long>(all.cold),
                  all.hit_rate() < 0 ? 0.0 : all.hit_rate(), spec_e,
                  train_e > 0 ? 100 * spec_e / train_e : 0.0, wasted,
                  train_e > 0 ? 100 * wasted / train_e : 0.0);
    out += buf;
  }
  if (session.record().phased()) {
    const char* name = info.report_name.c_str();
    for (std::size_t ph = 0; ph < info.phases.size(); ++ph) {
      const OpTotals& t = session.record().phase_totals()[ph];
      std::snprintf(buf, sizeof buf, "%s %-9s %12lld cycles  %10.4g energy  %10.3f DRAM MB\n", name,
                    info.phases[ph].title, static_cast<long long>(t.elapsed_cycles),
                    t.energy.total(), static_cast<double>(t.stats.dram_bytes()) / 1e6);
      out += buf;
    }
    std::snprintf(buf, sizeof buf, "%s extra hardware: %lld PEs, %lld bytes of memory of its own\n",
                  name, static_cast<long long>(session.extra_pes()),
                  static_cast<long long>(session.extra_storage_bytes()));
    out += buf;
  }
  if (!epochs.empty()) {
    std::snprintf(buf, sizeof buf, "time per sample step: %.1f cycles (%.3f us), last epoch\n",
                  epochs.back().step_cycles(), epochs.back().step_cycles() / (acc.clock_ghz * 1e3));
    out += buf;
  }
  return out;
}

}  // namespace trainsim
