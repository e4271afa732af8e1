// `trainsim layer`: one op (a GEMM or a convolution in one training role) on one
// accelerator and dataflow, in either fidelity. Prints cycles, utilization, accesses per
// level per operand, DRAM traffic and energy; --json adds SCALE-Sim's four figures.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "dataflows/registry.h"
#include "mapping/bounds.h"
#include "mapping/buffer_mapping.h"
#include "models/accel_node.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/energy.h"
#include "sim/accel/memory_model.h"
#include "sim/accel/op_totals.h"
#include "sim/accel/reference.h"
#include "sim/cli/arg_parse.h"
#include "sim/cli/commands.h"
#include "sim/core/error.h"
#include "sim/interop/scalesim_inputs.h"
#include "sim/interop/scalesim_reports.h"
#include "sim/io/staged_dir.h"
#include "sim/report/op_report.h"

namespace po = boost::program_options;

namespace trainsim {

namespace {

/// "a,b,c" -> positive integers; `what` names the option in errors.
std::vector<std::int64_t> parse_dims(const std::string& text, const std::string& what,
                                     std::size_t min_count, std::size_t max_count) {
  std::vector<std::int64_t> v;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    std::size_t used = 0;
    long long x = 0;
    try {
      x = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size())
      throw UserError(what + ": '" + item + "' is not an integer (in '" + text + "')");
    v.push_back(x);
  }
  if (v.size() < min_count || v.size() > max_count)
    throw UserError(what + ": expected " + std::to_string(min_count) +
                    (max_count > min_count ? " to " + std::to_string(max_count) : "") +
                    " comma-separated values, got '" + text + "'");
  return v;
}

void require_positive(std::int64_t v, const std::string& what) {
  if (v <= 0) throw UserError(what + " must be >= 1, got " + std::to_string(v));
}

Op build_op(const po::variables_map& vm, const AcceleratorSpec& acc) {
  const bool gemm = vm.count("gemm") > 0, conv = vm.count("conv") > 0;
  if (gemm == conv)
    throw UserError(
        "layer: give exactly one of --gemm M,N,K or --conv H,W,C,FILTERS,R,S[,STRIDE[,PAD]]");
  OpRole role = OpRole::kForward;
  const std::string role_text = vm["role"].as<std::string>();
  if (!parse_role(role_text, role) || role == OpRole::kUpdate || role == OpRole::kActivationGrad)
    throw UserError("layer: --role must be fw, bwd-data or bwd-weight, got '" + role_text + "'");
  const std::int64_t batch = vm["batch"].as<std::int64_t>();
  require_positive(batch, "--batch");
  Op op;
  if (gemm) {
    const auto d = parse_dims(vm["gemm"].as<std::string>(), "--gemm", 3, 3);
    require_positive(d[0], "--gemm M");
    require_positive(d[1], "--gemm N");
    require_positive(d[2], "--gemm K");
    // A GEMM is given as executed; --batch scales M (rows are samples for a dense layer).
    op = Op::make_gemm({d[0] * batch, d[1], d[2]}, role);
  } else {
    const auto d = parse_dims(vm["conv"].as<std::string>(), "--conv", 6, 8);
    const char* names[] = {"H", "W", "C", "FILTERS", "R", "S", "STRIDE", "PAD"};
    for (std::size_t i = 0; i < d.size(); ++i)
      if (i < 7) require_positive(d[i], std::string("--conv ") + names[i]);
    ConvShape c;
    c.batch = batch;
    c.height = d[0], c.width = d[1], c.channels = d[2], c.filters = d[3];
    c.kernel_h = d[4], c.kernel_w = d[5];
    c.stride = d.size() > 6 ? d[6] : 1;
    c.pad = d.size() > 7 ? d[7] : 0;
    if (c.pad < 0) throw UserError("--conv PAD must be >= 0, got " + std::to_string(c.pad));
    if (c.height + 2 * c.pad < c.kernel_h || c.width + 2 * c.pad < c.kernel_w)
      throw UserError("--conv: a " + std::to_string(c.kernel_h) + "x" + std::to_string(c.kernel_w) +
                      " kernel does not fit a " + std::to_string(c.height) + "x" +
                      std::to_string(c.width) + " input with padding " + std::to_string(c.pad));
    const std::int64_t groups = vm["groups"].as<std::int64_t>();
    require_positive(groups, "--groups");
    if (c.channels % groups != 0 || c.filters % groups != 0)
      throw UserError("--groups " + std::to_string(groups) + " must divide C (" +
                      std::to_string(c.channels) + ") and FILTERS (" + std::to_string(c.filters) +
                      ")");
    // A grouped convolution is `groups` convolutions of C/groups -> FILTERS/groups run one
    // after another (the op's repeat), as the network lowering does.
    c.channels /= groups, c.filters /= groups;
    op = Op::make_conv(c, role);
    op.repeat = groups;
  }
  op.word_bits = acc.word_bits;
  return op;
}

// --tile "C=16,K=32": pinned buffer-mapping tiles, named as the op's dimensions (a GEMM's
// M, N, K; a convolution's N K C P Q R S), into the accelerator's mapping constraints.
void pin_tiles(const std::string& text, const Op& op, const Dataflow& df, AcceleratorSpec& acc) {
  const NestProblem p = make_problem(op, df.gemm_based());
  std::string names;
  for (int d = 0; d < kNumDims; ++d)
    if (dim_name(d, p.gemm)[0] != '\0')
      names += std::string(names.empty() ? "" : " ") + dim_name(d, p.gemm);
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    int dim = -1;
    for (int d = 0; d < kNumDims; ++d)
      if (key == dim_name(d, p.gemm) && !key.empty()) dim = d;
    if (dim < 0)
      throw UserError("--tile: the buffer mapping of " + op.describe() + " has no dimension '" +
                      key + "' (its dimensions: " + names + ")");
    if (eq == std::string::npos) throw UserError("--tile: expected DIM=SIZE, got '" + item + "'");
    const auto v = parse_dims(item.substr(eq + 1), "--tile " + key, 1, 1)[0];
    if (v < 1 || v > p.extent[dim])
      throw UserError("--tile " + key + "=" + std::to_string(v) + ": the buffer-level tile of " +
                      op.describe() + " must be in [1, " + std::to_string(p.extent[dim]) + "]");
    acc.mapping.tile[static_cast<std::size_t>(dim)] = v;
  }
}

// The three passes of the layer `op` belongs to, as layer --bound prints them: a
// convolution's carry the forward geometry; a GEMM given as a dense layer's forward pass
// (M samples, N outputs, K inputs) has backward-data (M, K, N) and backward-weight (K, N, M).
std::vector<Op> layer_passes(const Op& op) {
  std::vector<Op> out;
  for (OpRole role : {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight}) {
    Op pass = op;
    pass.role = role;
    if (op.kind == OpKind::kGemm) {
      const GemmShape g = op.gemm;
      pass.gemm = role == OpRole::kForward        ? g
                  : role == OpRole::kBackwardData ? GemmShape{g.m, g.k, g.n}
                                                  : GemmShape{g.k, g.n, g.m};
    }
    out.push_back(pass);
  }
  return out;
}

// --bound: per pass, the compulsory traffic, the communication lower bound at the buffer's
// size, the traffic the mapping achieves and their ratio (mapping/bounds.h).
nlohmann::ordered_json bound_rows(const Op& op, const AcceleratorSpec& acc, const Dataflow& df) {
  const BufferCapacity cap = BufferCapacity::of(acc);
  const std::int64_t words =
      cap.shared ? cap.total_words
                 : cap.partition_words[0] + cap.partition_words[1] + cap.partition_words[2];
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Op& pass : layer_passes(op)) {
    const NestProblem p = make_problem(pass, df.gemm_based());
    const TrafficBound b = traffic_bound(p, words);
    const double groups = static_cast<double>(pass.repeat);
    const double achieved = static_cast<double>(evaluate_op(pass, acc, df).dram_bytes()) /
                            static_cast<double>(acc.word_bytes());
    rows.push_back({{"pass", role_name(pass.role)},
                    {"buffer_words", words},
                    {"compulsory_words", groups * static_cast<double>(b.compulsory_words)},
                    {"communication_bound_words", groups * b.communication_words},
                    {"stored_macs", groups * static_cast<double>(b.stored_macs)},
                    {"input_reuse", b.reuse},
                    {"bound_words", groups * b.words()},
                    {"achieved_words", achieved},
                    {"achieved_over_bound", achieved / (groups * b.words())}});
  }
  return rows;
}

std::string bound_text(const nlohmann::ordered_json& rows, const AcceleratorSpec& acc) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "DRAM traffic bounds (%d-bit words, buffer of %lld words; mapping/bounds.h):\n",
                acc.word_bits, static_cast<long long>(rows[0]["buffer_words"].get<std::int64_t>()));
  std::string out = buf;
  std::snprintf(buf, sizeof buf, "%-11s %15s %17s %15s %15s %9s\n", "pass", "compulsory",
                "communication LB", "bound", "achieved", "ratio");
  out += buf;
  for (const auto& r : rows) {
    std::snprintf(buf, sizeof buf, "%-11s %15.0f %17.0f %15.0f %15.0f %8.3fx\n",
                  r["pass"].get<std::string>().c_str(), r["compulsory_words"].get<double>(),
                  r["communication_bound_words"].get<double>(), r["bound_words"].get<double>(),
                  r["achieved_words"].get<double>(), r["achieved_over_bound"].get<double>());
    out += buf;
  }
  return out;
}

}  // namespace

// SystemC writes the waveform to <base>.vcd; a file there is replaced only if it is a
// SystemC waveform itself (an earlier --vcd), never a file of the user's.
static void check_vcd_target(const std::string& vcd) {
  std::string base = vcd;
  if (base.size() > 4 && base.substr(base.size() - 4) == ".vcd") base.resize(base.size() - 4);
  const std::string file = base + ".vcd";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return;
  std::ifstream in(file, std::ios::binary);
  std::string head(512, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (!std::filesystem::is_regular_file(file, ec) || head.rfind("$date", 0) != 0 ||
      head.find("SystemC") == std::string::npos)
    throw UserError("layer: --vcd '" + vcd + "': '" + file +
                    "' exists and is not a waveform trainsim wrote: move it away, or choose "
                    "another file");
}

// --scalesim-topology: every layer of a SCALE-Sim topology on the accelerator with the
// SCALE-Sim config applied, one line each, and SCALE-Sim's reports with --report-dir.
int scalesim_layers(const po::variables_map& vm) {
  for (const char* other : {"gemm", "conv", "tile", "stationary", "vcd", "array", "set"})
    if (vm.count(other))
      throw UserError(std::string("layer: --") + other +
                      " does not go with --scalesim-topology (the topology and config say it)");
  const std::vector<ScaleSimLayer> layers =
      read_scalesim_topology(vm["scalesim-topology"].as<std::string>());
  // The reports are a results directory: checked (and locked) before anything runs.
  std::optional<StagedDir> reports;
  if (vm.count("report-dir"))
    reports.emplace(vm["report-dir"].as<std::string>(),
                    vm["force"].as<bool>() ? StagedDir::Mode::kReplace : StagedDir::Mode::kNew,
                    "layer", "--report-dir");
  AcceleratorSpec acc =
      load_accelerator(vm.count("accel") ? vm["accel"].as<std::string>() : "scalesim_default");
  if (vm.count("scalesim-config"))
    acc = apply_scalesim_config(vm["scalesim-config"].as<std::string>(), acc);
  if (vm.count("dataflow")) acc.dataflow = vm["dataflow"].as<std::string>();
  const Dataflow& df = dataflow_or_throw(acc.dataflow);
  std::vector<ScaleSimLayerResult> results;
  std::printf("%-24s %14s %12s %14s %14s %14s\n", "layer", "compute_cycles", "util %",
              "ifmap_reads", "filter_reads", "ofmap_writes");
  for (const ScaleSimLayer& l : layers) {
    Op op = l.op;
    op.word_bits = acc.word_bits;
    ScaleSimLayerResult r{l.name, evaluate_op(op, acc, df), {}};
    if (!df.scalesim_view(op, acc, r.view))
      throw UserError("layer: dataflow " + df.name() + " has no SCALE-Sim view (os, ws, is do)");
    std::printf("%-24s %14lld %12.4f %14lld %14lld %14lld\n", l.name.c_str(),
                static_cast<long long>(r.view.compute_cycles),
                r.view.compute_cycles > 0 ? 100.0 * static_cast<double>(r.stats.macs) /
                                                (static_cast<double>(acc.pes()) *
                                                 static_cast<double>(r.view.compute_cycles))
                                          : 0.0,
                static_cast<long long>(r.view.ifmap_sram_reads),
                static_cast<long long>(r.view.filter_sram_reads),
                static_cast<long long>(r.view.ofmap_sram_writes));
    results.push_back(r);
  }
  if (reports) {
    write_scalesim_reports(reports->path(), acc, results);
    reports->commit();
    std::printf("SCALE-Sim reports in %s/\n", reports->final_dir().c_str());
  }
  return 0;
}

int cmd_layer(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("accel", po::value<std::string>()->value_name("ACCEL"),
                     "accelerator: a name in configs/accelerators or a YAML path (with "
                     "--scalesim-topology: default scalesim_default)")(
      "scalesim-topology", po::value<std::string>()->value_name("FILE.csv"),
      "every layer of a SCALE-Sim topology CSV (conv or GEMM form), instead of --gemm/--conv")(
      "scalesim-config", po::value<std::string>()->value_name("FILE.cfg"),
      "a SCALE-Sim config: array, dataflow, SRAM sizes and bandwidth over the accelerator's")(
      "report-dir", po::value<std::string>()->value_name("DIR"),
      "with --scalesim-topology: write SCALE-Sim's COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv "
      "and DETAILED_ACCESS_REPORT.csv into DIR")(
      "force,f", po::bool_switch(), "replace the --report-dir of an earlier trainsim layer run")(
      "dataflow", po::value<std::string>()->value_name("D"),
      "ws, os, is or rs (default: the accelerator's)")(
      "gemm", po::value<std::string>()->value_name("M,N,K"), "a GEMM C[MxN] = A[MxK] B[KxN]")(
      "conv", po::value<std::string>()->value_name("H,W,C,F,R,S[,STR[,PAD]]"),
      "a convolution: input HxWxC, F filters of RxS, stride, padding")(
      "batch", po::value<std::int64_t>()->default_value(1)->value_name("N"),
      "samples (a GEMM's M is multiplied by it)")(
      "groups", po::value<std::int64_t>()->default_value(1)->value_name("G"),
      "grouped convolution")("memory", po::value<std::string>()->value_name("MODEL"),
                             "memory model: tiled or scalesim (default: the accelerator's)")(
      "mapping", po::bool_switch(), "print the buffer-level loop nest")(
      "bound", po::bool_switch(),
      "per pass of the layer: compulsory DRAM traffic, a lower bound at the buffer's size, "
      "the traffic achieved and the ratio")("tile", po::value<std::string>()->value_name("DIMS"),
                                            "pin buffer tiles, e.g. C=16,K=32")(
      "stationary", po::value<std::string>()->value_name("OPERAND"),
      "ifmap, filter or ofmap innermost")(
      "role", po::value<std::string>()->default_value("fw")->value_name("ROLE"),
      "fw, bwd-data or bwd-weight")("array", po::value<std::string>()->value_name("RxC"),
                                    "override the array size")(
      "fidelity", po::value<std::string>()->default_value("fast")->value_name("F"),
      "fast (closed form) or cycle (clocked PE array on real values)")(
      "json", po::bool_switch(), "JSON output, with SCALE-Sim's figures")(
      "vcd", po::value<std::string>()->value_name("FILE"), "waveform (with --fidelity cycle)")(
      "set,s", po::value<std::vector<std::string>>()->composing()->value_name("KEY=VALUE"),
      "override an accelerator key, e.g. -s energy=eyeriss_normalized; repeatable");
  const auto vm = parse_args("layer", args, opts, po::positional_options_description());
  if (vm.count("scalesim-topology")) return scalesim_layers(vm);
  if (vm.count("scalesim-config") || vm.count("report-dir") || vm["force"].as<bool>())
    throw UserError(
        "layer: --scalesim-config, --report-dir and --force go with --scalesim-topology");
  if (!vm.count("accel")) throw UserError("layer: --accel is required (see trainsim layer --help)");

  std::vector<std::string> overrides;
  if (vm.count("set")) overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("array")) {
    const std::string a = vm["array"].as<std::string>();
    const auto x = a.find('x');
    if (x == std::string::npos) throw UserError("--array: expected RxC, got '" + a + "'");
    overrides.push_back("array.rows=" + a.substr(0, x));
    overrides.push_back("array.cols=" + a.substr(x + 1));
  }
  if (vm.count("memory")) overrides.push_back("memory=" + vm["memory"].as<std::string>());
  if (vm.count("stationary"))
    overrides.push_back("mapping.stationary=" + vm["stationary"].as<std::string>());
  AcceleratorSpec acc = load_accelerator(vm["accel"].as<std::string>(), overrides);
  const std::string df_name =
      vm.count("dataflow") ? vm["dataflow"].as<std::string>() : acc.dataflow;
  const Dataflow& df = dataflow_or_throw(df_name);
  const MemoryModel& memory = memory_model_or_throw(acc.memory);
  const Fidelity fidelity = parse_fidelity(vm["fidelity"].as<std::string>());
  const bool json = vm["json"].as<bool>();
  const std::string vcd = vm.count("vcd") ? vm["vcd"].as<std::string>() : "";
  if (!vcd.empty() && fidelity != Fidelity::kCycle)
    throw UserError("--vcd needs --fidelity cycle (the fast model has no clock to trace)");
  if (!vcd.empty()) check_vcd_target(vcd);
  const Op op = build_op(vm, acc);
  if (vm.count("tile")) pin_tiles(vm["tile"].as<std::string>(), op, df, acc);
  // Validate (capacity, RF sizes, mapping) before any simulation starts.
  const OpStats closed_form = evaluate_op(op, acc, df);

  std::vector<OpRequest> batch(1);
  batch[0].op = op;
  OperandValues values;
  if (fidelity == Fidelity::kCycle) {
    values = make_operands(op, df.gemm_based(), 1);
    batch[0].values = &values;
  }
  // Wall time covers the simulation only (not operand generation or the reference check),
  // so cycles / wall_seconds is the model's simulation speed.
  const auto t0 = std::chrono::steady_clock::now();
  AcceleratorNode node(acc, df, fidelity, vcd);
  node.run(batch);
  node.close_trace();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const OpStats& s = batch[0].stats;
  // One op is the whole record of this query: the accelerator prices its counts once.
  const OpTotals one = priced_op(s, acc);
  const EnergyBreakdown& e = one.energy;

  std::string numeric = "not checked (fast fidelity)";
  bool numeric_ok = true;
  if (fidelity == Fidelity::kCycle) {
    numeric_ok = batch[0].result == reference_result(op, df.gemm_based(), values);
    numeric = numeric_ok ? "equals the reference" : "DIFFERS from the reference";
  }

  if (json) {
    nlohmann::ordered_json j;
    j["op"] = op.describe();
    j["accelerator"] = acc.name;
    j["array"] = std::to_string(acc.rows) + "x" + std::to_string(acc.cols);
    j["dataflow"] = df.name();
    j["fidelity"] = fidelity_name(fidelity);
    j["stats"] = stats_json(s, acc);
    j["energy"] = energy_json(e, acc.energy.unit);
    const nlohmann::ordered_json plan = memory.plan_json(op, acc, df);
    j["memory"] = memory.name();
    if (!plan.is_null()) j["buffer_mapping"] = plan;
    if (vm["bound"].as<bool>()) j["bounds"] = bound_rows(op, acc, df);
    ScaleSimView view;
    if (df.scalesim_view(op, acc, view)) j["scalesim"] = scalesim_json(view);
    if (fidelity == Fidelity::kCycle) j["numeric_check"] = numeric_ok;
    j["wall_seconds"] = wall;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf(
        "trainsim layer: %s\naccelerator %s (%dx%d, %s, %g GHz, %d-bit), %s memory, %s fidelity\n",
        op.describe().c_str(), acc.name.c_str(), acc.rows, acc.cols, df.name().c_str(),
        acc.clock_ghz, acc.word_bits, memory.name().c_str(), fidelity_name(fidelity));
    std::fputs(stats_text(s, e, acc).c_str(), stdout);
    if (vm["mapping"].as<bool>()) {
      const std::string plan = memory.plan_text(op, acc, df);
      std::fputs(plan.empty() ? ("memory model " + memory.name() + ": no buffer tiling\n").c_str()
                              : plan.c_str(),
                 stdout);
    }
    if (vm["bound"].as<bool>())
      std::fputs(bound_text(bound_rows(op, acc, df), acc).c_str(), stdout);
    std::printf("numeric      %s\nwall time    %.3f ms\n", numeric.c_str(), wall * 1e3);
  }
  (void)closed_form;
  return numeric_ok ? 0 : 1;
}

}  // namespace trainsim
