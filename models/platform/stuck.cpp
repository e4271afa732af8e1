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
      std::string why;
      if (done[static_cast<std::size_t>(e.from)]) {
        if (from.device == static_cast<int>(d)) continue;  // ran here: its input is in place
        why = "the transfer of '" + from.label() + "' from " + dev(from.device) +
              ", which never arrived";
      } else {
        const long p = position_of(orders, e.from, from.device);
        why = "'" + from.label() + "' on " + dev(from.device);
        if (p < 0)
          why += ", which no device's order runs";
        else if (static_cast<std::size_t>(p) == next[static_cast<std::size_t>(from.device)])
          why += ", which waits itself";
        else
          why += ", ordered after '" +
                 g.task(orders[static_cast<std::size_t>(from.device)]
                              [next[static_cast<std::size_t>(from.device)]])
                     .label() +
                 "' there";
      }
      lacks += (lacks.empty() ? "" : " and ") + why;
    }
    out += (out.empty() ? "" : "; ") + dev(static_cast<int>(d)) + " waits in '" + t.label() +
           "' for " + (lacks.empty() ? std::string("an input that never came") : lacks);
  }
  return out.empty() ? "every device finished its order" : out;
}

}  // namespace trainsim
