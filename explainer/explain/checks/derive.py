"""Numbers an answer works out from grounded ones: differences, sums, ratios and shares of a subset.

"Apart from the 55.1 GB KV cache, the remaining 19.6 GB..." is 74.7 GB - 55.1 GB; "about four
times the weights" is 55.1 GB / 13.8 GB. Operands come only from the :class:`Pool` of one answer:
the values of the subjects it has named so far, the numbers it has already checked, and the
total. Sums and differences also need a word that says arithmetic is meant ("remaining",
"together", "plus"), because any number is some sum of enough others; shares and ratios have
their own mark (a "%", "times"). A result passes when it lies within the precision the claim is
written with, widened by the rounding of the operands as they were shown.
"""

from __future__ import annotations

import itertools
import re

from explainer import units

CUE = re.compile(
    r"\b(?:rest|remaining|remainder|others?|else|apart|besides|excluding|except|leaves?|left|together|combined"
    r"|in all|adds? up|sum|plus|minus|difference|more|less|gap|points?|grew|shrank|increased?|decreased?"
    r"|overig\w*|resterend\w*|samen|verschil|opgeteld|behalve|zonder|meer dan|minder dan)\b|\+|−",
    re.I,
)
REST = re.compile(
    r"\b(?:rest|remaining|remainder|everything else|others?|apart from|besides|other than|excluding"
    r"|overig\w*|resterend\w*|behalve)\b",
    re.I,
)
MAX_OPERANDS = 24  # per kind and claim: a line naming 100 functions still costs milliseconds
_SHOW = {"bytes": units.format_bytes, "time": units.format_duration_ns}
Operands = dict[float, float]  # value -> half of the step it was shown with


def _show(kind: str, value: float) -> str:
    if kind == "percent":
        return f"{value:.1f}%"
    return _SHOW[kind](value) if kind in _SHOW else f"{value:g}"


def _within(value: float, tol: float, readings: tuple[tuple[float, float], ...]) -> bool:
    return any(abs(value - v) <= h + tol for v, h in readings)


class Pool:
    """One answer's operands: the numbers it has written (in order) and the total, per kind.

    :meth:`derive` adds the claim's own operands (the values of the subjects it names)."""

    def __init__(self) -> None:
        self.written: dict[str, list[float]] = {"bytes": [], "time": [], "percent": []}
        self.total: dict[str, float] = {}  # kind -> the total's value

    def wrote(self, kind: str, value: float) -> None:
        if kind in self.written and value > 0:
            self.written[kind].append(value)

    def derive(
        self, kind: str, readings: tuple[tuple[float, float], ...], local: dict[str, Operands], text: str
    ) -> tuple[float, str] | None:
        """(the derived value, how: "74.7 GB − 55.1 GB") when the arithmetic holds, else None."""
        local = {k: dict(list(ops.items())[:MAX_OPERANDS]) for k, ops in local.items()}
        if kind == "ratio":
            return _ratio(local, readings)
        found = _share(local, readings) if kind == "percent" else None
        if found is None and kind in self.written and CUE.search(text):
            found = _sum(kind, local.get(kind, {}), readings)
        if found is None and kind in self.written and REST.search(text):
            found = self._rest(kind, readings, local.get(kind, {}))
        return found

    def _rest(self, kind: str, readings: tuple[tuple[float, float], ...], ops: Operands) -> tuple[float, str] | None:
        """ "The rest": the total less the last few numbers written (the items listed before it), or
        less one or two values of the subjects the claim names ("apart from the KV cache")."""
        total = self.total.get(kind, 0.0)
        suffixes: list[list[float]] = []
        for value in reversed(self.written[kind]):
            if value >= total:
                break
            suffixes.append([*(suffixes[-1] if suffixes else []), value])
        singles = [[v] for v in ops if v < total]
        pairs = [[a, b] for a, b in itertools.combinations(ops, 2) if a + b < total]
        for used in (*suffixes, *singles, *pairs):
            tol = units.display_half(total, kind) + sum(units.display_half(v, kind) for v in used)
            if _within(total - sum(used), tol, readings):
                return total - sum(used), _show(kind, total) + "".join(f" − {_show(kind, v)}" for v in used)
        return None


def _sum(kind: str, ops: Operands, readings: tuple[tuple[float, float], ...]) -> tuple[float, str] | None:
    items = sorted(ops.items(), reverse=True)  # the largest first: a − b − c, not a negative
    for size in (2, 3):
        for combo in itertools.combinations(items, size):
            (a, ha), rest = combo[0], combo[1:]
            tol = ha + sum(h for _, h in rest)
            for signs in itertools.product((1, -1), repeat=size - 1):
                value = a + sum(s * v for s, (v, _) in zip(signs, rest, strict=True))
                if value > 0 and _within(value, tol, readings):
                    terms = "".join(
                        f" {'+' if s > 0 else '−'} {_show(kind, v)}" for s, (v, _) in zip(signs, rest, strict=True)
                    )
                    return value, _show(kind, a) + terms
    return None


def _share(local: dict[str, Operands], readings: tuple[tuple[float, float], ...]) -> tuple[float, str] | None:
    for kind in ("bytes", "time"):
        for (a, ha), (b, hb) in itertools.permutations(local.get(kind, {}).items(), 2):
            if 0 < a < b:
                pct = 100.0 * a / b
                if _within(pct, 100.0 * (ha / b + a * hb / (b * b)), readings):
                    return pct, f"{_show(kind, a)} / {_show(kind, b)}"
    return None


def _ratio(local: dict[str, Operands], readings: tuple[tuple[float, float], ...]) -> tuple[float, str] | None:
    for kind, ops in local.items():
        for (a, ha), (b, hb) in itertools.permutations(ops.items(), 2):
            if a > b > 0 and _within(a / b, ha / b + a * hb / (b * b), readings):
                return a / b, f"{_show(kind, a)} / {_show(kind, b)}"
    return None
