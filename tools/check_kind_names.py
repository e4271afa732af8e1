#!/usr/bin/env python3
"""Checks that no shared code branches on the name of a registered kind.

A variation point (layer type, technique, pipeline schedule, Hype policy, device kind, dataflow,
memory model, topology, dataset, optimizer, kind of run or of report) is one interface and a
registry: a new variant is a file of its own plus a registry line (docs/DESIGN.md). Code that
compares a string with one of the registered names (`type == "conv2d"`, `"gpipe" != s`) outside
the folders where that kind's variants live is a branch on the kind's name in shared code: the
next variant would need another one. This tool finds them.

The names come from the registries themselves: `trainsim list CATEGORY --names`. A comparison
is a C++ `==` or `!=` with a string literal on either side, in the sources under sim/, models/,
dataflows/, mapping/, python/ and tools/ (tests/ may name kinds). A line that compares with
such a name for another reason (a config key that happens to share a policy's name) says so
with a comment holding `kind-name ok:` and the reason.

usage: tools/check_kind_names.py --binary build/trainsim [--root DIR] [--self-test]

Exit status 1 lists every comparison found, as file:line: the name, its category and the
folders where it may be compared. --self-test checks the checker on made-up lines.
"""

import argparse
import os
import re
import subprocess
import sys

# Where the variants of each category live: comparing with their names there is the variant's
# own business. Paths are prefixes of repository-relative file paths.
HOMES = {
    "layers": ("sim/workload/layers/", "sim/nn/"),
    "techniques": ("sim/techniques/",),
    "schedules": ("sim/pipeline/schedules/",),
    "policies": ("sim/hype/",),
    "devices": ("sim/devices/", "sim/gpu/"),
    "dataflows": ("dataflows/",),
    "memory": ("sim/accel/memory",),
    "topologies": ("models/platform/topology",),
    "datasets": ("sim/data/",),
    "optimizers": ("sim/optim/",),
    "runs": ("sim/run/",),
    "reports": ("sim/report/",),
}
SOURCE_DIRS = ("sim", "models", "dataflows", "mapping", "python", "tools")
MARKER = "kind-name ok:"
LITERAL = r'"([^"\\]*)"'
COMPARISON = re.compile(r"(?:==|!=)\s*" + LITERAL + r"|" + LITERAL + r"\s*(?:==|!=)")


def registry_names(binary):
    """{name: [categories]} from `trainsim list CATEGORY --names`."""
    names = {}
    for category in HOMES:
        out = subprocess.run([binary, "list", category, "--names"], check=True,
                             capture_output=True, text=True).stdout
        for name in out.split():
            names.setdefault(name, []).append(category)
    return names


def strip_comment(line):
    """The line without a trailing // comment (not inside a string literal)."""
    in_string = False
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\" and in_string:
            i += 2
            continue
        if c == '"':
            in_string = not in_string
        elif not in_string and line.startswith("//", i):
            return line[:i]
        i += 1
    return line


def findings(path, text, names):
    """[(line number, name, category)] of the comparisons in `text` that are out of place."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if MARKER in line:
            continue
        code = strip_comment(line)
        for m in COMPARISON.finditer(code):
            literal = m.group(1) if m.group(1) is not None else m.group(2)
            for category in names.get(literal, ()):
                if not path.startswith(HOMES[category]):
                    found.append((number, literal, category))
    return found


def sources(root):
    for top in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith((".h", ".cpp")):
                    full = os.path.join(dirpath, name)
                    yield os.path.relpath(full, root).replace(os.sep, "/"), full


def self_test():
    names = {"conv2d": ["layers"], "gpipe": ["schedules"], "energy": ["policies"]}
    cases = [
        ("sim/workload/net_shape.cpp", 'if (ls.type == "conv2d") {', 1),
        ("sim/workload/net_shape.cpp", 'if ("gpipe" != s) return;', 1),
        ("sim/workload/layers/conv2d.cpp", 'if (ls.type == "conv2d") {', 0),
        ("sim/pipeline/schedules/gpipe.cpp", 'return name == "gpipe";', 0),
        ("sim/accel/config.cpp", 'if (key == "energy") {  // kind-name ok: the key', 0),
        ("sim/accel/config.cpp", 'fail("layer \\"conv2d\\" == bad");', 0),
        ("sim/accel/config.cpp", 'x = 1;  // ls.type == "conv2d"', 0),
        ("sim/accel/config.cpp", 'std::string t = "conv2d";', 0),
        ("sim/accel/config.cpp", 'if (key == "energy") {', 1),
    ]
    bad = 0
    for path, line, expected in cases:
        got = len(findings(path, line, names))
        if got != expected:
            print(f"self-test: {path}: {line!r}: {got} findings, expected {expected}")
            bad += 1
    print(f"check_kind_names self-test: {len(cases) - bad} of {len(cases)} cases right")
    return 1 if bad else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", help="the trainsim executable whose registries to read")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.binary:
        parser.error("--binary is required (the trainsim whose registries to read)")
    names = registry_names(args.binary)
    problems = []
    for rel, full in sources(os.path.abspath(args.root)):
        with open(full, encoding="utf-8", errors="replace") as f:
            for number, name, category in findings(rel, f.read(), names):
                homes = ", ".join(HOMES[category])
                problems.append(f'{rel}:{number}: compares with "{name}" ({category}; '
                                f"only {homes} may)")
    for p in problems:
        print(p)
    print(f"check_kind_names: {len(names)} registered names, "
          f"{len(problems)} comparison(s) outside their folders")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
