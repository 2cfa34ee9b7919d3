"""One analysed profile as every explanation sees it: the summary plus cached look-ups.

Analysing is done once per conversation (:func:`explainer.analysis.summary.summarize`); chains
and caller/callee views are computed on demand and cached, so each answer costs a few
milliseconds even on large profiles.
"""

from __future__ import annotations

from functools import cached_property

from explainer import units
from explainer.analysis.chain import Chain, ChainStep, heaviest_chain
from explainer.analysis.diff import Diff, diff_profiles
from explainer.analysis.functions import TopRow, ranked
from explainer.analysis.sandwich import Sandwich, sandwich
from explainer.analysis.summary import Options, Summary, summarize
from explainer.errors import AnalysisError, NoSuchFunctionError
from explainer.explain import kb
from explainer.explain.checks.names import NameIndex
from explainer.model import Profile
from explainer.symbols import decode

APP_KINDS = ("method", "constructor", "function", "nested", "lambda")
_INTERPRETER_PREFIXES = ("_Py", "Py", "_start", "__libc", "pymain", "run_mod", "cfunction_", "method_vectorcall")
_GPU_HINTS = ("cuda", "cumemalloc", "nccl", "cublas", "gpu")


class ProfileContext:
    def __init__(
        self, profile: Profile, baseline: Profile | None = None, top: int = 10, summary: Summary | None = None
    ) -> None:
        # a summary made elsewhere (the app shares one per profile across sessions) is reused when it fits
        fits = summary is not None and summary.profile is profile and summary.options == Options(top=top)
        self.summary: Summary = summary if fits and summary is not None else summarize(profile, Options(top=top))
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
    def gpu(self) -> bool:
        st = self.profile.sample_type
        text = f"{st.type} {self.profile.source.query}".lower()
        return (
            st.type == "malloc"
            or any(h in text for h in _GPU_HINTS)
            or any(any(h in n.lower() for h in _GPU_HINTS[:4]) for n in self.profile.names)
        )

    @property
    def resource(self) -> str:
        """What the widths measure, as a noun for prose: "GPU memory", "CPU time", "samples"."""
        kind = units.kind_of(self.unit)
        st = self.profile.sample_type.type.lower()
        if kind == "bytes":
            return "GPU memory" if self.gpu else "memory"
        if kind == "time":
            return {"cpu": "CPU time", "wall": "wall-clock time"}.get(st, "time")
        return "samples" if st in ("samples", "sample", "") else st.replace("_", " ")

    @property
    def verb(self) -> str:
        """What happens to the resource: memory is allocated, time is spent."""
        return {"bytes": "allocated", "time": "spent"}.get(units.kind_of(self.unit), "counted")

    def prepare(self) -> ProfileContext:
        """Do the knowledge-base work every answer may need now, so that answers stay fast."""
        _ = (self.names, self.gpu, self.semantics, self.sites, self.responsible)
        return self

    @cached_property
    def semantics(self) -> tuple[str | None, list[str]]:
        """(what a value means, caveats) from the knowledge base, computed once."""
        return kb.semantics(self.profile)

    @cached_property
    def meaning(self) -> str:
        """What one unit of value is: the knowledge base's reading when it has one."""
        from_kb = self.semantics[0]
        if from_kb:
            return from_kb
        st = self.profile.sample_type
        kind = units.kind_of(st.unit)
        return {"bytes": "bytes", "time": "time spent"}.get(kind, f"a count of {st.type or 'samples'}")

    def of(self, fid: int) -> tuple[int, int]:
        return self.stats.of(fid)

    def row(self, fid: int) -> TopRow:
        s, t = self.of(fid)
        return TopRow(fid, self.profile.names[fid], s, t)

    def resolve(self, text: str) -> list[int]:
        """Present functions that ``text`` names, heaviest total first."""
        ids = [i for i in self.names.resolve(text) if self.stats.total_values[i] > 0]
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
            self._sandwiches[key] = sandwich(self.profile, fid, limit)
        return self._sandwiches[key]

    def app_frame(self, chain: Chain) -> ChainStep | None:
        """The nearest application frame below the chain's target, when the target is runtime code
        (allocator, CUDA, interpreter): that is the code that asked for the resource."""
        target = decode(chain.target)
        if target.kind in APP_KINDS and target.language not in ("native", "cpp"):
            return None
        for step in reversed(chain.steps[:-1]):
            sym = decode(step.name)
            if sym.kind in APP_KINDS and sym.language == "python" and not step.name.startswith("_Py"):
                return step
        return None

    @cached_property
    def responsible(self) -> TopRow | None:
        """The widest application bar that not every stack passes through: where the work first branches.

        Runtime frames (interpreter, allocator, PyTorch operators, addresses) are passed over: they
        carry every request but are never the reason for one.
        """
        for fid in ranked(self.stats, "total").tolist():
            s, t = self.of(fid)
            name = self.profile.names[fid]
            if t < self.total and not self.is_noise(name) and not self.is_runtime(name):
                return TopRow(fid, name, s, t)
        return None

    def is_noise(self, name: str) -> bool:
        """Frames a reader skips: trampolines, addresses, interpreter and libc internals, ``other``."""
        sym = decode(name)
        if sym.kind in ("trampoline", "address", "unknown", "other", "elided"):
            return True
        cid = kb.category_id(name)
        if cid is not None:
            return cid in ("interpreter", "unresolved")
        return name.startswith(_INTERPRETER_PREFIXES)

    def is_runtime(self, name: str) -> bool:
        """Code that carries requests without deciding them: allocator, driver, operators, native code."""
        known = kb.is_runtime(name)
        if known is not None:
            return known
        sym = decode(name)
        return sym.language in ("native", "cpp") or sym.kind == "native"

    @cached_property
    def sites(self) -> list[tuple[str, int, str]]:
        """Allocation sites from the knowledge base: the application frame that asked, per category."""
        return kb.sites(self.profile, 5) if units.kind_of(self.unit) == "bytes" else []

    @property
    def caveats(self) -> list[str]:
        return self.semantics[1]

    @cached_property
    def diff(self) -> Diff | str | None:
        """The comparison with the baseline; a sentence when they cannot be compared; None without one."""
        if self.baseline is None:
            return None
        try:
            return diff_profiles(self.baseline, self.profile)
        except AnalysisError as exc:
            return str(exc)
