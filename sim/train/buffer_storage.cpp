#include "sim/train/buffer_storage.h"

#include <string>

#include "sim/core/error.h"
#include "sim/core/format.h"

namespace trainsim {

void check_buffer_storage(const ExperimentSpec& spec, const Trainer& trainer) {
  const AcceleratorSpec& acc = spec.sim.accelerator;
  std::string what;
  const std::int64_t need =
      trainer.technique().buffer_bytes(static_cast<int>(acc.word_bytes()), &what);
  const auto have = static_cast<std::int64_t>(acc.buffer_kib() * 1024);
  if (need > have)
    throw UserError("technique " + spec.sim.technique.label() + ": " + what + " needs " +
                    std::to_string(need) + " bytes in the global buffer, but accelerator '" +
                    acc.name + "' has " + std::to_string(have) + " (" +
                    fmt("%g", acc.buffer_kib()) +
                    " KiB): set technique.store: dram (--set technique.store=dram), or give the "
                    "accelerator a larger buffer");
}

}  // namespace trainsim
