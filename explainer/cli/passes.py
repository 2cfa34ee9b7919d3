"""A command's first passes after the read, on both cores: the summary here, the attribution beside it.

Why (issue 27): on a memory profile the reading attributes every stack (a C pass that releases the
GIL, after a Python pass over the names), and ``handoff`` and ``ask`` then wait for it; the summary
before it is mostly Python over the names and the top rows. Run at once, the attribution's C pass
costs no wall time. ``analyze`` and ``ask`` also walk the heaviest chain (C without the GIL) there:
the report shows it, and ask's first answer names the nearest application frame on it. ``handoff``'s
chains go to the allocation sites, which the attribution decides: they are walked after it, on both
cores too (:func:`walk_chains`).

Only in the program (:func:`warmup.beside`) and only for a memory profile of at least
``BESIDE_MIN_FRAMES`` frames. When the summary reads the profile as read (no focus, ignore or hidden
trampolines; the call-counting frames' split is memoized, so the attribution is of the very profile
the summary reads) the attribution runs beside the summary and the chain; otherwise it runs beside the
chain alone, once the summary has made the profile it reads. Anything not worked out beside is computed
as before, where it is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from typing import TYPE_CHECKING

from explainer.cli import warmup
from explainer.errors import NoSuchFunctionError

if TYPE_CHECKING:
    from explainer.analysis.summary import Options, Summary
    from explainer.model import Profile

BESIDE_MIN_FRAMES = 1 << 20  # fewer: both passes take a few ms, and a thread would cost more than it saves


def summarize_beside_attribution(profile: Profile, options: Options, *, chain: bool = False) -> Summary:
    """``summarize(profile, options)``, with the attribution of every stack on the second core meanwhile;
    ``chain``: the heaviest chain to the top consumer is walked here too, before the block ends."""
    from explainer import units
    from explainer.analysis.summary import split_counts, summarize
    from explainer.knowledge.attribution import attribute

    if units.kind_of(profile.unit) != "bytes" or len(profile.frames) < BESIDE_MIN_FRAMES:
        return summarize(profile, options)
    if not (options.focus or options.ignore or options.hide_trampolines):
        read = split_counts(profile)[0]  # what the summary reads: memoized, so summarize takes this one
        with warmup.beside(lambda: attribute(read)):
            summary = summarize(profile, options)
            if chain:
                _walk(summary)
        return summary
    summary = summarize(profile, options)  # the profile it reads is made here: attribute that one
    if chain:
        with warmup.beside(lambda: attribute(summary.profile)):
            _walk(summary)
    return summary


def _walk(summary: Summary) -> None:
    with suppress(NoSuchFunctionError):  # no chain to follow: whoever asks for it raises as before
        _ = summary.chain


def walk_chains(summary: Summary, targets: Sequence[int]) -> None:
    """The heaviest chains to ``targets`` (handoff's, to its allocation sites) on both cores: kept per
    profile, so whoever asks next finds them walked.

    Why (issue 27): a batch of walks is C without the GIL, one pass over every frame finding each
    target's calls (about 20 ms at 500k stacks) and then a walk per target (about 10 ms each); on one
    core the handoff's three were most of what it added to ``analyze``. Here each thread finds the calls
    in half of the frames, and then the first target is walked on the second core while this thread
    walks the rest. Only in the program, with the compiled fold, and on a large profile: elsewhere
    nothing is walked here, and the handoff walks its chains in one batch."""
    from numpy import searchsorted

    from explainer.analysis.chain import WALK_BATCH, Calls, find_calls, heaviest_chains
    from explainer.analysis.functions import _fold

    profile, stats = summary.profile, summary.stats
    ids = list(dict.fromkeys(targets))
    worth_splitting = 2 <= len(ids) <= WALK_BATCH and len(profile.frames) >= BESIDE_MIN_FRAMES
    if not worth_splitting or not warmup.runs_beside() or _fold is None:
        return
    half = int(searchsorted(profile.offsets, len(profile.frames) // 2))  # the stack where half the frames are read
    first: list[Calls] = []
    with warmup.beside(lambda: first.append(find_calls(profile, ids, range(half)))):
        rest = find_calls(profile, ids, range(half, profile.stack_count))
    if not first:  # failed there: the handoff walks them in one batch (and raises what it raised)
        return
    calls = first[0].joined(rest)
    with warmup.beside(lambda: heaviest_chains(profile, stats, ids[:1], calls)):
        heaviest_chains(profile, stats, ids[1:], calls)
