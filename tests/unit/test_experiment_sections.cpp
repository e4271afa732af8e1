// The experiment parser (sim/config/experiment_parser.h) and its sections: every top-level key
// belongs to one section, every section parses and writes back, and the parser itself, given
// made-up sections, runs them in their order, checks after all have parsed, lets the owner of
// a key prepare an override, forgets what an override replaced, and rejects keys no section
// owns.
#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/run/experiment_file.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
using trainsim::test::fresh_dir;
using trainsim::test::write_file;

namespace {

// Records what the parser asked of it, in `log`.
class Probe final : public ExperimentSection {
 public:
  Probe(std::string key, std::vector<std::string>& log) : key_(std::move(key)), log_(log) {}
  std::vector<std::string> keys() const override { return {key_}; }
  void before_override(OverrideStep& step) const override {
    log_.push_back("override " + step.over.text);
    // A key named by a scalar becomes a mapping "inlined from" a made-up file.
    const YAML::Node& root = step.root;
    if (step.over.segments.size() > 1 && root[key_].IsScalar()) {
      step.root[key_] = YAML::Load("{a: 1}");
      step.inlined[key_] = "file-" + key_;
      step.inlined[key_ + ".sub"] = "sub-" + key_;
    }
  }
  void parse(const ConfigMap& top, const SectionInput& in, ExperimentSpec& spec) const override {
    std::string inlined;
    for (const auto& [k, f] : in.inlined) inlined += (inlined.empty() ? "" : ",") + k;
    log_.push_back("parse " + key_ + (top.get(key_) ? " given" : "") +
                   (inlined.empty() ? "" : " inlined " + inlined) + " after " +
                   std::to_string(spec.notes.size()));
    spec.notes.push_back(key_);
  }
  void check(const ConfigMap&, const ExperimentSpec& spec) const override {
    log_.push_back("check " + key_ + " with " + std::to_string(spec.notes.size()));
  }
  void emit(YAML::Emitter& out, const ExperimentSpec&) const override {
    out << YAML::Key << key_ << YAML::Value << 1;
  }

 private:
  std::string key_;
  std::vector<std::string>& log_;
};

}  // namespace

TEST_CASE("Every key of an experiment belongs to one section, parsed and written back",
          "[config][sections]") {
  const ExperimentSections& all = experiment_sections();
  REQUIRE(all.parse_order.size() == all.emit_order.size());
  std::multiset<const ExperimentSection*> parsed(all.parse_order.begin(), all.parse_order.end());
  std::multiset<const ExperimentSection*> emitted(all.emit_order.begin(), all.emit_order.end());
  CHECK(parsed == emitted);
  std::vector<std::string> keys;
  std::set<std::string> unique;
  for (const ExperimentSection* s : all.parse_order)
    for (const std::string& k : s->keys()) {
      keys.push_back(k);
      unique.insert(k);
    }
  CHECK(unique.size() == keys.size());  // no key has two owners
  // The order an unknown key's error lists them: every key once.
  CHECK(std::set<std::string>(all.key_order.begin(), all.key_order.end()) == unique);
  CHECK(all.key_order.size() == unique.size());
  CHECK(all.key_order == std::vector<std::string>{"name", "network", "dataset", "training",
                                                  "output", "accelerator", "dataflow", "technique",
                                                  "fidelity", "numerics", "memory", "residency",
                                                  "system", "pipeline", "hype"});
}

TEST_CASE("Of two bad keys, the one an earlier section parses is the error", "[config][sections]") {
  // The parse order (numerics before the network, the results directory last) decides which
  // of two problems a user sees first; each pair's first is the one reported.
  struct Case {
    const char* body;
    const char* reported;
  };
  const std::string dir = fresh_dir("experiment-sections-order");
  int n = 0;
  for (const Case& c : {
           Case{"numerics: bogus\nnetwork: lenet5\n", "numerics:"},
           Case{"network: nosuchnet\nnumerics: bogus\ndataset: {name: mnist}\n", "numerics:"},
           Case{"network: lenet5\ndataset: {name: mnist}\ntraining: {epochs: -1}\n"
                "numerics: bogus\n",
                "numerics:"},
           Case{"network: nosuchnet\n", "network:"},
           Case{"network: lenet5\ndataset: {name: mnist}\noutput: 5\naccelerator: nosuch\n",
                "accelerator:"},
           Case{"network: lenet5\ndataset: {name: mnist}\noutput: {dir: x, extra: 1}\n"
                "system: nosuchsystem\n",
                "system:"},
           Case{"network: lenet5\ndataset: {name: mnist}\noutput: {dir: \"\"}\n"
                "hype: {policy: nosuch}\n",
                "hype"},
           Case{"network: lenet5\ndataset: {name: mnist}\noutput: {dir: x, extra: 1}\n",
                "output.extra"},
       }) {
    const std::string file = dir + "/e" + std::to_string(n++) + ".yaml";
    write_file(file, c.body);
    INFO(c.body);
    try {
      load_experiment(file);
      FAIL("no error");
    } catch (const UserError& e) {
      const std::string msg = e.what();
      INFO(msg);
      // "<file>:<line>:<col>: <key>...": the key path right after the location.
      const std::size_t at = msg.find(": ", file.size() + 1);
      REQUIRE(at != std::string::npos);
      CHECK(msg.compare(at + 2, std::string(c.reported).size(), c.reported) == 0);
    }
  }
}

TEST_CASE("The experiment parser runs the sections it is given, and only those",
          "[config][sections]") {
  std::vector<std::string> log;
  const Probe a("alpha", log), b("beta", log);
  const ExperimentSections sections{{&a, &b}, {&b, &a}, {"alpha", "beta"}};
  const std::string dir = fresh_dir("experiment-sections");
  const std::string file = dir + "/e.yaml";
  write_file(file, "alpha: x\n");

  SECTION("in parse order, every check after every parse; written in emit order") {
    const ExperimentSpec spec = parse_experiment(file, {}, sections);
    CHECK(log == std::vector<std::string>{"parse alpha given after 0", "parse beta after 1",
                                          "check alpha with 2", "check beta with 2"});
    CHECK(spec.source == file);
    CHECK(emit_experiment(spec, sections) == "beta: 1\nalpha: 1\n");
  }
  SECTION("an override goes to its key's section first; a whole value forgets what was inlined") {
    parse_experiment(file, {"alpha.a=2"}, sections);
    CHECK(log == std::vector<std::string>{"override alpha.a=2",
                                          "parse alpha given inlined alpha,alpha.sub after 0",
                                          "parse beta inlined alpha,alpha.sub after 1",
                                          "check alpha with 2", "check beta with 2"});
    log.clear();
    parse_experiment(file, {"alpha.a=2", "alpha=3"}, sections);
    CHECK(log[2] == "parse alpha given after 0");
    log.clear();
    // An override of a key below the inlined one keeps it.
    parse_experiment(file, {"alpha.a=2", "alpha.a=4"}, sections);
    CHECK(log[2] == "parse alpha given inlined alpha,alpha.sub after 0");
    log.clear();
    // A whole key replaces what was inlined at it and below it, and nothing beside it that
    // merely starts with its name.
    const Probe ab("alphabet", log);
    const ExperimentSections three{{&a, &ab}, {&a, &ab}, {"alpha", "alphabet"}};
    write_file(file, "alpha: x\nalphabet: y\n");
    parse_experiment(file, {"alphabet.a=2", "alpha.a=2", "alpha=3"}, three);
    CHECK(log[3] == "parse alpha given inlined alphabet,alphabet.sub after 0");
  }
  SECTION("a key_order that is not the sections' keys is the code's error") {
    const ExperimentSections missing{{&a, &b}, {&a, &b}, {"alpha"}};
    CHECK_THROWS_AS(parse_experiment(file, {}, missing), std::logic_error);
    const ExperimentSections extra{{&a, &b}, {&a, &b}, {"alpha", "beta", "gamma"}};
    CHECK_THROWS_AS(parse_experiment(file, {}, extra), std::logic_error);
  }
  SECTION("a key no section owns is an error that lists the sections' keys") {
    write_file(file, "alpha: x\ngamma: 1\n");
    try {
      parse_experiment(file, {}, sections);
      FAIL("no error");
    } catch (const UserError& e) {
      CHECK(std::string(e.what()).find("unknown key 'gamma' (allowed: alpha, beta)") !=
            std::string::npos);
    }
    CHECK(log.empty());  // nothing parsed
  }
}
