// An op from a bare amount of work (sim/devices/work_op.h): the GEMM a Chakra node's num_ops
// and tensor_size describe.
#include <catch2/catch.hpp>

#include "sim/devices/work_op.h"

using namespace trainsim;

namespace {

double words(const GemmShape& g) {
  return static_cast<double>(g.m * g.k + g.k * g.n + g.m * g.n);
}

}  // namespace

TEST_CASE("A Chakra node's work becomes a GEMM of its MACs and about its words", "[chakra]") {
  // The least a GEMM of 10^6 MACs moves is the cube's 3 x 100^2 words; fewer give the cube.
  CHECK(gemm_for_work(1e6, 3e4) == GemmShape{100, 100, 100});
  CHECK(gemm_for_work(1e6, 10) == GemmShape{100, 100, 100});
  // Between the cube and the outer product: the MACs and the words, to whole dimensions.
  const GemmShape mid = gemm_for_work(1e6, 6e4);
  CHECK(static_cast<double>(mid.macs()) == Approx(1e6).epsilon(0.02));
  CHECK(words(mid) == Approx(6e4).epsilon(0.02));
  CHECK(mid.k < 100);  // more words per MAC than the cube: a shallower reduction
  // The most it can move is the outer product's (K = 1); more words give that.
  CHECK(gemm_for_work(1e6, 1e9) == GemmShape{1000, 1000, 1});
  // No MACs: a stream of the bytes, read (or written) once, in the device's words.
  const Op load = op_for_work(0, 100, 4);
  CHECK(load.kind == OpKind::kElementwise);
  CHECK(load.eltwise.elements == 25);
  CHECK(load.eltwise.reads == 1);
  CHECK(load.eltwise.writes == 0);
  CHECK(load.eltwise.flops == 0);
  const Op store = op_for_work(0, 100, 2, true);
  CHECK(store.eltwise.elements == 50);
  CHECK(store.eltwise.writes == 1);
  CHECK(store.word_bits == 16);
}
