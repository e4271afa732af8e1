// reshape: the input's values read as another C x H x W (DCGAN's projection of z to
// 1024 x 4 x 4). Like flatten it moves nothing: its output and gradient are its input's, so
// it issues no op and its readers read its producer's tensors.
#include "sim/nn/activation.h"
#include "sim/workload/layers/layer_kinds.h"

namespace trainsim {

namespace {

std::string infer(const LayerSpec& s, const std::vector<Shape>& ins, Shape& out, std::int64_t&) {
  const Shape to{s.shape[0], s.shape[1], s.shape[2]};
  std::string err = reshape_error(ins.front(), to);
  if (err.empty()) out = to;
  return err;
}

}  // namespace

const LayerKind kReshapeKind{&infer, nullptr, &lower_nothing, /*alias=*/true};

}  // namespace trainsim
