#pragma once
#include <memory>
#include <string>
#include <vector>

#include "sim/data/dataset.h"

namespace trainsim {

/// Every dataset source trainsim ships, in a fixed order.
const std::vector<const DatasetSource*>& dataset_sources();

/// The source called `name`, or nullptr.
const DatasetSource* find_dataset_source(const std::string& name);

/// Convenience: find the source for spec.name and load it (UserError if unknown). Shared:
/// the process keeps the last one it loaded for the next load of the same files.
std::shared_ptr<const Dataset> load_dataset(const DatasetSpec& spec);

/// The shape of the dataset `spec` names, train_limit / test_limit applied: declared by a
/// shape-only dataset, or read by loading the dataset.
DatasetShape dataset_shape(const DatasetSpec& spec);

}  // namespace trainsim
