// Input-size classes (sim/devices/size_class.h): the paper's MatMul classes with their gaps
// closed by the largest dimension, convolutions by their im2col GEMM, element-wise ops by
// their element count.
#include <catch2/catch.hpp>

#include "sim/devices/size_class.h"

using namespace trainsim;

namespace {

SizeClass gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  return size_class(Op::make_gemm({m, n, k}));
}

SizeClass eltwise(std::int64_t elements) {
  ElementwiseShape e;
  e.elements = elements;
  return size_class(Op::make_eltwise(e, OpRole::kUpdate));
}

}  // namespace

TEST_CASE("GEMM size classes: the paper's bounds, gaps closed by the largest dimension",
          "[devices][size_class]") {
  const SizeClass S = SizeClass::kSmall, M = SizeClass::kMedium, L = SizeClass::kLarge;
  CHECK(gemm(512, 512, 512) == S);     // inside the paper's small class
  CHECK(gemm(1023, 1023, 1023) == S);  // its upper edge
  CHECK(gemm(1024, 1024, 1024) == M);  // medium starts at 1024
  CHECK(gemm(4095, 4095, 4095) == M);
  CHECK(gemm(4096, 4096, 4096) == L);  // 4096 is in neither of the paper's classes: large
  CHECK(gemm(8192, 1, 1) == L);        // "any dimension size larger than 4096"
  // The gaps: at or below 256, and mixed dimensions.
  CHECK(gemm(256, 256, 256) == S);
  CHECK(gemm(10, 10, 10) == S);
  CHECK(gemm(300, 300, 2000) == M);
  CHECK(gemm(300, 4096, 300) == L);
  CHECK(gemm(1024, 1, 1) == M);
}

TEST_CASE("Convolutions are classed by their im2col GEMM, element-wise ops by elements",
          "[devices][size_class]") {
  // ResNet-50's first convolution at batch 1: M = 112 x 112 = 12,544 output pixels.
  ConvShape c;
  c.channels = 3, c.height = c.width = 224, c.filters = 64;
  c.kernel_h = c.kernel_w = 7, c.stride = 2, c.pad = 3;
  CHECK(size_class(Op::make_conv(c)) == SizeClass::kLarge);
  // A small layer: 8 x 8 x 16 -> 32, 3x3: fw M = 64, N = 32, K = 144; bwd-weight K = 64.
  ConvShape s;
  s.channels = 16, s.height = s.width = 8, s.filters = 32, s.kernel_h = s.kernel_w = 3, s.pad = 1;
  CHECK(size_class(Op::make_conv(s)) == SizeClass::kSmall);
  CHECK(size_class(Op::make_conv(s, OpRole::kBackwardWeight)) == SizeClass::kSmall);
  // bwd-data: M = batch x H x W = 32 x 64 = 2048 at batch 32.
  s.batch = 32;
  CHECK(size_class(Op::make_conv(s, OpRole::kBackwardData)) == SizeClass::kMedium);

  CHECK(eltwise(1) == SizeClass::kSmall);
  CHECK(eltwise(kMediumElements - 1) == SizeClass::kSmall);
  CHECK(eltwise(kMediumElements) == SizeClass::kMedium);
  CHECK(eltwise(kLargeElements - 1) == SizeClass::kMedium);
  CHECK(eltwise(kLargeElements) == SizeClass::kLarge);
}

TEST_CASE("Size class names round-trip", "[devices][size_class]") {
  for (SizeClass c : {SizeClass::kSmall, SizeClass::kMedium, SizeClass::kLarge}) {
    SizeClass back = SizeClass::kLarge;
    REQUIRE(parse_size_class(size_class_name(c), back));
    CHECK(back == c);
  }
  SizeClass unused;
  CHECK_FALSE(parse_size_class("huge", unused));
}
