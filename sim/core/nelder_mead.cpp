#include "sim/core/nelder_mead.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace trainsim {

namespace {

// The standard coefficients: reflection 1, expansion 2, contraction and shrink 1/2.
constexpr double kExpand = 2, kContract = 0.5, kShrink = 0.5;

struct Vertex {
  std::vector<double> x;
  double f;
};

// x0 + t (x1 - x0)
std::vector<double> along(const std::vector<double>& x0, const std::vector<double>& x1, double t) {
  std::vector<double> y(x0.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = x0[i] + t * (x1[i] - x0[i]);
  return y;
}

class Run {
 public:
  Run(const std::function<double(const std::vector<double>&)>& f, const NelderMeadOptions& o,
      int& evaluations)
      : f_(f), o_(o), evaluations_(evaluations) {}

  // One descent from `start`; true if it met the tolerances.
  bool descend(const std::vector<double>& start, Vertex& best) {
    const std::size_t n = start.size();
    simplex_.clear();
    simplex_.push_back(eval(start));
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<double> x = start;
      x[i] += o_.step;
      simplex_.push_back(eval(x));
    }
    bool converged = false;
    while (evaluations_ < o_.max_evaluations) {
      order();
      if (small()) {
        converged = true;
        break;
      }
      step();
    }
    order();
    best = simplex_.front();
    return converged;
  }

 private:
  Vertex eval(const std::vector<double>& x) {
    ++evaluations_;
    double v = f_(x);
    if (std::isnan(v)) v = INFINITY;  // a point the model cannot price is as bad as it gets
    return {x, v};
  }

  // Best first; equal values keep their order, so the run does not depend on the sort.
  void order() {
    std::stable_sort(simplex_.begin(), simplex_.end(),
                     [](const Vertex& a, const Vertex& b) { return a.f < b.f; });
  }

  bool small() const {
    const Vertex& best = simplex_.front();
    if (!(simplex_.back().f - best.f <= o_.f_tolerance)) return false;
    for (const Vertex& v : simplex_)
      for (std::size_t i = 0; i < v.x.size(); ++i)
        if (std::abs(v.x[i] - best.x[i]) > o_.x_tolerance) return false;
    return true;
  }

  void step() {
    const std::size_t n = simplex_.size() - 1;
    std::vector<double> centroid(n, 0.0);
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t i = 0; i < n; ++i) centroid[i] += simplex_[k].x[i] / static_cast<double>(n);
    Vertex& worst = simplex_.back();
    const Vertex reflected = eval(along(centroid, worst.x, -1));
    if (reflected.f < simplex_.front().f) {
      const Vertex expanded = eval(along(centroid, worst.x, -kExpand));
      worst = expanded.f < reflected.f ? expanded : reflected;
      return;
    }
    if (reflected.f < simplex_[n - 1].f) {
      worst = reflected;
      return;
    }
    // Contract towards the better of the worst vertex and its reflection.
    const bool outside = reflected.f < worst.f;
    const Vertex contracted = eval(along(centroid, outside ? reflected.x : worst.x, kContract));
    if (contracted.f < (outside ? reflected.f : worst.f)) {
      worst = contracted;
      return;
    }
    for (std::size_t k = 1; k < simplex_.size(); ++k)
      simplex_[k] = eval(along(simplex_.front().x, simplex_[k].x, kShrink));
  }

  const std::function<double(const std::vector<double>&)>& f_;
  const NelderMeadOptions& o_;
  int& evaluations_;
  std::vector<Vertex> simplex_;
};

}  // namespace

NelderMeadResult nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                             const std::vector<double>& start, const NelderMeadOptions& options) {
  if (start.empty()) throw std::logic_error("nelder_mead: no parameters");
  NelderMeadResult r;
  Run run(f, options, r.evaluations);
  Vertex best;
  r.converged = run.descend(start, best);
  for (int i = 0; i < options.restarts && r.evaluations < options.max_evaluations; ++i) {
    Vertex again;
    r.converged = run.descend(best.x, again);
    if (!(again.f < best.f)) break;  // the restart found nothing better
    best = again;
  }
  r.x = best.x;
  r.f = best.f;
  return r;
}

}  // namespace trainsim
