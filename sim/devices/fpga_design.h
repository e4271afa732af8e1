#pragma once
// The design space of an FPGA kernel (He et al., ICS 2021, Sec. 3.3 and 5.5): compute units,
// SIMD width, work-group size and loop unrolling, within the device's DSP blocks and on-chip
// RAM, with the kernel's f_max from a model of the compiler's (the paper read it from Intel's
// offline compiler, 1-5 s per design). The search enumerates the space as Sec. 5.5 describes:
// a binary search over the unroll degree discards designs too large for the device, the rest
// are ranked by their modelled time on the class's representative op, and designs whose f_max
// is within 10% of a better one's are pruned (the paper: "less than 10% difference in f_max ...
// induces little actual performance difference").
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace trainsim {

struct FpgaDesign {
  int compute_units = 1;
  int simd = 1;  ///< work-items per instruction: 1, 2, 4, 8 or 16 (Intel's num_simd_work_items)
  int work_group = 64;
  int unroll = 1;
  /// fp32 multiply-adds per cycle: every compute unit's SIMD lanes times the unrolled body.
  std::int64_t lanes() const { return std::int64_t{compute_units} * simd * unroll; }
  std::string describe() const;  ///< "CU 2, SIMD 1, WG 128, unroll 64"
  bool operator==(const FpgaDesign& o) const {
    return compute_units == o.compute_units && simd == o.simd && work_group == o.work_group &&
           unroll == o.unroll;
  }
};

struct FpgaResources {
  std::int64_t dsp = 0;         ///< DSP blocks; one fp32 multiply-add per block and cycle
  std::int64_t ram_blocks = 0;  ///< on-chip RAM blocks (M20K)
  std::int64_t ram_block_bytes = 2048;
};

/// The values each parameter may take; the space is their product.
struct FpgaDesignSpace {
  std::vector<int> compute_units, simd, work_group;
  int unroll_min = 1, unroll_max = 256;  ///< every degree in between
  std::int64_t size() const {
    return static_cast<std::int64_t>(compute_units.size() * simd.size() * work_group.size()) *
           (unroll_max - unroll_min + 1);
  }
};

/// f_max = min(clock, base / (1 + dsp * dsp_share + ram * ram_share + cu * (compute_units - 1))):
/// more resources and more compute units make routing harder and the clock slower (Sec. 3.3).
struct FpgaFmaxModel {
  double base_mhz = 300;
  double dsp = 0.5, ram = 0.5, cu = 0.1;
};

/// What a design occupies. RAM: each compute unit double-buffers a work-group's tiles of both
/// operands (2 x 2 x work_group x unroll words), banked once per SIMD lane for its ports.
struct DesignUse {
  std::int64_t dsp = 0;
  std::int64_t ram_blocks = 0;
  double dsp_share = 0, ram_share = 0;  ///< of the device's
};
DesignUse design_use(const FpgaDesign& d, const FpgaResources& r, int word_bytes);
/// Why `d` cannot be built on `r` ("needs 16384 DSP blocks, the device has 5011"; a SIMD width
/// that does not divide the work group), or "" if it can.
std::string design_problem(const FpgaDesign& d, const FpgaResources& r, int word_bytes);
double design_fmax_mhz(const DesignUse& use, const FpgaDesign& d, const FpgaFmaxModel& m,
                       double clock_mhz);

/// Equation 1 of the paper for a MatMul of A (m x k) and B (k x n), as reconstructed in the
/// research notes of issue 17 (the printed equation is illegible): 1024 m k n / (f_max[Hz] x
/// work_group). It reproduces the paper's worked example exactly (81.81 and 142.57); compute
/// units, SIMD and unrolling enter only through f_max. Kept for that check and for reports: the
/// search ranks designs by modelled time, which counts the lanes the design has.
double paper_latency_indicator(std::int64_t m, std::int64_t k, std::int64_t n, double fmax_mhz,
                               int work_group);

struct RankedDesign {
  FpgaDesign design;
  DesignUse use;
  double fmax_mhz = 0;
  double time_s = 0;  ///< on the op the search ranked by
};

struct DesignSearch {
  std::int64_t space = 0;         ///< designs in the space
  std::int64_t probes = 0;        ///< resource checks the binary searches made
  std::int64_t feasible = 0;      ///< designs that fit the device
  std::int64_t kept = 0;          ///< feasible designs left after the f_max pruning
  std::vector<RankedDesign> top;  ///< the best kept designs, best first (at most 5)
};

/// Time of a design (with its f_max) on the op being optimised.
using DesignTime = std::function<double(const FpgaDesign&, double fmax_mhz)>;

DesignSearch search_designs(const FpgaDesignSpace& space, const FpgaResources& r,
                            const FpgaFmaxModel& fmax, double clock_mhz, int word_bytes,
                            const DesignTime& time_s);

}  // namespace trainsim
