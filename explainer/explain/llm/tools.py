"""The model's tools: narrow, typed look-ups over the analyzer for the one loaded profile.

The application owns the profile (and, for server sources, the server and tenant): tools take
no argument that could choose another one. Arguments are validated with pydantic models that
forbid extra fields (a ``url`` or ``tenant`` is rejected, not ignored) and clamp sizes; an
unknown tool or malformed JSON gets an error result, never an execution. Results are data
blocks (:func:`~explainer.explain.safety.data_block`), and every number in them is recorded in
the conversation's grounding as it is formatted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from explainer import knowledge
from explainer.analysis.diff import Diff
from explainer.analysis.functions import top
from explainer.analysis.sandwich import ENTRY, SELF
from explainer.explain.answers.writer import Writer
from explainer.explain.checks.grounding import TOTAL
from explainer.explain.checks.verify import Grounding
from explainer.explain.context import ProfileContext
from explainer.explain.safety import data_block
from explainer.symbols import clean, decode

log = logging.getLogger(__name__)
MAX_RESULT_CHARS = 6_000
NAME_CAP = 120


def _clamp(low: int, high: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool):
            raise ValueError("expected an integer")
        try:
            number = int(float(value))
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError("expected an integer") from exc
        return min(max(number, low), high)

    return check


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", str_max_length=1_000)


class TopArgs(_Args):
    order: Literal["self", "total"] = "self"
    n: int = 10
    clamp_n = field_validator("n", mode="before")(_clamp(1, 20))


class NameArgs(_Args):
    name: str = Field(min_length=1)


class ChainArgs(_Args):
    name: str | None = None


class NeighbourArgs(_Args):
    name: str = Field(min_length=1)
    limit: int = 8
    clamp_limit = field_validator("limit", mode="before")(_clamp(1, 15))


class SearchArgs(_Args):
    text: str = Field(min_length=2)
    limit: int = 10
    clamp_limit = field_validator("limit", mode="before")(_clamp(1, 20))


class CompareArgs(_Args):
    n: int = 8
    clamp_n = field_validator("n", mode="before")(_clamp(1, 15))


_DESCRIPTIONS: dict[str, tuple[str, type[_Args]]] = {
    "top_functions": (
        "The functions using the most by self (directly) or by total (including callees), with "
        "values and shares of the total.",
        TopArgs,
    ),
    "function_details": (
        "Self, total, what the frame is, and its main callers and callees, for one function of the profile.",
        NameArgs,
    ),
    "call_chain": (
        "The heaviest call chain to a function, entry point first; without a name, to the biggest self consumer.",
        ChainArgs,
    ),
    "callers_callees": ("Who calls a function and what it calls, heaviest first.", NeighbourArgs),
    "symbol_meaning": (
        "What a frame label means by the naming conventions and the knowledge base; works for "
        "names that are not in the profile.",
        NameArgs,
    ),
    "search_functions": ("Functions whose name contains the given text (plain text, case-insensitive).", SearchArgs),
    "compare": ("What changed against the baseline profile: totals and the biggest changes by self.", CompareArgs),
}


def _schema(model: type[_Args]) -> dict[str, Any]:
    schema = model.model_json_schema()
    props = {k: {kk: vv for kk, vv in v.items() if kk != "title"} for k, v in schema.get("properties", {}).items()}
    return {
        "type": "object",
        "properties": props,
        "required": schema.get("required", []),
        "additionalProperties": False,
    }


class Toolbox:
    """The tools for one conversation; ``grounding`` collects every number a result shows."""

    def __init__(self, ctx: ProfileContext, grounding: Grounding) -> None:
        self.ctx, self.grounding = ctx, grounding
        self.names = [n for n in _DESCRIPTIONS if n != "compare" or isinstance(ctx.diff, Diff)]

    def specs(self) -> list[dict[str, Any]]:
        return [
            {
                "type": "function",
                "function": {"name": n, "description": _DESCRIPTIONS[n][0], "parameters": _schema(_DESCRIPTIONS[n][1])},
            }
            for n in self.names
        ]

    def execute(self, name: str, args: Any) -> str:
        """The result (a data block) of one call; errors are results too, so the model can recover."""
        shown = clean(str(name), 60)
        if name not in self.names:
            return self.result(shown, {"error": f"unknown tool; the tools are: {', '.join(self.names)}"})
        if not isinstance(args, dict):
            return self.result(shown, {"error": "arguments must be a JSON object"})
        try:
            parsed = _DESCRIPTIONS[name][1].model_validate(args)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()[:5])
            return self.result(shown, {"error": f"invalid arguments: {clean(problems, 300)}"})
        w = Writer(self.ctx)
        try:
            payload = getattr(self, f"_{name}")(w, parsed)
        except Exception as exc:  # a tool failure is reported to the model, never raised into the chat
            log.warning("tool %s failed: %s", name, type(exc).__name__)
            return self.result(shown, {"error": "the tool failed on this profile"})
        self.grounding.merge(w.g)
        return self.result(shown, payload)

    def malformed(self, name: str | None) -> str:
        return self.result(clean(str(name or "?"), 60), {"error": "malformed tool call (arguments are not valid JSON)"})

    @staticmethod
    def result(tool: str, payload: dict[str, Any]) -> str:
        block = data_block("tool_result", {"tool": tool, **payload})
        if len(block) > MAX_RESULT_CHARS:  # rows are already capped; this is the last line of defence
            block = data_block("tool_result", {"tool": tool, "error": "result too large; ask for fewer rows"})
        return block

    # the tools
    def _n(self, name: str) -> str:
        return clean(name[: NAME_CAP + 1], NAME_CAP)

    def _find(self, text: str) -> int | None:
        ids = self.ctx.resolve(text)
        return ids[0] if ids else None

    def _missing(self, text: str) -> dict[str, Any]:
        similar = self.ctx.names.search(text, 5)
        return {
            "error": f"no function named {clean(text, 80)!r} in this profile",
            "similar": [self._n(self.ctx.profile.names[i]) for i in similar],
        }

    def _top_functions(self, w: Writer, a: TopArgs) -> dict[str, Any]:
        lst = top(self.ctx.stats, a.order, a.n)
        return {
            "order": a.order,
            "of_functions": w.n(lst.of_functions),
            "covered": w.p(lst.covered),
            "rows": [[self._n(r.name), w.vp(r.self, r.name, "self"), w.vp(r.total, r.name, "total")] for r in lst.rows],
            "columns": ["function", "self (share)", "total (share)"],
        }

    def _function_details(self, w: Writer, a: NameArgs) -> dict[str, Any]:
        fid = self._find(a.name)
        if fid is None:
            return self._missing(a.name)
        s, t = self.ctx.of(fid)
        sw = self.ctx.sandwich(fid, 5)
        name = self.ctx.profile.names[fid]
        return {
            "function": self._n(name),
            "self": w.vp(s, name, "self"),
            "total": w.vp(t, name, "total"),
            "meaning": w.meaning(self.ctx.profile.names[fid], full=True),
            "knobs": w.knobs(self.ctx.profile.names[fid]),
            "callers": [[self._n(c.name), w.v(c.value, c.name)] for c in sw.callers if c.name != ENTRY],
            "callees": [[self._n(c.name), w.v(c.value, c.name)] for c in sw.callees],
        }

    def _call_chain(self, w: Writer, a: ChainArgs) -> dict[str, Any]:
        fid = self._find(a.name) if a.name else self.ctx.summary.top_self.rows[0].id
        if fid is None:
            return self._missing(a.name or "")
        chain = self.ctx.chain_to(fid)
        if chain is None:
            return {"error": "this function is only reached off the widest paths; ask callers_callees instead"}
        steps = [
            s for i, s in enumerate(chain.steps) if i in (0, len(chain.steps) - 1) or not self.ctx.is_noise(s.name)
        ][-30:]
        return {
            "target": self._n(chain.target),
            "entry_first": True,
            "steps": [
                [
                    self._n(s.name),
                    w.vp(s.total, s.name, "total"),
                    w.v(s.self, s.name, "self"),
                    clean(decode(s.name, w.runtime).kind, 20),
                ]
                for s in steps
            ],
            "columns": ["function", "total (share)", "self", "kind"],
            "frames_in_chain": w.n(len(chain.steps)),
            "interpreter_frames_left_out": w.n(len(chain.steps) - len(steps)),
            "value_on_this_chain": w.vp(chain.value, chain.target),
        }

    def _callers_callees(self, w: Writer, a: NeighbourArgs) -> dict[str, Any]:
        fid = self._find(a.name)
        if fid is None:
            return self._missing(a.name)
        sw = self.ctx.sandwich(fid, a.limit)
        return {
            "function": self._n(sw.function),
            "total": w.vp(self.ctx.of(fid)[1], sw.function, "total"),
            "callers": [[self._n(c.name), w.vp(c.value, c.name)] for c in sw.callers],
            "callees": [
                [self._n(c.name) if c.name != SELF else SELF, w.vp(c.value, c.name if c.name != SELF else sw.function)]
                for c in sw.callees
            ],
        }

    def _symbol_meaning(self, w: Writer, a: NameArgs) -> dict[str, Any]:
        fid = self._find(a.name)
        name = self.ctx.profile.names[fid] if fid is not None else a.name
        sym = decode(name, w.runtime)
        out: dict[str, Any] = {
            "label": self._n(name),
            "in_profile": fid is not None,
            "kind": sym.kind,
            "language": sym.language or "ambiguous",
            "convention": w.convention(name),
        }
        described = knowledge.describe(name)
        if described:
            out["knowledge"] = w.text(described)
        if fid is not None:
            s, t = self.ctx.of(fid)
            out.update(self=w.vp(s, name, "self"), total=w.vp(t, name, "total"))
        return out

    def _search_functions(self, w: Writer, a: SearchArgs) -> dict[str, Any]:
        ids = [i for i in self.ctx.names.search(a.text, 200) if self.ctx.stats.total_values[i] > 0]
        ids.sort(key=lambda i: -int(self.ctx.stats.total_values[i]))
        return {
            "matches": w.n(len(ids)),
            "rows": [
                [self._n(name), w.vp(self.ctx.of(i)[0], name, "self"), w.vp(self.ctx.of(i)[1], name, "total")]
                for i, name in ((i, self.ctx.profile.names[i]) for i in ids[: a.limit])
            ],
            "columns": ["function", "self (share)", "total (share)"],
        }

    def _compare(self, w: Writer, a: CompareArgs) -> dict[str, Any]:
        diff = self.ctx.diff
        if not isinstance(diff, Diff):
            return {"error": "no baseline profile is loaded"}
        return {
            "baseline_total": w.v(diff.total_before, TOTAL),
            "this_total": w.v(diff.total_after, TOTAL),
            "changes": [
                [
                    self._n(c.name),
                    w.v(c.self_before, c.name),
                    w.v(c.self_after, c.name),
                    ("+" if c.delta() >= 0 else "-") + w.v(abs(c.delta()), c.name),
                    c.presence,
                ]
                for c in diff.ranked("self")[: a.n]
            ],
            "columns": ["function", "self before", "self after", "change", "presence"],
        }
