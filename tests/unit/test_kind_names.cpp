// A kind's name is compared only in the folder that owns the kind: everywhere else code asks the
// kind's registry entry what it needs (a layer type's LayerFamily or OutputLoss, a device kind's
// interface, a schedule's layout), so that a new kind is a new file plus a registry line and never
// a new `if (type == "...")` in shared code (issue 29). This test scans the C++ sources for a
// string literal compared with == or != that names a layer type, a device kind, a pipeline
// schedule or a Hype policy outside that kind's folders. (Techniques have their own, stricter
// test: tests/unit/test_technique_names.cpp.)
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/devices/device_model.h"
#include "sim/hype/policy.h"
#include "sim/nn/layer_registry.h"
#include "sim/pipeline/schedule.h"

using namespace trainsim;
namespace fs = std::filesystem;

namespace {

struct Family {
  std::string what;
  std::set<std::string> names;
  std::vector<std::string> own;  ///< folders where the names may be compared
};

// Names that are also configuration keys or values of another meaning ("accelerator" is a
// device kind and the experiment's key; "energy" a Hype policy and the mapping objective's and
// the accelerator's energy-table key): a comparison with them says nothing about the kind.
const std::set<std::string> kAlsoKeys = {"accelerator", "energy"};

std::vector<Family> families() {
  Family layers{"layer type", {}, {"sim/nn/", "sim/workload/"}};
  for (const LayerTypeInfo& t : layer_types()) layers.names.insert(t.name);
  Family devices{"device kind", {}, {"sim/devices/"}};
  for (const DeviceKind* k : device_kinds()) devices.names.insert(k->name());
  Family schedules_{"pipeline schedule", {}, {"sim/pipeline/"}};
  for (const Schedule* s : schedules()) schedules_.names.insert(s->name());
  Family policies{"Hype policy", {}, {"sim/hype/"}};
  for (const PolicyInfo& p : hype_policies()) policies.names.insert(p.name);
  std::vector<Family> all = {layers, devices, schedules_, policies};
  for (Family& f : all)
    for (const std::string& k : kAlsoKeys) f.names.erase(k);
  return all;
}

// "file:line: <kind> \"name\"" for each comparison of a literal in `text` with a name of `f`.
std::vector<std::string> comparisons(const std::string& file, std::istream& text, const Family& f) {
  static const std::regex cmp(R"re((?:==|!=)\s*"([^"\\]*)"|"([^"\\]*)"\s*(?:==|!=))re");
  std::vector<std::string> out;
  std::string line;
  for (int n = 1; std::getline(text, line); ++n) {
    const std::string code = line.substr(0, line.find("//"));
    for (std::sregex_iterator it(code.begin(), code.end(), cmp), end; it != end; ++it) {
      const std::string name = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
      if (f.names.count(name))
        out.push_back(file + ":" + std::to_string(n) + ": " + f.what + " \"" + name + "\"");
    }
  }
  return out;
}

}  // namespace

TEST_CASE("The kind-name scanner finds comparisons with a kind's name only", "[kinds]") {
  const Family f{"layer type", {"conv2d", "dense"}, {"sim/nn/"}};
  std::istringstream text(
      "if (t == \"conv2d\") return;\n"         // 1: found
      "// if (t == \"dense\") in a comment\n"  // 2: not code
      "const char* s = \"dense\";\n"           // 3: not a comparison
      "bool b = \"dense\" != type;\n"          // 4: found
      "if (key == \"units\") return;\n");      // 5: not a name
  const std::vector<std::string> got = comparisons("x.cpp", text, f);
  CHECK(got == std::vector<std::string>{"x.cpp:1: layer type \"conv2d\"",
                                        "x.cpp:4: layer type \"dense\""});
}

TEST_CASE("No code compares a layer type, device kind, schedule or policy outside its folder",
          "[kinds]") {
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
      for (const Family& f : all) {
        bool own = false;
        for (const std::string& o : f.own) own = own || rel.rfind(o, 0) == 0;
        if (own) continue;
        std::ifstream in(e.path());
        for (const std::string& o : comparisons(rel, in, f)) offenders.push_back(o);
      }
    }
  }
  CHECK(scanned > 100);
  std::string report;
  for (const std::string& o : offenders) report += o + "\n";
  INFO("kind names compared outside their folders (ask the registry entry instead):\n" + report);
  CHECK(offenders.empty());
}
