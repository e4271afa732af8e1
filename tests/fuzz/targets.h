#pragma once
// The fuzz targets: one input through each place trainsim reads bytes it did not write.
//   experiment  an experiment file's text: YAML, validation, network shapes, lowering to ops
//   overrides   --set KEY=VALUE lines applied to a shipped experiment, then the same
//   idx         an IDX file's bytes through the reader's header and payload checks
//   onnx        an ONNX model's bytes through the importer and the network parser
// A target returns normally when trainsim accepts the input or rejects it with a UserError
// (the one-line error of the CLI); anything else escaping it, a sanitizer report or a crash
// is a finding. The libFuzzer executables (tests/fuzz/fuzz_*.cpp, built with TRAINSIM_FUZZ)
// and the normal suite's replay of the committed corpus (tests/unit/test_fuzz_corpus.cpp)
// share these functions.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace trainsim::fuzz {

void experiment(const std::uint8_t* data, std::size_t size);
void overrides(const std::uint8_t* data, std::size_t size);
void idx(const std::uint8_t* data, std::size_t size);
void onnx(const std::uint8_t* data, std::size_t size);

struct Target {
  std::string name;  ///< also the folder of its corpus: tests/fuzz/corpus/<name>
  void (*run)(const std::uint8_t*, std::size_t);
};
const std::vector<Target>& targets();

}  // namespace trainsim::fuzz
