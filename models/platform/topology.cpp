#include "models/platform/topology.h"

namespace trainsim {

namespace {

LinkSpec between(const LinkSpec& figures, int a, int b) {
  LinkSpec l = figures;
  l.a = a;
  l.b = b;
  return l;
}

InterconnectSpec chain(int n, const LinkSpec& link) {
  InterconnectSpec s;
  s.devices = n;
  for (int d = 0; d + 1 < n; ++d) s.links.push_back(between(link, d, d + 1));
  return s;
}

InterconnectSpec ring(int n, const LinkSpec& link) {
  InterconnectSpec s = chain(n, link);
  if (n > 2) s.links.push_back(between(link, n - 1, 0));
  return s;
}

InterconnectSpec switched(int n, const LinkSpec& link) {
  InterconnectSpec s;
  s.devices = n;
  s.has_switch = n > 1;
  if (s.has_switch)
    for (int d = 0; d < n; ++d) s.links.push_back(between(link, d, n));
  return s;
}

InterconnectSpec fully_connected(int n, const LinkSpec& link) {
  InterconnectSpec s;
  s.devices = n;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) s.links.push_back(between(link, a, b));
  return s;
}

}  // namespace

const std::vector<Topology>& topologies() {
  static const std::vector<Topology> all{
      {"chain", "device d linked to d+1; transfers hop through the devices between", chain},
      {"ring", "a chain closed from the last device back to the first", ring},
      {"switch", "every device linked to one switch: two hops between any two devices", switched},
      {"fully_connected", "a link between every pair of devices", fully_connected},
      {"custom", "the links listed under system.links", nullptr},
  };
  return all;
}

const Topology* find_topology(const std::string& name) {
  for (const Topology& t : topologies())
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace trainsim
