#!/usr/bin/env python3
"""Checks that the C++ folders include each other in layers: no folder-level include cycle.

A folder is a top-level directory (models, dataflows, mapping, python, tools), except under
sim/, where it is sim/<subsystem>. Folder A depends on folder B when a .h or .cpp file in A
includes a file of B by its repository-relative path ("sim/spec/specs.h"). Those dependencies
must form no cycle, so that every folder can be read, built and tested on top of the folders
below it (docs/DESIGN.md#layers). Tests (tests/) sit above everything and are not checked.
Some folders may include only the folders listed for them (ONLY_INCLUDE): the experiment
parser (sim/config) knows no subsystem, each of which parses its own keys, and the specs
(sim/spec) are plain values below every subsystem.

usage: tools/check_layers.py [--root DIR] [--layers] [--self-test]

Exit status 1 names every cycle, with one file -> file include per edge of it. --layers
prints the folders bottom to top, one layer a line (a folder's layer: one more than the
highest layer it includes). --self-test checks the checker on made-up trees (no files read).
Reads only files under the repository.
"""

import argparse
import os
import re
import sys
from collections import defaultdict

SOURCE_DIRS = ("sim", "models", "dataflows", "mapping", "python", "tools")
ONLY_INCLUDE = {
    "sim/config": ("sim/core", "sim/spec", "sim/yaml"),
    "sim/spec": ("sim/core",),
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(path):
    parts = path.split("/")
    if parts[0] == "sim" and len(parts) > 2:
        return "/".join(parts[:2])
    return parts[0]


def read_sources(root):
    """{repository-relative path: text} of every .h / .cpp under SOURCE_DIRS."""
    sources = {}
    for top in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith((".h", ".cpp")):
                    full = os.path.join(dirpath, name)
                    rel = os.path.relpath(full, root).replace(os.sep, "/")
                    with open(full, encoding="utf-8", errors="replace") as f:
                        sources[rel] = f.read()
    return sources


def folder_edges(sources):
    """{(from folder, to folder): sorted ["a.cpp -> b.h", ...]} for includes across folders.

    Only includes of files that are in `sources` count: system and library headers, and
    paths relative to the including file, are not edges between the project's folders."""
    edges = defaultdict(set)
    for path, text in sources.items():
        src = folder_of(path)
        for line in text.splitlines():
            m = INCLUDE.match(line)
            if not m or m.group(1) not in sources:
                continue
            dst = folder_of(m.group(1))
            if dst != src:
                edges[(src, dst)].add(path + " -> " + m.group(1))
    return {e: sorted(v) for e, v in edges.items()}


def strongly_connected(nodes, succ):
    """Tarjan's components (iterative: the graph's depth is not Python's stack's business)."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(succ[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(succ[w]))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(sorted(comp))
    return comps


def shortest_cycle(comp, succ):
    """A shortest cycle through the component's first folder: [a, b, ..., a]."""
    members = set(comp)
    start = comp[0]
    parent = {start: None}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(succ[v]):
                if w not in members:
                    continue
                if w == start:
                    back = [v]  # v, its parent, ..., start
                    while parent[back[-1]] is not None:
                        back.append(parent[back[-1]])
                    return back[::-1] + [start]
                if w not in parent:
                    parent[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError("a strongly connected component without a cycle")


def cycles(edges):
    """[(component, cycle)] for every component of more than one folder."""
    succ = defaultdict(set)
    nodes = set()
    for a, b in edges:
        succ[a].add(b)
        nodes.update((a, b))
    return [(c, shortest_cycle(c, succ)) for c in strongly_connected(nodes, succ) if len(c) > 1]


def layers(edges, folders):
    """Folders bottom to top: [[layer 0 folders], [layer 1], ...]; needs an acyclic graph."""
    succ = defaultdict(set)
    for a, b in edges:
        succ[a].add(b)
    level = {}

    def depth(f):
        if f not in level:
            level[f] = 1 + max((depth(g) for g in succ[f]), default=-1)
        return level[f]

    for f in folders:
        depth(f)
    out = defaultdict(list)
    for f, n in level.items():
        out[n].append(f)
    return [sorted(out[n]) for n in sorted(out)]


def report(edges):
    """The failure message (empty when the folders are layered)."""
    lines = []
    for (a, b), examples in sorted(edges.items()):
        if a in ONLY_INCLUDE and b not in ONLY_INCLUDE[a]:
            lines.append(f"{a} includes {b}, but may include only {', '.join(ONLY_INCLUDE[a])}: "
                         f"{examples[0]}")
    for comp, cycle in cycles(edges):
        lines.append(f"folder include cycle: {' -> '.join(cycle)}")
        for a, b in zip(cycle, cycle[1:]):
            examples = edges[(a, b)]
            more = f" (and {len(examples) - 1} more)" if len(examples) > 1 else ""
            lines.append(f"  {a} -> {b}: {examples[0]}{more}")
        if len(comp) > len(cycle) - 1:
            # The cycle shown is one of several: list every include inside the tangle.
            lines.append(f"  one of the cycles among {len(comp)} folders, whose edges are:")
            members = set(comp)
            for (a, b), examples in sorted(edges.items()):
                if a in members and b in members:
                    lines.append(f"    {a} -> {b}: {examples[0]}")
    return "\n".join(lines)


def self_test():
    layered = {
        "sim/core/a.h": "",
        "sim/spec/s.h": '#include "sim/core/a.h"\n',
        "sim/nn/n.cpp": '#include "sim/spec/s.h"\n#include <vector>\n#include "missing/x.h"\n',
        "models/m.h": '  #  include "sim/nn/n.cpp"\n',
    }
    edges = folder_edges(layered)
    assert report(edges) == "", report(edges)
    assert layers(edges, {folder_of(p) for p in layered}) == [
        ["sim/core"], ["sim/spec"], ["sim/nn"], ["models"]]
    # A three-folder cycle, and a two-folder one sharing nothing with it.
    tangled = dict(layered)
    tangled["sim/core/b.cpp"] = '#include "models/m.h"\n'
    tangled["mapping/p.h"] = '#include "dataflows/d.h"\n'
    tangled["dataflows/d.h"] = '#include "mapping/p.h"\n'
    msg = report(folder_edges(tangled))
    assert "folder include cycle: dataflows -> mapping -> dataflows" in msg, msg
    assert "  dataflows -> mapping: dataflows/d.h -> mapping/p.h" in msg, msg
    assert "  mapping -> dataflows: mapping/p.h -> dataflows/d.h" in msg, msg
    assert "folder include cycle: models -> sim/nn -> sim/spec -> sim/core -> models" in msg, msg
    assert "  sim/core -> models: sim/core/b.cpp -> models/m.h" in msg, msg
    # A folder with a fixed list of what it may include, including something else.
    widened = dict(layered)
    widened["sim/config/c.cpp"] = '#include "sim/spec/s.h"\n#include "sim/nn/n.cpp"\n'
    msg = report(folder_edges(widened))
    assert msg.startswith("sim/config includes sim/nn, but may include only sim/core, "), msg
    assert "sim/config/c.cpp -> sim/nn/n.cpp" in msg, msg
    assert "sim/spec" not in msg.split(": ")[-1], msg
    print("check_layers self-test: ok")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--root", default=here, help="repository root (default: this tree)")
    parser.add_argument("--layers", action="store_true", help="print the layers, bottom first")
    parser.add_argument("--self-test", action="store_true", help="test the checker itself")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return 0
    sources = read_sources(args.root)
    edges = folder_edges(sources)
    msg = report(edges)
    if msg:
        print(msg)
        print("Folders must include only folders below them (docs/DESIGN.md#layers).")
        return 1
    if args.layers:
        for n, fs in enumerate(layers(edges, {folder_of(p) for p in sources})):
            print(f"{n}: {' '.join(fs)}")
    else:
        print(f"check_layers: {len({folder_of(p) for p in sources})} folders, no include cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
