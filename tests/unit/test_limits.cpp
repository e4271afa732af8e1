// Times and counts the model forms from user-given figures cannot wrap: the float keys'
// ranges, the checked conversions of sim/core/checked_span.h and models/sim_time.h, and the
// whole-run counters' overflow turned into an error naming training.epochs
// (sim/train/run_limits.h). Each failure is a one-line UserError naming the key and the limit.
#include <catch2/catch.hpp>

#include <limits>
#include <string>

#include "models/platform/interconnect.h"
#include "models/sim_time.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/fast_context.h"
#include "sim/core/checked_span.h"
#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "sim/run/experiment_file.h"
#include "sim/spec/op_stats.h"
#include "sim/sweep/sweep_spec.h"
#include "sim/train/run_limits.h"
#include "tests/support/config_errors.h"
#include "tests/support/spec_values.h"

using namespace trainsim;
using test::error_of;
using trainsim::test::link_between;

TEST_CASE("A span past 2^62 is an error naming the key, not a wrapped integer", "[limits]") {
  const SpanBlame blame{"x.bandwidth_gbps", 1e-12, "a transfer", "ps", "x.clock_ghz", 2};
  CHECK(checked_ceil(2.5, blame) == 3);
  CHECK(checked_round(2.5, blame) == 3);
  CHECK(checked_ceil(4.0e18, blame) == 4000000000000000000);
  for (double bad : {4.7e18, 1e27, -1.0, std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN()}) {
    INFO(bad);
    const std::string msg = error_of([&] { checked_ceil(bad, blame); });
    CHECK(msg.rfind("x.bandwidth_gbps: at 1e-12 (x.clock_ghz 2) a transfer would take ", 0) == 0);
    CHECK(msg.find("more than one may take (2^62 = 4.61169e+18)") != std::string::npos);
  }
  CHECK(add_span(std::int64_t{1} << 61, std::int64_t{1} << 60, blame) ==
        3 * (std::int64_t{1} << 60));
  CHECK_THROWS_AS(add_span(std::int64_t{1} << 61, std::int64_t{1} << 61, blame), UserError);
}

TEST_CASE("A DRAM transfer's cycles are checked against the bandwidth and clock", "[limits]") {
  AcceleratorSpec a = load_accelerator("small_8x8");
  a.dram.bandwidth_gbps = 1e-3;  // the least the key takes
  a.clock_ghz = 100;             // the most
  // 1e-5 bytes per cycle: a megabyte is 1e11 cycles, a petabyte past 2^62.
  CHECK(dram_occupancy(1'000'000, a) == 100'000'000'000);
  const std::string msg = error_of([&] { dram_occupancy(std::int64_t{1} << 50, a); });
  CHECK(msg.rfind("accelerator.dram.bandwidth_gbps: at 0.001 (accelerator.clock_ghz 100) the DRAM "
                  "transfers of an op would take 1.1259e+20 cycles",
                  0) == 0);
}

TEST_CASE("A link's transfer time is checked and names the link's key", "[limits][platform]") {
  CHECK(serialise_ps(1000, 1) == 1'000'000);
  // 2^50 bytes at 1 MB/s: 1.1e21 ps. An unchecked conversion made this negative: free.
  CHECK_THROWS_WITH(serialise_ps(std::int64_t{1} << 50, 1e-3),
                    Catch::StartsWith("system.link.bandwidth_gbps: at 0.001 a transfer over the "
                                      "link would take 1.1259e+21 ps"));
  // topology: custom names the entry of system.links.
  InterconnectSpec s;
  s.devices = 3;
  s.links = {link_between(0, 1), link_between(1, 2)};
  s.links[1].bandwidth_gbps = 1e-3;
  s.links[1].key = "system.links.1";
  const Interconnect net(s);
  CHECK(net.transfer_ps(0, 1, 1000) == 515'625);  // 64 GB/s and 500 ns, the defaults
  CHECK_THROWS_WITH(net.transfer_ps(0, 2, std::int64_t{1} << 50),
                    Catch::StartsWith("system.links.1.bandwidth_gbps: at 0.001 "));
}

TEST_CASE("Simulated time stops at 2^63 ps with an error naming the clock", "[limits][models]") {
  const sc_core::sc_time period(1e6, sc_core::SC_PS);  // 1 MHz: accelerator.clock_ghz 0.001
  CHECK(after_cycles(sc_core::SC_ZERO_TIME, 1e12, period) ==
        sc_core::sc_time(1e18, sc_core::SC_PS));
  CHECK_THROWS_WITH(
      after_cycles(sc_core::SC_ZERO_TIME, 1e13, period),
      Catch::StartsWith("accelerator.clock_ghz: at 0.001 GHz (a 1e+06 ps period) the simulated "
                        "time would pass 2^63 ps (106.8 days, 9.22e+12 cycles)"));
  CHECK_THROWS_WITH(after_ps(sc_core::sc_time(9e18, sc_core::SC_PS), 3e17),
                    Catch::StartsWith("system: the simulated time would pass 2^63 ps"));
}

TEST_CASE("Counters past their range name training.epochs and how many fit", "[limits][counters]") {
  OpStats s;
  s.macs = ~Count{0} - 5;
  OpStats one;
  one.macs = 10;
  try {
    s += one;
    FAIL("expected a CounterOverflow");
  } catch (const CounterOverflow& o) {
    CHECK(o.counter() == "MACs");
    CHECK(o.limit() == "2^64");
  }
  OpStats slow;
  slow.compute_cycles = std::int64_t{1} << 62;
  slow.stall_cycles = std::int64_t{1} << 62;
  CHECK_THROWS_AS(slow.cycles(), CounterOverflow);

  const ExperimentSpec spec =
      load_experiment(configs_root() + "/experiments/adagp_zoo.yaml",
                      {"network=vgg19_imagenet", "dataset.name=imagenet", "training.epochs=500"});
  const CounterOverflow macs("MACs", "2^64");
  CHECK(error_of([&] {
          run_exceeds_counters(macs, spec, {245, 1281167, false});
        }) ==
        "training.epochs: 500 epochs of network 'vgg19_imagenet' on imagenet count more MACs than "
        "the counters hold (2^64): the sum passes it in epoch 245, so at most 244 epochs fit");
  CHECK(error_of([&] {
          run_exceeds_counters(macs, spec, {1, 1281167, true});
        }) ==
        "technique.predictor: one epoch of network 'vgg19_imagenet' on imagenet (1281167 "
        "training samples) would count more MACs than the counters hold (2^64): a smaller "
        "predictor (size 4, channels 1), or fewer samples (dataset.train_limit)");
  const std::string cycles = error_of([&] {
    run_exceeds_counters(CounterOverflow("cycles", "2^63"), spec, {1, 10, false});
  });
  CHECK(cycles.rfind("dataset.train_limit: one epoch of network 'vgg19_imagenet' on imagenet (10 "
                     "training samples) would take more cycles than the counters hold (2^63)",
                     0) == 0);
  CHECK(cycles.find("accelerator.dram.bandwidth_gbps 25.6 at accelerator.clock_ghz 1") !=
        std::string::npos);
}

TEST_CASE("Sweep values are compared as numbers", "[limits][sweep]") {
  for (const char* same : {"108.0", "1.08e2", "+108", "0108", "108"})
    CHECK(canonical_value(same) == "108");
  CHECK(canonical_value("-0") == "0");
  CHECK(canonical_value("0.5") == canonical_value("5e-1"));
  CHECK(canonical_value("0.1") == "0.1");
  CHECK(canonical_value("18446744073709551617") == "18446744073709551617");  // exact, any length
  CHECK(canonical_value("18446744073709551616") != canonical_value("18446744073709551617"));
  for (const char* text : {"ws", "1e", "-", "inf", "nan", "0x10", "{rows: 8}", "8 8", ""})
    CHECK(canonical_value(text) == text);
  CHECK(same_value("54", "54.0"));
  CHECK_FALSE(same_value("54", "54.5"));
  CHECK_FALSE(same_value("ws", "os"));
}
