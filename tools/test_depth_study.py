#!/usr/bin/env python3
"""Tests of tools/depth_study.py on small real runs (LeNet-5, 128 Fashion-MNIST images).

Run: python3 tools/test_depth_study.py [path/to/trainsim]   (exit 0 when all pass)
"""

import csv
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "depth_study.py")
TRAINSIM = os.path.join(os.path.dirname(HERE), "build", "trainsim")
SMALL = ["--networks", "lenet5", "--seeds", "1,2", "--epochs", "2", "--warmup", "1",
         "--train-limit", "128", "--set", "dataset.test_limit=100"]
KINDS = "bp,zero,adagp,oracle:0.5:1,bp-sample,specbp:0.25"


def run_tool(*args):
    return subprocess.run([sys.executable, TOOL, "--trainsim", TRAINSIM] + SMALL + list(args),
                          capture_output=True, text=True)


class DepthStudyTest(unittest.TestCase):
    def test_kinds_costs_and_tables(self):
        with tempfile.TemporaryDirectory() as tmp:
            out, table = os.path.join(tmp, "runs"), os.path.join(tmp, "cells.csv")
            r = run_tool("--kinds", KINDS, "--out", out, "--csv", table)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("depth_study: [12/12] ", r.stderr)
            with open(table) as f:
                rows = {(int(x["seed"]), x["kind"]): x for x in csv.DictReader(f)}
            self.assertEqual(len(rows), 12)
            c = {k: float(rows[(1, k)]["cycles"]) for k in KINDS.split(",")}
            last = {k: float(rows[(1, k)]["last_cycles"]) for k in KINDS.split(",")}
            # Batched backprop's cost does not depend on the data: the same on both seeds.
            self.assertEqual(rows[(1, "bp")]["cycles"], rows[(2, "bp")]["cycles"])
            self.assertEqual(rows[(1, "bp")]["energy_pj"], rows[(2, "bp")]["energy_pj"])
            # The warm-up epoch is backprop on the same hardware: ADA-GP's second (Phase GP)
            # epoch is the cheaper one, and the run is cheaper than bp's.
            self.assertLess(last["adagp"], c["adagp"] - last["adagp"])
            self.assertLess(c["adagp"], c["bp"])
            # One sample at a time costs more cycles than a batch; speculation hides the
            # backward pass behind the next forward, and with 10 classes a threshold of 0.25
            # never misses (the mean absolute difference of two distributions is <= 0.2).
            self.assertGreater(c["bp-sample"], c["bp"])
            self.assertLess(c["specbp:0.25"], c["bp-sample"])
            self.assertEqual(float(rows[(1, "specbp:0.25")]["hit_rate"]), 1.0)
            self.assertEqual(rows[(1, "bp")]["hit_rate"], "")
            # The table: every kind, its control, paired differences and ratios.
            for text in ("**lenet5**", "| zero |", "| adagp (control: zero) |",
                         "| oracle:0.5:1 (control: zero) |",
                         "| specbp:0.25 (control: bp-sample) |", "±", "1.0000 |"):
                self.assertIn(text, r.stdout)
            line = [x for x in r.stdout.splitlines() if x.startswith("| specbp:0.25")][0]
            speed_vs_control = line.split("|")[10].split("/")[0]
            self.assertAlmostEqual(float(speed_vs_control),
                                   c["bp-sample"] / c["specbp:0.25"], places=3)
            # The tables again from the CSV, without training: the same text.
            tab = run_tool("--from-csv", table)
            self.assertEqual(tab.returncode, 0, tab.stderr)
            self.assertEqual(tab.stdout, r.stdout)
            # --reuse keeps the runs of the same command.
            again = run_tool("--kinds", "bp,adagp", "--out", out, "--reuse")
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assertEqual(again.stderr.count("(reused)"), 4, again.stderr)

    def test_bad_arguments(self):
        r = run_tool("--kinds", "bp,specbp:x,oracle:1")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("unknown kind(s) specbp:x, oracle:1", r.stderr)
        r = run_tool("--warmup", "2")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("warmup < epochs", r.stderr)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        TRAINSIM = sys.argv.pop(1)
    unittest.main()
