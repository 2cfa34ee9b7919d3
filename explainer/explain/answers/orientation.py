"""Position words for the graph the reader sees: a flame graph (root at the bottom) or an icicle.

The offline answers are written for the classic flame graph, as the seed articles read it
("the widest bar with nothing on top of it"). The app can draw the root at the top instead
(Grafana's view); then "above" and "below" swap. Each sentence that places a bar has its
top-down twin here, translated like every other message, and :class:`Writer` picks the twin for
an answer read beside an icicle. The command line has no picture, so it keeps the classic words
(and says so in its help text).
"""

from __future__ import annotations

from explainer.explain.answers.language import N_

FLAME, ICICLE = "flame", "icicle"
ORIENTATIONS = (FLAME, ICICLE)

TOP_DOWN = {
    "Self is what a function {verb} directly, so this is where the {resource} {is_verb}; in the flame "
    "graph it is the widest bar with nothing on top of it (a leaf at the top of the stack).": N_(
        "Self is what a function {verb} directly, so this is where the {resource} {is_verb}; in this top-down "
        "graph it is the widest bar with nothing below it (a leaf at the bottom of the stack)."
    ),
    "Responsible means total: what a function used itself plus everything it called. In the flame graph "
    "these are the widest bars at the bottom.": N_(
        "Responsible means total: what a function used itself plus everything it called. In this top-down "
        "graph these are the widest bars at the top."
    ),
    "By contrast {name} has self {self} = total {total}: nothing sits on top of it, so its whole width "
    "is its own use.": N_(
        "By contrast {name} has self {self} = total {total}: nothing hangs below it, so its whole width is its own use."
    ),
    "So a wide bar with zero self is an orchestrator: skip it when hunting the source and follow it up to "
    "a bar with high self. Wide bars with high self are the optimisation candidates.": N_(
        "So a wide bar with zero self is an orchestrator: skip it when hunting the source and follow it down to "
        "a bar with high self. Wide bars with high self are the optimisation candidates."
    ),
    "**You can skip {name} when hunting the source**: its self is {zero}, so it only passes calls on "
    "({total} flows through it). Follow it up to a bar with high self.": N_(
        "**You can skip {name} when hunting the source**: its self is {zero}, so it only passes calls on "
        "({total} flows through it). Follow it down to a bar with high self."
    ),
    "**You can skip the wide bars with zero self: they only pass calls on and {verb} nothing "
    "themselves.** Follow them up to a bar with high self instead.": N_(
        "**You can skip the wide bars with zero self: they only pass calls on and {verb} nothing "
        "themselves.** Follow them down to a bar with high self instead."
    ),
    "**How to read this flame graph:** each bar is a function, and the bar below a bar called it. The "
    "width of a bar is the {resource} that flowed through that function and everything it called (its "
    "total).": N_(
        "**How to read this top-down graph:** each bar is a function, and the bar above a bar called it. The "
        "width of a bar is the {resource} that flowed through that function and everything it called (its "
        "total)."
    ),
    "- The bottom bars are entry points; the bars at the top with nothing above them are leaves: their "
    "whole width is self, where the {resource} {is_verb}.": N_(
        "- The top bars are entry points; the bars at the bottom with nothing below them are leaves: their "
        "whole width is self, where the {resource} {is_verb}."
    ),
    "- Wide bars with zero self only orchestrate calls: skip them and follow them up to a bar with high self.": N_(
        "- Wide bars with zero self only orchestrate calls: skip them and follow them down to a bar with high self."
    ),
    "- Read a stack from the bottom up to see why a function ran.": N_(
        "- Read a stack from the top down to see why a function ran."
    ),
    "**The heaviest call chain to {name}, read from the entry point (the bottom of the flame graph) up to "
    "where the {resource} {is_verb}:**": N_(
        "**The heaviest call chain to {name}, read from the entry point (the top of the graph) down to "
        "where the {resource} {is_verb}:**"
    ),
}
"""Each flame graph sentence that says where a bar is, and the same sentence for the root at the top."""


def worded(message: str, orientation: str) -> str:
    """``message`` as it reads beside a graph drawn in ``orientation``."""
    return TOP_DOWN.get(message, message) if orientation == ICICLE else message
