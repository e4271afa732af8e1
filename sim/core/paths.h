#pragma once
// Where trainsim finds its shipped configs and its datasets.
#include <string>

namespace trainsim {

/// Root of the shipped configs: $TRAINSIM_CONFIGS, else <source dir>/configs.
std::string configs_root();

/// Root of the datasets: $TRAINSIM_DATA, else <source dir>/data.
std::string data_root();

}  // namespace trainsim
