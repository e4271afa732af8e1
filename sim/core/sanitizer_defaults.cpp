// Runtime options of the sanitizer builds (TRAINSIM_SANITIZE, TRAINSIM_FUZZ), compiled into
// every executable like sc_main_stub.cpp, so that the tests, the trainsim processes they
// start and the fuzzers all run with them whatever their environment. ASAN_OPTIONS and
// UBSAN_OPTIONS still override them. Nothing here exists in a normal build.
#include "sim/core/sanitizers.h"

#ifdef TRAINSIM_ASAN
// Leaks are checked at exit (the default on Linux, said here); initialization-order bugs
// between our static registries are reported too.
extern "C" const char* __asan_default_options() {
  return "detect_leaks=1:check_initialization_order=1:strict_init_order=1:strict_string_checks=1";
}
// Open MPI (`trainsim sweep --mpi`) keeps allocations from MPI_Init to exit in its own
// libraries: not ours to fix. (Those in the plugins it dlopens and unloads have no module
// name to match; tools/test_sweep_mpi.sh turns leak checking off for the MPI ranks.)
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libmpi.so\nleak:libopen-pal.so\nleak:libopen-rte.so\nleak:libpmix.so\n"
         "leak:libhwloc.so\nleak:libevent\n";
}
// The build already makes UBSan findings fatal (-fno-sanitize-recover); this adds where.
extern "C" const char* __ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}
#endif
