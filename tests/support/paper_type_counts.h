#pragma once
// How many ops of each of the Hype-training paper's op types one training step of a network
// issues (sim/hype/op_types.h), checking on the way that every op's type read off the op
// alone is the one its slot gives.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "sim/hype/op_types.h"
#include "sim/workload/lowering.h"

namespace trainsim::test {

inline std::map<std::string, int> paper_type_counts(const NetShape& net, const OptimizerSpec& opt) {
  std::map<std::string, int> counts;
  const auto ops = lower_network(net, 8, 32, opt);
  for (const auto& events : {forward_events(net), backward_events(net), update_events(net)})
    for (const StepEvent& e : events) {
      const auto& op = slot_op(ops[e.layer], e.slot);
      if (!op) continue;
      const PaperOpType by_slot = paper_op_type(*op, net.layer_spec(e.layer).type, e.slot);
      // Read off the op alone, the type is the same.
      CHECK(paper_op_type(*op, net) == by_slot);
      ++counts[paper_op_type_name(by_slot)];
    }
  return counts;
}

}  // namespace trainsim::test
