#pragma once
#include <string>
#include <vector>

#include "dataflows/dataflow.h"

namespace trainsim {

/// Every dataflow, in a fixed order: ws, os, is, rs.
const std::vector<const Dataflow*>& dataflows();
/// The dataflow called `name`, or nullptr.
const Dataflow* find_dataflow(const std::string& name);
/// find_dataflow or a UserError listing the known names.
const Dataflow& dataflow_or_throw(const std::string& name);

}  // namespace trainsim
