#pragma once
// The dataflow singletons, one per file in this folder. Use the registry (registry.h) to
// find one by name.
#include "dataflows/dataflow.h"

namespace trainsim {

const Dataflow& ws_dataflow();
const Dataflow& os_dataflow();
const Dataflow& is_dataflow();
const Dataflow& rs_dataflow();

}  // namespace trainsim
