// The report's reading of a Chrome trace (sim/report/html/trace_events.h): the tracks in the
// order the trace names them and its complete events, whatever else the trace holds (nested
// objects and arrays, other event kinds, values of other types), in both layouts (an object
// with traceEvents, or a bare array); text that is not JSON or holds no events says so, and a
// field of the wrong type is an error naming the file.
#include <catch2/catch.hpp>

#include "sim/core/error.h"
#include "sim/report/html/trace_events.h"

using namespace trainsim;

namespace {

const char* const kEvents =
    R"([{"name":"thread_name","ph":"M","pid":0,"tid":3,"args":{"name":"PE array"}},)"
    R"({"name":"conv fw","cat":"fw","ph":"X","ts":0.0,"dur":1.5,"pid":0,"tid":3,)"
    R"("args":{"layer":1,"deep":[{"ph":"X","ts":1,"dur":1}],"name":"not a track"}},)"
    R"(7,"text",[1,2],{"ph":"B","ts":1,"dur":1},{"ph":"X","ts":"late","dur":1},)"
    R"({"name":"dram","cat":"dram","ph":"X","ts":2,"dur":3,"tid":9,"extra":{"ph":"M"}},)"
    R"({"ph":"M","name":"thread_name","pid":0,"tid":9,"args":{"name":"DRAM"}}])";

void check_slices(const TraceSlices& t) {
  CHECK(t.json);
  CHECK(t.events);
  CHECK(t.tracks == std::vector<std::string>{"PE array", "DRAM"});
  REQUIRE(t.slices.size() == 2);
  CHECK(t.slices[0].label == "conv fw");
  CHECK(t.slices[0].category == "fw");
  CHECK(t.slices[0].track == 0);
  CHECK(t.slices[0].duration_us == 1.5);
  CHECK(t.slices[1].label == "dram");
  CHECK(t.slices[1].track == 1);
  CHECK(t.slices[1].start_us == 2);
}

}  // namespace

TEST_CASE("A trace's tracks and complete events, in both layouts", "[report][trace]") {
  check_slices(read_trace_slices(std::string(R"({"other":{"traceEvents":5},"traceEvents":)") +
                                     kEvents + R"(,"displayTimeUnit":"ns"})",
                                 "t.json"));
  check_slices(read_trace_slices(kEvents, "t.json"));
  // An event's track is named by its first event when no thread_name names it.
  const TraceSlices unnamed =
      read_trace_slices(R"([{"ph":"X","ts":0,"dur":1,"pid":1,"tid":4.0}])", "t.json");
  CHECK(unnamed.tracks == std::vector<std::string>{"track 4"});
}

TEST_CASE("A trace that is not JSON or holds no events says so", "[report][trace]") {
  CHECK_FALSE(read_trace_slices("{\"traceEvents\": [", "t.json").json);
  CHECK_FALSE(read_trace_slices("[] trailing", "t.json").json);
  const TraceSlices none = read_trace_slices(R"({"traceEvents": {"a": 1}})", "t.json");
  CHECK(none.json);
  CHECK_FALSE(none.events);
  CHECK_FALSE(read_trace_slices(R"({"events": []})", "t.json").events);
  CHECK_FALSE(read_trace_slices("42", "t.json").events);
  CHECK(read_trace_slices("[]", "t.json").events);
}

TEST_CASE("A trace field of the wrong type is an error naming the file", "[report][trace]") {
  CHECK_THROWS_AS(read_trace_slices(R"([{"ph":1}])", "t.json"), UserError);
  CHECK_THROWS_AS(read_trace_slices(R"([{"ph":"X","ts":0,"dur":1,"pid":"a"}])", "t.json"),
                  UserError);
  CHECK_THROWS_AS(read_trace_slices(R"([{"ph":"X","ts":0,"dur":1,"name":[1]}])", "t.json"),
                  UserError);
  CHECK_THROWS_AS(read_trace_slices(R"([{"ph":"M","name":"thread_name","args":3}])", "t.json"),
                  UserError);
  try {
    read_trace_slices(R"([{"ph":"X","ts":0,"dur":1},{"ph":"X","ts":0,"dur":1,"cat":2}])",
                      "dir/t.json");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) == "dir/t.json: trace event 2: cat is not a string");
  }
  // Fields the report does not read may hold anything.
  CHECK_NOTHROW(read_trace_slices(R"([{"ph":"B","pid":"x","name":5}])", "t.json"));
}
