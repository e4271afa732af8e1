#include "sim/core/huge_pages.h"

#include <sys/prctl.h>

namespace trainsim {

namespace {
// PR_GET_THP_DISABLE's answer at the start (0 or 1); -1: not asked, or no such control.
int inherited = -1;
}  // namespace

void end_start_huge_pages() {
  if (inherited >= 0) return;
  const int was = ::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
  if (was < 0) return;
  if (::prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0) inherited = was;
}

void restore_inherited_huge_pages() {
  if (inherited >= 0) ::prctl(PR_SET_THP_DISABLE, inherited, 0, 0, 0);
}

}  // namespace trainsim
