"""One trainsim run of a long study tool (adagp_accuracy.py, depth_study.py), kept for reuse:
the run's command is stamped into its output directory once it finished, so a later study
with --reuse skips a run whose command was exactly the same and whose results are there."""

import os
import subprocess
import sys


def run_or_reuse(cmd, out, reuse, stamp_name, tool):
    """Runs cmd (writing into out) unless reuse and out holds a finished run of the same
    command; returns whether it was reused. A failed run ends the tool with its stderr."""
    stamp = os.path.join(out, stamp_name)
    text = "\n".join(cmd[1:]) + "\n"  # the binary's path aside
    if reuse and os.path.exists(stamp) and os.path.exists(os.path.join(out, "epochs.csv")):
        with open(stamp) as f:
            if f.read() == text:
                return True
    if os.path.exists(stamp):  # a run that fails half-way must not look reusable
        os.remove(stamp)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("%s: %s failed:\n%s" % (tool, " ".join(cmd), r.stderr))
    with open(stamp, "w") as f:
        f.write(text)
    return False
