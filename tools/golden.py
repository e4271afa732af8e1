#!/usr/bin/env python3
"""Re-runs the worked examples of README.md and docs/*.md and compares their output with what
the documents show, so that a published number moves only on purpose.

An example is a fenced block whose lines start with "$ COMMAND", each followed by the output
the document shows. Commands of trainsim itself (build/trainsim, ./run.sh, the Python module)
and the greps and plots over their results are re-run, in document order, in a scratch
directory per document (configs/, data/, tests/, build/ and tools/ linked from the repository), so
that the examples' own runs/ paths work and nothing in the repository is touched. Benchmarks,
long tool scripts and illustrations (a bare `trainsim ...`) are listed as skipped.

Comparison: a command shown without output is run but not compared; a line "..." in the
document stands for any number of lines (a remark may follow it), and a line ending in "..."
for any line that starts the same; wall-clock columns (headers wall_s, wall) and the thread
count are not compared. --update writes the new output into the documents (aligned line by
line where the shape is unchanged; elisions kept).

  tools/golden.py [--update] [--only TEXT] [--list] [--build DIR]
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNABLE = ("build/trainsim", "./run.sh", "PYTHONPATH=build/python", "grep ", "tools/plot")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")
WALL_HEADERS = ("wall_s", "wall")


class Example:
    def __init__(self, doc, line, command, expected):
        self.doc, self.line, self.command, self.expected = doc, line, command, expected
        self.actual = None

    def runnable(self):
        return self.command.startswith(RUNNABLE)

    def where(self):
        return f"{os.path.relpath(self.doc, REPO)}:{self.line}"


def examples_of(doc):
    """The examples of one document, in order: (line number of the command, command, the
    output lines the document shows)."""
    lines = open(doc, encoding="utf-8").read().split("\n")
    out, in_block, i = [], False, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_block = not in_block
            i += 1
            continue
        if in_block and line.startswith("$ "):
            start = i
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1].rstrip() + " " + lines[i].strip()
            i += 1
            while i < len(lines) and re.match(r"\s+#", lines[i]):  # a remark on the command
                i += 1
            expected = []
            while i < len(lines) and not lines[i].startswith("$ ") and not lines[i].startswith("```"):
                expected.append(lines[i])
                i += 1
            out.append(Example(doc, start + 1, command, expected))
            continue
        i += 1
    return out


def masked(lines):
    """Lines with the wall-clock columns and the thread count blanked."""
    out, wall_cols = [], None
    for line in lines:
        tokens = line.split()
        if any(h in tokens for h in WALL_HEADERS):
            wall_cols = (len(tokens), [k for k, t in enumerate(tokens) if t in WALL_HEADERS])
        elif wall_cols and len(tokens) >= wall_cols[0] and tokens and NUMBER.fullmatch(tokens[0]):
            for k in wall_cols[1]:
                tokens[k] = "*"
            line = " ".join(tokens)
        elif wall_cols and (not tokens or not NUMBER.fullmatch(tokens[0])):
            wall_cols = None
        line = re.sub(r"\d+ thread\(s\)", "* thread(s)", line)
        line = re.sub(r"threads \d+", "threads *", line)
        out.append(line.rstrip())
    return out


def is_elision(line):
    """A line of the document that stands for any number of output lines: "...", possibly
    followed by a remark ("... (the per-epoch tables follow)")."""
    return line.strip().startswith("...")


def same_line(doc_line, out_line):
    """A document line ending in "..." shows only the start of the output line."""
    if doc_line.endswith("...") and len(doc_line) > 3:
        return out_line.startswith(doc_line[:-3])
    return doc_line == out_line


def align(expected, actual, key):
    """Matches the document's lines to the actual ones ("..." takes any number); returns the
    actual line index for each expected line (None for "..."), or None if they do not match
    under `key`."""
    memo = {}

    def go(e, a):
        if (e, a) in memo:
            return memo[(e, a)]
        if e == len(expected):
            r = [] if a == len(actual) else None
        elif is_elision(expected[e]):
            r = None
            for skip in range(a, len(actual) + 1):
                rest = go(e + 1, skip)
                if rest is not None:
                    r = [None] + rest
                    break
        elif a < len(actual) and same_line(key(expected[e]), key(actual[a])):
            rest = go(e + 1, a + 1)
            r = None if rest is None else [a] + rest
        else:
            r = None
        memo[(e, a)] = r
        return r

    sys.setrecursionlimit(max(10000, 4 * (len(expected) + len(actual))))
    return go(0, 0)


def run_document(doc, examples, build, args):
    work = tempfile.mkdtemp(prefix="trainsim-golden-")
    try:
        for name in ("configs", "data", "tools", "python", "tests"):
            os.symlink(os.path.join(REPO, name), os.path.join(work, name))
        os.symlink(build, os.path.join(work, "build"))
        for ex in examples:
            if not ex.runnable() or (args.only and args.only not in ex.command):
                continue
            command = ex.command
            if command.split("#")[0].strip() == "./run.sh":
                command = "build/trainsim run configs/experiments/quickstart.yaml --force"
            r = subprocess.run(["bash", "-c", command], cwd=work, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            ex.actual = r.stdout.rstrip("\n").split("\n") if r.stdout else []
            if r.returncode != 0:
                ex.actual.append(f"[exit {r.returncode}] {r.stderr.strip()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def update_document(doc, examples):
    lines = open(doc, encoding="utf-8").read().split("\n")
    shape = lambda s: " ".join(NUMBER.sub("#", s).split())  # numbers and spacing may change
    # From the last example up, so that earlier line numbers stay valid.
    for ex in sorted(examples, key=lambda e: -e.line):
        if ex.actual is None or not ex.expected or ex.expected == [""]:
            continue
        first = ex.line  # the output starts after the command's (possibly continued) lines
        while lines[first - 1].endswith("\\"):
            first += 1
        pos = align(ex.expected, ex.actual, shape)
        if pos is None:
            new = ex.actual if not any(is_elision(e) for e in ex.expected) else None
            if new is None:
                print(f"{ex.where()}: output changed shape around '...': update it by hand")
                continue
        else:
            new = [ex.expected[k] if p is None or ex.expected[k].endswith("...") else ex.actual[p]
                   for k, p in enumerate(pos)]
        lines[first:first + len(ex.expected)] = new
    open(doc, "w", encoding="utf-8").write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--update", action="store_true", help="write the new outputs into the docs")
    ap.add_argument("--only", metavar="TEXT", help="only examples whose command contains TEXT")
    ap.add_argument("--list", action="store_true", help="list the examples, run nothing")
    ap.add_argument("--build", default=os.environ.get("TRAINSIM_BUILD", os.path.join(REPO, "build")))
    args = ap.parse_args()
    docs = [os.path.join(REPO, "README.md")] + sorted(
        os.path.join(REPO, "docs", f) for f in os.listdir(os.path.join(REPO, "docs"))
        if f.endswith(".md"))
    failed = compared = 0
    for doc in docs:
        examples = examples_of(doc)
        if args.list:
            for ex in examples:
                print(f"{'run ' if ex.runnable() else 'skip'}  {ex.where()}  {ex.command}")
            continue
        if not any(ex.runnable() for ex in examples):
            continue
        run_document(doc, examples, os.path.abspath(args.build), args)
        for ex in examples:
            # A command shown without output is there for what it does, not what it prints.
            if ex.actual is None or not ex.expected or ex.expected == [""]:
                continue
            compared += 1
            if align(masked(ex.expected), masked(ex.actual), lambda s: s) is not None:
                continue
            failed += 1
            print(f"{ex.where()}: {ex.command}")
            for d in difflib.unified_diff(ex.expected, ex.actual, "document", "now", lineterm="",
                                          n=1):
                print("    " + d)
        if args.update:
            update_document(doc, examples)
    if not args.list:
        verb = "updated" if args.update else "differ"
        print(f"golden: {compared} examples compared, {failed} {verb}")
    return 1 if failed and not args.update else 0


if __name__ == "__main__":
    sys.exit(main())
