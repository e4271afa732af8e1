#pragma once
// Calibration of the gpu and fpga device models against Table 1 of He et al. (Hype-training,
// ICS 2021): the models' `fit:` parameters are fitted on the MatMul and Conv2D rows only, and
// the other fifteen rows (Conv2DBackpropFilter, Conv2DBackpropInput, BiasAddGrad, Mul,
// Transpose at three sizes) are predicted and compared. Each row stands for one op of the
// paper's models (sim/hype/table1_ops.h); the FPGA side runs the five big types split over
// three FPGAs and Mul and Transpose on one, as the paper did (Sec. 3.2).
//
// The fit is deterministic: Nelder-Mead (sim/core/nelder_mead.h) from the initial values the
// specs' members default to (not from whatever the device file holds, so re-fitting a fitted
// preset gives the same values), minimising squared log ratios of model to table, in stages
// whose parameters the six rows can determine:
//   gpu  time:  gemm_efficiency, conv_forward on time and bandwidth
//        power: compute_w, peak_over_average_w on average and peak power
//        ipc:   ipc_max on the IPC
// (the GPU's other parameters keep the device file's values: the same model form fitted on an
// H100's measured ops, sim/gpu/calibration.h);
//   fpga time:  fmax_base_mhz, traffic_factor on time
//        power: power_dsp, power_ram, power_memory on power (peak equals average in Table 1)
// The FPGA's others keep their initial values: they only shape which design the search picks,
// or act as f_max does, or on microsecond ops. Parameters are searched as logarithms (logits
// for fractions), so every point of the search is a valid model.
#include <string>
#include <vector>

#include "sim/devices/fpga_model.h"
#include "sim/devices/gpu_model.h"
#include "sim/hype/table1.h"
#include "sim/hype/table1_ops.h"

namespace trainsim {

/// FPGAs a Table 1 row's op ran on: three for the big types, one for Mul and Transpose.
int table1_fpgas(PaperOpType type);
/// Whether the fit uses `row`: MatMul and Conv2D only.
bool table1_fit_row(const HypeTable1Row& row);

/// One fitted stage: which parameters it moved and how well.
struct FitStage {
  std::string device, name;         ///< "gpu", "time"
  std::vector<std::string> params;  ///< the YAML keys it fitted
  double objective = 0;             ///< sum of squared log ratios at the fit
  int evaluations = 0;
};

struct CalibrationEntry {
  int row = 0;  ///< index into the table
  bool fitted = false;
  std::string device;  ///< the table's column: "gpu", "fpga"
  std::string metric;  ///< "time_ms", "avg_w", "peak_w", "bandwidth_gbps", "ipc"
  double table = 0, predicted = 0;
  int devices = 1;  ///< how many devices the table's figure is for (its FPGA rows: several)
  double error_pct() const { return (predicted - table) / table * 100; }
};

struct CalibrationResult {
  GpuSpec gpu;  ///< the fitted specs
  FpgaSpec fpga;
  std::vector<HypeTable1Row> table;
  std::vector<Table1Representative> reps;  ///< parallel to table
  std::vector<FitStage> stages;
  std::vector<CalibrationEntry> entries;  ///< every row, device and metric
  /// Per row: "fpga", "gpu" or "tie" by time, in the table and as predicted.
  std::vector<std::string> table_winner, predicted_winner;
  /// Held-out rows whose predicted winner is the table's (a tie in the table never agrees).
  int held_out_agree = 0, held_out = 0;
};

/// Fits `gpu` and `fpga` (their hardware figures as given; fit parameters from their initial
/// values) on `table`'s MatMul and Conv2D rows and predicts every row. UserError if a row's op
/// type is not one of the seven or a row is missing.
CalibrationResult calibrate(const GpuSpec& gpu, const FpgaSpec& fpga,
                            const std::vector<HypeTable1Row>& table,
                            const Table1Workload& workload = {});

/// A model's `fit:` parameter: its key in a device file and where the spec holds it.
struct FitParameter {
  std::string key;
  double* value;
};
/// Every `fit:` parameter of the kind, in the device files' order (the GPU's: of its precision).
std::vector<FitParameter> fit_parameters(GpuSpec& g);
std::vector<FitParameter> fit_parameters(FpgaSpec& f);

/// calibration.csv: one line per row, device and metric.
std::string calibration_csv(const CalibrationResult& r);
/// The `fit:` block of a device file holding the fitted values.
std::string gpu_fit_yaml(const GpuSpec& g);
std::string fpga_fit_yaml(const FpgaSpec& f);

}  // namespace trainsim
