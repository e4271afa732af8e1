#include "sim/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "sim/core/error.h"
#include "sim/core/interrupt.h"
#include "sim/core/parallel.h"
#include "sim/nn/softmax.h"
#include "sim/optim/optimizer_registry.h"

namespace trainsim {

namespace {
// The shuffle stream is decorrelated from the initialisation stream of the same seed.
constexpr std::uint64_t kShuffleStream = 0x9E3779B97F4A7C15ULL;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

Trainer::Trainer(const ExperimentSpec& spec, const Dataset& data)
    : spec_(spec),
      data_(data),
      pool_(std::make_unique<ThreadPool>(spec.training.threads)),
      network_(spec.network),
      shuffle_rng_(spec.training.seed ^ kShuffleStream) {
  const Shape in = network_.input_shape();
  if (in.c != data.channels || in.h != data.height || in.w != data.width)
    throw UserError("network '" + spec.network.name + "' expects input " + in.str() +
                    " but dataset '" + data.name + "' has samples of " +
                    Shape{data.channels, data.height, data.width}.str());
  if (spec.network.classes != data.classes)
    throw UserError("network '" + spec.network.name + "' has " +
                    std::to_string(spec.network.classes) + " classes but dataset '" + data.name +
                    "' has " + std::to_string(data.classes));
  if (data.train.count == 0) throw UserError("dataset '" + data.name + "' has no training samples");
  spec.training.epoch_batches(data.train.count);  // training.drop_last must leave a batch
  const OptimizerInfo* opt = find_optimizer(spec.training.optimizer.kind);
  if (opt == nullptr) throw UserError("unknown optimizer '" + spec.training.optimizer.kind + "'");
  optimizer_ = opt->make(spec.training.optimizer);
  technique_ = make_technique(spec.sim.technique, network_);
  network_.init(spec.training.seed);
  params_ = network_.params();
  order_.resize(static_cast<std::size_t>(data.train.count));
  std::iota(order_.begin(), order_.end(), 0);
}

Trainer::~Trainer() = default;

std::int64_t Trainer::batches_per_epoch() const {
  return spec_.training.epoch_batches(data_.train.count).count();
}

void Trainer::load_batch(const DataSplit& split, const std::int64_t* indices, int count) {
  const std::int64_t sz = data_.sample_size();
  Tensor<float>& x = pass_.acts.empty() ? pass_.acts.emplace_back() : pass_.acts[0];
  x.resize(count, network_.input_shape());
  batch_labels_.resize(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const float* src = split.images.data() + indices[i] * sz;
    std::copy(src, src + sz, x.sample(i));
    batch_labels_[static_cast<std::size_t>(i)] = split.labels[static_cast<std::size_t>(indices[i])];
  }
}

EpochMetrics Trainer::run_epoch(const std::function<void(const BatchProgress&)>& on_batch) {
  const ParallelScope threads(pool_.get());
  EpochMetrics m;
  m.epoch = ++epoch_;
  technique_->on_epoch_begin(epoch_ - 1);
  // The schedule's rate follows from the epoch alone, so a resumed run sets it the same way.
  const double lr = spec_.training.optimizer.lr_at(epoch_);
  optimizer_->set_lr(lr);
  technique_->set_lr(lr);
  const auto t0 = std::chrono::steady_clock::now();
  if (spec_.training.shuffle) shuffle_rng_.shuffle(order_);
  network_.take_macs();  // the count starts with the epoch (not the last evaluation)
  const std::int64_t n = data_.train.count;
  const int bs = spec_.training.batch_size;
  // training.drop_last: the shuffled order's last, partial batch is left out.
  const std::int64_t batches = batches_per_epoch();
  double loss_sum = 0;
  std::int64_t correct = 0, seen = 0;
  BatchProgress progress;
  progress.batches = batches;
  for (std::int64_t i = 0, start = 0; i < batches; ++i, start += bs) {
    check_interrupt();
    const int count = static_cast<int>(std::min<std::int64_t>(bs, n - start));
    load_batch(data_.train, order_.data() + start, count);
    BatchContext ctx{network_, *optimizer_, params_, pass_, scratch_, batch_labels_.data(), count};
    const BatchResult r = technique_->train_batch(ctx);
    loss_sum += r.loss_sum;
    correct += r.correct;
    seen += count;
    ++m.batches;
    if (on_batch) {
      progress.batch = m.batches;
      progress.loss = loss_sum / static_cast<double>(seen);
      progress.accuracy = static_cast<double>(correct) / static_cast<double>(seen);
      on_batch(progress);
    }
  }
  m.train.samples = seen;
  m.train.loss = loss_sum / static_cast<double>(seen);
  m.train.accuracy = static_cast<double>(correct) / static_cast<double>(seen);
  m.train_seconds = seconds_since(t0);
  m.train_macs = network_.take_macs();
  m.technique = technique_->take_counts();
  m.layer_stats = technique_->take_layer_stats();
  const auto t1 = std::chrono::steady_clock::now();
  m.test = evaluate(data_.test);
  m.test_seconds = seconds_since(t1);
  return m;
}

EvalMetrics Trainer::evaluate(const DataSplit& split) {
  const ParallelScope threads(pool_.get());
  EvalMetrics e;
  if (split.count == 0) return e;
  std::vector<std::int64_t> idx(static_cast<std::size_t>(split.count));
  std::iota(idx.begin(), idx.end(), 0);
  double loss_sum = 0;
  std::int64_t correct = 0;
  const std::int64_t eb = spec_.training.eval_batch_size;
  for (std::int64_t start = 0; start < split.count; start += eb) {
    check_interrupt();
    const int count = static_cast<int>(std::min<std::int64_t>(eb, split.count - start));
    load_batch(split, idx.data() + start, count);
    network_.forward(pass_, /*training=*/false);
    if (PassObserver* obs = network_.observer()) obs->on_batch_end(Phase::kEval, count);
    loss_sum += cross_entropy_loss(pass_.probs(), batch_labels_.data());
    correct += count_correct(pass_.probs(), batch_labels_.data());
  }
  e.samples = split.count;
  e.loss = loss_sum / static_cast<double>(split.count);
  e.accuracy = static_cast<double>(correct) / static_cast<double>(split.count);
  return e;
}

}  // namespace trainsim
