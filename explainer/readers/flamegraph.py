"""Pyroscope flame-graph JSON: the ``/pyroscope/render`` flamebearer (single and "double" diff
form) and the Connect ``SelectMergeStacktraces`` / ``Diff`` responses (int64 as strings, zero
fields omitted).

Each level is a row of ``[x_delta, total, self, name]`` tuples (7 values in the diff form:
left x/total/self, right x/total/self, name); ``x`` is delta-encoded against the end of the
previous node in the row. A node's parent is the node one row up whose span contains it. We
rebuild stacks from self values (``stack self`` for each node with self > 0): that keeps the
sums exact even where real data has a parent slightly wider than self + children.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from explainer.errors import DecodeError, ValidationError
from explainer.model import OTHER, Profile, ProfileBuilder, SampleType, Source, Truncation
from explainer.readers import jsonsafe

_INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class FlameGraphData:
    """The parts of any flame-graph JSON shape that matter, already located."""

    names: list[Any]
    levels: list[list[Any]]
    width: int  # 4 (single) or 7 (diff)
    sample_type: SampleType
    format: str
    max_nodes: int = 0


def looks_like_flamegraph(obj: Any) -> bool:
    return isinstance(obj, dict) and (
        isinstance(obj.get("flamebearer"), dict) or isinstance(obj.get("flamegraph"), dict) or "levels" in obj
    )


def locate(obj: Any, *, unit: str | None = None) -> FlameGraphData:
    """Find names/levels in a render, Connect or bare flamebearer object and work out units."""
    if not isinstance(obj, dict):
        raise ValidationError("expected a JSON object", field="$")
    meta: dict[str, Any] = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
    if isinstance(obj.get("flamebearer"), dict):
        body, fmt = obj["flamebearer"], "flamebearer"
    elif isinstance(obj.get("flamegraph"), dict):
        body, fmt = obj["flamegraph"], "connect-flamegraph"
    else:
        body, fmt = obj, "flamebearer"
    names = body.get("names", [])
    raw_levels = body.get("levels", [])
    if not isinstance(names, list):
        raise ValidationError("must be a list of strings", field="names")
    if not isinstance(raw_levels, list):
        raise ValidationError("must be a list", field="levels")
    levels: list[list[Any]] = []
    for d, level in enumerate(raw_levels):
        if isinstance(level, dict):  # Connect: {"values": [...]}, empty rows omit "values"
            level = level.get("values", [])
        if not isinstance(level, list):
            raise ValidationError("must be a list of integers", field=f"levels[{d}]")
        levels.append(level)
    double = meta.get("format") == "double" or body.get("format") == "double" or "leftTicks" in body
    double = double or "leftTicks" in obj or (bool(levels) and len(levels[0]) == 7)
    width = 7 if double else 4
    mn = meta.get("maxNodes", 0)
    return FlameGraphData(names, levels, width, _sample_type(meta, body, unit), fmt, mn if isinstance(mn, int) else 0)


def _sample_type(meta: dict[str, Any], body: dict[str, Any], unit: str | None) -> SampleType:
    name = str(meta.get("name") or "")
    if not name.replace("_", "").replace("-", "").isalnum():
        name = ""  # OG Pyroscope put the query and a timestamp here, not a sample type
    units = str(meta.get("units") or body.get("units") or "")
    rate = meta.get("sampleRate") or body.get("sampleRate")
    if unit:
        return SampleType(name or "samples", unit)
    if units == "samples" and rate == 1_000_000_000:
        return SampleType(name or "cpu", "nanoseconds")  # Pyroscope v1 cpu: values are ns
    if units in ("", "samples"):
        return SampleType(name or "samples", "count" if units == "" else "samples")
    if units in ("objects", "goroutines", "lock_samples"):
        return SampleType(name or units, units)
    if units == "lock_nanoseconds":
        return SampleType(name or "lock", "nanoseconds")
    return SampleType(name or units, units)


def _as_int(value: Any, field: str) -> int:
    if isinstance(value, bool):
        raise ValidationError("must be an integer", field=field)
    if isinstance(value, int):
        out = value
    elif isinstance(value, str) and value.lstrip("-").isdigit() and len(value) <= 20:
        out = int(value)
    else:
        raise ValidationError(f"must be an integer, got {str(value)[:30]!r}", field=field)
    if not -_INT64_MAX - 1 <= out <= _INT64_MAX:
        raise ValidationError("does not fit in 64 bits", field=field)
    return out


def _plain_ints(level: Sequence[Any]) -> bool:
    """Every value an int (not a bool, not a string) within 64 bits: what :func:`_as_int` would accept unchanged."""
    return bool(level) and set(map(type, level)) == {int} and min(level) >= -_INT64_MAX - 1 and max(level) <= _INT64_MAX


@dataclass
class _Node:
    depth: int
    x: int
    total: int
    self: int
    name: int
    parent: int  # index into the flat node list, -1 for the root row


def decode_levels(data: FlameGraphData, side: int = 0) -> list[_Node]:
    """Decode one side (0 = single or left, 1 = right) into nodes with parent links, validating."""
    base = 3 * side
    nodes: list[_Node] = []
    prev_row: list[int] = []
    n_names = len(data.names)
    for d, level in enumerate(data.levels):
        if len(level) % data.width:
            raise ValidationError(f"has {len(level)} values, not a multiple of {data.width}", field=f"levels[{d}]")
        row: list[int] = []
        x_end = 0
        p = 0  # parents are sorted by x: walk them with one pointer
        # a server's levels are plain JSON integers: checked for the whole row at once (in C), not one by one
        plain = _plain_ints(level)
        for i in range(0, len(level), data.width):
            where = f"levels[{d}][{i}]"
            if plain:
                delta, total, self_ = level[i + base], level[i + base + 1], level[i + base + 2]
                name = level[i + data.width - 1]
            else:
                delta = _as_int(level[i + base], where)
                total = _as_int(level[i + base + 1], where)
                self_ = _as_int(level[i + base + 2], where)
                name = _as_int(level[i + data.width - 1], f"levels[{d}][{i + data.width - 1}]")
            if delta < 0 or total < 0 or self_ < 0:
                raise ValidationError("negative offset, total or self", field=where)
            if self_ > total:
                raise ValidationError(f"self {self_} is larger than total {total}", field=where)
            if not 0 <= name < n_names:
                raise ValidationError(f"name index {name} is outside names (0..{n_names - 1})", field=where)
            x = x_end + delta
            x_end = x + total
            parent = -1
            if d > 0:
                while p < len(prev_row) and nodes[prev_row[p]].x + nodes[prev_row[p]].total < x_end:
                    p += 1
                if p == len(prev_row) or nodes[prev_row[p]].x > x:
                    if total == 0 and data.width == 7:
                        parent = prev_row[min(p, len(prev_row) - 1)] if prev_row else -1
                    else:
                        raise ValidationError("node lies outside every node of the row above", field=where)
                else:
                    parent = prev_row[p]
            row.append(len(nodes))
            nodes.append(_Node(d, x, total, self_, name, parent))
        prev_row = row
    _check_children_fit(nodes)
    return nodes


def _check_children_fit(nodes: list[_Node]) -> None:
    inner = [0] * len(nodes)
    for node in nodes:
        if node.parent >= 0:
            inner[node.parent] += node.total
    for i, node in enumerate(nodes):
        if node.self + inner[i] > node.total:
            raise ValidationError(
                f"self {node.self} + children {inner[i]} exceed total {node.total}",
                field=f"levels[{node.depth}] node at x={node.x}",
            )


def _to_profile(data: FlameGraphData, nodes: list[_Node], source: Source, truncation: Truncation) -> Profile:
    builder = ProfileBuilder(data.sample_type)
    ids = [builder.intern(_name(data.names, i)) for i in range(len(data.names))]
    other_nodes = other_value = 0
    paths: dict[int, list[int]] = {}
    for idx, node in enumerate(nodes):
        if node.depth == 0:
            paths[idx] = []
            continue
        parent_path = paths.get(node.parent, [])
        path = [*parent_path, ids[node.name]]
        if node.total > node.self:  # only nodes with children are ever looked up again
            paths[idx] = path
        if node.self > 0:
            builder.add_ids(path, node.self)
            if data.names[node.name] == OTHER:
                other_nodes += 1
                other_value += node.self
    trunc = Truncation(
        other_value=other_value, other_nodes=other_nodes, max_nodes=truncation.max_nodes or data.max_nodes
    )
    return builder.build(source=source, truncation=trunc, sample_types=(data.sample_type,))


def _name(names: Sequence[Any], i: int) -> str:
    name = names[i]
    if not isinstance(name, str):
        raise ValidationError("must be a string", field=f"names[{i}]")
    return name


def read_flamegraph_object(
    obj: Any, *, unit: str | None = None, side: str = "right", location: str = "", max_nodes: int = 0
) -> Profile:
    """A profile from a parsed flame-graph JSON object. For diff data, ``side`` picks left or right."""
    data = locate(obj, unit=unit)
    if not data.levels:
        raise DecodeError("flame graph has no levels (an empty result?)")
    source = Source("file", location, data.format + ("-diff" if data.width == 7 else ""))
    nodes = decode_levels(data, 1 if (data.width == 7 and side == "right") else 0)
    return _to_profile(data, nodes, source, Truncation(max_nodes=max_nodes))


def read_flamegraph_pair(obj: Any, *, unit: str | None = None, location: str = "") -> tuple[Profile, Profile]:
    """Both sides of a diff flame graph: (left = baseline, right = comparison)."""
    data = locate(obj, unit=unit)
    if data.width != 7:
        raise ValidationError("is not a diff ('double') flame graph", field="metadata.format")
    source = Source("file", location, data.format + "-diff")
    left = _to_profile(data, decode_levels(data, 0), source, Truncation())
    right = _to_profile(data, decode_levels(data, 1), source, Truncation())
    return left, right


def read_flamegraph(data: bytes, *, unit: str | None = None, location: str = "") -> Profile:
    return read_flamegraph_object(jsonsafe.loads(data, what="flame-graph JSON"), unit=unit, location=location)


def encode_flamegraph(profile: Profile) -> dict[str, Any]:
    """The Connect ``flamegraph`` object for a profile (int64 as strings, as Pyroscope sends it).

    Used by the Pyroscope test server and for round-trip tests; the tree is built exactly,
    with no node budget.
    """
    from explainer.analysis.tree import build_tree

    tree = build_tree(profile, max_nodes=0)
    names = ["total"]
    name_ids: dict[str, int] = {"total": 0}
    levels: list[list[int]] = []
    x_end_by_depth: list[int] = []
    # iterative pre-order walk; x of a child starts after its parent's self (self sits left)
    stack: list[tuple[int, int, int]] = [(0, 0, 0)]  # node, depth, x
    while stack:
        node, depth, x = stack.pop()
        label = "total" if node == 0 else profile.names[tree.func[node]]
        nid = name_ids.setdefault(label, len(names))
        if nid == len(names):
            names.append(label)
        while len(levels) <= depth:
            levels.append([])
            x_end_by_depth.append(0)
        total, self_ = int(tree.total[node]), int(tree.self[node])
        levels[depth] += [x - x_end_by_depth[depth], total, self_, nid]
        x_end_by_depth[depth] = x + total
        child_x = x + self_
        placed = []
        for child in tree.children(node):
            placed.append((child, depth + 1, child_x))
            child_x += int(tree.total[child])
        stack.extend(reversed(placed))
    max_self = int(np.max(tree.self)) if len(tree.self) else 0
    out: dict[str, Any] = {"names": names, "levels": [], "total": str(profile.total)}
    for row in levels:
        values = [str(v) for v in row]
        out["levels"].append({"values": values} if values else {})
    if max_self:
        out["maxSelf"] = str(max_self)
    return out
