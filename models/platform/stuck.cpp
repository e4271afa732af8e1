#include "models/platform/stuck.h"

namespace trainsim {

namespace {

std::string dev(int d) {
  return "dev" + std::to_string(d);
}

// Where task `i` sits in the orders: its device's position, or -1 if no device runs it.
long position_of(const DeviceOrders& orders, int i, int device) {
  if (device < 0 || static_cast<std::size_t>(device) >= orders.size()) return -1;
  const std::vector<int>& o = orders[static_cast<std::size_t>(device)];
  for (std::size_t p = 0; p < o.size(); ++p)
    if (o[p] == i) return static_cast<long>(p);
  return -1;
}

}  // namespace

namespace {

// Why task `from`, an input of a task on device `d`, is missing.
std::string why_missing(const TaskGraph& g, const DeviceOrders& orders,
                        const std::vector<std::size_t>& next, const std::vector<char>& done,
                        int from_task, int depth) {
  const Task& from = g.task(from_task);
  if (done[static_cast<std::size_t>(from_task)])
    return "the transfer of '" + from.label() + "' from " + dev(from.device) +
           ", which never arrived";
  std::string why = "'" + from.label() + "' on " + dev(from.device);
  if (beside_compute(from.pass)) {
    // In no order: it runs once its inputs are in; say which is missing, back to a task that
    // has a place in an order or a transfer.
    why += " (beside compute), which waits for ";
    std::string inner;
    for (const Edge& e : g.deps(from_task)) {
      if (done[static_cast<std::size_t>(e.from)] && g.task(e.from).device == from.device) continue;
      if (depth > 64) {
        inner = "more of the same";
        break;
      }
      inner +=
          (inner.empty() ? "" : " and ") + why_missing(g, orders, next, done, e.from, depth + 1);
    }
    return why + (inner.empty() ? std::string("nothing: it should have run") : inner);
  }
  const long p = position_of(orders, from_task, from.device);
  if (p < 0) return why + ", which no device's order runs";
  if (static_cast<std::size_t>(p) == next[static_cast<std::size_t>(from.device)])
    return why + ", which waits itself";
  return why + ", ordered after '" +
         g.task(orders[static_cast<std::size_t>(from.device)]
                      [next[static_cast<std::size_t>(from.device)]])
             .label() +
         "' there";
}

}  // namespace

std::string stuck_report(const TaskGraph& g, const DeviceOrders& orders,
                         const std::vector<std::size_t>& next, const std::vector<char>& done) {
  std::string out;
  for (std::size_t d = 0; d < orders.size(); ++d) {
    if (next[d] >= orders[d].size()) continue;
    const int i = orders[d][next[d]];
    const Task& t = g.task(i);
    std::string lacks;
    for (const Edge& e : g.deps(i)) {
      const Task& from = g.task(e.from);
      // Ran here: its input is in place.
      if (done[static_cast<std::size_t>(e.from)] && from.device == static_cast<int>(d)) continue;
      lacks += (lacks.empty() ? "" : " and ") + why_missing(g, orders, next, done, e.from, 0);
    }
    out += (out.empty() ? "" : "; ") + dev(static_cast<int>(d)) + " waits in '" + t.label() +
           "' for " + (lacks.empty() ? std::string("an input that never came") : lacks);
  }
  return out.empty() ? "every device finished its order" : out;
}

}  // namespace trainsim
