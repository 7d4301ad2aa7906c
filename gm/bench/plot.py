"""Benchmark figures as a PNG (matplotlib, drawn off-screen)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence


def plot_by_condition(path: Path, lines: dict[str, Sequence[float | None]], conditions: Sequence[str],
                      ylabel: str, title: str) -> None:
    """One line per label over the listening conditions (clean, then falling SNR); gaps where None."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(7, 4.2), dpi=100)
    for label, values in lines.items():
        points = [(x, v) for x, v in enumerate(values) if v is not None]
        if points:
            axes.plot([x for x, _ in points], [v for _, v in points], marker="o", label=label)
    axes.set_xticks(range(len(conditions)), conditions)
    axes.set_xlabel("listening condition")
    axes.set_ylabel(ylabel)
    axes.set_ylim(0, 102)
    axes.set_title(title)
    axes.grid(alpha=0.3)
    if lines:
        axes.legend(loc="lower left", fontsize="small")
    figure.tight_layout()
    figure.savefig(path)
    pyplot.close(figure)
