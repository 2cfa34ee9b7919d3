"""The scope of a report: where a profile came from, what its values mean, and how to open it again.

Includes the Grafana Explore link for Pyroscope sources. Explore keeps its state in the URL as
``/explore?schemaVersion=1&panes=<JSON>&orgId=N``; the pane names the datasource and holds the
Pyroscope query model (``queryType``, ``profileTypeId`` with a lower-case d, ``labelSelector``,
``groupBy``) and the time range in Unix milliseconds. The JSON is percent-encoded whole, so no
character of an untrusted selector can end the Markdown link early.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote, urlsplit

from explainer import knowledge, units
from explainer.errors import QueryError
from explainer.model import Profile

PYROSCOPE_DATASOURCE_TYPE = "grafana-pyroscope-datasource"
DEFAULT_DATASOURCE_UID = "local-pyroscope"  # the AKS GPU-profiling guide's datasource uid

_KIND_MEANINGS = {
    "time": "time spent in each call stack",
    "bytes": "bytes, by call stack",
    "count": "a count of samples or events, by call stack",
}


@dataclass(frozen=True, slots=True)
class Meaning:
    text: str  # one phrase: what a value counts
    caveats: tuple[str, ...]  # what a reader must keep in mind (not about symbols)
    unresolved: str  # the knowledge base's note on unresolved symbols, "" when there is none
    rerun: bool  # re-profiling would resolve symbols that hide where the resource goes


def values_meaning(profile: Profile) -> Meaning:
    """What a value of this profile counts, and the caveats that go with it."""
    sem = knowledge.semantics(profile)
    text = sem.meaning
    if text.startswith("values of "):  # a sample type it does not know: the unit still says what is counted
        text = _KIND_MEANINGS[units.kind_of(profile.unit)]
    # the report puts the symbol caveat under coverage, next to the other things that limit what the
    # numbers can say
    symbols = next((c for c in sem.caveats if c.about_symbols), None)
    caveats = tuple(c.text for c in sem.caveats if not c.about_symbols)
    note = symbols.text if symbols is not None else ""
    return Meaning(text, caveats, note, symbols is not None and symbols.kind == "unresolved-rerun")


@dataclass(frozen=True, slots=True)
class Query:
    profile_type: str
    selector: str
    start_ms: int | None
    end_ms: int | None

    @property
    def range_text(self) -> tuple[str, str]:
        """The window as Grafana takes it: Unix milliseconds, or the last hour when unknown."""
        start = str(self.start_ms) if self.start_ms is not None else "now-1h"
        end = str(self.end_ms) if self.end_ms is not None else "now"
        return start, end


def parse_query(profile: Profile) -> Query | None:
    """The Pyroscope query behind a profile (type, selector, window), or None for files.

    The client records the type and selector in ``source`` and the window as the profile's
    ``time_ns``/``duration_ns``; nothing is parsed back out of display text.
    """
    src = profile.source
    if not src.profile_type:
        return None
    start = profile.time_ns // 10**6 if profile.time_ns else None
    end = (profile.time_ns + profile.duration_ns) // 10**6 if profile.time_ns and profile.duration_ns else None
    return Query(src.profile_type, src.selector or "{}", start, end)


def window_text(profile: Profile) -> str:
    if not profile.time_ns:
        return "not recorded in the input"
    start = _utc(profile.time_ns // 10**6)
    if not profile.duration_ns:
        return f"from {start}"
    end = _utc((profile.time_ns + profile.duration_ns) // 10**6)
    return f"{start} to {end} ({units.format_duration_ns(profile.duration_ns // 10**6 * 10**6)})"


def _utc(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def check_base_url(base: str) -> str:
    parts = urlsplit(base.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or "@" in parts.netloc:
        raise QueryError(f"--grafana-url must be an http(s) URL without credentials, got {base[:80]!r}")
    if any(ch.isspace() or ch in "()<>\"'" for ch in base.strip()):
        raise QueryError("--grafana-url must not contain spaces, quotes, brackets or parentheses")
    return base.strip().rstrip("/")


def explore_url(base: str, query: Query, *, datasource_uid: str = DEFAULT_DATASOURCE_UID, org_id: int = 1) -> str:
    """A Grafana Explore URL that opens the same query and window."""
    start, end = query.range_text
    datasource = {"type": PYROSCOPE_DATASOURCE_TYPE, "uid": datasource_uid}
    pane = {
        "datasource": datasource_uid,
        "queries": [
            {
                "refId": "A",
                "datasource": datasource,
                "queryType": "profile",
                "profileTypeId": query.profile_type,
                "labelSelector": query.selector,
                "groupBy": [],
            }
        ],
        "range": {"from": start, "to": end},
    }
    panes = json.dumps({"explainer": pane}, separators=(",", ":"), sort_keys=True)
    return f"{check_base_url(base)}/explore?schemaVersion=1&panes={quote(panes, safe='')}&orgId={int(org_id)}"


def input_digest(profile: Profile) -> tuple[str, str]:
    """(sha256, what it is of): the input bytes when known, else the profile's folded stacks
    (demo and server profiles), which identify the same data just as well."""
    if profile.source.digest:
        return profile.source.digest, "of the input bytes"
    h = hashlib.sha256()
    h.update(f"{profile.sample_type}\n".encode())
    for stack, value in profile.stacks():
        h.update(";".join(stack).encode("utf-8", "surrogateescape") + f" {value}\n".encode())
    return h.hexdigest(), "of its folded stacks: there was no input file"
