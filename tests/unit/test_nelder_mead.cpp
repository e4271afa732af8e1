// Nelder-Mead (sim/core/nelder_mead.h): minima of Rosenbrock's valley and of a scaled quadratic
// in five dimensions, the same result every time, and NaN treated as worse than anything.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/core/nelder_mead.h"

using namespace trainsim;

TEST_CASE("Nelder-Mead finds the minimum of Rosenbrock's function", "[core][fit]") {
  auto rosenbrock = [](const std::vector<double>& x) {
    return 100 * std::pow(x[1] - x[0] * x[0], 2) + std::pow(1 - x[0], 2);
  };
  const NelderMeadResult r = nelder_mead(rosenbrock, {-1.2, 1.0});
  CHECK(r.converged);
  CHECK(r.x[0] == Approx(1).margin(1e-4));
  CHECK(r.x[1] == Approx(1).margin(1e-4));
  CHECK(r.f < 1e-8);
  CHECK(r.evaluations <= NelderMeadOptions{}.max_evaluations);
  // Deterministic: the same start, the same path.
  const NelderMeadResult again = nelder_mead(rosenbrock, {-1.2, 1.0});
  CHECK(again.x == r.x);
  CHECK(again.evaluations == r.evaluations);
}

TEST_CASE("Nelder-Mead on a scaled quadratic in five dimensions, and NaN", "[core][fit]") {
  auto bowl = [](const std::vector<double>& x) {
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      s += static_cast<double>(i + 1) * std::pow(x[i] - 0.1 * static_cast<double>(i), 2);
    return s;
  };
  const NelderMeadResult r = nelder_mead(bowl, {3, -2, 1, 0, 5});
  for (std::size_t i = 0; i < 5; ++i)
    CHECK(r.x[i] == Approx(0.1 * static_cast<double>(i)).margin(1e-4));
  // A region where the function is undefined is avoided.
  auto half = [](const std::vector<double>& x) { return x[0] < 0 ? NAN : std::pow(x[0] - 1, 2); };
  CHECK(nelder_mead(half, {0.2}).x[0] == Approx(1).margin(1e-4));
  NelderMeadOptions few;
  few.max_evaluations = 10;
  const NelderMeadResult cut = nelder_mead(bowl, {3, -2, 1, 0, 5}, few);
  CHECK_FALSE(cut.converged);
  CHECK(cut.evaluations <= 10 + 6);  // a step may finish past the budget
}
