// Techniques declare the op roles of their own work (TechniqueInfo::roles); the registry
// numbers them after the core roles, and shared code (names, convolution lowering, pipeline
// tasks) learns everything about them from the declaration.
#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>
#include <string>

#include "models/platform/task_graph.h"
#include "sim/pipeline/stage_costs.h"
#include "sim/techniques/adagp_schedule.h"
#include "sim/techniques/technique.h"
#include "sim/techniques/training_technique.h"
#include "sim/workload/op.h"

namespace trainsim {

TEST_CASE("Technique roles are numbered after the core roles, in registry order",
          "[techniques][roles]") {
  techniques();  // builds the registry, which registers the roles
  // The order of the registry: speculative backprop's two, then ADA-GP's three, which its
  // three designs share. Reports list per-role sums in this order.
  const char* expected[] = {"fw",      "bwd-data", "bwd-weight", "update",  "act-grad",
                            "compare", "store",    "pred-fw",    "pred-bw", "pred-update"};
  REQUIRE(num_roles() == 10);
  for (int i = 0; i < num_roles(); ++i) {
    INFO(i);
    CHECK(std::string(role_name(static_cast<OpRole>(i))) == expected[i]);
    OpRole parsed;
    REQUIRE(parse_role(expected[i], parsed));
    CHECK(parsed == static_cast<OpRole>(i));
  }
  CHECK(std::string(role_name(static_cast<OpRole>(kNumRoles - 1))) == "?");
  // Every declared role is found by name, and only technique roles have a declaration.
  std::set<std::string> declared;
  for (const TechniqueInfo& t : techniques())
    for (const TechniqueRole& r : t.roles) {
      declared.insert(r.name);
      const OpRole id = technique_role(r.name);
      CHECK(static_cast<int>(id) >= kNumCoreRoles);
      REQUIRE(technique_role_info(id) != nullptr);
      CHECK(std::string(technique_role_info(id)->name) == r.name);
    }
  CHECK(declared.size() == 5);
  CHECK(technique_role_info(OpRole::kForward) == nullptr);
  CHECK_THROWS_AS(technique_role("no-such-role"), std::logic_error);
}

TEST_CASE("A role registered again keeps its id, and another pass for it is a program error",
          "[techniques][roles]") {
  techniques();
  const OpRole pred_bw = technique_role("pred-bw");
  CHECK(register_role("pred-bw", OpRole::kBackwardWeight) == pred_bw);
  CHECK(num_roles() == 10);
  CHECK_THROWS_AS(register_role("pred-bw", OpRole::kForward), std::logic_error);
}

TEST_CASE("A technique role's convolution lowers to the pass it declares", "[techniques][roles]") {
  ConvShape c;
  c.batch = 2, c.channels = 3, c.height = c.width = 8, c.filters = 4;
  c.kernel_h = c.kernel_w = 3, c.pad = 1;
  // The predictor's training computes its conv's weight gradient: K = batch x output pixels.
  const Op train = Op::make_conv(c, technique_role("pred-bw"));
  CHECK(conv_pass(train.role) == OpRole::kBackwardWeight);
  CHECK(lower_to_gemm(train).k == lower_to_gemm(Op::make_conv(c, OpRole::kBackwardWeight)).k);
  const Op predict = Op::make_conv(c, technique_role("pred-fw"));
  CHECK(lower_to_gemm(predict).m == lower_to_gemm(Op::make_conv(c, OpRole::kForward)).m);
}

TEST_CASE("On a pipeline, a technique role goes to the pass it declares per kind of batch",
          "[techniques][roles][pipeline]") {
  const int forward = static_cast<int>(Pass::kForward), update = static_cast<int>(Pass::kUpdate);
  // ADA-GP predicts during Phase GP's forward pass and learns after Phase BP's backward.
  CHECK(pass_of_role(technique_role("pred-fw"), AdagpSchedule::kPhaseGp) == forward);
  CHECK(pass_of_role(technique_role("pred-fw"), AdagpSchedule::kPhaseBp) == update);
  CHECK(pass_of_role(technique_role("pred-bw"), AdagpSchedule::kPhaseBp) == update);
  CHECK(pass_of_role(technique_role("pred-update"), AdagpSchedule::kPhaseGp) == update);
  // Speculative backprop's per-sample work has no pipeline task.
  CHECK(pass_of_role(technique_role("compare"), kBaseBatchKind) == -1);
  CHECK(pass_of_role(technique_role("store"), kBaseBatchKind) == -1);
  CHECK(pass_of_role(OpRole::kActivationGrad, kBaseBatchKind) ==
        static_cast<int>(Pass::kBackwardData));
}

TEST_CASE("No technique declares more phases than its counts hold", "[techniques]") {
  for (const TechniqueInfo& t : techniques()) {
    INFO(t.name);
    CHECK(t.phases.size() <= static_cast<std::size_t>(kMaxTechniquePhases));
  }
}

}  // namespace trainsim
