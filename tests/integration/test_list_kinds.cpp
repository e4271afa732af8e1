// `trainsim list` and the documentation agree: every `trainsim list X` the docs, the shipped
// configs' comments and the help texts mention is a kind the binary lists, every
// `trainsim list [a|b|...]` synopsis names exactly the kinds there are, and `trainsim list`
// alone prints every kind and every entry of every registry of a variation point.
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <set>

#include "dataflows/registry.h"
#include "models/platform/topology.h"
#include "sim/accel/memory_model.h"
#include "sim/cli/commands.h"
#include "sim/data/dataset_registry.h"
#include "sim/devices/device_model.h"
#include "sim/hype/policy.h"
#include "sim/nn/layer_registry.h"
#include "sim/optim/optimizer_registry.h"
#include "sim/pipeline/schedule.h"
#include "sim/report/html/report.h"
#include "sim/techniques/technique.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;
namespace fs = std::filesystem;

namespace {

struct Text {
  std::string where;  ///< a file relative to the source tree, or a command's help
  std::string text;
};

// What a newcomer reads: README.md, the Markdown of docs/, tools/ and configs/, the comments
// of the shipped configs, and what every command's --help prints.
std::vector<Text> documentation() {
  const fs::path root = TRAINSIM_SOURCE_DIR;
  std::vector<Text> out;
  auto add = [&](const fs::path& file) {
    out.push_back({fs::relative(file, root).string(), read_file(file.string())});
  };
  add(root / "README.md");
  for (const char* dir : {"docs", "tools", "configs"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() &&
          (ext == ".md" || (ext == ".yaml" && std::string(dir) == "configs")))
        add(e.path());
    }
  }
  for (const Command& c : commands())
    out.push_back({"trainsim " + c.name + " --help", run_trainsim({c.name, "--help"}).out});
  return out;
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\n");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\n") - first + 1);
}

}  // namespace

TEST_CASE("Every `trainsim list X` the docs mention is a kind trainsim list takes",
          "[cli][list][docs]") {
  const std::vector<std::string> kinds = list_kinds();
  const std::set<std::string> known(kinds.begin(), kinds.end());
  const std::regex one(R"(trainsim list ([A-Za-z][A-Za-z_-]*))");
  // "trainsim list [networks|datasets|...]", which may wrap over lines.
  const std::regex synopsis(R"(trainsim list \[([^\]]*)\])");
  std::set<std::string> mentioned;
  int synopses = 0;
  for (const Text& doc : documentation()) {
    for (std::sregex_iterator m(doc.text.begin(), doc.text.end(), one), end; m != end; ++m) {
      const std::string kind = (*m)[1];
      INFO(doc.where << ": `trainsim list " << kind << "`");
      CHECK(known.count(kind) == 1);
      mentioned.insert(kind);
    }
    for (std::sregex_iterator m(doc.text.begin(), doc.text.end(), synopsis), end; m != end; ++m) {
      ++synopses;
      std::set<std::string> named;
      const std::string inside = (*m)[1];
      std::size_t start = 0;
      while (start <= inside.size()) {
        const std::size_t bar = std::min(inside.find('|', start), inside.size());
        named.insert(trim(inside.substr(start, bar - start)));
        start = bar + 1;
      }
      INFO(doc.where << ": " << m->str());
      CHECK(named == known);
    }
  }
  // The docs mention most kinds, the one that was missing among them; README.md and
  // `trainsim list --help` each give the synopsis.
  CHECK(mentioned.count("memory") == 1);
  CHECK(mentioned.size() >= 10);
  CHECK(synopses >= 2);
  for (const std::string& kind : kinds) {
    const CliResult r = run_trainsim({"list", kind});
    INFO("trainsim list " << kind << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(line_count(r.out) >= 2);  // a heading and at least one entry
  }
  const CliResult bad = run_trainsim({"list", "gizmos"});
  CHECK(bad.exit_code == 2);
  CHECK(line_count(bad.err) == 1);
  for (const std::string& kind : kinds) CHECK(bad.err.find(kind) != std::string::npos);
}

TEST_CASE("trainsim list alone prints every kind and every registry's entries", "[cli][list]") {
  const CliResult all = run_trainsim({"list"});
  REQUIRE(all.exit_code == 0);
  for (const std::string& kind : list_kinds()) {
    const CliResult one = run_trainsim({"list", kind});
    INFO("trainsim list " << kind << ":\n" << one.out);
    CHECK(!one.out.empty());
    CHECK(all.out.find(one.out) != std::string::npos);
  }
  // One registry per variation point, each listed entry by entry.
  std::vector<std::string> names;
  for (const Dataflow* d : dataflows()) names.push_back(d->name());
  for (const MemoryModel* m : memory_models()) names.push_back(m->name());
  for (const auto& t : techniques()) names.push_back(t.name);
  for (const Schedule* s : schedules()) names.push_back(s->name());
  for (const DeviceKind* k : device_kinds()) names.push_back(k->name());
  for (const DatasetSource* d : dataset_sources()) names.push_back(d->name());
  for (const auto& o : optimizers()) names.push_back(o.name);
  for (const auto& l : layer_types()) names.push_back(l.name);
  for (const Topology& t : topologies()) names.push_back(t.name);
  for (const PolicyInfo& p : hype_policies()) names.push_back(p.name);
  for (const ReportKind& k : report_kinds()) names.push_back(k.name);
  for (const std::string& name : names) {
    INFO(name);
    CHECK(all.out.find("\n  " + name + " ") != std::string::npos);
  }
  const CliResult memory = run_trainsim({"list", "memory"});
  CHECK(memory.out.find("\n  tiled ") != std::string::npos);
  CHECK(memory.out.find("\n  scalesim ") != std::string::npos);
}

TEST_CASE("trainsim list KIND --names prints the entries' names alone", "[cli][list]") {
  // The names are those the full listing gives, in its order, and nothing else.
  for (const std::string& kind : list_kinds()) {
    const CliResult full = run_trainsim({"list", kind});
    const CliResult names = run_trainsim({"list", kind, "--names"});
    INFO("trainsim list " << kind << " --names:\n" << names.out);
    REQUIRE(names.exit_code == 0);
    CHECK(names.err.empty());
    std::size_t from = 0;
    int n = 0;
    for (std::size_t end; (end = names.out.find('\n', from)) != std::string::npos; from = end + 1) {
      const std::string name = names.out.substr(from, end - from);
      CHECK(!name.empty());
      CHECK(name.find(' ') == std::string::npos);
      // Every name but a policy's alias is an entry of the full listing.
      if (kind != "policies") CHECK(full.out.find("\n  " + name + " ") != std::string::npos);
      ++n;
    }
    CHECK(from == names.out.size());  // ends with a newline
    CHECK(n >= 1);
  }
  const CliResult policies = run_trainsim({"list", "policies", "--names"});
  CHECK(policies.out.find("\nhype\n") != std::string::npos);  // energy's alias
  const CliResult layers = run_trainsim({"list", "layers", "--names"});
  CHECK(layers.out.rfind("dense\nconv2d\n", 0) == 0);
  CHECK(line_count(layers.out) == static_cast<int>(layer_types().size()));
}

TEST_CASE("trainsim list placements lists every schedule and policy under its family",
          "[cli][list][placement]") {
  const CliResult r = run_trainsim({"list", "placements"});
  REQUIRE(r.exit_code == 0);
  const std::size_t ahead = r.out.find("placements by schedule (pipeline.schedule");
  const std::size_t online = r.out.find("placements by policy (hype.policy");
  REQUIRE(ahead != std::string::npos);
  REQUIRE(online != std::string::npos);
  CHECK(r.out.find("decided before the run:", ahead) < online);
  CHECK(r.out.find("decided as it goes:", online) != std::string::npos);
  for (const Schedule* s : schedules()) {
    INFO(s->name());
    const std::size_t at = r.out.find("\n  " + s->name() + " ");
    CHECK(at > ahead);
    CHECK(at < online);
  }
  for (const PolicyInfo& p : hype_policies()) {
    INFO(p.name);
    const std::size_t at = r.out.find("\n  " + p.name + " ", online);
    CHECK(at != std::string::npos);
  }
}
