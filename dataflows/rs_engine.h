#pragma once
// The cycle-fidelity row-stationary engine (register level), built by rs_dataflow().engine().
#include <memory>

#include "dataflows/dataflow.h"
#include "dataflows/rs_mapping.h"

namespace trainsim {

std::unique_ptr<ArrayEngine> make_rs_engine(RsMapping mapping, OperandValues values,
                                            std::int64_t pes);

}  // namespace trainsim
