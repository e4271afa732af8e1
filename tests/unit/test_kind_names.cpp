// A kind's name is compared only in the folder that owns the kind: everywhere else code asks the
// kind's registry entry what it needs (a layer type's LayerFamily or OutputLoss, a device kind's
// interface, a schedule's layout), so that a new kind is a new file plus a registry line and never
// a new `if (type == "...")` in shared code (issue 29). This test scans the C++ sources for a
// string literal compared with == or != that names a registered kind (a layer type, a device
// kind, a pipeline schedule, a Hype policy, a dataflow, a memory model, an optimizer, a
// dataset, a topology, a kind of run or of report) outside that kind's folders. A line that
// compares with such a name for another reason (a configuration key that shares a policy's
// name) says so in a comment holding "kind-name ok:". (Techniques have their own, stricter
// test: tests/unit/test_technique_names.cpp.)
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dataflows/registry.h"
#include "models/platform/topology.h"
#include "sim/accel/memory_model.h"
#include "sim/data/dataset_registry.h"
#include "sim/devices/device_model.h"
#include "sim/hype/policy.h"
#include "sim/nn/layer_registry.h"
#include "sim/optim/optimizer_registry.h"
#include "sim/pipeline/schedule.h"
#include "sim/report/html/report.h"
#include "sim/run/run_kinds.h"

using namespace trainsim;
namespace fs = std::filesystem;

namespace {

struct Family {
  std::string what;
  std::set<std::string> names;
  std::vector<std::string> own;  ///< folders where the names may be compared
};

// A line holding this in a comment compares with a kind's name for another reason, which the
// comment gives ("accelerator" is a device kind and the experiment's key; "energy" a Hype
// policy and the accelerator's energy-table key).
const char* const kNotAKind = "kind-name ok:";

std::vector<Family> families() {
  // Layer types: their numerics (sim/nn/) and their shapes and ops (sim/workload/layers/);
  // the rest of sim/workload asks the type's LayerKind.
  Family layers{"layer type", {}, {"sim/nn/", "sim/workload/layers/"}};
  for (const LayerTypeInfo& t : layer_types()) layers.names.insert(t.name);
  Family devices{"device kind", {}, {"sim/devices/"}};
  for (const DeviceKind* k : device_kinds()) devices.names.insert(k->name());
  Family schedules_{"pipeline schedule", {}, {"sim/pipeline/"}};
  for (const Schedule* s : schedules()) schedules_.names.insert(s->name());
  Family policies{"Hype policy", {}, {"sim/hype/"}};
  for (const PolicyInfo& p : hype_policies()) {
    policies.names.insert(p.name);
    policies.names.insert(p.aliases.begin(), p.aliases.end());
  }
  Family flows{"dataflow", {}, {"dataflows/"}};
  for (const Dataflow* d : dataflows()) flows.names.insert(d->name());
  Family memory{"memory model", {}, {"sim/accel/memory"}};
  for (const MemoryModel* m : memory_models()) memory.names.insert(m->name());
  Family optim{"optimizer", {}, {"sim/optim/"}};
  for (const OptimizerInfo& o : optimizers()) optim.names.insert(o.name);
  Family data{"dataset", {}, {"sim/data/"}};
  for (const DatasetSource* d : dataset_sources()) data.names.insert(d->name());
  Family topo{"topology", {}, {"models/platform/topology"}};
  for (const Topology& t : topologies()) topo.names.insert(t.name);
  // The report registry's lines say which kinds of run each page draws.
  Family runs{"kind of run", {}, {"sim/run/", "sim/report/html/report.cpp"}};
  for (const RunKindInfo& k : run_kinds()) runs.names.insert(k.name);
  Family reports{"kind of report", {}, {"sim/report/"}};
  for (const ReportKind& k : report_kinds()) reports.names.insert(k.name);
  return {layers, devices, schedules_, policies, flows, memory, optim, data, topo, runs, reports};
}

bool in_own_folder(const std::string& file, const Family& f) {
  for (const std::string& o : f.own)
    if (file.rfind(o, 0) == 0) return true;
  return false;
}

// "file:line: <kinds> \"name\"" for each comparison of a literal in `text` with a name of
// the families `all` when `file` is in none of the folders of the families that have the
// name (a name two registries share, such as "hype", a kind of run and a policy's alias, may
// be compared in either's folders).
std::vector<std::string> comparisons(const std::string& file, std::istream& text,
                                     const std::vector<Family>& all) {
  static const std::regex cmp(R"re((?:==|!=)\s*"([^"\\]*)"|"([^"\\]*)"\s*(?:==|!=))re");
  std::vector<std::string> out;
  std::string line;
  for (int n = 1; std::getline(text, line); ++n) {
    const std::size_t comment = line.find("//");
    // The reason must be in the line's comment, not in a string the code compares.
    if (comment != std::string::npos && line.find(kNotAKind, comment) != std::string::npos)
      continue;
    const std::string code = line.substr(0, comment);
    for (std::sregex_iterator it(code.begin(), code.end(), cmp), end; it != end; ++it) {
      const std::string name = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
      std::string kinds;
      bool owned = false;
      for (const Family& f : all) {
        if (!f.names.count(name)) continue;
        owned = owned || in_own_folder(file, f);
        kinds += (kinds.empty() ? "" : " / ") + f.what;
      }
      if (!kinds.empty() && !owned)
        out.push_back(file + ":" + std::to_string(n) + ": " + kinds + " \"" + name + "\"");
    }
  }
  return out;
}

}  // namespace

TEST_CASE("The kind-name scanner finds comparisons with a kind's name only", "[kinds]") {
  const std::vector<Family> f = {{"layer type", {"conv2d", "dense"}, {"sim/nn/"}},
                                 {"kind of run", {"hype"}, {"sim/run/"}},
                                 {"Hype policy", {"hype"}, {"sim/hype/"}}};
  std::istringstream text(
      "if (t == \"conv2d\") return;\n"                     // 1: found
      "// if (t == \"dense\") in a comment\n"              // 2: not code
      "const char* s = \"dense\";\n"                       // 3: not a comparison
      "bool b = \"dense\" != type;\n"                      // 4: found
      "if (key == \"units\") return;\n"                    // 5: not a name
      "if (k == \"dense\") {  // kind-name ok: a key\n"    // 6: says why
      "if (k == \"dense\" || s == \"kind-name ok:\") {\n"  // 7: not in a comment: found
      "return kind == \"hype\";\n");                       // 8: found, naming both kinds
  const std::vector<std::string> got = comparisons("x.cpp", text, f);
  CHECK(got == std::vector<std::string>{
                   "x.cpp:1: layer type \"conv2d\"", "x.cpp:4: layer type \"dense\"",
                   "x.cpp:7: layer type \"dense\"", "x.cpp:8: kind of run / Hype policy \"hype\""});
  // In the folder of either kind that has the name, the comparison is that kind's own.
  std::istringstream run("return kind == \"hype\";\n");
  CHECK(comparisons("sim/run/kinds.cpp", run, f).empty());
  std::istringstream layer("if (t == \"conv2d\") return;\n");
  CHECK(comparisons("sim/nn/conv2d.cpp", layer, f).empty());
}

TEST_CASE("No code compares a registered kind's name outside its folders", "[kinds]") {
  const fs::path root = TRAINSIM_SOURCE_DIR;
  const std::vector<Family> all = families();
  for (const Family& f : all) CHECK(f.names.size() >= 2);
  std::vector<std::string> offenders;
  int scanned = 0;
  for (const char* dir : {"sim", "models", "dataflows", "mapping", "python", "tools"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
      const std::string rel = fs::relative(e.path(), root).generic_string();
      ++scanned;
      std::ifstream in(e.path());
      for (const std::string& o : comparisons(rel, in, all)) offenders.push_back(o);
    }
  }
  CHECK(scanned > 100);
  std::string report;
  for (const std::string& o : offenders) report += o + "\n";
  INFO("kind names compared outside their folders (ask the registry entry instead):\n" + report);
  CHECK(offenders.empty());
}
