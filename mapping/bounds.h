#pragma once
// Lower bounds on the DRAM traffic of an op, whatever its mapping (`trainsim layer --bound`,
// docs/accelerator.md "Bounds"). Two:
//   compulsory     every stored word of every operand read once, every output written once;
//   communication  at a buffer of S words, 2 V / sqrt(R S) - 2 S, where V counts the MACs
//                  whose input, weight and output are all stored words and R is the most
//                  windows one stored input word falls into (1 for a GEMM): the red-blue
//                  pebble bound of a GEMM, 2 M N K / sqrt(S) - 2 S (Smith, Lowery, Langou,
//                  van de Geijn, "A Tight I/O Lower Bound for Matrix Multiplication", 2019),
//                  with the convolution's input reuse folded in as Chen, Han and Wang do
//                  ("Communication Lower Bound in Convolution Accelerators", HPCA 2020).
// Both count words between DRAM and the global buffer: the register files and the array hold
// nothing across the buffer's tiles in trainsim's memory model, so the buffer is the fast
// memory of the bound. Inputs an op finds on chip (inter-op residency) are not counted: the
// bounds are of the op alone.
#include <cstdint>

#include "mapping/problem.h"

namespace trainsim {

struct TrafficBound {
  std::int64_t compulsory_words = 0;
  double communication_words = 0;  ///< 0 when the formula gives less (a large buffer)
  std::int64_t stored_macs = 0;    ///< V
  std::int64_t reuse = 1;          ///< R
  double words() const;            ///< the larger of the two
};

/// The bounds of problem `p` (make_problem: its stored positions) at a buffer of
/// `buffer_words` words.
TrafficBound traffic_bound(const NestProblem& p, std::int64_t buffer_words);

}  // namespace trainsim
