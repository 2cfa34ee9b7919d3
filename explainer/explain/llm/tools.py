"""The model's tools: :mod:`explainer.explain.toolset` wrapped once as LangChain tools.

The application owns the profile (and, for server sources, the server and tenant): tools take
no argument that could choose another one. The arguments are the tool set's pydantic models,
validated by LangChain (extra fields such as ``url`` or ``tenant`` are rejected, not ignored);
an unknown tool, malformed JSON or a failure gets an error result, never an execution or a
traceback. Each call answers with content and an artifact: the artifact is the tool set's
result exactly as the MCP server returns it, the content is that result as a data block
(:func:`~explainer.explain.safety.data_block`) with every number formatted through a
:class:`Writer`, so the conversation's grounding records what the model saw.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool
from pydantic import ValidationError

from explainer.analysis.sandwich import ENTRY, SELF
from explainer.errors import ExplainerError
from explainer.explain import toolset
from explainer.explain.answers.writer import Writer, cap
from explainer.explain.checks.grounding import TOTAL
from explainer.explain.checks.verify import Grounding
from explainer.explain.context import ProfileContext
from explainer.explain.safety import clean_text, data_block
from explainer.markdown import code
from explainer.symbols import clean

log = logging.getLogger(__name__)
MAX_RESULT_CHARS = 6_000
NAME_CAP = 120
MAX_KNOBS = 3
Payload = dict[str, Any]


def result(tool: str, payload: Payload) -> str:
    """A tool result as the model reads it: one data block, capped."""
    block = data_block("tool_result", {"tool": tool, **payload})
    if len(block) > MAX_RESULT_CHARS:  # rows are already capped; this is the last line of defence
        block = data_block("tool_result", {"tool": tool, "error": "result too large; ask for fewer rows"})
    return block


def _invalid(exc: ValidationError) -> str:
    problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()[:5])
    return f"invalid arguments: {clean(problems, 300)}"


def _schema(model: type[toolset.Args]) -> Payload:
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
        offered = [t for t in toolset.TOOLS.values() if not t.needs_baseline or ctx.baseline is not None]
        self.tools: dict[str, StructuredTool] = {t.name: self._wrap(t) for t in offered}
        self.names = list(self.tools)

    def _wrap(self, spec: toolset.Tool) -> StructuredTool:
        def run(**given: Any) -> tuple[str, Payload]:
            args = spec.args.model_validate(given)  # LangChain passes only the given fields: defaults again
            try:
                found = spec.run(self.ctx, args)
            except toolset.UnknownFunction as exc:
                error = {"error": str(exc.args[0]), "similar": exc.similar}
                return self._error(spec.name, error), error
            except ExplainerError as exc:
                error = {"error": " ".join(str(exc.args[0]).split())}
                return self._error(spec.name, error), error
            w = Writer(self.ctx)
            content = result(spec.name, _RENDER[spec.name](self, w, found))
            self.grounding.merge(w.g)
            return content, found.model_dump()

        return StructuredTool.from_function(
            func=run,
            name=spec.name,
            description=spec.description,
            args_schema=spec.args,
            response_format="content_and_artifact",
            handle_validation_error=lambda exc: result(spec.name, {"error": _invalid(exc)}),
        )

    def _error(self, tool: str, error: Payload) -> str:
        shown = {k: [self._n(s) for s in v] if isinstance(v, list) else clean(v, 300) for k, v in error.items()}
        return result(tool, shown)

    def specs(self) -> list[Payload]:
        """What the model is offered: each tool's arguments as a strict JSON schema (no extra fields)."""
        return [
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": toolset.TOOLS[name].description,
                    "parameters": _schema(toolset.TOOLS[name].args),
                },
            }
            for name in self.names
        ]

    def call(self, name: str, args: Any, call_id: str = "call") -> ToolMessage:
        """One call's message (content for the model, the tool set's result as artifact); errors are
        results too, so the model can recover."""
        shown = clean(str(name), 60)
        tool = self.tools.get(name)
        if tool is None:
            content = result(shown, {"error": f"unknown tool; the tools are: {', '.join(self.names)}"})
        elif not isinstance(args, dict):
            content = result(shown, {"error": "arguments must be a JSON object"})
        else:
            try:
                message = tool.invoke({"type": "tool_call", "name": name, "args": args, "id": call_id})
            except Exception as exc:  # a bug: reported to the model, never raised into the chat
                log.warning("tool %s failed: %s", name, type(exc).__name__)
                content = result(shown, {"error": "the tool failed on this profile"})
            else:
                if isinstance(message, ToolMessage):
                    return message
                content = result(shown, {"error": "the tool failed on this profile"})
        return ToolMessage(content=content, tool_call_id=call_id)

    def execute(self, name: str, args: Any) -> str:
        """The content (a data block) of one call."""
        return str(self.call(name, args).content)

    def malformed(self, name: str | None) -> str:
        return result(clean(str(name or "?"), 60), {"error": "malformed tool call (arguments are not valid JSON)"})

    @staticmethod
    def result(tool: str, payload: Payload) -> str:
        return result(tool, payload)

    # rendering the tool set's results for the model: every number through the Writer
    def _n(self, name: str) -> str:
        return clean(name[: NAME_CAP + 1], NAME_CAP)

    def _rows(self, w: Writer, rows: list[toolset.Row]) -> list[list[str]]:
        return [[self._n(r.name), w.vp(r.self, r.name, "self"), w.vp(r.total, r.name, "total")] for r in rows]

    def _top(self, w: Writer, r: toolset.TopResult) -> Payload:
        return {
            "order": r.order,
            "of_functions": w.n(r.coverage.of),
            "covered": w.p(r.coverage.value),
            "rows": self._rows(w, r.rows),
            "columns": ["function", "self (share)", "total (share)"],
        }

    def _details(self, w: Writer, r: toolset.DetailsResult) -> Payload:
        name = r.function.name
        if r.explanation:
            text = w.text(r.explanation)
            useful = r.category and not r.category.lower().startswith("other")
            meaning = f"{r.category}: {text}" if useful else cap(text)
        else:
            meaning = cap(w.text(clean_text(r.meaning, 400, keep_newlines=False)))
        knobs = []
        for k in r.knobs[:MAX_KNOBS]:
            w.text(f"{k.knob} {k.effect}")
            knobs.append(f"{code(k.knob, 80)}: {k.effect}")
        return {
            "function": self._n(name),
            "self": w.vp(r.function.self, name, "self"),
            "total": w.vp(r.function.total, name, "total"),
            "meaning": meaning,
            "knobs": knobs,
            "callers": [[self._n(c.name), w.v(c.value, c.name)] for c in r.callers if c.name != ENTRY],
            "callees": [[self._n(c.name), w.v(c.value, c.name)] for c in r.callees],
        }

    def _chain(self, w: Writer, r: toolset.ChainResult) -> Payload:
        return {
            "target": self._n(r.target),
            "entry_first": True,
            "steps": [
                [self._n(s.name), w.vp(s.total, s.name, "total"), w.v(s.self, s.name, "self"), clean(s.kind, 20)]
                for s in r.steps
            ],
            "columns": ["function", "total (share)", "self", "kind"],
            "frames_in_chain": w.n(r.frames_in_chain),
            "interpreter_frames_left_out": w.n(r.frames_left_out),
            "value_on_this_chain": w.vp(r.value, r.target),
        }

    def _neighbours(self, w: Writer, r: toolset.NeighbourResult) -> Payload:
        name = r.function.name
        return {
            "function": self._n(name),
            "total": w.vp(r.function.total, name, "total"),
            "callers": [[self._n(c.name), w.vp(c.value, c.name)] for c in r.callers],
            "callees": [
                [self._n(c.name) if c.name != SELF else SELF, w.vp(c.value, c.name if c.name != SELF else name)]
                for c in r.callees
            ],
        }

    def _meaning(self, w: Writer, r: toolset.MeaningResult) -> Payload:
        out: Payload = {
            "label": self._n(r.label),
            "in_profile": r.in_profile,
            "kind": r.kind,
            "language": r.language,
            "convention": w.text(clean_text(r.convention, 400, keep_newlines=False)),
        }
        if r.knowledge:
            out["knowledge"] = w.text(r.knowledge)
        if r.function is not None:
            out.update(self=w.vp(r.function.self, r.label, "self"), total=w.vp(r.function.total, r.label, "total"))
        return out

    def _search(self, w: Writer, r: toolset.SearchResult) -> Payload:
        return {
            "matches": w.n(r.matches),
            "rows": self._rows(w, r.rows),
            "columns": ["function", "self (share)", "total (share)"],
        }

    def _compare(self, w: Writer, r: toolset.CompareResult) -> Payload:
        return {
            "baseline_total": w.v(r.baseline_total, TOTAL),
            "this_total": w.v(r.total, TOTAL),
            "changes": [
                [
                    self._n(c.name),
                    w.v(c.self_before, c.name),
                    w.v(c.self_after, c.name),
                    ("+" if c.delta >= 0 else "-") + w.v(abs(c.delta), c.name),
                    c.presence,
                ]
                for c in r.changes
            ],
            "columns": ["function", "self before", "self after", "change", "presence"],
        }


_RENDER: dict[str, Any] = {
    "top_functions": Toolbox._top,
    "function_details": Toolbox._details,
    "call_chain": Toolbox._chain,
    "callers_callees": Toolbox._neighbours,
    "symbol_meaning": Toolbox._meaning,
    "search_functions": Toolbox._search,
    "compare": Toolbox._compare,
}
