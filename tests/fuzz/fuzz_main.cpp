// libFuzzer's entry point, compiled once per target (CMakeLists.txt, TRAINSIM_FUZZ) with
// TRAINSIM_FUZZ_TARGET naming one of the functions of tests/fuzz/targets.h.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainsim::fuzz::TRAINSIM_FUZZ_TARGET(data, size);
  return 0;
}
