#pragma once
// Row-stationary dataflow (Eyeriss, Chen, Emer, Sze, ISCA 2016): every op runs as the
// convolution lower_to_conv(op); each PE keeps one filter row stationary and slides one
// input row through a 1-D convolution, and psums are summed up the PE columns.
// The mapping is in rs_mapping.h, the model and counting conventions in docs/rs_mapping.md.
#include "dataflows/dataflow.h"

namespace trainsim {

/// The "rs" dataflow (gemm_based() is false: OperandValues use the conv layout).
const Dataflow& rs_dataflow();

}  // namespace trainsim
