#include "sim/devices/size_class.h"

#include <algorithm>

namespace trainsim {

const char* size_class_name(SizeClass c) {
  switch (c) {
    case SizeClass::kSmall:
      return "small";
    case SizeClass::kMedium:
      return "medium";
    case SizeClass::kLarge:
      return "large";
  }
  return "?";
}

bool parse_size_class(const std::string& text, SizeClass& c) {
  for (SizeClass s : {SizeClass::kSmall, SizeClass::kMedium, SizeClass::kLarge}) {
    if (text == size_class_name(s)) {
      c = s;
      return true;
    }
  }
  return false;
}

SizeClass gemm_size_class(const GemmShape& g) {
  const std::int64_t largest = std::max({g.m, g.n, g.k});
  if (largest >= kLargeDim) return SizeClass::kLarge;
  if (largest >= kMediumDim) return SizeClass::kMedium;
  return SizeClass::kSmall;
}

SizeClass elementwise_size_class(std::int64_t elements) {
  if (elements >= kLargeElements) return SizeClass::kLarge;
  if (elements >= kMediumElements) return SizeClass::kMedium;
  return SizeClass::kSmall;
}

SizeClass size_class(const Op& op) {
  if (op.kind == OpKind::kElementwise) return elementwise_size_class(op.eltwise.elements);
  return gemm_size_class(lower_to_gemm(op));
}

}  // namespace trainsim
