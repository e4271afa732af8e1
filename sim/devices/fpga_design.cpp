#include "sim/devices/fpga_design.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace trainsim {

std::string FpgaDesign::describe() const {
  return "CU " + std::to_string(compute_units) + ", SIMD " + std::to_string(simd) + ", WG " +
         std::to_string(work_group) + ", unroll " + std::to_string(unroll);
}

DesignUse design_use(const FpgaDesign& d, const FpgaResources& r, int word_bytes) {
  DesignUse u;
  u.dsp = d.lanes();
  const std::int64_t ram_bytes =
      std::int64_t{4} * d.compute_units * d.simd * d.work_group * d.unroll * word_bytes;
  u.ram_blocks = (ram_bytes + r.ram_block_bytes - 1) / r.ram_block_bytes;
  u.dsp_share = static_cast<double>(u.dsp) / static_cast<double>(r.dsp);
  u.ram_share = static_cast<double>(u.ram_blocks) / static_cast<double>(r.ram_blocks);
  return u;
}

std::string design_problem(const FpgaDesign& d, const FpgaResources& r, int word_bytes) {
  // Intel's OpenCL compiler vectorises a work group SIMD work-items at a time.
  if (d.work_group % d.simd != 0)
    return "SIMD width " + std::to_string(d.simd) + " does not divide the work group (" +
           std::to_string(d.work_group) + ")";
  const DesignUse u = design_use(d, r, word_bytes);
  if (u.dsp > r.dsp)
    return "needs " + std::to_string(u.dsp) + " DSP blocks, the device has " +
           std::to_string(r.dsp);
  if (u.ram_blocks > r.ram_blocks)
    return "needs " + std::to_string(u.ram_blocks) + " RAM blocks, the device has " +
           std::to_string(r.ram_blocks);
  return "";
}

double design_fmax_mhz(const DesignUse& use, const FpgaDesign& d, const FpgaFmaxModel& m,
                       double clock_mhz) {
  const double slowdown =
      1 + m.dsp * use.dsp_share + m.ram * use.ram_share + m.cu * (d.compute_units - 1);
  return std::min(clock_mhz, m.base_mhz / slowdown);
}

double paper_latency_indicator(std::int64_t m, std::int64_t k, std::int64_t n, double fmax_mhz,
                               int work_group) {
  return 1024.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n) /
         (fmax_mhz * 1e6 * work_group);
}

DesignSearch search_designs(const FpgaDesignSpace& space, const FpgaResources& r,
                            const FpgaFmaxModel& fmax, double clock_mhz, int word_bytes,
                            const DesignTime& time_s) {
  DesignSearch s;
  s.space = space.size();
  std::vector<RankedDesign> feasible;
  for (int cu : space.compute_units)
    for (int simd : space.simd)
      for (int wg : space.work_group) {
        // Resources grow with the unroll degree, so the feasible degrees are a prefix of the
        // range: find its end by bisection instead of checking all of them.
        FpgaDesign d{cu, simd, wg, space.unroll_min};
        auto fits = [&](int unroll) {
          ++s.probes;
          d.unroll = unroll;
          return design_problem(d, r, word_bytes).empty();
        };
        int lo = space.unroll_min - 1, hi = space.unroll_max;  // fits(lo) by convention
        while (lo < hi) {
          const int mid = lo + (hi - lo + 1) / 2;
          if (fits(mid)) {
            lo = mid;
          } else {
            hi = mid - 1;
          }
        }
        for (int u = space.unroll_min; u <= lo; ++u) {
          RankedDesign rd;
          rd.design = {cu, simd, wg, u};
          rd.use = design_use(rd.design, r, word_bytes);
          rd.fmax_mhz = design_fmax_mhz(rd.use, rd.design, fmax, clock_mhz);
          rd.time_s = time_s(rd.design, rd.fmax_mhz);
          feasible.push_back(rd);
        }
      }
  s.feasible = static_cast<std::int64_t>(feasible.size());
  // Fastest first; among equals the smaller design, then a fixed order, so the result does not
  // depend on how the space was listed.
  auto key = [](const RankedDesign& x) {
    return std::make_tuple(x.time_s, x.use.dsp, x.use.ram_blocks, x.design.compute_units,
                           x.design.simd, x.design.work_group, x.design.unroll);
  };
  std::sort(feasible.begin(), feasible.end(),
            [&](const RankedDesign& a, const RankedDesign& b) { return key(a) < key(b); });
  std::vector<const RankedDesign*> kept;
  for (const RankedDesign& d : feasible) {
    const bool near = std::any_of(kept.begin(), kept.end(), [&](const RankedDesign* k) {
      return std::abs(d.fmax_mhz - k->fmax_mhz) < 0.1 * std::max(d.fmax_mhz, k->fmax_mhz);
    });
    if (!near) kept.push_back(&d);
  }
  s.kept = static_cast<std::int64_t>(kept.size());
  for (std::size_t i = 0; i < kept.size() && i < 5; ++i) s.top.push_back(*kept[i]);
  return s;
}

}  // namespace trainsim
