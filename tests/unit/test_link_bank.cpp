// The links every multi-device engine sends through (models/platform/links.h), driven by a
// SystemC process of the test: one transfer at a time per direction at the link's bandwidth,
// arrival after its latency, foreground before background, promotion, and stop() dropping
// staging nobody asked for.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <systemc>

#include "models/platform/links.h"
#include "models/sc_kernel.h"
#include "tests/support/spec_values.h"

using namespace trainsim;

namespace {

// 1 GB/s (a byte per ns) and 100 ns latency between device 0 and device 1.
InterconnectSpec pair_spec() {
  InterconnectSpec s;
  s.devices = 2;
  s.links = {test::link_between(0, 1, 1, 100, 2)};
  return s;
}

struct Arrival {
  int channel = 0;
  std::int64_t at_ps = 0, bytes = 0;
};

// Runs `script` in a process at the start of a fresh run; returns each tag's arrival.
template <typename Script>
std::map<std::int64_t, Arrival> run_links(const Interconnect& net, Script script,
                                          std::vector<TransferRecord>* records = nullptr) {
  prepare_kernel();
  ProcessGuard guard([] {});
  std::map<std::int64_t, Arrival> got;
  std::unique_ptr<LinkBank> links;
  links = std::make_unique<LinkBank>(net, sc_core::sc_time_stamp(), guard,
                                     [&](int c, std::int64_t tag, std::int64_t bytes) {
                                       got[tag] = {c, links->now_ps(), bytes};
                                     });
  sc_core::sc_spawn([&] {
    guard.run([&] {
      script(*links);
      links->stop();
    });
  });
  run_kernel();
  guard.rethrow();
  if (records) *records = links->records();
  return got;
}

}  // namespace

TEST_CASE("Links: one transfer at a time per direction, delivered after the latency",
          "[platform][links]") {
  const Interconnect net(pair_spec());
  std::vector<TransferRecord> records;
  const auto got = run_links(
      net,
      [](LinkBank& l) {
        l.send(0, 1000, 1);  // dev0 -> dev1
        l.send(0, 500, 2);   // behind it
        l.send(1, 1000, 3);  // the other direction, at the same time
      },
      &records);
  REQUIRE(got.size() == 3);
  CHECK(got.at(1).at_ps == 1'000'000 + 100'000);
  CHECK(got.at(2).at_ps == 1'500'000 + 100'000);
  CHECK(got.at(3).at_ps == 1'000'000 + 100'000);  // full duplex: no wait
  CHECK(got.at(3).channel == 1);
  CHECK(got.at(2).bytes == 500);
  REQUIRE(records.size() == 3);
  for (const TransferRecord& r : records) CHECK(r.arrive_ps == r.end_ps + 100'000);
}

TEST_CASE("Links: foreground before background, promotion, and stop drops staging",
          "[platform][links]") {
  const Interconnect net(pair_spec());
  // Background 1 and 2 queued first, then foreground 3: 3 goes first; then 2 is promoted
  // while 1 waits, so 2 goes before 1.
  const auto got = run_links(net, [](LinkBank& l) {
    l.send(0, 1000, 1, true);
    l.send(0, 1000, 2, true);
    l.send(0, 1000, 3);
    l.promote(0, 2);
    // Keep the run going until all three are through, then queue staging nobody needs.
    sc_core::wait(sc_core::sc_time(3'200'000, sc_core::SC_PS));
    l.send(0, 1000, 4, true);
    l.send(0, 1000, 5, true);
  });
  CHECK(got.at(3).at_ps == 1'100'000);
  CHECK(got.at(2).at_ps == 2'100'000);
  CHECK(got.at(1).at_ps == 3'100'000);
  // At stop() the sender had not yet taken 4 and 5 (they were queued in the same instant):
  // neither is sent.
  CHECK(got.count(4) == 0);
  CHECK(got.count(5) == 0);
}

TEST_CASE("Links: counts and energy per direction", "[platform][links]") {
  const Interconnect net(pair_spec());
  prepare_kernel();
  ProcessGuard guard([] {});
  LinkBank links(net, sc_core::sc_time_stamp(), guard, [](int, std::int64_t, std::int64_t) {});
  sc_core::sc_spawn([&] {
    links.send(0, 1000, 0);
    links.send(0, 250, 1);
    links.stop();
  });
  run_kernel();
  CHECK(links.stats()[0].transfers == 2);
  CHECK(links.stats()[0].bytes == 1250);
  CHECK(links.stats()[0].busy_ps == 1'250'000);
  CHECK(links.stats()[0].energy_pj == Approx(1250 * 8 * 2.0));
  CHECK(links.stats()[1].transfers == 0);
}
