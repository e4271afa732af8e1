// end_start_huge_pages / restore_inherited_huge_pages (sim/core/huge_pages.h): after the start
// the process takes no more transparent huge pages, and a child it starts gets back the
// setting the process inherited, whichever it was, so a user's or a scheduler's choice
// reaches the sweep's workers unchanged.
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "sim/core/huge_pages.h"

using namespace trainsim;

namespace {

// The setting a forked child has after restore_inherited_huge_pages(): its exit code.
int childs_setting() {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    restore_inherited_huge_pages();
    ::_exit(::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1 ? 1 : 0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("After the start no huge pages, and a child gets the inherited setting back",
          "[huge_pages]") {
  const int inherited = ::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
  REQUIRE(inherited >= 0);  // Linux 3.15 and later; the CI's kernels have it
  end_start_huge_pages();
  CHECK(::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1);
  CHECK(childs_setting() == inherited);
  // Asked again, the first answer stays: the process's own setting is not taken for the
  // inherited one.
  end_start_huge_pages();
  CHECK(childs_setting() == inherited);
  ::prctl(PR_SET_THP_DISABLE, inherited, 0, 0, 0);  // the test process as it was
}
