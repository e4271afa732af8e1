// Chakra execution traces (`trainsim run --chakra DIR`) of a 4-device pipeline: every file
// parses against Chakra's schema (schema/protobuf/et_def.proto: field numbers and wire types
// checked by a reader of our own, independent of the protobuf library trainsim writes them
// with), reads back through trainsim's reader (sim/interop/chakra_trace.h) to the same nodes,
// and the node counts equal the run's: one compute node per pipeline task, one send and one
// receive per transfer between devices. Traces with an unknown schema version or a missing
// field are refused.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "et_def.pb.h"
#include "sim/core/error.h"
#include "sim/interop/chakra_trace.h"

#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

struct Reader {
  const std::string& data;
  std::size_t pos = 0;
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      REQUIRE(pos < data.size());
      const auto b = static_cast<unsigned char>(data[pos++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    FAIL("varint longer than 10 bytes");
    return 0;
  }
  std::string bytes() {
    const std::uint64_t n = varint();
    REQUIRE(pos + n <= data.size());
    const std::string s = data.substr(pos, n);
    pos += n;
    return s;
  }
};

// et_def.proto's wire types: field number -> wire type (0 varint, 1 fixed64, 2 length, 5
// fixed32). Anything else in a message is a schema violation.
const std::map<int, int> kNodeFields = {{1, 0}, {2, 2}, {3, 0}, {4, 2},  {5, 2}, {6, 0},
                                        {7, 0}, {8, 2}, {9, 2}, {10, 2}, {11, 2}};
const std::map<int, int> kMetadataFields = {{1, 2}, {2, 2}};
std::map<int, int> attr_fields() {
  std::map<int, int> f = {{1, 2}, {2, 2}, {3, 1}, {5, 5}, {19, 5}, {21, 1}, {23, 5}, {25, 1}};
  for (int varints : {7, 9, 11, 13, 15, 17, 27}) f[varints] = 0;
  for (int lists : {4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 29, 30, 31, 32}) f[lists] = 2;
  return f;
}

struct Field {
  int number, wire;
  std::uint64_t value;
  std::string bytes;
};

std::vector<Field> parse(const std::string& msg, const std::map<int, int>& schema) {
  Reader r{msg};
  std::vector<Field> out;
  while (r.pos < msg.size()) {
    const std::uint64_t key = r.varint();
    Field f{static_cast<int>(key >> 3), static_cast<int>(key & 7), 0, ""};
    INFO("field " << f.number << " wire " << f.wire);
    REQUIRE(schema.count(f.number) == 1);
    REQUIRE(schema.at(f.number) == f.wire);
    if (f.wire == 0) f.value = r.varint();
    if (f.wire == 2) f.bytes = r.bytes();
    if (f.wire == 1 || f.wire == 5) r.pos += f.wire == 1 ? 8 : 4;
    out.push_back(f);
  }
  return out;
}

struct NodeIn {
  std::uint64_t id = 0, type = 0;
  std::vector<std::uint64_t> deps, ctrl;
  std::map<std::string, std::uint64_t> attrs;
};

}  // namespace

TEST_CASE("Chakra traces of a pipeline run parse against the schema, node for task",
          "[chakra][pipeline]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("chakra");
  write_file(dir + "/exp.yaml",
             "name: pipe\nnetwork: lenet5\nnumerics: none\n"
             "dataset: {name: fashion-mnist, train_limit: 640, test_limit: 100}\n"
             "training: {epochs: 1, batch_size: 64}\naccelerator: adagp_ws180\n"
             "system: four_ws180_chain\npipeline: {schedule: 1f1b, micro_batches: 4}\n");
  // The traces are a results directory of their own: never inside the run's (a --force of
  // either would replace the other's files).
  const auto inside = run_trainsim(
      {"run", dir + "/exp.yaml", "--out", dir + "/out", "--quiet", "--chakra", dir + "/out/et"});
  CHECK(inside.exit_code == 2);
  CHECK_THAT(inside.err, Catch::Contains("lie one inside the other"));
  CHECK_FALSE(std::filesystem::exists(dir + "/out"));
  const auto r = run_trainsim(
      {"run", dir + "/exp.yaml", "--out", dir + "/out", "--quiet", "--chakra", dir + "/et"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // The run's own account of the same stretch: tasks and transfers per device.
  CHECK(nlohmann::json::parse(read_file(dir + "/out/stats.json"))["kind"] == "system");
  const auto trace = nlohmann::json::parse(read_file(dir + "/out/timeline.json"));
  std::map<int, int> tasks, transfers_out;
  std::map<int, std::string> names;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "M") names[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const int tid = e["tid"].get<int>();
    if (e["cat"] == "transfer")
      ++transfers_out[std::stoi(names[tid].substr(3))];  // "devA->devB": A is the sender
    else
      ++tasks[tid];
  }
  int total_send = 0, total_recv = 0;
  const auto attrs = attr_fields();
  for (int d = 0; d < 4; ++d) {
    INFO("device " << d);
    const std::string data = read_file(dir + "/et/pipe." + std::to_string(d) + ".et");
    Reader stream{data};
    std::vector<std::string> messages;
    while (stream.pos < data.size()) messages.push_back(stream.bytes());
    REQUIRE(messages.size() > 1);
    const auto meta = parse(messages[0], kMetadataFields);
    REQUIRE(!meta.empty());
    CHECK(meta[0].number == 1);  // version
    std::map<std::uint64_t, NodeIn> nodes;
    std::map<std::uint64_t, int> by_type;
    for (std::size_t m = 1; m < messages.size(); ++m) {
      NodeIn n;
      for (const Field& f : parse(messages[m], kNodeFields)) {
        if (f.number == 1) n.id = f.value;
        if (f.number == 3) n.type = f.value;
        if (f.number == 4 || f.number == 5) {
          Reader packed{f.bytes};
          auto& into = f.number == 4 ? n.ctrl : n.deps;
          while (packed.pos < f.bytes.size()) into.push_back(packed.varint());
        }
        if (f.number == 10) {
          std::string name;
          std::uint64_t value = 0;
          for (const Field& a : parse(f.bytes, attrs)) {
            if (a.number == 1) name = a.bytes;
            if (a.wire == 0) value = a.value;
          }
          n.attrs[name] = value;
        }
      }
      CHECK(n.type >= 2);
      CHECK(n.type <= 6);
      for (std::uint64_t dep : n.deps) CHECK(nodes.count(dep) == 1);  // earlier nodes only
      for (std::uint64_t dep : n.ctrl) CHECK(nodes.count(dep) == 1);
      CHECK(nodes.count(n.id) == 0);
      if (n.type == 5 || n.type == 6) {
        CHECK(n.attrs.count("comm_src") == 1);
        CHECK(n.attrs.count("comm_dst") == 1);
        CHECK(n.attrs.count("comm_size") == 1);
        CHECK(n.attrs.count("comm_tag") == 1);
      }
      if (n.type == 4) CHECK(n.attrs.count("num_ops") == 1);
      ++by_type[n.type];
      nodes[n.id] = n;
    }
    // The library reader gives the same nodes, in the same order.
    const ChakraTrace read = read_chakra_trace(dir + "/et/pipe." + std::to_string(d) + ".et");
    CHECK(read.version == "0.0.4");
    REQUIRE(read.nodes.size() == messages.size() - 1);
    const std::map<std::uint64_t, std::string> type_names = {{2, "MEM_LOAD_NODE"},
                                                             {3, "MEM_STORE_NODE"},
                                                             {4, "COMP_NODE"},
                                                             {5, "COMM_SEND_NODE"},
                                                             {6, "COMM_RECV_NODE"}};
    for (const ChakraNodeRecord& r : read.nodes) {
      INFO("node " << r.id << " " << r.name);
      REQUIRE(nodes.count(r.id) == 1);
      const NodeIn& n = nodes.at(r.id);
      CHECK(r.type == type_names.at(n.type));
      CHECK(r.data_deps == n.deps);
      CHECK(r.ctrl_deps == n.ctrl);
      CHECK(r.ints.size() == n.attrs.size());
      for (const auto& [name, value] : n.attrs)
        CHECK(static_cast<std::uint64_t>(r.ints.at(name)) == value);
    }
    CHECK(by_type[4] == tasks[d]);          // a compute node per task
    CHECK(by_type[5] == transfers_out[d]);  // a send per transfer leaving the device (one hop)
    CHECK(by_type[2] + by_type[3] > 0);     // DRAM traffic as memory nodes
    total_send += by_type[5];
    total_recv += by_type[6];
  }
  CHECK(total_send == total_recv);
  CHECK(total_send > 0);
}

TEST_CASE("Chakra traces of a GPU stage carry its work", "[chakra][pipeline][devices]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("chakra-gpu");
  write_file(dir + "/exp.yaml",
             "name: pipe\nnetwork: lenet5\nnumerics: none\n"
             "dataset: {name: fashion-mnist, train_limit: 640, test_limit: 100}\n"
             "training: {epochs: 1, batch_size: 64}\naccelerator: adagp_ws180\n"
             "system: ws180_v100_chain\npipeline: {micro_batches: 4}\n");
  const auto r = run_trainsim(
      {"run", dir + "/exp.yaml", "--out", dir + "/out", "--quiet", "--chakra", dir + "/et"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // The V100 (device 1) prices its ops itself: its compute nodes still count their operations
  // and its memory traffic still appears as memory nodes.
  const std::string data = read_file(dir + "/et/pipe.1.et");
  Reader stream{data};
  std::vector<std::string> messages;
  while (stream.pos < data.size()) messages.push_back(stream.bytes());
  REQUIRE(messages.size() > 1);
  const auto attrs = attr_fields();
  int memory = 0, compute_with_ops = 0;
  for (std::size_t m = 1; m < messages.size(); ++m) {
    std::uint64_t type = 0, ops = 0;
    for (const Field& f : parse(messages[m], kNodeFields)) {
      if (f.number == 3) type = f.value;
      if (f.number == 10) {
        std::string name;
        std::uint64_t value = 0;
        for (const Field& a : parse(f.bytes, attrs)) {
          if (a.number == 1) name = a.bytes;
          if (a.wire == 0) value = a.value;
        }
        if (name == "num_ops") ops = value;
      }
    }
    if (type == 2 || type == 3) ++memory;
    if (type == 4 && ops > 0) ++compute_with_ops;
  }
  CHECK(memory > 0);
  CHECK(compute_with_ops > 0);
}

TEST_CASE("Chakra traces with an unknown schema version or a missing field are refused",
          "[chakra]") {
  const std::string dir = fresh_dir("chakra_bad");
  using ChakraProtoMsg::Node;
  auto node = [](std::uint64_t id, const std::string& name, ChakraProtoMsg::NodeType type,
                 std::vector<std::uint64_t> deps = {}) {
    Node n;
    n.set_id(id);
    n.set_name(name);
    n.set_type(type);
    for (auto d : deps) n.add_data_deps(d);
    return n;
  };
  // A good one first: written and read back.
  write_chakra_trace(dir + "/good.et", {node(0, "a", ChakraProtoMsg::COMP_NODE),
                                        node(1, "b", ChakraProtoMsg::COMP_NODE, {0})});
  const ChakraTrace good = read_chakra_trace(dir + "/good.et");
  REQUIRE(good.nodes.size() == 2);
  CHECK(good.nodes[1].data_deps == std::vector<std::uint64_t>{0});
  // Another schema version, written as Chakra's tools write a file.
  {
    std::ofstream f(dir + "/version.et", std::ios::binary);
    ChakraProtoMsg::GlobalMetadata meta;
    meta.set_version("9.9.9");
    std::string bytes = meta.SerializeAsString();
    f.put(static_cast<char>(bytes.size()));
    f << bytes;
  }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"version.et", "Chakra schema version '9.9.9' is not one trainsim reads (0.0.4, 1.0.0)"},
      {"noname.et", "node 1 (id 1): missing field 'name'"},
      {"notype.et", "node 0 (id 0): missing field 'type'"},
      {"dangling.et", "node 1 (id 1): depends on node 7, which comes nowhere before it"},
      {"twice.et", "node 1 (id 0): the id is used twice"},
      {"truncated.et", "node 1 is truncated or not a Node message"},
      {"empty.et", "not a Chakra trace"},
  };
  write_chakra_trace(dir + "/noname.et", {node(0, "a", ChakraProtoMsg::COMP_NODE),
                                          node(1, "", ChakraProtoMsg::COMP_NODE)});
  write_chakra_trace(dir + "/notype.et", {node(0, "a", ChakraProtoMsg::INVALID_NODE)});
  write_chakra_trace(dir + "/dangling.et", {node(0, "a", ChakraProtoMsg::COMP_NODE),
                                            node(1, "b", ChakraProtoMsg::COMP_NODE, {7})});
  write_chakra_trace(dir + "/twice.et", {node(0, "a", ChakraProtoMsg::COMP_NODE),
                                         node(0, "b", ChakraProtoMsg::COMP_NODE)});
  const std::string whole = read_file(dir + "/good.et");
  write_file(dir + "/truncated.et", whole.substr(0, whole.size() - 2));
  write_file(dir + "/empty.et", "");
  for (const auto& [file, message] : cases) {
    INFO(file);
    CHECK_THROWS_WITH(read_chakra_trace(dir + "/" + file),
                      Catch::Contains(file) && Catch::Contains(message));
  }
}
