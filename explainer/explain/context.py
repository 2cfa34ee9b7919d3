"""One analysed profile as every explanation sees it: the shared reading plus cached look-ups.

The summary and the :class:`~explainer.reading.Reading` are computed once (or passed in by a
caller that already has them, such as the app); chains and caller/callee views are computed on
demand and cached, so each answer costs a few milliseconds even on large profiles.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from explainer import knowledge
from explainer.analysis.chain import Chain, ChainStep, heaviest_chain
from explainer.analysis.functions import TopRow
from explainer.analysis.summary import Options, Summary, split_counts, summarize
from explainer.errors import AnalysisError, NoSuchFunctionError
from explainer.explain.checks.names import NameIndex
from explainer.explain.question.subjects import Names, PartsIndex
from explainer.model import Profile
from explainer.queries import Compare, answer
from explainer.reading import Reading, read

if TYPE_CHECKING:
    from explainer.analysis.diff import Diff
    from explainer.analysis.sandwich import Sandwich


SUMMARY_TOP = 10  # the rows of the summary a context makes (a caller that makes it first uses the same)


class ProfileContext:
    def __init__(
        self, profile: Profile, baseline: Profile | None = None, top: int = SUMMARY_TOP, summary: Summary | None = None
    ) -> None:
        # a summary made elsewhere (the app shares one per profile across sessions, `ask` makes it beside
        # the attribution) is reused when it fits: made with these options from this profile, whose
        # call-counting frames the summary took out (split_counts is memoized: the same object again)
        fits = (
            summary is not None and summary.options == Options(top=top) and summary.profile is split_counts(profile)[0]
        )
        self.summary: Summary = summary if fits and summary is not None else summarize(profile, Options(top=top))
        self.reading: Reading = read(self.summary)
        self.profile = self.summary.profile
        self.stats = self.summary.stats
        self.total = self.summary.total
        self.unit = self.summary.unit
        self.baseline = baseline
        self._chains: dict[int, Chain | None] = {}
        self._sandwiches: dict[tuple[int, int], Sandwich] = {}

    @cached_property
    def names(self) -> NameIndex:
        return NameIndex(self.profile.names)

    @cached_property
    def subjects(self) -> Names:
        """What the question reader resolves subjects against: names, presence, weights, categories."""
        totals = self.stats.total_values
        by_category: dict[str, str] = {}
        for row in self.summary.top_self.rows:
            by_category.setdefault(knowledge.classify(row.name), row.name)
        for site in self.reading.sites:
            by_category.setdefault(site.category, site.name)
        present = [bool(v > 0) for v in totals]
        parts = PartsIndex(self.profile.names, present)
        return Names(self.names, present, [int(v) for v in totals], by_category, parts)

    @property
    def gpu(self) -> bool:
        return self.reading.gpu

    @property
    def resource(self) -> str:
        return self.reading.resource

    @property
    def verb(self) -> str:
        return self.reading.verb

    @property
    def meaning(self) -> str:
        return self.reading.meaning

    @property
    def caveats(self) -> list[str]:
        return [c.text for c in self.reading.caveats]

    @property
    def responsible(self) -> TopRow | None:
        return self.reading.responsible

    @property
    def sites(self) -> list[tuple[str, int, str]]:
        """``[(nearest application frame, value, category label), ...]``: who asked for the memory."""
        return [(s.name, s.self, knowledge.label(s.category)) for s in self.reading.sites if s.self > 0]

    @property
    def is_verb(self) -> str:
        return self.reading.is_verb

    def prepare(self) -> ProfileContext:
        """Build the look-ups every answer may need now, so that answers stay fast."""
        _ = (self.names, self.subjects)
        return self

    def of(self, fid: int) -> tuple[int, int]:
        return self.stats.of(fid)

    def row(self, fid: int) -> TopRow:
        s, t = self.of(fid)
        return TopRow(fid, self.profile.names[fid], s, t)

    def resolve(self, text: str) -> list[int]:
        """Present functions that ``text`` names, heaviest total first: the full name or its last parts,
        else what the name resolver matches in the decoded labels (``execute_model`` in a py-spy label,
        ``NioEventLoop.run`` in a perf-Java one), its best matches only."""
        ids = [i for i in self.names.resolve(text) if self.stats.total_values[i] > 0]
        if not ids:  # the resolver's own order: of equally heavy matches, the deeper one, as the chat picks
            found = self.subjects.resolution(text).candidates
            return [c.fid for c in found if c.score >= found[0].score] if found else []
        return sorted(set(ids), key=lambda i: (-int(self.stats.total_values[i]), self.profile.names[i]))

    def chain_to(self, fid: int) -> Chain | None:
        if fid not in self._chains:
            try:
                self._chains[fid] = heaviest_chain(self.profile, self.stats, fid)
            except (NoSuchFunctionError, AnalysisError):
                self._chains[fid] = None
        return self._chains[fid]

    def sandwich(self, fid: int, limit: int = 8) -> Sandwich:
        key = (fid, limit)
        if key not in self._sandwiches:
            from explainer.analysis.sandwich import sandwich  # only questions about one function's callers

            self._sandwiches[key] = sandwich(self.profile, fid, limit)
        return self._sandwiches[key]

    def app_frame(self, chain: Chain) -> ChainStep | None:
        """The nearest application frame below the chain's target, when the target is runtime code
        (allocator, CUDA, interpreter): that is the code that asked for the resource."""
        if self.reading.role(chain.target) == "app":
            return None
        for step in reversed(chain.steps[:-1]):
            if self.reading.role(step.name) == "app":
                return step
        return None

    def is_noise(self, name: str) -> bool:
        """Frames a reader skips: trampolines, addresses, interpreter and libc internals, ``other``."""
        return self.reading.is_noise(name)

    def is_runtime(self, name: str) -> bool:
        """Code that carries requests without deciding them: allocator, driver, operators, native code."""
        return self.reading.is_runtime(name)

    @cached_property
    def diff(self) -> Diff | str | None:
        """The comparison with the baseline (the query's, made once); a sentence when they cannot be
        compared; None without one."""
        result = answer(self.reading, Compare(self.baseline))
        return result.diff if result.diff is not None else result.reason
