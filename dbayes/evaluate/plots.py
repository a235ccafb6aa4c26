"""Figures of the report: the critical-difference diagram and line plots against a varied parameter.

matplotlib is an optional dependency (the ``plot`` extra): it is imported inside the functions, figures are
built on ``matplotlib.figure.Figure`` with the Agg canvas (no pyplot, no global backend change), and
:func:`plotting_available` tells the report whether to draw at all.

References
----------
.. [1] J. Demsar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7 (2006), sec.
   3.2.4 and Figure 1(a): the critical-difference diagram.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import pandas as pd

__all__ = ["plotting_available", "cd_diagram", "line_plot", "figure_png", "save_png"]


def plotting_available() -> bool:
    """True when matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _new_figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(figure)
    return figure


def cd_diagram(
    average_ranks: pd.Series,
    cd: float,
    *,
    cliques: list[list[str]] | None = None,
    title: str | None = None,
    decimals: int = 2,
):
    """Draw Demsar's critical-difference diagram.

    The top line is the axis of average ranks with rank 1 (best) at the right; each classifier hangs from
    its average rank, the worse half to the left and the better half to the right, with its name and rank
    at the end of its line; thick bars join the groups that are not significantly different (by default
    :func:`dbayes.evaluate.stats.nemenyi_cliques`); the CD is drawn as a bar of that length above the axis.

    Parameters
    ----------
    average_ranks : Series
        Average rank per classifier (index = names).
    cd : float
        Critical difference (same units as the ranks).
    cliques : list of list of str, optional
        Groups to join; computed from ``cd`` when omitted.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    from dbayes.evaluate.stats import nemenyi_cliques

    ranks = average_ranks.astype(float).sort_values(ascending=False, kind="mergesort")  # worst first
    k = ranks.size
    if cliques is None:
        cliques = nemenyi_cliques(average_ranks, cd)
    lo, hi = 1, max(k, 2)
    labels = {name: f"{name} ({value:.{decimals}f})" for name, value in ranks.items()}
    n_left = math.ceil(k / 2)
    left, right = list(ranks.index[:n_left]), list(ranks.index[n_left:])[::-1]  # right: best first

    # Geometry in inches: x in rank units scaled to axis_width inches; y grows downwards.
    axis_width = 5.0
    per_rank = axis_width / (hi - lo)
    label_width = 0.08 * max(len(text) for text in labels.values()) + 0.35
    top = -0.95 if title else -0.75
    clique_y0, clique_step = 0.22, 0.13
    first_row = clique_y0 + clique_step * max(len(cliques), 1) + 0.15
    row_step = 0.27
    bottom = first_row + row_step * (max(len(left), len(right)) - 1) + 0.25
    width = axis_width + 2 * label_width
    figure = _new_figure(width, bottom - top)
    ax = figure.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(-label_width, axis_width + label_width)
    ax.set_ylim(bottom, top)
    ax.set_axis_off()

    def x_of(rank: float) -> float:
        return (hi - rank) * per_rank  # rank 1 at the right end

    line = dict(color="black", linewidth=1.0)
    ax.plot([x_of(hi), x_of(lo)], [0, 0], **line)
    for tick in range(lo, hi + 1):
        ax.plot([x_of(tick)] * 2, [0, -0.1], **line)
        ax.text(x_of(tick), -0.14, str(tick), ha="center", va="bottom", fontsize=10)
    for half in range(lo, hi):
        ax.plot([x_of(half + 0.5)] * 2, [0, -0.05], **line)

    # CD bar, from the worst end of the axis, above the tick labels.
    cd_y = -0.5
    ax.plot([x_of(hi), x_of(hi - cd)], [cd_y, cd_y], color="black", linewidth=1.5)
    for end in (hi, hi - cd):
        ax.plot([x_of(end)] * 2, [cd_y - 0.05, cd_y + 0.05], **line)
    ax.text(
        (x_of(hi) + x_of(hi - cd)) / 2, cd_y - 0.06, f"CD = {cd:.{decimals}f}", ha="center", va="bottom", fontsize=9
    )
    if title:
        ax.text(axis_width / 2, top + 0.05, title, ha="center", va="top", fontsize=11, weight="bold")

    for i, name in enumerate(left):
        y = first_row + row_step * i
        ax.plot([x_of(ranks[name])] * 2 + [-0.1], [0, y, y], **line)
        ax.text(-0.15, y, labels[name], ha="right", va="center", fontsize=10)
    for i, name in enumerate(right):
        y = first_row + row_step * i
        ax.plot([x_of(ranks[name])] * 2 + [axis_width + 0.1], [0, y, y], **line)
        ax.text(axis_width + 0.15, y, labels[name], ha="left", va="center", fontsize=10)

    for i, clique in enumerate(cliques):
        y = clique_y0 + clique_step * i
        xs = [x_of(float(average_ranks[name])) for name in clique]
        ax.plot([min(xs) - 0.04, max(xs) + 0.04], [y, y], color="black", linewidth=4.0, solid_capstyle="butt")
    return figure


def line_plot(
    table: pd.DataFrame, *, ylabel: str, xlabel: str | None = None, title: str | None = None, logy: bool = False
):
    """One line per column of ``table`` against its index (e.g. accuracy against the noise level).

    ``table`` is what :func:`dbayes.evaluate.stats.vary_table` returns.
    """
    figure = _new_figure(6.4, 4.0)
    ax = figure.add_subplot(1, 1, 1)
    markers = "osD^vP*X<>"
    for i, name in enumerate(table.columns):
        ax.plot(
            table.index.to_numpy(dtype=float),
            table[name].to_numpy(dtype=float),
            marker=markers[i % len(markers)],
            label=str(name),
        )
    ax.set_xlabel(xlabel or str(table.index.name))
    ax.set_ylabel(ylabel)
    if logy:
        ax.set_yscale("log")
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=9)
    figure.tight_layout()
    return figure


def figure_png(figure) -> bytes:
    """The PNG bytes of a figure."""
    buffer = io.BytesIO()
    figure.canvas.print_png(buffer)
    return buffer.getvalue()


def save_png(figure, path: str | Path) -> Path:
    """Write a figure as PNG and return its path."""
    path = Path(path)
    path.write_bytes(figure_png(figure))
    return path
