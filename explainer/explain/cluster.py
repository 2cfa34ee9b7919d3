"""Questions about the cluster behind a Pyroscope source: which pod, namespace or service uses the most,
how a pod compares with its peers, what changed between two pods, and when the selection grew.

A profile read from a file has no pods; those questions get a plain answer saying so and how to
ask the server. With a server source every answer comes from pushdown queries (grouped
``SelectSeries``, a merge with one pod's selector, ``Diff``), never from fetching every pod.
The words are kept here, English and Dutch, so the shared catalogs stay untouched by this view.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from statistics import median
from typing import TYPE_CHECKING

from explainer.analysis.diff import diff_profiles
from explainer.analysis.functions import function_stats, top
from explainer.errors import ExplainerError, QueryError
from explainer.explain.cluster_words import FILE_TEXT, asks_about, language, normalise
from explainer.explain.cluster_words import file_answer as file_answer  # where it lived before
from explainer.explain.question.counts import MAX_ROWS, count_in
from explainer.model import Profile
from explainer.pyroscope.cluster import (
    NAMESPACE,
    POD,
    SERVICE,
    TopByLabel,
    call_site,
    course,
    farthest_pod,
    sensible_step,
    top_by_label,
    when,
    with_label,
)
from explainer.pyroscope.query import ProfileType, Query, TimeRange
from explainer.pyroscope.selector import parse_selector, render_selector
from explainer.symbols import clean
from explainer.units import format_share, format_value, localize

if TYPE_CHECKING:
    from explainer.pyroscope.client import PyroscopeClient

_LABEL_WORDS = (
    (POD, r"pods?|replicas?|replica's|k8s_podname"),
    (NAMESPACE, r"namespaces?|naamruimtes?|k8s_namespace"),
    (SERVICE, r"services?|diensten?|service_name"),
)
_MOST = re.compile(r"\b(most|biggest|largest|highest|top|heaviest|meest|meeste|grootste|hoogste|zwaarste)\b")
_COMPARE = re.compile(r"\b(compare|versus|vs|vergelijk|verschil|difference)\b")
_PEERS = re.compile(
    r"\b(peers?|median|others|other replicas|outlier|far above|apart|andere|mediaan|uitschieter|afwijk\w*)\b"
)
_WHEN_START = re.compile(
    r"\b(when|since when|wanneer|sinds wanneer)\b.*"
    r"\b(start\w*|begin\w*|begon|gr[eo]w\w*|groei\w*|rise|rose|stijg\w*|steeg)\b"
)
_STILL_GROWING = re.compile(
    r"\b(is (it|memory|gpu memory|the \w+( \w+)?) (still )?(growing|rising|increasing)|still (growing|rising)|"
    r"groeit (het|dit|het geheugen|\w+)( nog)?|stijgt (het|dit)( nog)?|nog steeds aan het groeien)\b"
)
_PEAK = re.compile(r"\b(peak|piek|maximum|highest point)\b")
_KV = re.compile(r"\bkv[ -]?cache\b")

_T = {
    "file": FILE_TEXT,
    "top": (
        "{value} uses the most {what}: {total} of {whole} ({share}) in this window, of {count} {label} values.",
        "{value} gebruikt het meeste {what}: {total} van {whole} ({share}) in dit venster, van {count} "
        "waarden van {label}.",
    ),
    "next": ("Next: {rest}.", "Daarna: {rest}."),
    "inside": (
        "Inside {value} the biggest is {function}: {self} self ({share} of {total}).",
        "Binnen {value} is {function} het grootst: {self} self ({share} van {total}).",
    ),
    "inside_top": (
        "Inside {value} the {n} biggest by self ({total} in all):",
        "Binnen {value} de {n} grootste op self ({total} in totaal):",
    ),
    "inside_row": ("- {function}: {self} self ({share})", "- {function}: {self} self ({share})"),
    "none": (
        "No {label} has data for {what} in this window.",
        "Geen enkele {label} heeft gegevens voor {what} in dit venster.",
    ),
    "peers": (
        "{value} holds {total}, {pct} {dir} the median of its {n} peers ({median}; {peers}).",
        "{value} heeft {total}, {pct} {dir} de mediaan van zijn {n} peers ({median}; {peers}).",
    ),
    "more": ("more than", "meer dan"),
    "less": ("less than", "minder dan"),
    "same": ("the same as", "gelijk aan"),
    "nopeers": (
        "{value} has no peers with data in this window.",
        "{value} heeft geen peers met gegevens in dit venster.",
    ),
    "diff": (
        "{a} {ta} against {b} {tb} ({delta}). Biggest changes above the noise floor (1% of the larger total "
        "and 5% of the value before):",
        "{a} {ta} tegenover {b} {tb} ({delta}). Grootste veranderingen boven de ruisdrempel (1% van het "
        "grootste totaal en 5% van de waarde ervoor):",
    ),
    "nodiff": ("No function changed by more than the noise floor.", "Geen functie veranderde meer dan de ruisdrempel."),
    "change": ("- {name}: {before} → {after} self ({delta})", "- {name}: {before} → {after} self ({delta})"),
    "scope": ("the whole selection", "de hele selectie"),
    "through": ("through {function}", "via {function}"),
    "course": (
        "{scope} {through}, step {step}: peak {peak} in the step ending {peak_at}.",
        "{scope} {through}, stap {step}: piek {peak} in de stap tot {peak_at}.",
    ),
    "rise": (
        "It started growing in the step ending {at} ({value} per step, up from {floor}).",
        "Het begon te groeien in de stap tot {at} ({value} per stap, eerst {floor}).",
    ),
    "norise": (
        "It was already at that level when the window opened: no rise inside the window.",
        "Het zat al op dat niveau toen het venster begon: geen stijging binnen het venster.",
    ),
    "trend": (
        "Is it growing? {verdict}: {first} per step in the first third of the window, {last} in the last third.",
        "Groeit het? {verdict}: {first} per stap in het eerste derde van het venster, {last} in het laatste derde.",
    ),
    "growing": ("Yes", "Ja"),
    "falling": ("No, it is falling", "Nee, het daalt"),
    "flat": ("No, it is flat", "Nee, het is vlak"),
    "failed": (
        "The Pyroscope server could not answer this: {why}",
        "De Pyroscope-server kon dit niet beantwoorden: {why}",
    ),
    "empty": ("Nothing was recorded for {scope} in this window.", "Niets opgenomen voor {scope} in dit venster."),
}


def _t(key: str, lang: str, **values: str | int) -> str:
    return _T[key][1 if lang == "nl" else 0].format(**values)


def label_word(text: str) -> str | None:
    t = normalise(text)
    for label, words in _LABEL_WORDS:
        if re.search(rf"\b({words})\b", t):
            return label
    return None


def code(name: str) -> str:
    """An untrusted name (pod, function) as a code span: never Markdown, links or images."""
    return "`" + clean(name, 120).replace("`", "'") + "`"


@dataclass
class ClusterDesk:
    """Answers cluster questions for one server source; remembers the pod (or other value) last talked about."""

    _client: PyroscopeClient | None
    profile_type: ProfileType
    selector: str
    window: TimeRange
    topic: tuple[str, str] | None = None  # (label, value) the conversation is about
    lang: str = "en"  # the language of the last question
    _values: dict[str, list[str]] | None = None
    # the app keeps no connection between questions: each question opens one (credentials stay in the form)
    opener: Callable[[], AbstractContextManager[PyroscopeClient]] | None = None

    @property
    def client(self) -> PyroscopeClient:
        if self._client is None:
            raise QueryError("no connection to the Pyroscope server is open")
        return self._client

    @classmethod
    def for_profile(
        cls,
        client: PyroscopeClient | None,
        profile: Profile,
        opener: Callable[[], AbstractContextManager[PyroscopeClient]] | None = None,
    ) -> ClusterDesk | None:
        src = profile.source
        if src is None or src.kind != "pyroscope" or not src.profile_type or profile.duration_ns <= 0:
            return None
        start = profile.time_ns // 1_000_000
        window = TimeRange(start, start + profile.duration_ns // 1_000_000)
        t = profile.sample_type
        parts = [*src.profile_type.split(":"), "", "", "", "", ""]
        ptype = ProfileType(src.profile_type, parts[0], t.type or parts[1], t.unit or parts[2], parts[3], parts[4])
        selector = src.selector or "{}"
        # a profile of one pod (or namespace, service) is about it: "compare it with vllm-0" means that pod
        pinned = [
            (m.name, m.value) for m in parse_selector(selector) if m.op == "=" and m.name in (POD, NAMESPACE, SERVICE)
        ]
        topic = min(pinned, key=lambda p: (POD, NAMESPACE, SERVICE).index(p[0])) if pinned else None
        return cls(client, ptype, selector, window, topic=topic, opener=opener)

    @property
    def query(self) -> Query:
        return Query(self.profile_type, self.selector, self.window)

    def values(self) -> dict[str, list[str]]:
        """The pods, namespaces and services in the selection, asked once (one shared deadline: a slow
        or label-less server costs one timeout, and then the names are simply unknown)."""
        if self._values is None:
            self._values = {label: [] for label in (POD, NAMESPACE, SERVICE)}
            deadline = self.client.deadline()
            # a profile of one pod still knows its peers' names: "compare it with vllm-0" names one outside it
            wider = render_selector(m for m in parse_selector(self.selector) if m.name not in self._values)
            for label in self._values:
                try:
                    self._values[label] = self.client.label_values(label, self.window, wider, deadline=deadline)
                except ExplainerError:
                    break
        return self._values

    def mentioned(self, text: str) -> list[tuple[str, str]]:
        """Label values named in ``text`` (whole words), in the order they appear; longest names win."""
        found: list[tuple[int, str, str]] = []
        lowered = text.lower()
        for label, values in self.values().items():
            for v in sorted(values, key=len, reverse=True):
                m = re.search(rf"(?<![\w.-]){re.escape(v.lower())}(?![\w.-])", lowered) if v else None
                if m and not any(s <= m.start() < s + len(x) for s, x, _ in found):
                    found.append((m.start(), v, label))
        return [(label, v) for _s, v, label in sorted(found)]

    # -- the questions --------------------------------------------------------------------------

    def answer(self, question: str) -> str | None:
        if self.opener is None:
            return self._answer(question)
        try:
            with self.opener() as client:
                self._client = client
                return self._answer(question)
        except ExplainerError as exc:  # the app's chat: a one-line answer instead of a broken turn
            return _t("failed", language(question, self.lang), why=clean(str(exc), 300).replace("`", "'"))
        finally:
            self._client = None

    def _answer(self, question: str) -> str | None:
        t = normalise(question)
        lang = self.lang = language(question, self.lang)
        label = label_word(question)
        cluster_words = label is not None or bool(_COMPARE.search(t) or _PEERS.search(t))
        timed = bool(_WHEN_START.search(t) or _PEAK.search(t) or _STILL_GROWING.search(t))
        named = self.mentioned(question) if (cluster_words or timed or " in " in f" {t} ") else []
        if _COMPARE.search(t) and not _PEERS.search(t) and (len(named) >= 2 or (named and self.topic)):
            subject, baseline = (named[0], named[1]) if len(named) >= 2 else (self.topic, named[0])
            assert subject is not None
            return self._compare(subject, baseline, lang)
        if timed and not (label and _MOST.search(t)):
            scope = named[0] if named else self.topic
            return self._course(question, scope, lang)
        if _PEERS.search(t) and (named or self.topic or label == POD):
            return self._peers(named[0] if named else self.topic, lang)
        if label is not None and _MOST.search(t) and asks_about(dict(_LABEL_WORDS)[label], t):
            return self._top(label, lang)
        if named:
            return self._inside(named[0], lang, count_in(question) or 1)
        return None

    def _what(self, lang: str) -> str:
        if self.profile_type.meaning == "gpu-memory":
            return "GPU-geheugen" if lang == "nl" else "GPU memory"
        return clean(self.profile_type.sample_type, 40)

    def _fmt(self, value: float, lang: str) -> str:
        return localize(format_value(value, self.profile_type.sample_unit), lang)

    def _share(self, part: float, whole: float, lang: str) -> str:
        return localize(format_share(part, whole), lang)

    def _top(self, label: str, lang: str) -> str:
        found = top_by_label(self.client, self.query, label, limit=5)
        if not any(r.value for r in found.rows) or found.whole <= 0:  # no series carries the label
            return _t("none", lang, label=label, what=self._what(lang))
        first = found.rows[0]
        out = [self._top_line(found, lang)]
        rest = [f"{code(r.value)} {self._fmt(r.total, lang)}" for r in found.rows[1:4]]
        if rest:
            out.append(_t("next", lang, rest=", ".join(rest)))
        if first.value:
            self.topic = (label, first.value)
            out.append(self._inside_line(self._merge((label, first.value)), first.value, lang))
        return "\n\n".join(x for x in out if x)

    def _top_line(self, found: TopByLabel, lang: str) -> str:
        first = found.rows[0]
        return _t(
            "top", lang, value=code(first.value or f"(no {found.label})"), what=self._what(lang),
            total=self._fmt(first.total, lang), whole=self._fmt(found.whole, lang),
            share=self._share(first.total, found.whole, lang), count=found.values, label=found.label,
        )  # fmt: skip

    def _merge(self, scope: tuple[str, str]) -> Profile:
        return self.client.flame_graph(replace(self.query, selector=with_label(self.selector, *scope)))

    def _inside_line(self, profile: Profile, value: str, lang: str, count: int = 1) -> str:
        """The biggest function of ``profile`` (the merge inside the label ``value``) by self, or its ``count``
        biggest ("the top 3 in vllm-2")."""
        stats = function_stats(profile)
        rows = tuple(r for r in top(stats, "self", min(count, MAX_ROWS)).rows if r.self > 0)
        if not rows:
            return ""
        if count > 1:
            head = _t("inside_top", lang, value=code(value), n=len(rows), total=self._fmt(profile.total, lang))
            lines = [
                _t(
                    "inside_row",
                    lang,
                    function=code(r.name),
                    self=self._fmt(r.self, lang),
                    share=self._share(r.self, profile.total, lang),
                )
                for r in rows
            ]
            return "\n".join([head, "", *lines])
        row = rows[0]
        return _t(
            "inside", lang, value=code(value), function=code(row.name), self=self._fmt(row.self, lang),
            share=self._share(row.self, profile.total, lang), total=self._fmt(profile.total, lang),
        )  # fmt: skip

    def _inside(self, scope: tuple[str, str], lang: str, count: int = 1) -> str:
        self.topic = scope
        profile = self._merge(scope)
        head = f"{code(scope[1])} ({scope[0]}): {self._fmt(profile.total, lang)}."
        return head + "\n\n" + self._inside_line(profile, scope[1], lang, count)

    def _peers(self, scope: tuple[str, str] | None, lang: str) -> str:
        if scope is None:  # "is any replica far from its peers?": the one farthest from its service's median
            scope = self._farthest()
            if scope is None:
                return _t("nopeers", lang, value=POD)
        # the peers: the same label's other values within the pod's service (else the whole selection)
        within = self.query
        sets = self.client.label_sets(self.window, with_label(self.selector, *scope), (SERVICE,))
        services = {s.get(SERVICE, "") for s in sets} - {""}
        if len(services) == 1:
            within = replace(self.query, selector=with_label(self.selector, SERVICE, services.pop()))
        label = scope[0]
        found = top_by_label(self.client, within, label, limit=1000)
        totals = {r.value: r.total for r in found.rows if r.value}
        value = totals.get(scope[1], 0)
        peers = {k: t for k, t in totals.items() if k != scope[1]}
        if not peers:
            return _t("nopeers", lang, value=code(scope[1]))
        self.topic = scope
        mid = median(peers.values())
        pct = self._share(abs(value - mid), mid, lang)
        direction = "more" if value > mid else "less" if value < mid else "same"
        listed = ", ".join(f"{code(k)} {self._fmt(t, lang)}" for k, t in sorted(peers.items()))
        line = _t(
            "peers", lang, value=code(scope[1]), total=self._fmt(value, lang), pct=pct if direction != "same" else "",
            dir=_t(direction, lang), n=len(peers), median=self._fmt(mid, lang), peers=listed,
        ).replace(",  ", ", ").replace("  ", " ")  # fmt: skip
        nearest = min(peers, key=lambda k: (abs(peers[k] - mid), k))
        return line + "\n\n" + self._compare(scope, (label, nearest), lang)

    def _farthest(self) -> tuple[str, str] | None:
        found = farthest_pod(self.client, self.query)
        return (POD, found.pod) if found is not None else None

    def _compare(self, subject: tuple[str, str], baseline: tuple[str, str], lang: str) -> str:
        """``subject`` against ``baseline``: one Diff call, the server merging each side with its selector."""
        left = replace(self.query, selector=with_label(self.selector, *baseline))
        right = replace(self.query, selector=with_label(self.selector, *subject))
        before, after = self.client.diff(left, right)
        d = diff_profiles(before, after)
        self.topic = subject
        delta = after.total - before.total
        sign = "+" if delta >= 0 else "-"
        head = _t(
            "diff", lang, a=code(subject[1]), ta=self._fmt(after.total, lang), b=code(baseline[1]),
            tb=self._fmt(before.total, lang), delta=sign + self._fmt(abs(delta), lang),
        )  # fmt: skip
        rows = d.ranked("self")[:5]
        if not rows:
            return head + "\n\n" + _t("nodiff", lang)
        lines = [
            _t(
                "change",
                lang,
                name=code(c.name),
                before=self._fmt(c.self_before, lang),
                after=self._fmt(c.self_after, lang),
                delta=("+" if c.delta("self") >= 0 else "-") + self._fmt(abs(c.delta("self")), lang),
            )
            for c in rows
        ]
        return head + "\n\n" + "\n".join(lines)

    def _course(self, question: str, scope: tuple[str, str] | None, lang: str) -> str:
        query = self.query if scope is None else replace(self.query, selector=with_label(self.selector, *scope))
        step = sensible_step(self.window)
        function = ""
        site: tuple[str, ...] = ()
        t = normalise(question)
        if _KV.search(t) or re.search(r"[a-z_][\w.]*\.[a-z_]\w*|\b\w+_\w+\b", question):
            merged = self.client.flame_graph(query)
            function = self._function_in(question, merged)
            site = call_site(list(merged.stacks()), function) if function else ()
        found = course(self.client.series(query, step, call_site=site), step)
        where = _t("scope", lang) if scope is None else f"{code(scope[1])} ({scope[0]})"
        if found is None:
            return _t("empty", lang, scope=where)
        self.topic = scope or self.topic
        through = _t("through", lang, function=code(function)) if function else ""
        out = [
            _t(
                "course",
                lang,
                scope=where[:1].upper() + where[1:],
                through=through,
                step=localize(f"{step:g} s", lang),
                peak=self._fmt(found.peak[1], lang),
                peak_at=when(found.peak[0]),
            )
            .replace("  ", " ")
            .replace(" ,", ",")
        ]
        if found.rise_start is not None:
            floor = min(v for tm, v in found.points if tm < found.rise_start[0])
            out.append(
                _t(
                    "rise",
                    lang,
                    at=when(found.rise_start[0]),
                    value=self._fmt(found.rise_start[1], lang),
                    floor=self._fmt(floor, lang),
                )
            )
        else:
            out.append(_t("norise", lang))
        out.append(
            _t(
                "trend",
                lang,
                verdict=_t(found.trend, lang),
                first=self._fmt(found.first, lang),
                last=self._fmt(found.last, lang),
            )
        )
        return " ".join(out)

    def _function_in(self, question: str, profile: Profile) -> str:
        """The profile's function the question names (a KV-cache phrase means the KV-cache allocator)."""
        stats = function_stats(profile)
        names = profile.names
        lowered = question.lower()
        candidates = [i for i in range(len(names)) if stats.total_values[i] > 0]
        if _KV.search(normalise(question)):
            kv = [i for i in candidates if "kv_cache" in names[i].lower()]
            if kv:
                return names[max(kv, key=lambda i: (int(stats.self_values[i]), int(stats.total_values[i])))]
        named = [i for i in candidates if len(names[i]) > 3 and names[i].lower() in lowered]
        named += [i for i in candidates if names[i].rsplit(".", 1)[-1].lower() in lowered and len(names[i]) > 3]
        return names[max(named, key=lambda i: int(stats.total_values[i]))] if named else ""
