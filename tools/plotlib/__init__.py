"""The figures of tools/plot, one module per kind of results directory (run, compare,
sweep, systems and timelines), on shared readers (common) and the renderer (render)."""
