// report.html through the real binary: written by run, compare and sweep (not with
// --no-report), rewritten by `trainsim report`, listed in the manifest, self-contained, and
// consistent: its key figures are the numbers of stats.json, epochs.csv and the terminal's
// final line, for every kind of run.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "sim/core/format.h"
#include "sim/report/html/readable.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kExperiments = std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/";
const std::string kQuickstart = kExperiments + "quickstart.yaml";

// The key figures of a report: data-key -> data-v (the exact values behind the text shown).
std::map<std::string, double> figures(const std::string& html) {
  std::map<std::string, double> out;
  const std::regex cell("data-key=\"([a-z_]+)\" data-v=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), cell); it != std::sregex_iterator();
       ++it)
    out[(*it)[1]] = std::stod((*it)[2]);
  return out;
}

// Nothing the page would fetch: no element that loads a resource, no URL but the SVG
// namespace, and a policy that forbids any load should one slip in.
void check_self_contained(const std::string& html) {
  CHECK(html.find("Content-Security-Policy") != std::string::npos);
  for (const char* bad : {" src=", "<link", "@import", "url(", "<iframe", "<img"}) {
    INFO(bad);
    CHECK(html.find(bad) == std::string::npos);
  }
  std::string rest = html;
  for (std::size_t at; (at = rest.find("http://www.w3.org/2000/svg")) != std::string::npos;)
    rest.erase(at, 26);
  CHECK(rest.find("http://") == std::string::npos);
  CHECK(rest.find("https://") == std::string::npos);
}

double sum_column(const std::string& csv, const std::string& column) {
  double s = 0;
  for (const auto& row : csv_rows(csv)) s += std::stod(row.at(column));
  return s;
}

bool close(double a, double b, double rel = 1e-6) {
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

std::string final_line(const std::string& out) {
  const std::size_t at = out.rfind("final: ");
  return at == std::string::npos ? std::string() : out.substr(at);
}

// "88.70%" in the final line is the accuracy of stats.json, rounded as printed.
void check_accuracy_printed(const std::string& line, double accuracy) {
  const std::string pct = sformat("%.2f%%", 100 * accuracy);
  INFO(line);
  CHECK(line.find(pct) != std::string::npos);
}

// A command that writes results directory `out` (appended as -o) and must succeed, with what
// these tests read of it: its terminal output, its page (checked self-contained), the
// page's key figures, stats.json and epochs.csv.
struct Reported {
  CliResult cli;
  std::string html, epochs;
  json stats;
  std::map<std::string, double> f;
};

Reported run_reported(std::vector<std::string> args, const std::string& out) {
  args.insert(args.end(), {"-o", out});
  Reported r;
  r.cli = run_trainsim(args);
  INFO(r.cli.err);
  REQUIRE(r.cli.exit_code == 0);
  r.html = read_file(out + "/report.html");
  check_self_contained(r.html);
  r.f = figures(r.html);
  r.stats = json::parse(read_file(out + "/stats.json"));
  r.epochs = read_file(out + "/epochs.csv");
  return r;
}

}  // namespace

TEST_CASE("A run's report.html agrees with stats.json, epochs.csv and the final line", "[report]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("report-run");
  for (const char* technique : {"bp", "adagp-max", "specbp@0.25"}) {
    INFO(technique);
    const std::string out = dir + "/" + std::string(technique).substr(0, 6);
    const auto [r, html, epochs, stats, f] = run_reported(
        {"run", kQuickstart, "-s", std::string("technique=") + technique, "-s", "training.epochs=2",
         "-s", "dataset.train_limit=600", "-s", "dataset.test_limit=100"},
        out);
    CHECK(read_file(out + "/.trainsim-manifest").find("\nreport.html\n") != std::string::npos);
    CHECK(f.at("test_accuracy") == stats["final"]["test_accuracy"].get<double>());
    CHECK(f.at("train_seconds") == stats["final"]["train_seconds"].get<double>());
    CHECK(f.at("train_energy") == stats["final"]["train_energy"].get<double>());
    CHECK(f.at("train_cycles") == stats["final"]["train_cycles"].get<double>());
    CHECK(close(sum_column(epochs, "seconds"), f.at("train_seconds")));
    CHECK(close(sum_column(epochs, "energy"), f.at("train_energy")));
    check_accuracy_printed(final_line(r.out), f.at("test_accuracy"));
    // A unit is busy or not: never more than all of the run.
    for (const auto& [unit, v] : stats["units"].items())
      if (v.contains("busy_fraction")) {
        INFO(unit);
        CHECK(v["busy_fraction"].get<double>() <= 1.0);
      }
    // A section for the technique only when it is in the run.
    const bool has_section = html.find(">Technique: ") != std::string::npos;
    CHECK(has_section == (std::string(technique) != "bp"));
    // The section says what the technique declares: a speculating one its hits, a phased one
    // its phases, and neither the other's.
    const bool speculates = std::string(technique).rfind("specbp", 0) == 0;
    const bool phased = std::string(technique).rfind("adagp", 0) == 0;
    CHECK((html.find("hits / misses") != std::string::npos) == speculates);
    CHECK((html.find(">Phase GP<") != std::string::npos) == phased);
  }
}

TEST_CASE("Pipeline and hype runs' reports agree with their records and final lines", "[report]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("report-systems");
  {
    const auto [r, html, epochs, stats, f] =
        run_reported({"run", kExperiments + "lenet5_fashion_pipeline.yaml", "-s",
                      "dataset.train_limit=640", "-s", "dataset.test_limit=100"},
                     dir + "/pipe");
    CHECK(f.at("train_seconds") == stats["totals"]["train_seconds"].get<double>());
    CHECK(f.at("train_energy") == stats["totals"]["device_energy"].get<double>());
    CHECK(f.at("test_accuracy") == stats["totals"]["test_accuracy"].get<double>());
    CHECK(close(sum_column(epochs, "seconds"), f.at("train_seconds")));
    // The final line in readable units, the totals line above it in full.
    CHECK(final_line(r.out).find(readable_seconds(f.at("train_seconds")) + " on 4 devices") !=
          std::string::npos);
    CHECK(r.out.find(sformat("totals: %.6g s of training", f.at("train_seconds"))) !=
          std::string::npos);
    check_accuracy_printed(final_line(r.out), f.at("test_accuracy"));
    CHECK(html.find("Timeline: gpipe") != std::string::npos);
  }
  {
    const auto [r, html, epochs, stats, f] =
        run_reported({"run", kExperiments + "hype_zoo.yaml", "-q"}, dir + "/hype");
    CHECK(close(sum_column(epochs, "seconds"), f.at("train_seconds")));
    CHECK(close(sum_column(epochs, "energy"), f.at("train_energy")));
    CHECK(final_line(r.out).find("final: " + readable_seconds(f.at("train_seconds")) +
                                 " of training, " + readable_energy(f.at("train_energy"), "J")) ==
          0);
  }
}

TEST_CASE("A hype run on real data reports the accuracy its final line prints", "[report]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("report-hype-real");
  const auto [r, html, epochs, stats, f] =
      run_reported({"run", kExperiments + "hype_lenet5_fashion.yaml", "-s",
                    "dataset.train_limit=600", "-s", "dataset.test_limit=200"},
                   dir + "/h");
  check_accuracy_printed(final_line(r.out), f.at("test_accuracy"));
  CHECK(html.find(">Accuracy and loss</h2>") != std::string::npos);
}

TEST_CASE(
    "compare reports link every variant's own report, sweep reports every point's that has one",
    "[report]") {
  require_dataset("mnist");
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("report-compare");
  const auto r =
      run_trainsim({"compare", kQuickstart, "--dataflows", "ws,rs", "-o", dir + "/cmp", "-q", "-s",
                    "dataset.train_limit=300", "-s", "dataset.test_limit=100"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string html = read_file(dir + "/cmp/report.html");
  check_self_contained(html);
  for (const char* v : {"ws", "rs"}) {
    CHECK(html.find(std::string("href=\"") + v + "/report.html\"") != std::string::npos);
    CHECK(exists(dir + "/cmp/" + v + "/report.html"));
  }

  // A sweep with a point that fails: the page lists it with its error.
  write_file(dir + "/exp.yaml",
             "name: s\nnetwork: lenet5\nnumerics: none\n"
             "dataset: {name: fashion-mnist, train_limit: 500, test_limit: 100}\n"
             "training: {epochs: 1, batch_size: 32}\naccelerator: adagp_ws180\n");
  write_file(dir + "/sweep.yaml",
             "experiment: exp.yaml\naxes:\n  - {key: dataflow, values: [ws, rs]}\n"
             "  - {key: accelerator.buffer.kib, values: [108, 0.001]}\n");
  const auto s = run_trainsim({"sweep", dir + "/sweep.yaml", "-o", dir + "/sw", "-q"});
  INFO(s.err);
  const std::string page = read_file(dir + "/sw/report.html");
  check_self_contained(page);
  const auto rows = csv_rows(read_file(dir + "/sw/sweep.csv"));
  REQUIRE(rows.size() == 4);
  int failed = 0, off_front = 0;
  for (const auto& row : rows) {
    if (row.at("status") == "done") {
      // By default only the front's points (and the baseline: none here) get a page, written
      // when the sweep ends, and the sweep's page links exactly those.
      const std::string own = "points/" + row.at("id") + "/run/report.html";
      const bool front = row.at("pareto") == "1";
      off_front += !front;
      CHECK((page.find(own) != std::string::npos) == front);
      CHECK(exists(dir + "/sw/" + own) == front);
      if (front)
        CHECK(read_file(dir + "/sw/points/" + row.at("id") + "/run/.trainsim-manifest")
                  .find("\nreport.html\n") != std::string::npos);
    } else {
      ++failed;
      CHECK(page.find(row.at("id")) != std::string::npos);
    }
  }
  CHECK(failed == 2);  // the 0.001 KiB buffer holds no word
  CHECK(page.find("2 done, 2 failed") != std::string::npos);
  // The point off the front has no page; the sweep's page says how to write one.
  CHECK(page.find("1 finished point(s) have no page of their own: `trainsim report") !=
        std::string::npos);
  CHECK(page.find("global buffer of &#39;adagp_ws180&#39; holds 0 words") != std::string::npos);
  CHECK(read_file(dir + "/sw/.trainsim-manifest").find("\nreport.html\n") != std::string::npos);

  // --point-reports all: every done point writes its own page as it finishes. The points
  // tie on neither figure here, so the front holds one of the two and one is off it.
  CHECK(off_front == 1);
  const auto all = run_trainsim(
      {"sweep", dir + "/sweep.yaml", "-o", dir + "/sw-all", "-q", "--point-reports", "all"});
  INFO(all.err);
  const std::string every = read_file(dir + "/sw-all/report.html");
  CHECK(every.find("have no page of their own") == std::string::npos);
  for (const auto& row : csv_rows(read_file(dir + "/sw-all/sweep.csv")))
    if (row.at("status") == "done") {
      CHECK(every.find("points/" + row.at("id") + "/run/report.html") != std::string::npos);
      CHECK(exists(dir + "/sw-all/points/" + row.at("id") + "/run/report.html"));
    }
}

TEST_CASE("With --no-report a run writes no page, and trainsim report writes it over its own only",
          "[report]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("report-cmd");
  const std::string out = dir + "/run";
  REQUIRE(run_trainsim({"run", kQuickstart, "-o", out, "-q", "--no-report", "-s",
                        "dataset.train_limit=150", "-s", "dataset.test_limit=50"})
              .exit_code == 0);
  CHECK_FALSE(exists(out + "/report.html"));
  CHECK(read_file(out + "/.trainsim-manifest").find("report.html") == std::string::npos);
  auto r = run_trainsim({"report", out});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "wrote " + out + "/report.html\n");
  CHECK(read_file(out + "/.trainsim-manifest").find("\nreport.html\n") != std::string::npos);
  // Again: it replaces its own page.
  CHECK(run_trainsim({"report", out, "-q"}).exit_code == 0);

  // A report.html of the user's is never replaced; a directory trainsim did not write is
  // not read.
  const std::string mine = dir + "/mine";
  fs::create_directories(mine);
  REQUIRE(run_trainsim({"run", kQuickstart, "-o", mine + "/r", "-q", "--no-report", "-s",
                        "dataset.train_limit=150", "-s", "dataset.test_limit=50"})
              .exit_code == 0);
  write_file(mine + "/r/report.html", "my notes\n");
  r = run_trainsim({"report", mine + "/r"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("was not written by trainsim") != std::string::npos);
  CHECK(read_file(mine + "/r/report.html") == "my notes\n");
  r = run_trainsim({"report", mine});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("not a results directory trainsim wrote") != std::string::npos);
  CHECK_FALSE(exists(mine + "/report.html"));
  r = run_trainsim({"report", dir + "/nothing"});
  CHECK(r.exit_code == 2);
  // A damaged record is named, not drawn around.
  write_file(out + "/stats.json", "{\"kind\": \"run\", ");
  r = run_trainsim({"report", out});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("stats.json: not a stats file") != std::string::npos);
}

TEST_CASE("A 90-epoch zoo run's trace is a bounded window, one track per unit",
          "[report][timeline]") {
  // DenseNet-201 on ImageNet (the zoo network with the most ops per batch), 90 epochs shape
  // only, with ADA-GP-MAX's predictor array: 24 flushes of ~2,000 ops each.
  const std::string dir = fresh_dir("report-trace-bound");
  const auto r = run_trainsim({"run", kExperiments + "adagp_zoo.yaml", "-o", dir + "/z", "-q",
                               "--no-report", "-s", "network=densenet201_imagenet", "-s",
                               "dataset.name=imagenet", "-s", "technique=adagp-max"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string text = read_file(dir + "/z/timeline.json");
  CHECK(text.size() < 8'000'000);  // docs/outputs.md states the bound
  const json trace = json::parse(text);
  std::map<int, std::string> tracks;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "M") tracks[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
  CHECK(tracks.size() == 5);  // main array and vector unit, the predictor's, the DRAM channel
  CHECK(tracks.at(4) == "adagp_ws180 DRAM channel");
}

TEST_CASE("At 80 columns no line of run, compare or sweep output wraps", "[report][terminal]") {
  require_dataset("mnist");
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("terminal-80");
  write_file(dir + "/sweep.yaml",
             "experiment: " + kExperiments +
                 "lenet5_mnist.yaml\nset: [numerics=none, dataset.train_limit=500]\n"
                 "axes:\n  - {key: dataflow, values: [ws, rs]}\n"
                 "  - {key: accelerator.buffer.kib, values: [108, 0.001]}\n");
  const std::vector<std::string> small = {"-s", "dataset.train_limit=300", "-s",
                                          "dataset.test_limit=100"};
  auto with = [&](std::vector<std::string> a, bool limit = true) {
    if (limit) a.insert(a.end(), small.begin(), small.end());
    return a;
  };
  // Short result paths (run from the test's directory): a path is the user's to lengthen.
  const std::vector<std::vector<std::string>> commands = {
      with({"run", kQuickstart, "-o", "q"}),
      with({"run", kQuickstart, "-o", "s", "-s", "technique=specbp@0.25"}),
      with({"run", kQuickstart, "-o", "a", "-s", "technique=adagp-max"}),
      with({"train", kQuickstart, "-o", "t"}),
      with({"run", kExperiments + "lenet5_fashion_pipeline.yaml", "-o", "p"}),
      with({"run", kExperiments + "hype_zoo.yaml", "-o", "h"}, false),
      with({"run", kExperiments + "adagp_zoo.yaml", "-o", "z"}, false),
      with({"compare", kExperiments + "lenet5_mnist.yaml", "--dataflows", "ws,os,is,rs", "-o",
            "c1"}),
      with({"compare", kQuickstart, "--techniques", "bp,specbp,adagp-max,adagp-low", "-o", "c2"}),
      with({"compare", kExperiments + "hype_zoo.yaml", "--systems", "gpu-only,hype", "-o", "c3"},
           false),
      // Real data under a cap: violations and accuracy columns, and the longest policy name.
      with({"compare", kExperiments + "hype_lenet5_fashion.yaml", "--systems",
            "gpu-only,hype,power-cap-dvfs", "-s", "hype.power_cap_w=150", "-o", "c4"}),
      {"sweep", "sweep.yaml", "-o", "sw", "-j", "2"},
  };
  for (const auto& args : commands) {
    const CliResult r = run_trainsim_on_terminal(dir, args, 80);
    INFO(args[0] << " " << args[1]);
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    // A sweep's progress line has the points' rate.
    if (args[0] == "sweep") CHECK(r.out.find(" points/s") != std::string::npos);
    // What the terminal shows: lines end at '\n'; a progress bar redraws after '\r', and its
    // escape sequences (erase line) take no columns.
    const std::regex escape("\x1b\\[[0-9;?]*[A-Za-z]");
    const std::string shown = std::regex_replace(r.out, escape, "");
    std::size_t longest = 0;
    std::string widest;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= shown.size(); ++i)
      if (i == shown.size() || shown[i] == '\n' || shown[i] == '\r') {
        if (i - start > longest) longest = i - start, widest = shown.substr(start, i - start);
        start = i + 1;
      }
    INFO(widest);
    CHECK(longest <= 80);
  }
}

TEST_CASE("Shape-only and numerics-only reports agree with their records", "[report]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("report-shape-train");
  {
    const auto [r, html, epochs, stats, f] =
        run_reported({"run", kExperiments + "adagp_zoo.yaml"}, dir + "/z");
    CHECK(f.at("train_seconds") == stats["totals"]["train"]["seconds"].get<double>());
    CHECK(f.at("train_cycles") == stats["totals"]["train"]["elapsed_cycles"].get<double>());
    CHECK(f.at("train_energy") == stats["totals"]["train"]["energy"]["total"].get<double>());
    CHECK(close(sum_column(epochs, "seconds"), f.at("train_seconds")));
    CHECK(close(sum_column(epochs, "energy"), f.at("train_energy")));
    CHECK(final_line(r.out).find("final: " + readable_seconds(f.at("train_seconds")) +
                                 " of training, " + readable_energy(f.at("train_energy"), "pJ")) ==
          0);
    CHECK(f.count("test_accuracy") == 0);  // nothing trained
    CHECK(html.find(">Technique: adagp-max") != std::string::npos);
  }
  {
    const auto [r, html, epochs, stats, f] = run_reported(
        {"train", kQuickstart, "-s", "dataset.train_limit=600", "-s", "dataset.test_limit=100"},
        dir + "/t");
    CHECK(f.at("test_accuracy") == stats["final"]["test_accuracy"].get<double>());
    check_accuracy_printed(final_line(r.out), f.at("test_accuracy"));
    CHECK(f.count("train_seconds") == 0);  // nothing simulated
  }
}

TEST_CASE(
    "Every layer and role moves at least its compulsory DRAM traffic, and the report says how much "
    "more",
    "[report][bound]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("report-compulsory");
  for (const char* df : {"ws", "os", "is", "rs"})
    for (const char* memory : {"tiled", "scalesim"}) {
      INFO(df << " " << memory);
      const std::string out = dir + "/" + df + "-" + memory;
      const auto r = run_trainsim(
          {"run", kExperiments + "lenet5_mnist.yaml", "-o", out, "-q", "-s",
           std::string("dataflow=") + df, "-s", std::string("accelerator.memory=") + memory, "-s",
           "training.epochs=1", "-s", "dataset.train_limit=200", "-s", "dataset.test_limit=100"});
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      const json stats = json::parse(read_file(out + "/stats.json"));
      int ops = 0;
      for (const json& layer : stats["layers"])
        for (const char* phase : {"train", "eval"}) {
          if (!layer.contains(phase)) continue;
          for (const auto& [role, v] : layer[phase].items()) {
            const json& s = v["stats"];
            INFO(layer["name"].get<std::string>() << " " << phase << " " << role);
            const auto least = s["compulsory_dram_bytes"].get<std::int64_t>();
            // What the op moved, or found on chip, or did not write back: every stored word.
            CHECK(s["dram_bytes"].get<std::int64_t>() + s["onchip_read_bytes"].get<std::int64_t>() +
                      s["skipped_write_bytes"].get<std::int64_t>() >=
                  least);
            if (s["macs"].get<std::int64_t>() > 0) CHECK(least > 0);
            ++ops;
          }
        }
      CHECK(ops > 20);
      const std::string html = read_file(out + "/report.html");
      CHECK(html.find(">DRAM against the compulsory minimum</h2>") != std::string::npos);
      const double dram = stats["totals"]["train"]["stats"]["dram_bytes"].get<double>();
      const double least = stats["totals"]["train"]["stats"]["compulsory_dram_bytes"].get<double>();
      CHECK(html.find(sformat("%.3gx</td>", dram / least)) != std::string::npos);
      CHECK(sum_column(read_file(out + "/layers.csv"), "compulsory_dram_bytes") ==
            least + stats["totals"]["eval"]["stats"]["compulsory_dram_bytes"].get<double>());
    }
}
