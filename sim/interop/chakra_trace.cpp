#include "sim/interop/chakra_trace.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <fstream>
#include <set>

#include "et_def.pb.h"
#include "sim/core/error.h"

namespace trainsim {

namespace chakra = ChakraProtoMsg;

const std::vector<std::string>& chakra_versions() {
  // 0.0.4: what trainsim and Chakra's converters of 2023-24 write; 1.0.0: Chakra's generator
  // since its versioning. The schema file is the same for both.
  static const std::vector<std::string> v = {"0.0.4", "1.0.0"};
  return v;
}

void write_chakra_trace(const std::string& path, const std::vector<chakra::Node>& nodes) {
  std::ofstream f(path, std::ios::binary);
  chakra::GlobalMetadata meta;
  meta.set_version(kChakraVersion);
  bool ok = static_cast<bool>(f) && google::protobuf::util::SerializeDelimitedToOstream(meta, &f);
  for (const chakra::Node& n : nodes)
    ok = ok && google::protobuf::util::SerializeDelimitedToOstream(n, &f);
  f.close();
  if (!ok || !f) throw UserError("cannot write the Chakra trace " + path);
}

ChakraTrace read_chakra_trace(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError(path + ": cannot open the Chakra trace");
  auto fail = [&](const std::string& why) -> void { throw UserError(path + ": " + why); };
  google::protobuf::io::IstreamInputStream raw(&f);
  bool clean_eof = false;
  chakra::GlobalMetadata meta;
  if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&meta, &raw, &clean_eof))
    fail("not a Chakra trace (no GlobalMetadata message)");
  ChakraTrace trace;
  trace.version = meta.version();
  if (trace.version.empty()) fail("the GlobalMetadata has no schema version");
  bool known = false;
  std::string list;
  for (const std::string& v : chakra_versions()) {
    known = known || v == trace.version;
    list += (list.empty() ? "" : ", ") + v;
  }
  if (!known)
    fail("Chakra schema version '" + trace.version + "' is not one trainsim reads (" + list + ")");
  std::set<std::uint64_t> seen;
  for (int index = 0;; ++index) {
    chakra::Node n;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&n, &raw, &clean_eof)) {
      if (clean_eof) break;
      fail("node " + std::to_string(index) + " is truncated or not a Node message");
    }
    const std::string where =
        "node " + std::to_string(index) + " (id " + std::to_string(n.id()) + ")";
    if (n.name().empty()) fail(where + ": missing field 'name'");
    if (n.type() == chakra::INVALID_NODE) fail(where + ": missing field 'type'");
    if (!seen.insert(n.id()).second) fail(where + ": the id is used twice");
    ChakraNodeRecord r;
    r.id = n.id();
    r.name = n.name();
    r.type = chakra::NodeType_Name(n.type());
    for (auto d : n.data_deps()) {
      if (!seen.count(d) || d == n.id())
        fail(where + ": depends on node " + std::to_string(d) + ", which comes nowhere before it");
      r.data_deps.push_back(d);
    }
    for (auto d : n.ctrl_deps()) {
      if (!seen.count(d) || d == n.id())
        fail(where + ": depends on node " + std::to_string(d) + ", which comes nowhere before it");
      r.ctrl_deps.push_back(d);
    }
    r.start_micros = n.start_time_micros();
    r.duration_micros = n.duration_micros();
    for (const chakra::AttributeProto& a : n.attr()) {
      switch (a.value_case()) {
        case chakra::AttributeProto::kInt64Val:
          r.ints[a.name()] = a.int64_val();
          break;
        case chakra::AttributeProto::kUint64Val:
          r.ints[a.name()] = static_cast<std::int64_t>(a.uint64_val());
          break;
        case chakra::AttributeProto::kInt32Val:
          r.ints[a.name()] = a.int32_val();
          break;
        case chakra::AttributeProto::kUint32Val:
          r.ints[a.name()] = a.uint32_val();
          break;
        case chakra::AttributeProto::kBoolVal:
          r.ints[a.name()] = a.bool_val() ? 1 : 0;
          break;
        case chakra::AttributeProto::kStringVal:
          r.strings[a.name()] = a.string_val();
          break;
        default:
          break;  // other kinds of attribute: not read by trainsim
      }
    }
    trace.nodes.push_back(std::move(r));
  }
  return trace;
}

}  // namespace trainsim
