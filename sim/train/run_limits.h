#pragma once
// A run larger than its counters hold (sim/spec/op_stats.h's CounterOverflow: a count past
// 2^64, cycles past 2^63) is the configuration's doing, not a bug: VGG-19 on ImageNet for 500
// epochs counts more MACs than 64 bits hold. The runners catch the overflow in
// their epoch loop, before anything is written, and turn it into a one-line user error naming
// the keys that make the run that large and how far it fits: the epochs that fit, or, when
// one epoch is already too large, the figures that size an epoch.
#include <cstdint>

#include "sim/spec/op_stats.h"
#include "sim/spec/specs.h"

namespace trainsim {

/// What a run's scale comes from, for the message.
struct RunScale {
  int epoch = 1;                   ///< the (1-based) epoch in which the counter overflowed
  std::int64_t train_samples = 0;  ///< per epoch
  /// The technique's own model adds to an epoch's work (ADA-GP's gradient predictor): its
  /// settings are named first (TechniqueInfo::epoch_size_hint).
  bool technique_model = false;
};

/// Throws the UserError for `overflow` in a run of `spec`:
///   training.epochs: 500 epochs of network 'vgg19_imagenet' on imagenet count more RF
///   accesses than the counters hold (2^64): the count passes it in epoch 457, so at most 456
///   epochs fit
[[noreturn]] void run_exceeds_counters(const CounterOverflow& overflow, const ExperimentSpec& spec,
                                       const RunScale& scale);

}  // namespace trainsim
