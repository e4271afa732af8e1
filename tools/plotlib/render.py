"""Which figures a directory gets (by the kind it states), rendered in memory first,
then written with the directory's manifest under its lock."""

from plotlib.common import *  # noqa: F401,F403 (the shared readers, scales and constants)
from plotlib.compare_plots import *  # noqa: F401,F403
from plotlib.run_plots import *  # noqa: F401,F403
from plotlib.sweep_plots import *  # noqa: F401,F403
from plotlib.system_plots import *  # noqa: F401,F403


def detect(directory):
    """'run', 'compare', 'system', 'hype' or 'sweep'; raises PlotError for anything else."""
    if not os.path.exists(directory):
        raise PlotError(f"{_rel(directory)}: no such directory")
    if not os.path.isdir(directory):
        raise PlotError(f"{_rel(directory)}: not a directory")
    if os.path.isfile(os.path.join(directory, SWEEP_FILE)):
        return "sweep"
    kind = stated_kind(directory)
    if kind is not None:
        return kind
    # A directory written before stats.json said its kind (schema_version 1): told apart by
    # the files beside it.
    if all(os.path.isfile(os.path.join(directory, f))
           for f in (TIMELINE_FILE, POWER_FILE, PLACEMENT_FILE)):
        return "hype"
    if os.path.isfile(os.path.join(directory, TIMELINE_FILE)):
        if not os.path.isfile(os.path.join(directory, DEVICES_FILE)):
            raise PlotError(f"{_rel(directory)}: system run directory lacks {DEVICES_FILE}")
        return "system"
    if os.path.isfile(os.path.join(directory, COMPARE_FILE)):
        return "compare"
    present = [f for f in RUN_FILES + (SHAPE_LAYERS_FILE,)
               if os.path.isfile(os.path.join(directory, f))]
    if present:
        missing = [f for f in RUN_FILES if f not in present]
        if "layers.csv" in missing:  # shape_only_run() checks which of the two it needs
            if SHAPE_LAYERS_FILE in present:
                missing.remove("layers.csv")
            else:
                missing[missing.index("layers.csv")] = (
                    f"layers.csv ({SHAPE_LAYERS_FILE} if shape only)")
        if missing:
            raise PlotError(f"{_rel(directory)}: run directory lacks {', '.join(missing)}")
        return "run"
    raise PlotError(
        f"{_rel(directory)}: neither a run directory ({', '.join(RUN_FILES)}; "
        f"{SHAPE_LAYERS_FILE} instead of layers.csv if shape only) "
        f"nor a compare directory ({COMPARE_FILE})")


def render(directory, notes=None):
    """Load `directory` and render its plots: list of (file name, PNG bytes). Figures
    left out or cut down for lack of data (shape-only runs have no accuracy) are
    described in `notes` (a list, appended to) when given."""
    kind = detect(directory)
    said = []
    if kind == "sweep":
        sw = SweepData(directory)
        figs = [("pareto.png", lambda: plot_pareto(sw)), ("axes.png", lambda: plot_sweep_axes(sw))]
        said.append("Pareto-optimal points (seconds, energy): " + "; ".join(
            " ".join(f"{k}={r[k]}" for k in sw.axes) + f" ({r['_s']:.4g} s, {r['_e']:.4g})"
            for r in sw.front))
        if sw.failed:
            said.append(f"{len(sw.failed)} failed point(s) not drawn: "
                        + ", ".join(r["id"] for r in sw.failed))
    elif kind == "hype":
        hd = HypeData(directory)
        figs = [("power.png", lambda: plot_power(hd)), ("gantt.png", lambda: plot_gantt(hd))]
    elif kind == "system":
        sysd = SystemData(directory)
        figs = [("gantt.png", lambda: plot_gantt(sysd)), ("devices.png", lambda: plot_devices(sysd))]
    elif kind == "run":
        run = RunData(directory)
        if run.shape_only:
            figs = [("epochs.png", lambda: plot_epochs(run))]
            said.append(f"skipped accuracy.png: {SHAPE_ONLY_WHY}")
        else:
            figs = [("accuracy.png", lambda: plot_accuracy(run))]
        figs += [
            ("layers_cycles.png", lambda: plot_layers(run, "cycles")),
            ("layers_energy.png", lambda: plot_layers(run, "energy")),
            ("energy_levels.png", lambda: plot_energy_levels(run)),
        ]
        if os.path.isfile(os.path.join(directory, TIMELINE_FILE)):
            figs.append(("gantt.png",
                         lambda: plot_gantt(RunTimeline(directory, run.experiment))))
    elif is_system_compare(directory):
        scmp = SystemCompareData(directory)
        figs = [("compare.png", lambda: plot_system_compare(scmp))]
    else:
        cmp = CompareData(directory)
        figs = [("compare.png", lambda: plot_compare(cmp))]
        if cmp.shape_only:
            said.append(f"skipped compare_accuracy.png: {SHAPE_ONLY_WHY}")
        else:
            figs.append(("compare_accuracy.png", lambda: plot_compare_accuracy(cmp)))
        if cmp.tables is not None:
            figs.append(("techniques.png", lambda: plot_techniques(cmp)))
            if cmp.shape_only:
                said.append(f"techniques.png has no test-accuracy panel: {SHAPE_ONLY_WHY}")
            if cmp.tables.speculating:
                figs.append(("hit_rate.png", lambda: plot_hit_rate(cmp)))
    out = []
    for name, make in figs:
        try:
            out.append((name, fig_to_png(make())))
        except (ValueError, TypeError, OverflowError, ZeroDivisionError) as e:
            plt.close("all")
            raise PlotError(f"{_rel(directory)}: cannot render {name}: {e}") from None
    if notes is not None:
        notes += said
    return out


def write_pngs(pngs, out_dir):
    """Write all PNGs or none: on failure removes what this call wrote."""
    created_dir = not os.path.isdir(out_dir)
    written, tmp = [], None
    try:
        os.makedirs(out_dir, exist_ok=True)
        for name, data in pngs:
            path = os.path.join(out_dir, name)
            tmp = os.path.join(out_dir, f".{name}.tmp{os.getpid()}")
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            tmp = None
            written.append(path)
    except OSError as e:
        for p in written + ([tmp] if tmp else []):
            try:
                os.remove(p)
            except OSError:
                pass
        if created_dir:
            try:
                os.rmdir(out_dir)
            except OSError:
                pass
        raise PlotError(f"{_rel(out_dir)}: cannot write plots: {e.strerror or e}") from None
    return written


MANIFEST = ".trainsim-manifest"
MANIFEST_HEADER = "# trainsim results directory: the files trainsim wrote here"


def add_to_manifest(directory, paths):
    """Lists `paths` (inside `directory`) in the directory's manifest, if it has one, so
    that `trainsim ... --force` may replace the directory with its plots: it replaces only
    what the manifest vouches for (sim/io/manifest.h)."""
    manifest = os.path.join(directory, MANIFEST)
    try:
        with open(manifest, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return
    if not lines or lines[0] != MANIFEST_HEADER:
        return
    entries = set(lines[1:])
    root = os.path.realpath(directory)
    for p in paths:
        rel = os.path.relpath(os.path.realpath(p), root)
        if rel.startswith(".."):
            return  # plots written elsewhere (--out): nothing of the directory's
        parts = rel.split(os.sep)
        for i in range(1, len(parts)):
            entries.add("/".join(parts[:i]) + "/")
        entries.add("/".join(parts))
    tmp = manifest + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join([MANIFEST_HEADER] + sorted(entries)) + "\n")
    os.replace(tmp, manifest)


LOCK_SUFFIX = ".trainsim-lock"


@contextlib.contextmanager
def results_lock(directory):
    """Holds the lock trainsim takes on a results directory while it writes it
    (sim/io/dir_lock.h: an flock on <parent>/.<name>.trainsim-lock), so that plots never join
    a directory a run is writing or replacing at that moment."""
    d = os.path.normpath(directory)
    path = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(d))),
                        "." + os.path.basename(d) + LOCK_SUFFIX)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as e:
        raise PlotError(f"{_rel(path)}: cannot lock {_rel(directory)}: {e.strerror or e}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise PlotError(f"{_rel(directory)}: a trainsim process is writing it: plot it "
                            "when that process ends") from None
        st, here = os.fstat(fd), os.stat(path) if os.path.exists(path) else None
        if here is None or (st.st_ino, st.st_dev) != (here.st_ino, here.st_dev):
            raise PlotError(f"{_rel(directory)}: a trainsim process is writing it: plot it "
                            "when that process ends")
        try:
            yield
        finally:
            os.unlink(path)  # released as trainsim releases it: no file left behind
    finally:
        os.close(fd)


def plot_dir(directory, out_dir=None, notes=None):
    """Plot `directory` into out_dir (default DIR/plots); returns the PNG paths. Figures
    skipped for lack of data are described in `notes` (see render())."""
    if out_dir is None:
        out_dir = os.path.join(directory, "plots")
    with results_lock(directory):
        paths = write_pngs(render(directory, notes), out_dir)
        try:
            add_to_manifest(directory, paths)
        except OSError as e:
            raise PlotError(f"{_rel(directory)}: cannot update {MANIFEST}: "
                            f"{e.strerror or e}") from None
    return paths
