"""Which chains the handoff shows: the heaviest chain to each top consumer, or, when the top
consumers are the allocator, to the allocation sites that asked; and the entry frames they share."""

from __future__ import annotations

from collections.abc import Sequence

from explainer.analysis.chain import Chain, ChainStep, heaviest_chains
from explainer.analysis.functions import top
from explainer.analysis.summary import Summary
from explainer.knowledge import Site
from explainer.reading import Reading


def asked_by(reading: Reading, n: int) -> tuple[Site, ...]:
    """The first ``n`` allocation sites, when one of the three top consumers is an allocator frame
    (allocator frames only carry requests: the sites are who asked); else none."""
    top3 = top(reading.summary.stats, "self", 3).rows
    if not reading.sites or not any(reading.role(r.name) == "allocator" for r in top3):
        return ()
    return tuple(reading.sites[:n])


def top_targets(reading: Reading, n: int) -> list[int]:
    """The function ids of the top ``n`` consumers by self, or of their allocation sites when those
    are allocator frames: what the handoff walks its chains to (names the profile lacks left out)."""
    summary = reading.summary
    names = [r.name for r in top(summary.stats, "self", n).rows]  # not the summary's rows: its --top may be smaller
    if any(reading.role(name) == "allocator" for name in names):
        names = [s.name for s in reading.sites[:n]] or names
    return [fid for fid in (summary.profile.function_id(name) for name in names) if fid is not None]


def chains_to(summary: Summary, ids: Sequence[int]) -> tuple[Chain, ...]:
    """Heaviest chains to ``ids``; one reached only off the widest path is left out, not guessed."""
    # one pass over the frames for all (the summary's own chain, to the top by self, is not asked
    # for: nothing the handoff shows reads it, and each more target adds a walk, 10-20 ms at 500k)
    chains = heaviest_chains(summary.profile, summary.stats, ids)
    return tuple(c for c in (chains[fid] for fid in ids) if c is not None)


def common_prefix(chains: Sequence[Chain]) -> tuple[ChainStep, ...]:
    """Entry frames every chain shares (never a chain's own target), so each chain line is short."""
    if len(chains) < 2:
        return ()
    limit = min(len(c.steps) for c in chains) - 1
    prefix: list[ChainStep] = []
    for i in range(limit):
        step = chains[0].steps[i]
        if any(c.steps[i].name != step.name for c in chains):
            break
        prefix.append(step)
    return tuple(prefix)
