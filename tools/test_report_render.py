#!/usr/bin/env python3
"""Renders report.html of every kind of results directory in headless Chromium.

For the quickstart run, a LeNet-5 dataflow compare, an ADA-GP zoo compare, a spec-BP compare,
a pipeline run, a hype compare and a sweep (small versions of each, a few seconds in all),
and one variant's or point's own page of each compare and sweep, it checks that Chromium
(Debian's `chromium`, which tools/setup.sh installs) renders the page with no console message
at all (no script error, no blocked request: the page's Content-Security-Policy turns any
attempt to load something into a console message) and that a screenshot of it is not blank.

usage: tools/test_report_render.py TRAINSIM [PARENT_DIR]    exit status 0 when all pass

It works in a fresh directory of its own (under PARENT_DIR if given, else the system's
temporary directory), kept when a page fails and removed when all pass.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
EXPERIMENTS = os.path.join(HERE, "..", "configs", "experiments")


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("test_report_render: chromium is not installed (tools/setup.sh installs it)")


def png_pixels_vary(path):
    """Whether a PNG screenshot shows anything: its filtered scanlines of a blank page are
    all 0 (no change) or 255 (white); text and figures give every other byte value."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    at, idat = 8, b""
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            idat += data[at + 8:at + 8 + length]
        at += 12 + length
    raw = zlib.decompress(idat)
    other = sum(1 for b in raw if b not in (0, 255))
    return other > 2000


def render(browser, page, shot, profile):
    """Console messages of `page` while it renders into `shot`."""
    # --disable-dev-shm-usage: containers often give /dev/shm 64 MB, too little for a tab.
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--disable-dev-shm-usage",
           "--user-data-dir=" + profile, "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run",
           "--enable-logging=stderr", "--v=0", "--window-size=1100,1600",
           "--screenshot=" + shot, "file://" + os.path.abspath(page)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not os.path.exists(shot):
        raise RuntimeError("chromium failed on %s:\n%s" % (page, r.stderr[-2000:]))
    return [line for line in r.stderr.splitlines() if ":CONSOLE" in line]


def trainsim(exe, *args):
    r = subprocess.run([exe, *args], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError("trainsim %s failed (%d):\n%s" % (" ".join(args), r.returncode,
                                                             r.stderr[-2000:]))


def make_runs(exe, work):
    """The results directories, and the pages to render in them."""
    ex = lambda name: os.path.join(EXPERIMENTS, name)
    small = ["-s", "dataset.train_limit=600", "-s", "dataset.test_limit=200"]
    trainsim(exe, "run", ex("quickstart.yaml"), "-o", work + "/quickstart", "-q",
             "-s", "training.epochs=2", *small)
    trainsim(exe, "compare", ex("lenet5_mnist.yaml"), "--dataflows", "ws,os,is,rs",
             "-o", work + "/lenet5", "-q", *small)
    trainsim(exe, "compare", ex("adagp_zoo.yaml"), "--techniques",
             "bp,adagp-max,adagp-efficient,adagp-low", "-o", work + "/adagp_zoo", "-q")
    trainsim(exe, "compare", ex("quickstart.yaml"), "--techniques", "bp,specbp@0.25",
             "-o", work + "/specbp", "-q", *small)
    trainsim(exe, "run", ex("lenet5_fashion_pipeline.yaml"), "-o", work + "/pipeline", "-q",
             *small)
    trainsim(exe, "compare", ex("hype_zoo.yaml"), "--systems", "gpu-only,hype,dvfs",
             "-o", work + "/hype", "-q", "-s", "hype.power_cap_w=230")
    with open(work + "/sweep.yaml", "w") as f:
        f.write("experiment: %s\nset: [numerics=none, dataset.train_limit=500]\n"
                "axes:\n  - {key: dataflow, values: [ws, rs]}\n"
                "  - {key: accelerator.buffer.kib, values: [54, 108, 0.001]}\n"
                % ex("lenet5_mnist.yaml"))
    trainsim(exe, "sweep", work + "/sweep.yaml", "-o", work + "/sweep", "-q", "-j", "2")
    point = sorted(os.listdir(work + "/sweep/points"))[0]
    pages = ["quickstart", "lenet5", "lenet5/rs", "adagp_zoo", "adagp_zoo/adagp-max", "specbp",
             "specbp/specbp@0.25", "pipeline", "hype", "hype/hype", "sweep"]
    pages = [os.path.join(work, p, "report.html") for p in pages]
    run = os.path.join(work, "sweep", "points", point, "run", "report.html")
    if os.path.exists(run):
        pages.append(run)
    return pages


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) >= 2 else 2
    exe = os.path.abspath(sys.argv[1])
    browser = chromium()
    parent = sys.argv[2] if len(sys.argv) > 2 else None
    if parent:
        os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix="trainsim-report-", dir=parent)
    profile = os.path.join(work, ".chromium-profile")
    failures = []
    for page in make_runs(exe, work):
        name = os.path.relpath(page, work)
        if not os.path.exists(page):
            failures.append("%s: missing" % name)
            continue
        shot = page[:-len(".html")] + ".png"
        console = render(browser, page, shot, profile)
        if console:
            failures.append("%s: console messages:\n  %s" % (name, "\n  ".join(console)))
        if not png_pixels_vary(shot):
            failures.append("%s: the screenshot is blank" % name)
        print("%-40s %s" % (name, "ok" if not failures or not failures[-1].startswith(name)
                                   else "FAILED"))
    for f in failures:
        print("FAIL " + f)
    if failures:
        print("the pages are in " + work)
        return 1
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
