// A schedule given as data (`pipeline.orders`), the way Zero Bubble's scheduler writes its
// schedules: per device (stage s on device s), the tasks of one batch in the order the device
// runs them, `F<m>` for micro-batch m's forward pass, `B<m>` for its backward pass and, when
// any `W` appears, `B<m>` for its input gradient and `W<m>` for its weight gradient. Every
// batch runs the same lists (a forward-only batch its `F` tasks in their listed order),
// followed by the stage's update. A list must hold each of its stage's tasks exactly once; an
// order that cannot finish (a backward before the forward it needs, a cycle between devices)
// is refused before the run (pipeline_config.cpp), naming the device and the task it waits for.
#include <set>
#include <string>
#include <utility>

#include "sim/core/error.h"
#include "sim/pipeline/schedules/schedules.h"

namespace trainsim {
namespace {

struct Token {
  Pass pass = Pass::kForward;
  int micro = 0;
};

bool has_weight_tasks(const ScheduleParams& p) {
  for (const auto& list : p.orders)
    for (const std::string& t : list)
      if (!t.empty() && t[0] == 'W') return true;
  return false;
}

// `text` at pipeline.orders[d][i] as a task; UserError naming it if it is none.
Token parse_token(const std::string& text, int d, std::size_t i, const ScheduleParams& p,
                  bool split) {
  const std::string where = "pipeline.orders[" + std::to_string(d) + "][" + std::to_string(i) + "]";
  Token t;
  const char kind = text.empty() ? '?' : text[0];
  if (kind == 'F')
    t.pass = Pass::kForward;
  else if (kind == 'B')
    t.pass = split ? Pass::kBackwardData : Pass::kBackward;
  else if (kind == 'W')
    t.pass = Pass::kBackwardWeight;
  else
    throw UserError(where + ": '" + text +
                    "' is no task (F<m>, B<m> or W<m>, m a micro-batch, e.g. F0)");
  const std::string digits = text.substr(1);
  if (digits.empty() || digits.size() > 6 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    throw UserError(where + ": '" + text + "' needs a micro-batch number after its letter (e.g. " +
                    std::string(1, kind) + "0)");
  t.micro = std::stoi(digits);
  if (t.micro >= p.micro_batches)
    throw UserError(where + ": '" + text + "' names micro-batch " + std::to_string(t.micro) +
                    ", but a batch has " + std::to_string(p.micro_batches) +
                    " (pipeline.micro_batches; they are numbered from 0)");
  return t;
}

class Custom final : public Schedule {
 public:
  std::string name() const override { return "custom"; }
  std::string description() const override {
    return "the device orders given in pipeline.orders (F<m>, B<m>, W<m> per device, one "
           "batch), as Zero Bubble's schedules are written";
  }
  bool takes_orders() const override { return true; }
  bool split_backward(const ScheduleParams& p) const override { return has_weight_tasks(p); }
  PipelineLayout layout(const ScheduleParams& p) const override {
    if (p.orders.empty())
      throw UserError("schedule custom needs pipeline.orders: one list of tasks per device");
    if (static_cast<int>(p.orders.size()) != p.devices)
      throw UserError("pipeline.orders has " + std::to_string(p.orders.size()) +
                      " lists, one per device expected (" + std::to_string(p.devices) + ")");
    const bool split = has_weight_tasks(p);
    for (int d = 0; d < p.devices; ++d) {
      // Each of the stage's tasks exactly once.
      const auto& list = p.orders[static_cast<std::size_t>(d)];
      std::set<std::pair<int, int>> seen;
      for (std::size_t i = 0; i < list.size(); ++i) {
        const Token t = parse_token(list[i], d, i, p, split);
        if (!seen.insert({static_cast<int>(t.pass), t.micro}).second)
          throw UserError("pipeline.orders[" + std::to_string(d) + "][" + std::to_string(i) +
                          "]: '" + list[i] + "' is listed twice for device " + std::to_string(d));
      }
      // Every micro-batch's F and B (and W, when backward is split).
      const std::pair<char, Pass> needed[] = {{'F', Pass::kForward},
                                              {'B', split ? Pass::kBackwardData : Pass::kBackward},
                                              {'W', Pass::kBackwardWeight}};
      for (int m = 0; m < p.micro_batches; ++m)
        for (const auto& [letter, pass] : needed) {
          if (pass == Pass::kBackwardWeight && !split) continue;
          if (!seen.count({static_cast<int>(pass), m}))
            throw UserError("pipeline.orders[" + std::to_string(d) + "]: device " +
                            std::to_string(d) + " never runs " + letter + std::to_string(m) +
                            (split ? " (with W tasks every micro-batch needs F, B and W)"
                                   : " (every micro-batch needs F and B)"));
        }
    }
    return straight_layout(p);
  }
  DeviceOrders order(const TaskGraph& g, const PlanCosts&, const ScheduleParams& p) const override {
    const bool split = has_weight_tasks(p);
    auto listed = [&](int b, int s, std::vector<int>& o, bool forward_only) {
      const auto& list = p.orders[static_cast<std::size_t>(s)];
      for (std::size_t i = 0; i < list.size(); ++i) {
        const Token t = parse_token(list[i], s, i, p, split);
        if (forward_only && t.pass != Pass::kForward) continue;
        o.push_back(g.find(t.pass, b, t.micro, s));
      }
    };
    return batch_by_batch(
        g, [&](int b, int s, std::vector<int>& o) { listed(b, s, o, false); },
        [&](int b, int s, std::vector<int>& o) { listed(b, s, o, true); });
  }
};

}  // namespace

const Schedule& custom_schedule() {
  static const Custom s;
  return s;
}

}  // namespace trainsim
