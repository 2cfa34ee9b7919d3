"""The interactive flame graph: one plotly bar per call-tree node, root at the bottom.

Built from :func:`explainer.analysis.tree.build_tree` with its node budget, so a 500k-stack
profile still draws at most 8,192 bars; what the budget merged into ``other`` is stated
under the chart. Why bars and not ``go.Icicle``: in headless Chromium plotly's icicle took
2.2 s to draw 8k nodes without labels and 8.4 s with them, bars take about 1 s with labels
(measured with plotly.js 4.1; see tests/test_browser.py). Hover shows self, total and
shares; clicking a bar focuses on it (a rerun that draws only its subtree and ancestors, with
labels recomputed for the new width); dragging zooms horizontally; the search box highlights.

Plotly treats label and hover text as a small HTML dialect (``<a href>``, ``<b>``...), so
every name goes through ``symbols.clean`` and then ``html.escape``: a symbol called
``<img src=x onerror=...>`` is drawn as those characters, never as markup.
"""

from __future__ import annotations

import html
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from explainer import units
from explainer.analysis.functions import value_of_stacks_with
from explainer.analysis.tree import DEFAULT_MAX_NODES, CallTree, build_tree
from explainer.model import OTHER, Profile
from explainer.report.analyze import md_cell
from explainer.symbols import clean
from explainer.ui.state import SessionData

CHART_PX = 640  # the width labels are fitted to (the right-hand column of the wide layout)
CHAR_PX = 6.6  # average width of one 11 px label character
ROW_PX = 20
HIGHLIGHT, GREY = "rgb(109,40,217)", "rgb(168,162,158)"


@dataclass(frozen=True, eq=False)
class FlameData:
    """Per-node arrays, built once per profile; colours, labels and range change per view."""

    tree: CallTree
    x0: np.ndarray  # left edge of each node's bar, in the profile's unit
    raw: list[str]  # raw names, for matching
    shown: list[str]  # cleaned names (not yet escaped)
    hover: np.ndarray  # (n, 6): name, self, self share, total, total share, node id
    base_colors: list[str]
    other_value: int
    other_nodes: int


def _flame_color(name: str) -> str:
    """A warm flame colour that depends only on the name, so a function keeps its colour."""
    h = zlib.crc32(name.encode("utf-8", "surrogatepass"))
    return f"rgb({205 + h % 50},{80 + (h >> 8) % 150},{30 + (h >> 16) % 40})"


def _faded(color: str, keep: float = 0.3) -> str:
    r, g, b = (int(x) for x in color[4:-1].split(","))
    return f"rgb({int(255 - (255 - r) * keep)},{int(255 - (255 - g) * keep)},{int(255 - (255 - b) * keep)})"


def _x_starts(tree: CallTree) -> np.ndarray:
    """Children sit side by side from their parent's left edge, in name order (like pprof)."""
    x = np.zeros(tree.size, dtype=np.int64)
    for node in range(tree.size):  # ids are breadth first: a parent is placed before its children
        left = int(x[node])
        for child in tree.children(node):
            x[child] = left
            left += int(tree.total[child])
    return x


def flame_data(profile: Profile, limit: int = DEFAULT_MAX_NODES) -> FlameData:
    tree = build_tree(profile, max_nodes=limit)  # the budget counts the `other` nodes too
    n, unit, grand = tree.size, tree.unit, max(int(tree.total[0]), 1)
    raw = [tree.name(i) for i in range(n)]
    is_other = (tree.func >= len(profile.names)) & (np.arange(n) > 0)
    shown = ["other (merged small call paths)" if is_other[i] else clean(raw[i]) for i in range(n)]
    hover = np.empty((n, 6), dtype=object)
    for i in range(n):
        s, t = int(tree.self[i]), int(tree.total[i])
        hover[i] = (
            html.escape(shown[i], quote=False),
            units.format_value(s, unit),
            units.format_share(s, grand),
            units.format_value(t, unit),
            units.format_share(t, grand),
            i,
        )
    colors = [GREY if (i == 0 or is_other[i]) else _flame_color(r) for i, r in enumerate(raw)]
    other_value = int(tree.total[is_other].sum())
    return FlameData(tree, _x_starts(tree), raw, shown, hover, colors, other_value, int(is_other.sum()))


def in_view(data: FlameData, zoom: int | None) -> np.ndarray:
    """Nodes drawn when focused on ``zoom``: its subtree and its ancestors (all nodes if None)."""
    tree = data.tree
    if not zoom:
        return np.arange(tree.size)
    lo, hi = data.x0[zoom], data.x0[zoom] + tree.total[zoom]
    inside = (data.x0 >= lo) & (data.x0 + tree.total <= hi) & (tree.depth >= tree.depth[zoom])
    inside[[0, *tree.path(zoom)]] = True
    return np.flatnonzero(inside)


def _label(name: str, px: float) -> str:
    fits = int(px / CHAR_PX)
    if fits < 4:
        return ""
    return html.escape(name if len(name) <= fits else name[: fits - 1] + "…", quote=False)


def figure(data: FlameData, highlight: list[int] | None = None, zoom: int | None = None) -> go.Figure:
    tree = data.tree
    nodes = in_view(data, zoom)
    lo = int(data.x0[zoom]) if zoom else 0
    span = max(int(tree.total[zoom if zoom else 0]), 1)
    px = tree.total[nodes] * (CHART_PX / span)
    colors = data.base_colors
    if highlight:  # fade the rest toward white: the flame still reads, the matches stand out
        hit = set(highlight)
        colors = [HIGHLIGHT if i in hit else _faded(c) for i, c in enumerate(colors)]
    levels = int(tree.depth[nodes].max(initial=0)) + 1
    bars = {
        "type": "bar",
        "orientation": "h",
        "base": data.x0[nodes].tolist(),
        "x": tree.total[nodes].tolist(),
        "y": tree.depth[nodes].tolist(),
        "width": 1.0,
        "marker": {"color": [colors[i] for i in nodes], "line": {"width": 0.6, "color": "#ffffff"}},
        "text": [_label(data.shown[i], p) for i, p in zip(nodes.tolist(), px.tolist(), strict=True)],
        "textposition": "inside",
        "insidetextanchor": "start",
        "textangle": 0,
        "textfont": {"size": 11, "color": "#1c1917"},
        "customdata": data.hover[nodes].tolist(),
        "hovertemplate": (
            "<b>%{customdata[0]}</b><br>self %{customdata[1]} (%{customdata[2]})"
            "<br>total %{customdata[3]} (%{customdata[4]})<extra></extra>"
        ),
        "unselected": {"marker": {"opacity": 1.0}},
    }
    layout = {
        "height": min(max(levels * ROW_PX + 24, 260), 1400),
        "margin": {"t": 4, "l": 4, "r": 4, "b": 4},
        "bargap": 0,
        "dragmode": "zoom",
        "plot_bgcolor": "#ffffff",
        "uniformtext": {"minsize": 9, "mode": "hide"},
        "hoverlabel": {"align": "left"},
        "xaxis": {"range": [lo, lo + span], "visible": False},
        "yaxis": {"range": [-0.5, levels - 0.5], "visible": False, "fixedrange": True},
    }
    # plain dicts without plotly's per-element validation: 15 ms instead of 440 ms for 8k bars
    # (st.plotly_chart validates the figure once more itself)
    return go.Figure({"data": [bars], "layout": layout}, _validate=False)


def matches(data: FlameData, query: str) -> list[int]:
    """Nodes whose name contains ``query`` (case-insensitive plain text)."""
    q = query.strip().lower()
    return [i for i, r in enumerate(data.raw) if i > 0 and q in r.lower()] if q else []


def caption(data: FlameData, profile: Profile) -> str:
    tree = data.tree
    parts = [
        f"{tree.size - 1:,} call-tree nodes, root (all {units.format_value(tree.total[0], tree.unit)}) at the bottom"
    ]
    if tree.merged_nodes:
        held = units.format_value(data.other_value, tree.unit)
        parts.append(
            f"{tree.merged_nodes:,} smaller call paths merged into {data.other_nodes:,} grey '{OTHER}' bar(s) holding "
            f"{held} ({units.format_share(data.other_value, tree.total[0])}) to stay within the "
            f"{DEFAULT_MAX_NODES:,}-bar budget; totals stay exact"
        )
    if profile.truncation.other_nodes:
        merged = units.format_value(profile.truncation.other_value, tree.unit)
        parts.append(f"the source itself had already merged {merged} into '{OTHER}'")
    parts.append("hover for self and total; click a bar to focus on it; drag to zoom, double-click to zoom out")
    return "; ".join(parts) + "."


def _zoom(st: Any, state: SessionData, profile: Profile, data: FlameData, key: str) -> int | None:
    """The focused node for this profile, updated from a click on the chart."""
    event = st.session_state.get(key)
    points = getattr(getattr(event, "selection", None), "points", None) or []
    if points:
        node = int(points[0].get("customdata", [0] * 6)[5])
        state.zoom = (id(profile), node if 0 < node < data.tree.size else 0)
        state.flame_rev += 1  # a fresh widget: the click is consumed, not replayed on later reruns
    if state.zoom is None or state.zoom[0] != id(profile):
        return None
    return state.zoom[1] or None


def show(st: Any, state: SessionData, profile: Profile, data: FlameData) -> None:
    """Search box, chart and the honest caption; the last answer's function is highlighted by default."""
    focus = state.focus
    query = st.text_input(
        "Highlight in flame graph",
        key="flame_search",
        placeholder=f"a function name{', e.g. ' + focus[:40] if focus else ''}",
    )
    term = query.strip() or focus
    zoom = _zoom(st, state, profile, data, f"flame_{state.flame_rev}")
    if zoom:
        path = " → ".join(md_cell(data.shown[i]) for i in data.tree.path(zoom)[-3:])
        cols = st.columns([5, 1])
        cols[0].caption(f"Focused on …{path} ({data.hover[zoom][3]}, {data.hover[zoom][4]} of the total).")
        if cols[1].button("Show all", key="flame_reset", icon=":material/zoom_out_map:"):
            state.zoom, zoom = None, None
    key = (data, term, zoom)  # data compares by identity (eq=False) and is kept alive by the key
    if state.flame_figure[0] != key:  # one slot: a rerun for a chat answer reuses the drawn figure
        state.flame_figure = (key, figure(data, matches(data, term) if term else None, zoom))
    st.plotly_chart(
        state.flame_figure[1],
        key=f"flame_{state.flame_rev}",
        on_select="rerun",
        selection_mode="points",
        theme=None,
        width="stretch",
        config={"displaylogo": False, "modeBarButtonsToRemove": ["lasso2d", "select2d", "autoScale2d"]},
    )
    st.caption(caption(data, profile))
    if term:
        ids = [i for i, n in enumerate(profile.names) if term.lower() in n.lower()]
        held = value_of_stacks_with(profile, ids) if ids else 0
        what = "the last answer's function" if not query.strip() else "functions matching"
        hits = len(matches(data, term))
        hidden = " (none drawn on their own: they are inside the grey 'other' bars)" if ids and not hits else ""
        st.caption(
            f"{hits:,} bar(s) highlighted for {what} {md_cell(term)}{hidden}; the stacks through "
            f"{len(ids):,} matching function(s) hold {units.format_value(held, profile.unit)} "
            f"({units.format_share(held, profile.total)})."
        )
