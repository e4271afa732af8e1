#include "sim/pipeline/list_scheduler.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace trainsim {

DeviceOrders list_schedule(const TaskGraph& g, const PlanCosts& c, const ListPolicy& policy) {
  const int n = static_cast<int>(g.size());
  std::vector<int> waiting(static_cast<std::size_t>(n));
  std::vector<std::int64_t> finish(static_cast<std::size_t>(n), -1);
  // Earliest time task i's inputs are all on its device.
  std::vector<std::int64_t> arrive(static_cast<std::size_t>(n), 0);
  std::vector<int> ready;
  for (int i = 0; i < n; ++i) {
    waiting[static_cast<std::size_t>(i)] = static_cast<int>(g.deps(i).size());
    if (waiting[static_cast<std::size_t>(i)] == 0) ready.push_back(i);
  }
  std::vector<std::int64_t> free_at(static_cast<std::size_t>(g.layout().devices), 0);
  DeviceOrders orders(static_cast<std::size_t>(g.layout().devices));
  // A task has ended at `end`: its users' inputs arrive (over a link from another device).
  // Those beside compute end when their inputs are in, in no device's order.
  int resolved = 0;
  std::function<void(int, std::int64_t)> ended = [&](int i, std::int64_t end) {
    const Task& t = g.task(i);
    finish[static_cast<std::size_t>(i)] = end;
    ++resolved;
    for (int u : g.users(i)) {
      for (const Edge& e : g.deps(u))
        if (e.from == i) {
          const Task& ut = g.task(u);
          const std::int64_t at = end + (ut.device == t.device ? 0 : c.edge_ps(t, ut, e.data));
          arrive[static_cast<std::size_t>(u)] = std::max(arrive[static_cast<std::size_t>(u)], at);
        }
      if (--waiting[static_cast<std::size_t>(u)] > 0) continue;
      if (beside_compute(g.task(u).pass))
        ended(u, arrive[static_cast<std::size_t>(u)]);
      else
        ready.push_back(u);
    }
  };

  // Work beside compute with no inputs (a trace's send that waits for nothing) ends at once.
  std::vector<int> roots;
  for (int i : ready)
    if (beside_compute(g.task(i).pass)) roots.push_back(i);
  for (int i : roots) {
    ready.erase(std::find(ready.begin(), ready.end(), i));
    ended(i, 0);
  }

  while (resolved < n) {
    int best = -1;
    std::tuple<std::int64_t, std::array<int, 4>, int> best_key;
    for (int i : ready) {
      const Task& t = g.task(i);
      const std::int64_t start = std::max(free_at[static_cast<std::size_t>(t.device)],
                                          arrive[static_cast<std::size_t>(i)]);
      const auto key = std::make_tuple(start, policy.priority(t), i);
      if (best < 0 || key < best_key) best = i, best_key = key;
    }
    if (best < 0) throw std::logic_error("pipeline list scheduler: no task can start");
    const Task& t = g.task(best);
    const std::int64_t end = std::get<0>(best_key) + c.task_ps(t);
    free_at[static_cast<std::size_t>(t.device)] = end;
    orders[static_cast<std::size_t>(t.device)].push_back(best);
    ready.erase(std::find(ready.begin(), ready.end(), best));
    ended(best, end);
  }
  return orders;
}

}  // namespace trainsim
