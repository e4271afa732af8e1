#pragma once
// Chakra execution trace files (MLCommons Chakra, third_party/chakra/et_def.proto, compiled
// by protoc into the library): a GlobalMetadata message with the schema version, then the
// nodes, each message preceded by its length as a varint, as Chakra's own tools write and
// read them. trainsim writes them per device of a system run (sim/report/chakra_writer.h)
// and reads them back (a trace's nodes, dependencies and attributes), refusing a version it
// does not know or a node without what it needs.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ChakraProtoMsg {
class Node;
}

namespace trainsim {

/// The schema version trainsim writes, and the versions it reads.
inline constexpr const char* kChakraVersion = "0.0.4";
const std::vector<std::string>& chakra_versions();

/// Writes `nodes` to `path` after a GlobalMetadata of kChakraVersion; UserError if it cannot.
void write_chakra_trace(const std::string& path, const std::vector<ChakraProtoMsg::Node>& nodes);

struct ChakraNodeRecord {
  std::uint64_t id = 0;
  std::string name;
  std::string type;  ///< the NodeType's name in the schema: COMP_NODE, COMM_SEND_NODE, ...
  std::vector<std::uint64_t> data_deps, ctrl_deps;
  std::uint64_t start_micros = 0, duration_micros = 0;
  std::map<std::string, std::int64_t> ints;  ///< integer and bool attributes by name
  std::map<std::string, std::string> strings;
};

struct ChakraTrace {
  std::string version;
  std::vector<ChakraNodeRecord> nodes;  ///< in file order
};

/// Reads a trace; UserError, one line naming the file (and the node), for a file that is not
/// a complete trace, a schema version not in chakra_versions(), a node without a name or a
/// type, a repeated id, or a dependency on a node the file does not hold before it.
ChakraTrace read_chakra_trace(const std::string& path);

}  // namespace trainsim
