// jemalloc's options for the trainsim executable (compiled in only when CMake links jemalloc:
// CMakeLists.txt). jemalloc reads this symbol when it starts; MALLOC_CONF in the environment
// still overrides it.
//
// thp:always: jemalloc asks for transparent huge pages on its mappings (the kernel gives them
// only to memory that asks, in Debian's default `madvise` mode). Why: every trainsim process
// starts by zeroing 3 MB that SystemC's library allocates in a static constructor (its
// temporary heap for fixed-point strings): 768 page faults in 4 KB pages, which on a
// virtualised host cost 10-15 ms of a 30-40 ms start; in huge pages, a few faults. A sweep
// starts a worker per `-j` and per MPI rank, `--isolate` a process per point, the test suite
// hundreds of processes. Only for the start: the constructor below, which runs after every
// library's (they are initialised before the executable), turns huge pages off again
// (sim/core/huge_pages.h says why). docs/benchmarks.md, "The allocator".
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
