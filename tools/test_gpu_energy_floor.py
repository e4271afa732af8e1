#!/usr/bin/env python3
"""Tests of tools/gpu_energy_floor.py: its split of a model's energy error into power and time
on a small gpu_ops.csv whose errors are known, and its run on the shipped measurements.

Run: python3 tools/test_gpu_energy_floor.py   (exit 0 when all pass)
"""

import csv
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpu_energy_floor  # noqa: E402

FIELDS = ["precision", "class", "seconds", "joules", "model_seconds", "model_joules"]


def write_ops(directory, rows):
    path = os.path.join(directory, "gpu_ops.csv")
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow(dict(zip(FIELDS, r)))
    return path


class PowerSplitTest(unittest.TestCase):
    def test_known_errors(self):
        with tempfile.TemporaryDirectory() as tmp:  # its own directory, removed whole
            split = gpu_energy_floor.power_split(write_ops(tmp, [
                # measured 1 ms at 400 W; model 1.1 ms at 500 W: time +10%, power +25%,
                # energy 0.55 J against 0.4 J: +37.5%
                ("fp32", "conv", 1e-3, 0.4, 1.1e-3, 0.55),
                # exact in power, time -20% (so energy -20%)
                ("fp32", "conv", 2e-3, 0.6, 1.6e-3, 0.48),
                # left out: energy did not move; above the limit
                ("fp32", "conv", 1e-3, 0.0, 1e-3, 0.3),
                ("fp32", "conv", 1e-3, 0.9, 1e-3, 0.3),
                # an element-wise class counts as element-wise
                ("bf16", "map", 1e-3, 0.3, 1e-3, 0.3),
            ]), 700)
        n, power, energy, time = split[("fp32", "conv")]
        self.assertEqual(n, 2)
        self.assertAlmostEqual(power, (25 + 0) / 2)
        self.assertAlmostEqual(energy, (37.5 + 20) / 2)
        self.assertAlmostEqual(time, (10 + 20) / 2)
        self.assertEqual(split[("bf16", "element-wise")], (1, 0.0, 0.0, 0.0))


class ShippedDataTest(unittest.TestCase):
    def test_runs_on_the_measurements(self):
        out = subprocess.run([sys.executable, os.path.join(HERE, "gpu_energy_floor.py")],
                             capture_output=True, text=True, check=True).stdout
        self.assertIn("mean difference", out)
        self.assertIn("fp32      convolution", out)


if __name__ == "__main__":
    unittest.main()
