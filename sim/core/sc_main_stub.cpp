// libsystemc.so ships its own main() that calls sc_main(). trainsim has its own main()
// (the CLI, the Catch2 runner, the tools) and drives the kernel with sc_start(), so the
// library's main is never used, but the shared library still needs the symbol to link.
// Compiled into each executable (see CMakeLists.txt), not into the core library.
extern "C" int sc_main(int, char**) {
  return 1;
}
