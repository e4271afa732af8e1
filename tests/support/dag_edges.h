#pragma once
// Every edge of an op graph as one list, for tests that check edge sets: the op graph stores
// each node's edges with the task graph (what a node waits for), and edges into a node are
// added when the node is, so listing them node by node gives the order they were added in.
#include <vector>

#include "sim/hype/op_dag.h"

namespace trainsim::test {

struct DagEdgeView {
  int from = 0, to = 0;
  EdgeData data = EdgeData::kNone;
  std::int64_t bytes = 0;
  TensorId tensor = kNoTensor;
};

inline std::vector<DagEdgeView> dag_edges(const OpDag& dag) {
  std::vector<DagEdgeView> all;
  for (int to = 0; to < dag.size(); ++to)
    for (const Edge& e : dag.graph().deps(to))
      all.push_back({e.from, to, e.data, e.bytes, e.tensor});
  return all;
}

}  // namespace trainsim::test
