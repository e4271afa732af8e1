// jemalloc's options for the trainsim executable (compiled in only when CMake links jemalloc:
// CMakeLists.txt). jemalloc reads this symbol when it starts; MALLOC_CONF in the environment
// still overrides it.
//
// thp:always: jemalloc asks for transparent huge pages on its mappings (Debian's kernel gives
// them only to memory that asks), so that the 3 MB SystemC's library zeroes as it loads takes a
// few page faults instead of 768. Only for the start: the constructor below, which runs after
// every library's (they are initialised before the executable), turns them off again.
// sim/core/huge_pages.h says why both; docs/benchmarks.md, "The allocator", has the figures.
#include "sim/core/huge_pages.h"

extern "C" {
// The name and type are jemalloc's interface.
const char* malloc_conf = "thp:always";
}

namespace {
struct EndOfStart {
  EndOfStart() { trainsim::end_start_huge_pages(); }
} end_of_start;
}  // namespace
