#!/usr/bin/env python3
"""Tests of tools/gpu_time_floor.py: its isotonic regression against exhaustive search on small
orders, and its floors on the shipped measurements.

Run: python3 tools/test_gpu_time_floor.py   (exit 0 when all pass)
"""

import itertools
import os
import random
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpu_time_floor  # noqa: E402


def brute_force(times, below):
    """The least sum of |p_i / t_i - 1| over monotone p taking measured values (an optimal
    weighted L1 isotonic fit can always take them), by trying every assignment."""
    best = float("inf")
    for p in itertools.product(sorted(set(times)), repeat=len(times)):
        if all(p[i] <= p[j] for i in range(len(times)) for j in below[i]):
            best = min(best, sum(abs(p[i] / t - 1) for i, t in enumerate(times)))
    return best


class IsotonicTest(unittest.TestCase):
    def test_in_order_costs_nothing(self):
        self.assertAlmostEqual(gpu_time_floor.isotonic_l1([1.0, 2.0, 3.0], [[1, 2], [2], []]), 0)

    def test_one_inversion(self):
        # The larger op measured 4x faster: both at the faster time costs 1 - 1/4 of the slower.
        self.assertAlmostEqual(gpu_time_floor.isotonic_l1([4.0, 1.0], [[1], []]), 0.75)

    def test_against_exhaustive_search(self):
        rng = random.Random(7)
        for _ in range(200):
            n = rng.randint(2, 5)
            # A random partial order: points of a grid ordered componentwise.
            pts = [(rng.randint(0, 2), rng.randint(0, 2)) for _ in range(n)]
            times = [rng.choice([1.0, 1.5, 2.0, 3.0, 5.0]) for _ in range(n)]
            below = [[j for j in range(n) if j != i and pts[i] != pts[j]
                      and all(a <= b for a, b in zip(pts[i], pts[j]))] for i in range(n)]
            # Rows at one point must be equal: each precedes the other.
            for i, j in itertools.permutations(range(n), 2):
                if pts[i] == pts[j]:
                    below[i].append(j)
            self.assertAlmostEqual(gpu_time_floor.isotonic_l1(times, below),
                                   brute_force(times, below), places=9)

    @staticmethod
    def floors(*args):
        out = subprocess.run([sys.executable, os.path.join(HERE, "gpu_time_floor.py"), *args],
                             capture_output=True, text=True, check=True).stdout
        return {tuple(line.split()[:2]): float(line.split()[3].rstrip("%"))
                for line in out.splitlines()[2:]}

    def test_shipped_measurements(self):
        rows = self.floors()
        self.assertEqual(set(rows), {(p, c) for p in ("fp32", "bf16")
                                     for c in ("gemm", "convolution")})
        # bf16's host-bound GEMMs (13-46 us in no order of size) leave at least 8.9% to any
        # monotone model; fp32's about 3%.
        self.assertGreater(rows[("bf16", "gemm")], 8.9)
        self.assertLess(rows[("fp32", "gemm")], 5)
        # Energy: the same order on the joules, every floor under the 15% target.
        energy = self.floors("--energy")
        self.assertEqual(set(energy), set(rows))
        self.assertGreater(energy[("bf16", "gemm")], 5)
        self.assertLess(max(energy.values()), 15)


if __name__ == "__main__":
    unittest.main()
