"""F1 against cost per run, one point per configuration, as inline SVG drawn on the server.

No script and no style attribute (the Content-Security-Policy allows neither): the look is
``static/css/evaluation.css``'s, by class. Each point carries its interval as a vertical bar and a ``<title>``
(the browser's tooltip) with its figures; a numbered legend below names each configuration in full. A cost
axis on which every run was free (the offline annotator, a local server) is drawn from 0 to 1 cent, so the
points sit at its left edge.
"""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from annotations.evaluation.columns import figure, money
from annotations.evaluation.table import ModelRow

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 52, 20, 16, 44
MAX_LABEL = 28
LABEL_HEIGHT, LABEL_WIDTH = 13, 110


def _ticks(maximum: float) -> list[float]:
    return [maximum * n / 4 for n in range(5)]


def _short(text: str) -> str:
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


def f1_cost_chart(rows: list[ModelRow]) -> SafeString:
    """The chart of the rows with an F1 (empty when none has one)."""
    points = [r for r in rows if r.tags.f1 is not None]
    if not points:
        return mark_safe("")
    top_cost = max((r.mean_cost or 0.0) for r in points)
    span = top_cost * 1.15 if top_cost > 0 else 0.01
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(cost: float) -> float:
        return LEFT + plot_w * cost / span

    def y(f1: float) -> float:
        return TOP + plot_h * (1 - f1)

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="chart-title" '
             f'xmlns="http://www.w3.org/2000/svg"><title id="chart-title">F1 against cost per run, one point per '
             f'model configuration</title>']
    for value in (0, 0.25, 0.5, 0.75, 1):
        parts.append(f'<line class="chart__grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(value):.1f}" '
                     f'y2="{y(value):.1f}"/><text class="chart__tick" x="{LEFT - 6}" y="{y(value) + 4:.1f}" '
                     f'text-anchor="end">{value:g}</text>')
    for value in _ticks(span / 1.15 if top_cost > 0 else span):
        parts.append(f'<text class="chart__tick" x="{x(value):.1f}" y="{HEIGHT - BOTTOM + 16}" '
                     f'text-anchor="middle">{escape(money(value))}</text>')
    parts.append(f'<line class="chart__axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{TOP + plot_h}" y2="{TOP + plot_h}"/>'
                 f'<line class="chart__axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + plot_h}"/>'
                 f'<text class="chart__label" x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 8}" text-anchor="middle">'
                 f'cost per run (US$)</text><text class="chart__label" x="14" y="{TOP + plot_h / 2:.1f}" '
                 f'text-anchor="middle" transform="rotate(-90 14 {TOP + plot_h / 2:.1f})">F1</text>')
    placed: list[tuple[float, float]] = []  # the labels drawn so far, so that none covers another
    legend = []
    for n, row in enumerate(sorted(points, key=lambda r: (r.mean_cost or 0.0, -(r.tags.f1 or 0.0)))):
        cx, cy = x(row.mean_cost or 0.0), y(row.tags.f1 or 0.0)
        tip = (f"{row.configuration.label}: F1 {figure(row.tags.f1)} (n {row.tags.n}), "
               f"{money(row.mean_cost)} per run")
        group = [f'<g class="chart__point chart__point--{n % 6}"><title>{escape(tip)}</title>']
        if row.tags.interval is not None:
            group.append(f'<line class="chart__interval" x1="{cx:.1f}" x2="{cx:.1f}" '
                         f'y1="{y(row.tags.interval.low):.1f}" y2="{y(row.tags.interval.high):.1f}"/>')
        anchor, dx = ("end", -8) if cx > LEFT + plot_w * 0.7 else ("start", 8)
        label_y = cy - 6
        while any(abs(label_y - py) < LABEL_HEIGHT and abs(cx - px) < LABEL_WIDTH for px, py in placed):
            label_y += LABEL_HEIGHT
        placed.append((cx, label_y))
        group.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5"/><text class="chart__name" x="{cx + dx:.1f}" '
                     f'y="{label_y:.1f}" text-anchor="{anchor}">{n + 1}. {escape(_short(row.configuration.model))}'
                     f'</text></g>')
        parts.append("".join(group))
        legend.append(f'<li class="chart-legend__item chart-legend__item--{n % 6}">{escape(tip)}</li>')
    parts.append(f'</svg><ol class="chart-legend">{"".join(legend)}</ol>')
    return mark_safe("".join(parts))  # every text from the database went through escape()
