#include <string>

#include "sim/core/error.h"
#include "sim/spec/specs.h"

namespace trainsim {

EpochBatches TrainingSpec::epoch_batches(std::int64_t samples) const {
  EpochBatches b{samples / batch_size, samples % batch_size};
  if (!drop_last) return b;
  b.rest = 0;
  if (b.full == 0)
    throw UserError("training.drop_last: the " + std::to_string(samples) +
                    " training sample(s) make no full batch of " + std::to_string(batch_size) +
                    " (training.batch_size); lower it or set training.drop_last: false");
  return b;
}

}  // namespace trainsim
