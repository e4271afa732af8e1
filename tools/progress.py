"""Progress of the long tools (adagp_zoo.py, adagp_accuracy.py): one line on stderr per
finished unit of work, with its index, the elapsed time and an ETA, so a terminal and a log
file read the same."""

import sys
import time


def duration(seconds):
    s = max(0, int(round(seconds)))
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60) if s >= 3600 else \
        "%d:%02d" % (s // 60, s % 60)


class Progress:
    def __init__(self, total, tool):
        self.total, self.tool, self.done = total, tool, 0
        self.start = time.monotonic()

    def step(self, what):
        """Unit `what` finished: '[k/N] what (elapsed m:ss, ETA m:ss)'."""
        self.done += 1
        elapsed = time.monotonic() - self.start
        eta = elapsed * (self.total - self.done) / self.done
        print("%s: [%d/%d] %s (elapsed %s, ETA %s)" % (self.tool, self.done, self.total, what,
                                                        duration(elapsed), duration(eta)),
              file=sys.stderr, flush=True)
