"""What can be asked of a profile, and what an answer holds: one frozen record per question.

A query names what is asked (a function by its exact label, resolved beforehand by the name
resolver); a result holds facts with their raw numbers in the profile's unit, the names they are
about and the caveats that go with them. Nothing here is worded or formatted: surfaces render.

:class:`Fn` and :class:`Base` live in :mod:`.common`, :class:`Handoff` and its result in
:mod:`.handoff` (the ``handoff`` verb needs only those); they are named here with the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from explainer.knowledge import CategoryShare, Site
from explainer.model import Profile
from explainer.queries.common import Base as Base
from explainer.queries.common import Fn as Fn
from explainer.queries.handoff import Handoff as Handoff
from explainer.queries.handoff import HandoffResult as HandoffResult
from explainer.reading import Ignorable, Role, Start

if TYPE_CHECKING:  # a comparison's diff: analysis.diff loads only when a baseline is given
    from explainer.analysis.diff import Diff

# -- the questions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Most:
    """What uses the most (by self)."""

    limit: int = 6


@dataclass(frozen=True)
class Responsible:
    """What is responsible (by total): where the work branches below the shared entry frames."""

    limit: int = 6


@dataclass(frozen=True)
class StartHere:
    """What to optimise first: where to start, then the next candidates by self."""

    limit: int = 6


@dataclass(frozen=True)
class SelfVsTotal:
    """A function's self and total (the biggest consumer's when ``name`` is None)."""

    name: str | None = None


@dataclass(frozen=True)
class ChainTo:
    """The heaviest call chain to a function (to the biggest consumer when ``name`` is None)."""

    name: str | None = None


@dataclass(frozen=True)
class Neighbours:
    """A function's callers and callees (the sandwich)."""

    name: str
    limit: int = 8


@dataclass(frozen=True)
class CategoryQuery:
    """A knowledge-base category's share of the total (``kv-cache``, ``gc``...)."""

    category: str


@dataclass(frozen=True)
class Breakdown:
    """The profile split by category, each counted as :class:`CategoryQuery` counts it."""


@dataclass(frozen=True)
class Group:
    """A group of functions (exact labels, resolved beforehand): their value, each stack once."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class Own:
    """What uses the most among the application's own frames (of one language when ``language`` is given): by
    self, or (``by_total``) the widest of them, what "which of our code is responsible" asks."""

    language: str | None = None
    limit: int = 5
    by_total: bool = False


@dataclass(frozen=True)
class UnresolvedShare:
    """How much of the total ends in raw addresses."""


@dataclass(frozen=True)
class Knob:
    """Which settings change a frame (where to start when ``name`` is None)."""

    name: str | None = None


@dataclass(frozen=True)
class Meaning:
    """What a frame label is, read with the profile's runtime."""

    name: str


@dataclass(frozen=True)
class Skip:
    """What can be ignored (``name``: can this one be ignored?)."""

    name: str | None = None


@dataclass(frozen=True)
class Overview:
    """The profile at a glance: what it measures, most used, responsible, where to start, what to skip."""


@dataclass(frozen=True, eq=False)
class Compare:
    """What changed against a baseline profile (None: there is none to compare with)."""

    baseline: Profile | None


Query = (
    Most
    | Responsible
    | StartHere
    | SelfVsTotal
    | ChainTo
    | Neighbours
    | CategoryQuery
    | Breakdown
    | Group
    | Own
    | UnresolvedShare
    | Knob
    | Meaning
    | Skip
    | Overview
    | Compare
    | Handoff
)

Verdict = Literal["skip", "pass-through", "keep"]  # noise / zero self, only passes calls on / a cause
ShareHow = Literal["leaf", "stacks", "attributed", "self"]

# -- the facts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One step of a chain, entry first: ``width`` is the value flowing through it on this chain."""

    name: str
    width: int
    self: int
    total: int
    role: Role


@dataclass(frozen=True, slots=True)
class Share:
    """A concept's one number: ``how`` says how it is counted: ``leaf`` (unresolved: the stacks ending in
    a raw address), ``stacks`` (a runtime kind: every stack holding one of its frames, whole),
    ``attributed`` (a memory category, by the code that asked), ``self`` (the kind's frames' self)."""

    concept: str
    value: int  # in the profile's unit
    how: ShareHow
    frames: tuple[str, ...] = ()  # the heaviest frames of the kind, by total, for the answer to name


@dataclass(frozen=True)
class FrameMeaning:
    name: str
    kind: str  # the decoder's kind: method, function, address, trampoline...
    language: str
    meaning: str  # the symbol's own sentence, with the profile's runtime
    category: str | None  # the knowledge base's label when it says more than "other"
    explanation: str | None  # the knowledge base's explanation, when it knows the frame
    knobs: tuple[tuple[str, str], ...]  # (knob, effect)


@dataclass(frozen=True)
class MostResult(Base):
    biggest: Fn | None
    rows: tuple[Fn, ...]  # by self, the biggest first
    of_functions: int
    start: Start | None  # the code that asked, when the biggest consumer is runtime code
    sites: tuple[Site, ...]

    @property
    def subject(self) -> str | None:
        return self.biggest.name if self.biggest else None


@dataclass(frozen=True)
class ResponsibleResult(Base):
    responsible: Fn | None  # None: no application frame branches (answer with the biggest consumer)
    entries: tuple[Fn, ...]  # every stack passes through them: entry points, not causes
    rows: tuple[Fn, ...]  # the widest bars by total below the entry points (answering.causes)
    path: tuple[Step, ...]  # from the responsible frame up to the biggest consumer, noise left out

    @property
    def subject(self) -> str | None:
        return self.responsible.name if self.responsible else None


@dataclass(frozen=True)
class StartResult(Base):
    start: Start | None
    biggest: Fn | None
    meaning: FrameMeaning | None  # of the start frame
    next: tuple[Fn, ...]  # further candidates by self, each at least 1% of the total
    small: tuple[int, int]  # (how many functions, their self together) under 1% each

    @property
    def subject(self) -> str | None:
        return self.start.name if self.start else None


@dataclass(frozen=True)
class SelfTotalResult(Base):
    function: Fn

    @property
    def subject(self) -> str:
        return self.function.name


@dataclass(frozen=True)
class ChainResult(Base):
    target: str
    value: int
    target_total: int
    steps: tuple[Step, ...]
    asked_by: Step | None  # the nearest application frame below a runtime target
    narrows: int | None = None  # the first step whose total is under its caller's by 1% of the total or more

    @property
    def subject(self) -> str:
        return self.target


@dataclass(frozen=True)
class NeighboursResult(Base):
    function: Fn
    callers: tuple[tuple[str, int], ...]
    callees: tuple[tuple[str, int], ...]

    @property
    def subject(self) -> str:
        return self.function.name


@dataclass(frozen=True)
class CategoryResult(Base):
    category: str
    label: str
    value: int  # counted as ``how`` says (:class:`Share`)
    how: ShareHow
    frames: tuple[Fn, ...]  # ``leaf`` and ``stacks``: the kind's heaviest frames, by total
    by_self: tuple[Fn, ...]  # ``self``: the kind's biggest frames among the top by self
    sites: tuple[Site, ...]  # ``attributed``: where it is allocated (the application frames that asked)
    example: str | None  # a frame of that category

    @property
    def subject(self) -> str | None:
        return self.example


@dataclass(frozen=True)
class BreakdownResult(Base):
    shares: tuple[Share, ...]  # every concept with a value, heaviest first

    @property
    def subject(self) -> None:
        return None


@dataclass(frozen=True)
class OwnResult(Base):
    rows: tuple[Fn, ...]  # application frames, the biggest by self (or by total) first
    biggest: Fn | None  # the biggest consumer over the whole profile

    @property
    def subject(self) -> str | None:
        return self.rows[0].name if self.rows else None


@dataclass(frozen=True)
class GroupResult(Base):
    value: int  # every stack through at least one member, once
    members: tuple[Fn, ...]  # present members, the heaviest total first

    @property
    def subject(self) -> str | None:
        return self.members[0].name if self.members else None


@dataclass(frozen=True)
class UnresolvedResult(Base):
    share: float
    example: str | None

    @property
    def subject(self) -> str | None:
        return self.example


@dataclass(frozen=True)
class KnobResult(Base):
    name: str | None
    knobs: tuple[tuple[str, str], ...]

    @property
    def subject(self) -> str | None:
        return self.name


@dataclass(frozen=True)
class MeaningResult(Base):
    frame: FrameMeaning
    function: Fn | None  # None: the label is not in this profile

    @property
    def subject(self) -> str | None:
        return self.frame.name if self.function is not None else None


@dataclass(frozen=True)
class SkipResult(Base):
    ignorable: Ignorable
    name: str | None = None
    verdict: Verdict | None = None  # for ``Skip(name)``
    reason: str = ""  # why not: "responsible", "start", "consumer" (has self)
    function: Fn | None = None  # for ``Skip(name)``: its numbers
    small: tuple[int, int] = (0, 0)  # for ``Skip()``: (how many functions, their self together) under 1% each

    @property
    def subject(self) -> str | None:
        return self.name or (self.ignorable.frames[0].name if self.ignorable.frames else None)


@dataclass(frozen=True)
class OverviewResult(Base):
    resource: str
    meaning: str  # what one value is
    stacks: int
    functions: int
    biggest: Fn | None
    responsible: Fn | None
    start: Start | None
    ignorable: Ignorable
    path: tuple[str, ...]  # the heaviest chain's named steps, entry first, noise left out
    categories: tuple[CategoryShare, ...]

    @property
    def subject(self) -> str | None:
        return self.biggest.name if self.biggest else None


@dataclass(frozen=True, eq=False)
class CompareResult(Base):
    diff: Diff | None
    reason: str | None  # why the two cannot be compared (or None)

    @property
    def subject(self) -> str | None:
        biggest = self.diff.biggest if self.diff is not None else None
        return biggest.name if biggest is not None else None


Result = (
    MostResult
    | ResponsibleResult
    | StartResult
    | SelfTotalResult
    | ChainResult
    | NeighboursResult
    | CategoryResult
    | BreakdownResult
    | GroupResult
    | OwnResult
    | UnresolvedResult
    | KnobResult
    | MeaningResult
    | SkipResult
    | OverviewResult
    | CompareResult
    | HandoffResult
)
