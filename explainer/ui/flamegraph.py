"""The interactive flame graph: our own small Streamlit component drawing on a canvas.

Why our own: the plotly bar chart it replaces sent 961 KB for 8k bars (64% preformatted hover
strings), re-ran the script on every click and stayed white under a dark theme. The component
(``explainer/ui/flame/flame.js`` and ``flame.css``, registered with ``st.components.v2``, no
CDN and no build step) gets one payload of numbers per profile: the node arrays of
:func:`explainer.analysis.tree.build_tree` (its node budget holds, what it merged into
``other`` is stated under the chart), the names it uses once each, their meanings and colour
groups, and the unit rule of :func:`explainer.units.display_rule`. Zoom, search and tooltips
run in the browser; only "Sandwich view" sends a function back to Python.

Names travel as JSON strings and are drawn with canvas ``fillText`` or set as ``textContent``,
never parsed as HTML, so a symbol called ``<img src=x onerror=...>`` shows as those characters.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from explainer import units
from explainer.analysis.difftree import DiffTree
from explainer.analysis.tree import DEFAULT_MAX_NODES, CallTree, build_tree
from explainer.analysis.tree_depth import MAX_DRAWN_DEPTH, cut_depth
from explainer.explain.answers.conventions import describe
from explainer.knowledge.classify import OTHER as UNCURATED
from explainer.knowledge.classify import classify, label, lookup
from explainer.model import OTHER, Profile
from explainer.symbols import Symbol, clean, decode, guess_runtime
from explainer.ui.state import FLAME, ICICLE, SessionData

ASSETS = Path(__file__).parent / "flame"
NAME_CAP = 300  # characters of a name sent to the browser (the tooltip shows it whole up to this)
MERGED = "other (merged small call paths)"
MARKER_MEANING = "Call paths merged to stay within the bar budget (smaller ones) or the depth bound (deeper ones)."


@dataclass(frozen=True, eq=False)
class FlameData:
    """What the component draws for one profile, built once per profile."""

    tree: CallTree
    payload: dict[str, Any]  # JSON-ready numbers and interned strings
    raw: tuple[str, ...]  # raw name of each payload name index (what a click sends back)
    other_value: int
    other_nodes: int
    cut_nodes: int = 0  # nodes deeper than MAX_DRAWN_DEPTH, merged into `other` (stated in the caption)
    cut_value: int = 0


def colour_group(name: str) -> str:
    """Grafana colours by package; we colour curated frames by their category, the rest by package."""
    category = classify(name)
    if category != UNCURATED:
        return label(category)
    sym = decode(name)
    package = sym.owner.replace("::", ".").split(".")[0]
    return clean(package, 60) or sym.language or sym.kind


def package_of(sym: Symbol) -> str:
    """The package (or namespace, module, library) a frame belongs to, for the "by package" colours."""
    owner = sym.owner.replace("::", ".").replace("/", ".")
    return clean(owner.split(".")[0], 60) if owner else (sym.language or sym.kind)


def _english(message: str, /, **values: str) -> str:
    return message.format(**values)


def tooltip_meaning(name: str, runtime: str | None = None) -> str:
    """What a bar's tooltip says a frame is, beyond its name: the curated explanation with its
    category when the knowledge base knows the frame, else the frame's kind and language (the
    decoder's full sentence restates the name, which the tooltip already shows)."""
    entry = lookup(name)
    if entry is not None:
        return f"{label(entry.category)}: {entry.explanation}"
    return describe(decode(name, runtime), _english)


def _interned(values: list[str]) -> tuple[list[str], list[int]]:
    table: dict[str, int] = {}
    index = [table.setdefault(v, len(table)) for v in values]
    return list(table), index


def payload(
    tree: CallTree, n_profile_names: int, rooted: bool = False, grand: int | None = None
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Node arrays plus the names they use; ``func`` indexes the payload's own name table.

    ``rooted``: every stack starts with one function (a sandwich's profiles), so that function's
    node becomes the root and the artificial "total" node above it is left out. ``grand`` is
    what shares are "of all" (the whole profile's total for a sandwich; the tree's by default).
    """
    tree = cut_depth(tree, n_profile_names).tree  # a graph never taller than MAX_DRAWN_DEPTH levels
    skip = 1 if rooted else 0
    func = tree.func[skip:]
    used, local = np.unique(func[func >= 0], return_inverse=True)
    raw = tuple(tree.names[int(f)] for f in used)
    is_marker = [int(f) >= n_profile_names for f in used]  # the tree's own `other` (not a function called so)
    names = [MERGED if m else clean(r, NAME_CAP) for r, m in zip(raw, is_marker, strict=True)]
    runtime = guess_runtime(tree.names[:n_profile_names])
    meanings, meaning = _interned(
        [MARKER_MEANING if m else tooltip_meaning(r, runtime)
         for r, m in zip(raw, is_marker, strict=True)]
    )  # fmt: skip
    groups, group = _interned(["other" if m else colour_group(r) for r, m in zip(raw, is_marker, strict=True)])
    packages, package = _interned(
        ["other" if m else package_of(decode(r, runtime)) for r, m in zip(raw, is_marker, strict=True)]
    )
    ids = local.tolist() if rooted else [-1, *local.tolist()]
    data = {
        "id": uuid.uuid4().hex,  # a new profile resets the browser's zoom and selection
        "mode": "flame",
        "names": names,
        "meanings": meanings,
        "meaning": meaning,
        "groups": groups,
        "group": group,
        "packages": packages,
        "package": package,
        "func": ids,
        "parent": (tree.parent[skip:] - skip).tolist(),
        "total": tree.total[skip:].tolist(),
        "self": tree.self[skip:].tolist(),
        "grand": int(tree.total[0]) if grand is None else grand,
        "otherId": is_marker.index(True) if any(is_marker) else -1,
        "unit": units.display_rule(tree.unit),
    }
    return data, raw


def flame_data(profile: Profile, limit: int = DEFAULT_MAX_NODES) -> FlameData:
    whole = build_tree(profile, max_nodes=limit)  # the budget counts the `other` nodes too
    is_other = (whole.func >= len(profile.names)) & (np.arange(whole.size) > 0)
    cut = cut_depth(whole, len(profile.names))
    data, raw = payload(cut.tree, len(profile.names))
    value, nodes = int(whole.total[is_other].sum()), int(is_other.sum())
    return FlameData(cut.tree, data, raw, value, nodes, cut.cut_nodes, cut.cut_value)


def shared(profile: Profile) -> FlameData:
    """The profile's flame graph data, made once for every session (:mod:`explainer.ui.cache`)."""
    from explainer.ui.cache import SHARED

    return SHARED.derived(profile, "flame", lambda: flame_data(profile))


def diff_payload(diff: DiffTree) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The payload of :func:`payload` for the tree of both profiles, with each side's values per node."""
    cut = cut_depth(diff.tree, diff.name_count, carried=(diff.before, diff.after, (~diff.noise).astype(np.int64)))
    before, after, judged = cut.carried
    noise = judged == 0  # a merged `other` bar is noise only when everything it holds was
    data, raw = payload(cut.tree, diff.name_count)
    moved = np.where(noise, 0, np.abs(after - before))
    moved[0] = 0  # the root holds every change: scale the colours to the call paths instead
    data.update(
        mode="diff",
        before=before.tolist(),
        after=after.tolist(),
        noise=noise.astype(int).tolist(),
        grandBefore=diff.total_before,
        grandAfter=diff.total_after,
        maxChange=int(moved.max(initial=0)),
    )
    return data, raw


def caption(data: FlameData, profile: Profile, orientation: str = FLAME) -> str:
    tree = data.tree
    where = "at the bottom, callees above their callers" if orientation == FLAME else "at the top, callees below"
    parts = [f"{tree.size - 1:,} call-tree nodes, root (all {units.format_value(tree.total[0], tree.unit)}) {where}"]
    if tree.merged_nodes:
        held = units.format_value(data.other_value, tree.unit)
        parts.append(
            f"{tree.merged_nodes:,} smaller call paths merged into {data.other_nodes:,} grey '{OTHER}' bar(s) holding "
            f"{held} ({units.format_share(data.other_value, tree.total[0])}) to stay within the "
            f"{tree.max_nodes:,}-bar budget; totals stay exact"
        )
    if data.cut_nodes:
        held = units.format_value(data.cut_value, tree.unit)
        parts.append(
            f"call paths deeper than {MAX_DRAWN_DEPTH:,} levels are cut from the graph: {data.cut_nodes:,} deeper "
            f"bars merged into grey '{OTHER}' bars holding {held}; the tables and the answers count every frame"
        )
    if profile.truncation.other_nodes:
        merged = units.format_value(profile.truncation.other_value, tree.unit)
        parts.append(f"the source itself had already merged {merged} into '{OTHER}'")
    parts.append("colours follow the legend above the graph")
    return "; ".join(parts) + "."


@functools.cache
def _renderer() -> Any:
    """The component, registered once per process (the assets are our own files, not user data)."""
    from streamlit.components.v2 import component

    return component(
        "explainer_flame",
        css=(ASSETS / "flame.css").read_text(encoding="utf-8"),
        js=(ASSETS / "flame.js").read_text(encoding="utf-8"),
    )


def draw(
    data: dict[str, Any],
    key: str,
    focus: str = "",
    why: str = "",
    on_sandwich: Any = None,
    orientation: str | None = None,
    on_orientation: Any = None,
) -> Any:
    """Mount the component, ``focus`` highlighted (``why`` says what chose it); ``on_sandwich`` runs
    (before the rerun) when "Sandwich view" is clicked. With an ``orientation`` the user may flip the
    graph (the browser remembers it) and ``on_orientation`` runs when the drawn orientation changes;
    without one (a sandwich's graphs) the payload's own direction holds."""
    shown = {**data, "focus": clean(focus, NAME_CAP), "focusWhy": why or "the function in focus"}
    callbacks = {"on_sandwich_change": on_sandwich or (lambda: None)}
    if orientation is not None:
        shown["orientation"] = orientation
        callbacks["on_orientation_change"] = on_orientation or (lambda: None)
    return _renderer()(data=shown, key=key, **callbacks)


def picked(data: FlameData, value: Any) -> str:
    """The raw function name for a payload name index sent by the browser ("" if it is not one)."""
    ok = isinstance(value, int) and 0 <= value < len(data.raw) and value != data.payload["otherId"]
    return data.raw[value] if ok else ""


def orientation_follower(st: Any, state: SessionData, key: str) -> Callable[[], None]:
    """The callback that keeps ``state.orientation`` as the browser draws the graph under ``key``."""

    def follow() -> None:
        value = getattr(st.session_state[key], "orientation", None)
        if value in (FLAME, ICICLE):
            state.orientation = value

    return follow


def show(
    st: Any, state: SessionData, profile: Profile, data: FlameData, on_pick: Callable[[str], None], key: str = "flame"
) -> None:
    """The chart and its honest caption, the function in focus highlighted; "Sandwich view" calls
    ``on_pick(raw name)`` (in a widget callback, before the rerun)."""

    def to_sandwich() -> None:
        chosen = picked(data, getattr(st.session_state[key], "sandwich", None))
        if chosen:
            on_pick(chosen)

    draw(
        data.payload,
        key,
        state.selected,
        state.selected_by,
        to_sandwich,
        orientation=state.orientation,
        on_orientation=orientation_follower(st, state, key),
    )
    st.caption(caption(data, profile, state.orientation))
