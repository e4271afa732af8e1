#pragma once
// Transparent huge pages for a process's start only. The trainsim executable asks jemalloc for
// huge pages (sim/cli/jemalloc_conf.cpp: the 3 MB SystemC's library zeroes as it loads then
// takes a few page faults instead of 768), and turns them off for the process once its
// libraries are loaded: a long run (a sweep's worker over thousands of points) took 2-5% more
// CPU with huge pages throughout, its heap growing and purged in 2 MB pages
// (docs/benchmarks.md, "The allocator"). The setting is inherited across fork and exec, so a
// process that starts trainsim processes (a sweep's workers) gives each the setting it
// inherited itself.
namespace trainsim {

/// Later memory of this process in 4 KB pages (prctl PR_SET_THP_DISABLE), remembering the
/// setting the process inherited. Does nothing on a kernel without the control.
void end_start_huge_pages();

/// In a child between fork and exec (async-signal-safe): the setting this process inherited,
/// so that the new program starts as this one did. Does nothing if end_start_huge_pages()
/// was not called.
void restore_inherited_huge_pages();

}  // namespace trainsim
