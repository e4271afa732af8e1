#!/usr/bin/env python3
"""Tests of tools/plot on tiny synthetic run and compare directories.

Run: python3 tools/test_plot.py   (exit status 0 when all tests pass)
"""

import importlib.machinery
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT = os.path.join(HERE, "plot")
DEBIAN_PYTHON = "/usr/bin/python3"


def _reexec_if_no_matplotlib():
    """Same policy as tools/plot: a pyenv/venv python without matplotlib re-runs
    this file under Debian's python3 (python3-matplotlib)."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get("TRAINSIM_PLOT_REEXEC") != "1" and os.access(DEBIAN_PYTHON, os.X_OK):
        os.environ["TRAINSIM_PLOT_REEXEC"] = "1"
        os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
    sys.exit("test_plot: matplotlib is not installed (apt-get install python3-matplotlib)")


_reexec_if_no_matplotlib()


def load_plot_module():
    loader = importlib.machinery.SourceFileLoader("trainsim_plot", PLOT)
    spec = importlib.util.spec_from_loader("trainsim_plot", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


plot = load_plot_module()

# epochs.csv: the columns every run kind opens with, then the kind's extras.
COMMON_EPOCHS = ("epoch,train_loss,train_accuracy,test_loss,test_accuracy,seconds,"
                 "samples_per_second,energy,energy_unit")
EPOCHS_HEADER = (COMMON_EPOCHS + ",batches,cycles,dram_bytes,eval_cycles,eval_energy_pj,"
                 "step_cycles,hit_rate")
LAYERS_HEADER = ("phase,layer,name,type,role,ops,macs,cycles,compute_cycles,stall_cycles,"
                 "utilization,rf_reads,rf_writes,noc_transfers,buffer_reads,buffer_writes,"
                 "dram_bytes,energy_pj")
COMPARE_HEADER = ("variant,dataflow,technique,cycles,seconds,energy_pj,energy_unit,dram_bytes,"
                  "utilization,test_accuracy,speedup,cycles_rel,energy_rel,dram_rel,"
                  "utilization_rel")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def make_run_dir(path, dataflow="ws", scale=1.0, epochs=3, unit="pJ", fc_name="fc1"):
    """A run directory shaped like `trainsim run` output (few layers, all roles); energy in
    `unit` (its columns named by it, as trainsim names them)."""
    suffix = {"pJ": "_pj", "normalized": "_norm"}[unit]
    lines = [EPOCHS_HEADER.replace("_pj", suffix)]
    for e in range(1, epochs + 1):
        acc = 0.5 + 0.1 * e
        lines.append(f"{e},{2.0 / e:.6f},{acc - 0.05:.6f},{1.8 / e:.6f},{acc:.6f},"
                     f"{1e-6 * scale:.9g},{6e7 / scale:.6g},{3e6 * scale:.6e},{unit},10,"
                     f"{int(1000 * scale)},40000,100,1e5,1000.000,")
    write(os.path.join(path, "epochs.csv"), "\n".join(lines) + "\n")

    layers = [LAYERS_HEADER.replace("_pj", suffix)]
    spec = [
        (0, "conv1", "conv2d", ("fw", "bwd-weight", "update")),
        (1, "relu1", "relu", ("fw", "act-grad")),
        (3, fc_name, "dense", ("fw", "bwd-data", "bwd-weight", "update")),
        (4, "softmax4", "softmax", ("fw", "act-grad")),
    ]
    for idx, name, typ, roles in spec:
        cell = '"' + name.replace('"', '""') + '"' if any(c in name for c in ',"') else name
        for k, role in enumerate(roles):
            cyc = int((idx + 1) * (k + 1) * 100 * scale)
            layers.append(f"train,{idx},{cell},{typ},{role},10,1000,{cyc},{cyc},0,0.5,"
                          f"1,1,1,1,1,64,{cyc * 1000.0:.6e}")
        layers.append(f"eval,{idx},{cell},{typ},fw,1,100,50,50,0,0.5,1,1,1,1,1,64,5.0e+04")
    write(os.path.join(path, "layers.csv"), "\n".join(layers) + "\n")

    energy = {"unit": unit, "mac": 1e6, "rf": 4e6, "noc": 3e6, "buffer": 1e6,
              "dram": 4e7 * scale, "vector": 2e4, "leakage": 3e5}
    energy["total"] = sum(v for k, v in energy.items() if k != "unit")
    stats = {
        "kind": "run",
        "schema_version": 2,
        "experiment": "synthetic",
        "accelerator": {"name": "tiny_acc", "array": "2x2", "pes": 4, "dataflow": dataflow},
        "technique": "bp",
        "network": {"name": "toy_net", "parameters": 10},
        "dataset": {"name": "toyset", "train_samples": 10, "test_samples": 10},
        "totals": {"train": {"energy": energy}, "eval": {"energy": energy}},
    }
    write(os.path.join(path, "stats.json"), json.dumps(stats))
    write(os.path.join(path, "config.resolved.yaml"), f"name: synthetic\ndataflow: {dataflow}\n")


def make_system_dir(path, events=None):
    """A system run directory as `trainsim run` with `system:` writes it (the files
    tools/plot reads): a Chrome-trace timeline of two devices and one link, devices.csv."""
    os.makedirs(path, exist_ok=True)
    if events is None:
        events = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "dev0"}},
                  {"name": "thread_name", "ph": "M", "pid": 0, "tid": 1, "args": {"name": "dev1"}},
                  {"name": "thread_name", "ph": "M", "pid": 0, "tid": 2,
                   "args": {"name": "dev0->dev1"}},
                  {"name": "F b0 m0 s0", "cat": "F", "ph": "X", "ts": 0, "dur": 1.0, "pid": 0,
                   "tid": 0},
                  {"name": "to F b0 m0 s1", "cat": "transfer", "ph": "X", "ts": 1.0, "dur": 0.1,
                   "pid": 0, "tid": 2},
                  {"name": "F b0 m0 s1", "cat": "F", "ph": "X", "ts": 1.1, "dur": 1.0, "pid": 0,
                   "tid": 1},
                  {"name": "B b0 m0 s1", "cat": "B", "ph": "X", "ts": 2.1, "dur": 2.0, "pid": 0,
                   "tid": 1}]
    with open(os.path.join(path, "timeline.json"), "w") as f:
        json.dump({"traceEvents": events, "displayTimeUnit": "ns"}, f)
    with open(os.path.join(path, "devices.csv"), "w") as f:
        f.write("device,busy_seconds,idle_seconds\n0,1.0e-6,3.1e-6\n1,3.0e-6,1.1e-6\n")


def make_hype_dir(path, power=None):
    """A run directory of a hype: system (the files tools/plot reads): the system timeline
    of make_system_dir, power.csv, placement.csv and stats.json with a cap."""
    make_system_dir(path)
    with open(os.path.join(path, "power.csv"), "w") as f:
        f.write(power if power is not None else
                "run,t_s,avg_w,peak_w\npolicy,0,100,110\npolicy,1e-6,220,235\npolicy,3e-6,100,110\n"
                "gpu-only,0,260,280\ngpu-only,4e-6,260,280\n")
    with open(os.path.join(path, "placement.csv"), "w") as f:
        f.write("type,ops,offloaded,ops_offloaded_pct,gpu_s,offloaded_gpu_s,time_offloaded_pct\n"
                "all,3,1,33.33,4e-6,1e-6,25.00\n")
    with open(os.path.join(path, "stats.json"), "w") as f:
        json.dump({"kind": "hype", "schema_version": 2, "experiment": "toy", "policy": "power-cap",
                   "system": {"power_cap_w": 230}}, f)


def make_sweep_dir(path, rows=None):
    """A sweep directory as `trainsim sweep` writes it: sweep.csv with two axes."""
    os.makedirs(path, exist_ok=True)
    header = ("id,dataflow,accelerator.array.rows,status,seconds,cycles,energy,energy_unit,"
              "dram_bytes,utilization,test_accuracy,speedup,pareto,error\n")
    if rows is None:
        rows = ["a1,ws,8,done,10,1e10,5e12,pJ,1e9,0.5,,1.0,0,",
                "a2,ws,16,done,4,4e9,6e12,pJ,1e9,0.6,,2.5,1,",
                "a3,rs,8,done,12,1.2e10,3e12,pJ,1e9,0.4,,0.8,1,",
                "a4,rs,16,failed,,,,,,,,,,\"buffer too small, 1 KiB\""]
    with open(os.path.join(path, "sweep.csv"), "w") as f:
        f.write(header + "\n".join(rows) + "\n")


def make_compare_dir(path, variants=("ws", "os", "rs")):
    rows = [COMPARE_HEADER]
    for i, v in enumerate(variants):
        scale = 1.0 + 0.3 * i
        make_run_dir(os.path.join(path, v), dataflow=v, scale=scale)
        rows.append(f"{v},{v},bp,{int(3000 * scale)},{3e-6 * scale:.9g},{9e6 * scale:.6e},pJ,"
                    f"120000,0.5,0.8,{1 / scale:.6f},{scale:.6f},{scale:.6f},1.0,1.0")
    write(os.path.join(path, "compare.csv"), "\n".join(rows) + "\n")


def make_technique_tables(path, variants, epochs=3, speculating=None):
    """The four per-epoch tables of `trainsim compare --techniques`, one column per
    variant; variants not in `speculating` (default: all but the first) get empty
    hit-rate cells, as techniques that do not speculate do."""
    if speculating is None:
        speculating = variants[1:]
    tables = {"time": [], "accuracy": [], "step": [], "hit_rate": []}
    for e in range(1, epochs + 1):
        cells = {k: [str(e)] for k in tables}
        for i, v in enumerate(variants):
            step = 8.0 / (1 + 0.2 * i) - 0.01 * e * i
            cells["step"].append(f"{step:.6g}")
            cells["time"].append(f"{66.0 * e / (1 + 0.2 * i):.6g}")
            cells["accuracy"].append(f"{88 + e - 0.5 * i:.6g}")
            cells["hit_rate"].append(f"{0.7 + 0.05 * e:.6g}" if v in speculating else "")
        for k in tables:
            tables[k].append(",".join(cells[k]))
    for k, lines in tables.items():
        write(os.path.join(path, f"table_{k}.csv"),
              "\n".join(["epoch," + ",".join(variants)] + lines) + "\n")


def make_technique_compare_dir(path, variants=("bp-sample", "specbp@0.1", "specbp@0.25"),
                               speculating=None):
    make_compare_dir(path, variants=variants)
    make_technique_tables(path, list(variants), speculating=speculating)


SHAPE_EPOCHS_HEADER = (COMMON_EPOCHS + ",backprop_batches,phase_bp_batches,phase_gp_batches,"
                       "cycles,dram_bytes,memory_energy_pj,eval_cycles,eval_energy_pj")
SHAPE_COMPARE_HEADER = COMPARE_HEADER + ",memory_energy_pj,memory_energy_rel"
SHAPE_RUN_PNGS = ["epochs.png", "layers_cycles.png", "layers_energy.png", "energy_levels.png"]


def make_shape_run_dir(path, technique="adagp-max", scale=1.0, epochs=4, numerics_key=True):
    """A run directory shaped like `trainsim run` of a `numerics: none` experiment:
    epochs.csv with empty accuracy and loss cells (batches per kind), batch_layers.csv
    instead of layers.csv, phases.csv, and a stats.json whose accelerator is a name.
    ADA-GP: one warm-up epoch of backprop, then Phase BP and Phase GP batches."""
    lines = [SHAPE_EPOCHS_HEADER]
    for e in range(1, epochs + 1):
        if technique == "bp" or e == 1:
            bp, pbp, pgp = 10, 0, 0
        else:
            bp, pbp, pgp = 0, 3, 7
        cyc = int((1000 * bp + 1000 * pbp + 400 * pgp) * scale)
        lines.append(f"{e},,,,,{cyc * 1e-9:.9g},{6e4 / (cyc * 1e-9):.6g},{3e3 * cyc:.6e},pJ,"
                     f"{bp},{pbp},{pgp},{cyc},{50 * cyc},{2e3 * cyc:.6e},500,1.5e+06")
    write(os.path.join(path, "epochs.csv"), "\n".join(lines) + "\n")
    write(os.path.join(path, "phases.csv"),
          "kind,batch_size,batches,cycles_per_batch,dram_bytes_per_batch,energy_per_batch_pj,"
          "memory_energy_per_batch_pj,cycles,energy_pj\n"
          "backprop,32,10,1000,50000,3e+06,2e+06,10000,3e+07\n")

    layers = [LAYERS_HEADER]
    roles = ("fw", "bwd-data", "bwd-weight", "update")
    if technique != "bp":
        roles += ("pred-fw", "pred-bw", "pred-update")
    for idx, name, typ in ((0, "conv1", "conv2d"), (1, "relu1", "relu"), (2, "fc1", "dense")):
        for k, role in enumerate(roles if typ != "relu" else ("fw", "act-grad")):
            cyc = int((idx + 1) * (k + 1) * 100 * scale)
            layers.append(f"train,{idx},{name},{typ},{role},10,1000,{cyc},{cyc},0,0.5,"
                          f"1,1,1,1,1,64,{cyc * 1000.0:.6e}")
        layers.append(f"eval,{idx},{name},{typ},fw,1,100,50,50,0,0.5,1,1,1,1,1,64,5.0e+04")
    write(os.path.join(path, "batch_layers.csv"), "\n".join(layers) + "\n")

    energy = {"unit": "pJ", "mac": 1e6, "rf": 4e6, "noc": 3e6, "buffer": 1e6,
              "dram": 4e7 * scale, "vector": 2e4, "leakage": 3e5}
    energy["total"] = sum(v for k, v in energy.items() if k != "unit")
    stats = {
        "experiment": "synthetic_shape",
        "numerics": "none",
        "accelerator": "tiny_acc",
        "dataflow": "ws",
        "technique": technique,
        "network": {"name": "toy_net", "parameters": 10, "forward_macs_per_sample": 100},
        "dataset": {"name": "cifar10", "train_samples": 320, "test_samples": 100},
        "batch_size": 32,
        "epochs": epochs,
        "totals": {"train": {"energy": energy}, "eval": {"energy": energy}},
    }
    if not numerics_key:
        del stats["numerics"]
    write(os.path.join(path, "stats.json"), json.dumps(stats))
    write(os.path.join(path, "config.resolved.yaml"), "name: synthetic_shape\nnumerics: none\n")


def make_shape_compare_dir(path, variants=("bp", "adagp-max", "adagp-low"), tables=True,
                           epochs=4):
    """`trainsim compare --techniques` of a shape-only experiment: compare.csv with
    empty test_accuracy cells, shape-only variant run directories and, with `tables`,
    the four per-epoch tables with empty accuracy and hit-rate cells."""
    rows = [SHAPE_COMPARE_HEADER]
    for i, v in enumerate(variants):
        scale = 1.0 / (1.0 + 0.4 * i)
        make_shape_run_dir(os.path.join(path, v), technique=v, scale=scale, epochs=epochs)
        rows.append(f"{v},ws,{v},{int(30000 * scale)},{3e-5 * scale:.9g},{9e7 * scale:.6e},pJ,"
                    f"{int(1.2e6 * scale)},0.8,,{1 / scale:.6f},{scale:.6f},{scale:.6f},"
                    f"{scale:.6f},1.0,{6e7 * scale:.6e},{scale:.6f}")
    write(os.path.join(path, "compare.csv"), "\n".join(rows) + "\n")
    if tables:
        make_technique_tables(path, list(variants), epochs=epochs, speculating=())
        # Shape only: no accuracy, so every accuracy cell is empty.
        write(os.path.join(path, "table_accuracy.csv"),
              "\n".join(["epoch," + ",".join(variants)]
                        + [str(e) + "," * len(variants) for e in range(1, epochs + 1)])
              + "\n")


def pngs_under(path):
    found = []
    for root, _, files in os.walk(path):
        found += [os.path.join(root, f) for f in files if f.endswith(".png")]
    return found


class PlotTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="trainsim_plot_test_")
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def assert_pngs(self, paths, out_dir, names):
        self.assertEqual(sorted(os.path.basename(p) for p in paths), sorted(names))
        for name in names:
            p = os.path.join(out_dir, name)
            self.assertTrue(os.path.isfile(p), p)
            self.assertGreater(os.path.getsize(p), 1000, p)
            with open(p, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", p)
        leftovers = [f for f in os.listdir(out_dir) if not f.endswith(".png")]
        self.assertEqual(leftovers, [], "temporary files left behind")

    def run_cli(self, *args):
        return subprocess.run([sys.executable, PLOT, *args], capture_output=True, text=True,
                              timeout=300)

    # -- plotting functions, in process -------------------------------------------------

    def test_run_directory(self):
        run = os.path.join(self.tmp, "run")
        make_run_dir(run)
        self.assertEqual(plot.detect(run), "run")
        paths = plot.plot_dir(run)
        self.assert_pngs(paths, os.path.join(run, "plots"),
                         ["accuracy.png", "layers_cycles.png", "layers_energy.png",
                          "energy_levels.png"])

    def test_plots_join_the_manifest(self):
        # A results directory's manifest lists the plots, so that `trainsim ... --force`
        # may still replace the directory (it replaces only what the manifest lists).
        run = os.path.join(self.tmp, "run")
        make_run_dir(run)
        header = "# trainsim results directory: the files trainsim wrote here"
        with open(os.path.join(run, ".trainsim-manifest"), "w") as f:
            f.write(header + "\nepochs.csv\n")
        plot.plot_dir(run)
        with open(os.path.join(run, ".trainsim-manifest")) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], header)
        self.assertEqual(lines[1:], sorted(lines[1:]))
        for entry in ["epochs.csv", "plots/", "plots/accuracy.png", "plots/energy_levels.png"]:
            self.assertIn(entry, lines)
        # Plots written elsewhere are not the directory's.
        plot.plot_dir(run, os.path.join(self.tmp, "elsewhere"))
        with open(os.path.join(run, ".trainsim-manifest")) as f:
            self.assertEqual(f.read().splitlines(), lines)
        # Not while a trainsim process holds the directory's lock (it is being written).
        import fcntl
        lock = os.path.join(os.path.realpath(self.tmp), ".run.trainsim-lock")
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            with self.assertRaises(plot.PlotError) as caught:
                plot.plot_dir(run)
            self.assertIn("is writing it", str(caught.exception))
        finally:
            os.close(fd)
            os.unlink(lock)
        plot.plot_dir(run)
        self.assertFalse(os.path.exists(lock))  # the lock file goes with the lock
        # A directory without a manifest gets none.
        bare = os.path.join(self.tmp, "bare")
        make_run_dir(bare)
        plot.plot_dir(bare)
        self.assertFalse(os.path.exists(os.path.join(bare, ".trainsim-manifest")))

    def test_stated_kind(self):
        # stats.json names its run kind (schema_version 2): plot reads it, and says which of
        # that kind's files are missing rather than guessing another kind.
        run = os.path.join(self.tmp, "kinded")
        make_run_dir(run)
        self.assertEqual(plot.detect(run), "run")
        os.remove(os.path.join(run, "epochs.csv"))
        with self.assertRaises(plot.PlotError) as caught:
            plot.detect(run)
        self.assertIn("run directory lacks epochs.csv", str(caught.exception))
        hd = os.path.join(self.tmp, "kinded_hype")
        make_hype_dir(hd)
        os.remove(os.path.join(hd, "power.csv"))
        with self.assertRaises(plot.PlotError) as caught:
            plot.detect(hd)
        self.assertIn("hype directory lacks power.csv", str(caught.exception))
        with open(os.path.join(hd, "stats.json"), "w") as f:
            json.dump({"kind": "quantum", "schema_version": 9}, f)
        with self.assertRaises(plot.PlotError) as caught:
            plot.detect(hd)
        self.assertIn("unknown run kind 'quantum'", str(caught.exception))
        # Before the kind (schema_version 1) the files beside stats.json decide.
        legacy = os.path.join(self.tmp, "legacy")
        make_run_dir(legacy)
        spath = os.path.join(legacy, "stats.json")
        with open(spath) as f:
            stats = json.load(f)
        del stats["kind"], stats["schema_version"]
        with open(spath, "w") as f:
            json.dump(stats, f)
        self.assertEqual(plot.detect(legacy), "run")

    def test_system_directory(self):
        sysd = os.path.join(self.tmp, "system")
        make_system_dir(sysd)
        self.assertEqual(plot.detect(sysd), "system")
        paths = plot.plot_dir(sysd)
        self.assert_pngs(paths, os.path.join(sysd, "plots"), ["gantt.png", "devices.png"])

    def test_hype_directory(self):
        hd = os.path.join(self.tmp, "hype")
        make_hype_dir(hd)
        self.assertEqual(plot.detect(hd), "hype")
        paths = plot.plot_dir(hd)
        self.assert_pngs(paths, os.path.join(hd, "plots"), ["power.png", "gantt.png"])
        bad = os.path.join(self.tmp, "hype_bad")
        make_hype_dir(bad, power="run,t_s,avg_w,peak_w\ngpu-only,0,x,1\n")
        with self.assertRaises(plot.PlotError):
            plot.plot_dir(bad)
        self.assertFalse(os.path.exists(os.path.join(bad, "plots")))

    def test_system_compare_directory(self):
        # `trainsim compare --systems`: seconds, joules and watts per placement policy.
        d = os.path.join(self.tmp, "hype_compare")
        header = ("variant,seconds,samples_per_s,energy_j,avg_w,peak_w,violations,"
                  "test_accuracy,speedup,energy_efficiency_rel,avg_w_rel\n")
        write(os.path.join(d, "compare.csv"),
              header + "gpu-only,693.7,1846.8,135055.4,194.7,273.3,0,,1.0,1.0,1.0\n"
                       "hype,640.0,2001.9,118881.9,185.8,303.3,2,,1.084,1.136,0.954\n")
        paths = plot.plot_dir(d)
        self.assert_pngs(paths, os.path.join(d, "plots"), ["compare.png"])

    def test_system_compare_errors(self):
        header = ("variant,seconds,samples_per_s,energy_j,avg_w,peak_w,violations,"
                  "test_accuracy,speedup,energy_efficiency_rel,avg_w_rel\n")
        bad = os.path.join(self.tmp, "hype_compare_bad")
        write(os.path.join(bad, "compare.csv"),
              header + "gpu-only,693.7,1846.8,-1,194.7,273.3,0,,1.0,1.0,1.0\n")
        self.assertIn("compare.csv:2", self.assert_cli_error(bad))

    def test_sweep_directory(self):
        sw = os.path.join(self.tmp, "sweep")
        make_sweep_dir(sw)
        self.assertEqual(plot.detect(sw), "sweep")
        notes = []
        paths = plot.plot_dir(sw, notes=notes)
        self.assert_pngs(paths, os.path.join(sw, "plots"), ["pareto.png", "axes.png"])
        self.assertTrue(any("dataflow=ws accelerator.array.rows=16" in n for n in notes), notes)
        self.assertFalse(any("rows=8 (10 s" in n for n in notes), notes)  # dominated
        # The failed point is named, not dropped silently.
        self.assertTrue(any("1 failed point(s) not drawn: a4" in n for n in notes), notes)
        sw_data = plot.SweepData(sw)
        fig = plot.plot_pareto(sw_data)
        ax = fig.axes[0]
        self.assertIn("1 failed (not drawn): a4", ax.get_title())
        self.assertEqual(ax.get_ylabel(), "energy (J)")  # 5e12 pJ, not 1e12 with an offset
        plot.plt.close(fig)

    def test_sweep_directory_all_failed(self):
        sw = os.path.join(self.tmp, "sweep_failed")
        make_sweep_dir(sw, rows=["a4,rs,16,failed,,,,,,,,,,oops"])
        with self.assertRaises(plot.PlotError):
            plot.plot_dir(sw)

    def test_system_directory_errors(self):
        bad = os.path.join(self.tmp, "system_bad")
        make_system_dir(bad, events=[{"ph": "X", "tid": 0, "ts": "soon", "dur": 1}])
        with self.assertRaises(plot.PlotError):
            plot.plot_dir(bad)
        empty = os.path.join(self.tmp, "system_empty")
        make_system_dir(empty, events=[])
        with self.assertRaises(plot.PlotError):
            plot.plot_dir(empty)
        os.remove(os.path.join(empty, "devices.csv"))
        with self.assertRaises(plot.PlotError):
            plot.detect(empty)

    def test_single_epoch_run(self):
        run = os.path.join(self.tmp, "run1")
        make_run_dir(run, epochs=1)
        out = os.path.join(self.tmp, "out1")
        paths = plot.plot_dir(run, out)
        self.assert_pngs(paths, out, ["accuracy.png", "layers_cycles.png", "layers_energy.png",
                                      "energy_levels.png"])

    def test_compare_directory(self):
        cmp_dir = os.path.join(self.tmp, "cmp")
        make_compare_dir(cmp_dir)
        self.assertEqual(plot.detect(cmp_dir), "compare")
        out = os.path.join(self.tmp, "cmp_plots")
        paths = plot.plot_dir(cmp_dir, out)
        self.assert_pngs(paths, out, ["compare.png", "compare_accuracy.png"])

    def test_technique_tables(self):
        cmp_dir = os.path.join(self.tmp, "tech")
        make_technique_compare_dir(cmp_dir)  # bp-sample has no hit rates
        out = os.path.join(self.tmp, "tech_plots")
        paths = plot.plot_dir(cmp_dir, out)
        self.assert_pngs(paths, out, ["compare.png", "compare_accuracy.png",
                                      "techniques.png", "hit_rate.png"])
        tables = plot.CompareData(cmp_dir).tables
        self.assertEqual(tables.epochs, [1, 2, 3])
        self.assertEqual(tables.speculating, ["specbp@0.1", "specbp@0.25"])
        self.assertEqual(tables.speedup("time", "bp-sample"), [1.0, 1.0, 1.0])
        self.assertAlmostEqual(tables.speedup("time", "specbp@0.25")[-1], 1.4, places=4)
        self.assertTrue(all(math.isnan(h) for h in tables.data["hit_rate"]["bp-sample"]))

    def test_technique_tables_without_speculation(self):
        # No variant speculates: techniques.png but no (empty) hit_rate.png.
        cmp_dir = os.path.join(self.tmp, "tech")
        make_technique_compare_dir(cmp_dir, variants=("bp", "bp-sample"), speculating=())
        out = os.path.join(self.tmp, "tech_plots")
        paths = plot.plot_dir(cmp_dir, out)
        self.assert_pngs(paths, out, ["compare.png", "compare_accuracy.png",
                                      "techniques.png"])

    def test_technique_tables_single_epoch(self):
        cmp_dir = os.path.join(self.tmp, "tech1")
        make_compare_dir(cmp_dir, variants=("bp-sample", "specbp@0.25"))
        make_technique_tables(cmp_dir, ["bp-sample", "specbp@0.25"], epochs=1)
        out = os.path.join(self.tmp, "tech1_plots")
        paths = plot.plot_dir(cmp_dir, out)
        self.assert_pngs(paths, out, ["compare.png", "compare_accuracy.png",
                                      "techniques.png", "hit_rate.png"])

    def test_run_data_contents(self):
        run = os.path.join(self.tmp, "run")
        make_run_dir(run)
        data = plot.RunData(run)
        self.assertEqual([data.layers[i]["name"] for i in sorted(data.layers)],
                         ["conv1", "relu1", "fc1", "softmax4"])
        self.assertEqual(data.roles, ["fw", "bwd-data", "bwd-weight", "update", "act-grad"])
        self.assertNotIn("bwd-data", data.layers[0]["cycles"])  # eval rows ignored too
        self.assertEqual(data.layers[0]["cycles"]["fw"], 100)
        self.assertIn("dram", data.energy)
        self.assertNotIn("total", data.energy)

    def test_normalized_energy_is_never_labelled_in_joules(self):
        run = os.path.join(self.tmp, "norm")
        make_run_dir(run, unit="normalized")
        data = plot.RunData(run)
        self.assertEqual(data.energy_unit, "normalized")
        fig = plot.plot_layers(data, "energy")
        labels = [fig.axes[0].get_xlabel(), fig.axes[0].get_title()]
        labels += [t.get_text() for t in fig.axes[0].texts]
        self.assertIn("energy (normalized)", labels[0])
        for text in labels:
            self.assertNotRegex(text, r"(?<![a-zA-Z])(µJ|mJ|nJ|pJ|J)\b")
        paths = plot.plot_dir(run)
        self.assertIn(os.path.join(run, "plots", "layers_energy.png"), paths)
        # A pJ run is rescaled to readable joule units.
        pj = os.path.join(self.tmp, "pj")
        make_run_dir(pj)
        self.assertIn("J)", plot.plot_layers(plot.RunData(pj), "energy").axes[0].get_xlabel())

    def test_energy_unit_must_agree_between_csv_and_stats(self):
        run = os.path.join(self.tmp, "mixed")
        make_run_dir(run, unit="normalized")
        stats_path = os.path.join(run, "stats.json")
        with open(stats_path, encoding="utf-8") as f:
            stats = json.load(f)
        stats["totals"]["train"]["energy"]["unit"] = "pJ"
        write(stats_path, json.dumps(stats))
        with self.assertRaisesRegex(plot.PlotError, "energy in normalized"):
            plot.RunData(run)

    def test_layer_names_with_commas_and_quotes(self):
        run = os.path.join(self.tmp, "commas")
        make_run_dir(run, fc_name='fc,1 "x"')
        data = plot.RunData(run)
        self.assertEqual(data.layers[3]["name"], 'fc,1 "x"')
        self.assertIn(os.path.join(run, "plots", "layers_cycles.png"), plot.plot_dir(run))

    def test_malformed_raises(self):
        run = os.path.join(self.tmp, "run")
        make_run_dir(run)
        with open(os.path.join(run, "epochs.csv"), "a", encoding="utf-8") as f:
            f.write("4,10,oops,0.1,0.1,0.1,1,1,1,1,1,1\n")
        with self.assertRaises(plot.PlotError):
            plot.plot_dir(run)
        self.assertEqual(pngs_under(self.tmp), [])

    # -- shape-only experiments (numerics: none): no accuracy ---------------------------

    def test_shape_only_compare_directory(self):
        cmp_dir = os.path.join(self.tmp, "shape_cmp")
        make_shape_compare_dir(cmp_dir)
        self.assertEqual(plot.detect(cmp_dir), "compare")
        data = plot.CompareData(cmp_dir)
        self.assertTrue(data.shape_only)
        self.assertEqual([v["test_accuracy"] for v in data.variants], [None] * 3)
        self.assertAlmostEqual(data.variants[2]["speedup"], 1.8, places=3)
        self.assertEqual(data.tables.speculating, [])
        self.assertTrue(all(math.isnan(a) for a in data.tables.data["accuracy"]["bp"]))
        out = os.path.join(self.tmp, "shape_cmp_plots")
        notes = []
        paths = plot.plot_dir(cmp_dir, out, notes)
        self.assert_pngs(paths, out, ["compare.png", "techniques.png"])
        self.assertFalse(os.path.exists(os.path.join(out, "compare_accuracy.png")))
        self.assertTrue(any("skipped compare_accuracy.png" in n and "numerics: none" in n
                            for n in notes), notes)

    def test_shape_only_compare_without_tables(self):
        # `compare --dataflows` of a shape-only experiment: no per-epoch tables.
        cmp_dir = os.path.join(self.tmp, "shape_df")
        make_shape_compare_dir(cmp_dir, variants=("ws", "os"), tables=False, epochs=1)
        out = os.path.join(self.tmp, "shape_df_plots")
        paths = plot.plot_dir(cmp_dir, out)
        self.assert_pngs(paths, out, ["compare.png"])

    def test_shape_only_run_directory(self):
        run = os.path.join(self.tmp, "shape_run")
        make_shape_run_dir(run)
        self.assertEqual(plot.detect(run), "run")
        data = plot.RunData(run)
        self.assertTrue(data.shape_only)
        self.assertEqual(data.epochs[1]["batches"],
                         {"backprop": 0, "phase_bp": 3, "phase_gp": 7})
        self.assertIn("pred-fw", data.roles)
        notes = []
        paths = plot.plot_dir(run, notes=notes)
        out = os.path.join(run, "plots")
        self.assert_pngs(paths, out, SHAPE_RUN_PNGS)
        self.assertFalse(os.path.exists(os.path.join(out, "accuracy.png")))
        self.assertTrue(any("skipped accuracy.png" in n for n in notes), notes)

    def test_shape_only_run_variants(self):
        # bp (only backprop batches), a single epoch, and a stats.json without the
        # numerics key (recognised by batch_layers.csv instead of layers.csv).
        for name, kwargs in (("bp", {"technique": "bp"}), ("one", {"epochs": 1}),
                             ("nokey", {"numerics_key": False})):
            run = os.path.join(self.tmp, "shape_" + name)
            make_shape_run_dir(run, **kwargs)
            self.assertTrue(plot.RunData(run).shape_only, name)
            out = os.path.join(self.tmp, "out_" + name)
            self.assert_pngs(plot.plot_dir(run, out), out, SHAPE_RUN_PNGS)

    def test_cli_shape_only(self):
        cmp_dir = os.path.join(self.tmp, "shape_cmp")
        make_shape_compare_dir(cmp_dir)
        r = self.run_cli(cmp_dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = os.path.join(cmp_dir, "plots")
        self.assertEqual(sorted(r.stdout.split()),
                         sorted(os.path.join(out, n) for n in ("compare.png", "techniques.png")))
        self.assertIn("note: skipped compare_accuracy.png", r.stderr)
        # A variant's own run directory plots too.
        r = self.run_cli(os.path.join(cmp_dir, "adagp-max"), "--out",
                         os.path.join(self.tmp, "variant"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.path.basename(p) for p in r.stdout.split()),
                         sorted(SHAPE_RUN_PNGS))
        self.assertIn("note: skipped accuracy.png", r.stderr)

    def test_cli_shape_only_errors(self):
        def edit_csv(path, row, col, text):
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
            fields = lines[row].split(",")
            fields[col] = text
            lines[row] = ",".join(fields)
            write(path, "\n".join(lines) + "\n")

        def shape_cmp(name):
            d = os.path.join(self.tmp, name)
            make_shape_compare_dir(d)
            return d

        def shape_run(name):
            d = os.path.join(self.tmp, name)
            make_shape_run_dir(d)
            return d

        acc_col = COMPARE_HEADER.split(",").index("test_accuracy")
        # Shape-only and trained variants mixed in compare.csv (either way round).
        d = shape_cmp("mixed")
        edit_csv(os.path.join(d, "compare.csv"), 3, acc_col, "0.5")
        self.assertIn("compare.csv:4", self.assert_cli_error(d))
        d = os.path.join(self.tmp, "mixed2")
        make_compare_dir(d)
        edit_csv(os.path.join(d, "compare.csv"), 2, acc_col, "")
        self.assertIn("compare.csv:3", self.assert_cli_error(d))
        # A non-numeric cell of compare.csv still names its line.
        d = shape_cmp("bad_cycles")
        edit_csv(os.path.join(d, "compare.csv"), 2, 3, "many")
        self.assertIn("compare.csv:3", self.assert_cli_error(d))
        # compare.csv has no accuracy but a variant's run directory was trained.
        d = shape_cmp("trained_variant")
        shutil.rmtree(os.path.join(d, "adagp-low"))
        make_run_dir(os.path.join(d, "adagp-low"))
        err = self.assert_cli_error(d)
        self.assertIn(os.path.join("adagp-low", "epochs.csv"), err)
        self.assertIn("test_accuracy", err)
        # An accuracy in a shape-only table_accuracy.csv.
        d = shape_cmp("table_acc")
        edit_csv(os.path.join(d, "table_accuracy.csv"), 2, 2, "90")
        self.assertIn("table_accuracy.csv:3", self.assert_cli_error(d))
        # Shape-only epochs.csv: non-numeric cell, fractional batch count, missing column.
        d = shape_run("run_bad_cell")
        edit_csv(os.path.join(d, "epochs.csv"), 2, 5, "slow")
        self.assertIn("epochs.csv:3", self.assert_cli_error(d))
        d = shape_run("run_bad_batches")
        edit_csv(os.path.join(d, "epochs.csv"), 3, 11, "6.5")  # phase_gp_batches
        self.assertIn("epochs.csv:4", self.assert_cli_error(d))
        d = shape_run("run_no_column")
        write(os.path.join(d, "epochs.csv"), "epoch,cycles\n1,100\n")
        self.assertIn("seconds", self.assert_cli_error(d))
        # A non-numeric batch_layers.csv cell.
        d = shape_run("run_bad_layers")
        edit_csv(os.path.join(d, "batch_layers.csv"), 2, 7, "n/a")
        self.assertIn("batch_layers.csv:3", self.assert_cli_error(d))
        # stats.json says numerics: none, but there is only a trained run's layers.csv.
        d = shape_run("run_layers_only")
        os.rename(os.path.join(d, "batch_layers.csv"), os.path.join(d, "layers.csv"))
        self.assertIn("batch_layers.csv", self.assert_cli_error(d))
        # Neither layers.csv nor batch_layers.csv.
        d = shape_run("run_no_layers")
        os.remove(os.path.join(d, "batch_layers.csv"))
        self.assertIn("layers.csv", self.assert_cli_error(d))

    # -- command line ---------------------------------------------------------------------

    def test_cli_success_lists_pngs(self):
        cmp_dir = os.path.join(self.tmp, "cmp")
        make_compare_dir(cmp_dir, variants=("ws", "is"))
        out = os.path.join(self.tmp, "o")
        r = self.run_cli(cmp_dir, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        listed = r.stdout.split()
        self.assertEqual(sorted(listed), sorted(os.path.join(out, n) for n in
                                                ("compare.png", "compare_accuracy.png")))
        for p in listed:
            self.assertGreater(os.path.getsize(p), 1000)

    def test_cli_technique_tables(self):
        cmp_dir = os.path.join(self.tmp, "tech")
        make_technique_compare_dir(cmp_dir)
        r = self.run_cli(cmp_dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = os.path.join(cmp_dir, "plots")
        self.assertEqual(sorted(r.stdout.split()), sorted(
            os.path.join(out, n) for n in ("compare.png", "compare_accuracy.png",
                                           "techniques.png", "hit_rate.png")))
        for p in r.stdout.split():
            with open(p, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", p)

    def test_cli_malformed_technique_tables(self):
        def case(name, table, edit):
            cmp_dir = os.path.join(self.tmp, name)
            make_technique_compare_dir(cmp_dir)
            path = os.path.join(cmp_dir, table)
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
            edit(lines)
            if lines is not None:
                write(path, "\n".join(lines) + "\n")
            return self.assert_cli_error(cmp_dir)

        def set_cell(row, col, text):
            def edit(lines):
                fields = lines[row].split(",")
                fields[col] = text
                lines[row] = ",".join(fields)
            return edit

        # Non-numeric cell (all other tables fine).
        self.assertIn("table_step.csv:3", case("bad_cell", "table_step.csv",
                                               set_cell(2, 2, "fast")))
        # Short row.
        self.assertIn("table_time.csv:2", case("short_row", "table_time.csv",
                                               lambda l: l.__setitem__(1, "1,66")))
        # Variant columns that do not match compare.csv.
        self.assertIn("compare.csv", case("bad_columns", "table_accuracy.csv",
                                          set_cell(0, 2, "specbp@0.5")))
        # Hit rate outside [0, 1] and accuracy outside [0, 100].
        self.assertIn("[0, 1]", case("bad_hit", "table_hit_rate.csv", set_cell(1, 2, "1.5")))
        self.assertIn("[0, 100]", case("bad_acc", "table_accuracy.csv",
                                       set_cell(1, 1, "150")))
        # Empty cell where a value is required, and a non-increasing epoch column.
        self.assertIn("table_time.csv:4", case("empty_cell", "table_time.csv",
                                               set_cell(3, 1, "")))
        self.assertIn("epoch", case("bad_epochs", "table_step.csv", set_cell(3, 0, "2")))
        # Epochs differ between tables (one row fewer).
        self.assertIn("epochs differ", case("fewer_rows", "table_accuracy.csv",
                                            lambda l: l.pop()))
        # Only some of the four tables.
        partial = os.path.join(self.tmp, "partial_tables")
        make_technique_compare_dir(partial)
        os.remove(os.path.join(partial, "table_hit_rate.csv"))
        self.assertIn("table_hit_rate.csv", self.assert_cli_error(partial))
        # Empty table file.
        empty = os.path.join(self.tmp, "empty_table")
        make_technique_compare_dir(empty)
        write(os.path.join(empty, "table_step.csv"), "")
        self.assertIn("table_step.csv", self.assert_cli_error(empty))

    def assert_cli_error(self, directory, *extra):
        r = self.run_cli(directory, *extra)
        self.assertEqual(r.returncode, 2, f"stdout={r.stdout!r} stderr={r.stderr!r}")
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("error", r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(pngs_under(self.tmp), [])
        return r.stderr

    def test_cli_errors(self):
        # Missing directory.
        self.assert_cli_error(os.path.join(self.tmp, "does_not_exist"))
        # Neither layout.
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        write(os.path.join(empty, "notes.txt"), "hello\n")
        self.assert_cli_error(empty)
        self.assertFalse(os.path.exists(os.path.join(empty, "plots")))
        # Run directory missing a file.
        partial = os.path.join(self.tmp, "partial")
        make_run_dir(partial)
        os.remove(os.path.join(partial, "stats.json"))
        self.assertIn("stats.json", self.assert_cli_error(partial))
        # A non-numeric CSV cell (the error is found after other files parsed fine).
        bad_cell = os.path.join(self.tmp, "bad_cell")
        make_run_dir(bad_cell)
        path = os.path.join(bad_cell, "layers.csv")
        with open(path, encoding="utf-8") as f:
            text = f.read().splitlines()
        fields = text[3].split(",")
        fields[-1] = "n/a"
        text[3] = ",".join(fields)
        write(path, "\n".join(text) + "\n")
        self.assertIn("layers.csv:4", self.assert_cli_error(bad_cell))
        # Missing CSV column.
        bad_header = os.path.join(self.tmp, "bad_header")
        make_run_dir(bad_header)
        write(os.path.join(bad_header, "epochs.csv"), "epoch,train_loss\n1,0.5\n")
        self.assertIn("test_accuracy", self.assert_cli_error(bad_header))
        # Truncated JSON.
        bad_json = os.path.join(self.tmp, "bad_json")
        make_run_dir(bad_json)
        write(os.path.join(bad_json, "stats.json"), '{"totals": {"train": ')
        self.assertIn("stats.json", self.assert_cli_error(bad_json))
        # Compare directory whose variant run directory is missing.
        cmp_dir = os.path.join(self.tmp, "cmp")
        make_compare_dir(cmp_dir)
        shutil.rmtree(os.path.join(cmp_dir, "os"))
        self.assertIn("os", self.assert_cli_error(cmp_dir))
        # Compare directory with an empty compare.csv.
        cmp_empty = os.path.join(self.tmp, "cmp_empty")
        make_compare_dir(cmp_empty, variants=("ws",))
        write(os.path.join(cmp_empty, "compare.csv"), COMPARE_HEADER + "\n")
        self.assert_cli_error(cmp_empty, "--out", os.path.join(self.tmp, "never"))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "never")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
