"""Keep what is on the page: the profile as pprof, folded stacks or JSON, each a file explainer
(and pprof, Pyroscope, flamegraph.pl) reads back to the same totals; made only when clicked.

A profile fetched from a Pyroscope server lives only in the session; this is how it is kept.
The flame graph's own picture (PNG, SVG) is exported by the component in the browser.
"""

from __future__ import annotations

import json
import re
from typing import Any

from explainer.model import Profile
from explainer.ui import expanders
from explainer.writers import to_folded, to_pprof

FORMATS = (
    ("pprof", ".pb.gz", "application/gzip", "pprof protobuf, gzipped: go tool pprof, Pyroscope and explainer read it"),
    ("folded", ".folded", "text/plain", "one line per stack, `a;b;c value`: flamegraph.pl and explainer read it"),
    ("JSON", ".json", "application/json", "Pyroscope's flame graph JSON (names, levels): explainer reads it back"),
)  # fmt: skip


def stem(label: str) -> str:
    """A file name from the page's label: letters, digits, dot, dash and underscore only."""
    base = re.sub(r"\.(pb\.gz|pb|pprof|folded|txt|json|gz)$", "", label.rsplit("/", 1)[-1], flags=re.I)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", base).strip("-.")[:60]
    return safe or "profile"


def encode(profile: Profile, fmt: str) -> bytes:
    """The profile in ``fmt`` (``pprof``, ``folded`` or ``JSON``)."""
    if fmt == "pprof":
        return to_pprof(profile)
    if fmt == "folded":
        return to_folded(profile).encode("utf-8", errors="surrogateescape")
    from explainer.readers.flamegraph import encode_flamegraph

    return json.dumps(encode_flamegraph(profile), ensure_ascii=False).encode("utf-8", errors="surrogateescape")


def downloads(st: Any, profile: Profile, label: str) -> None:
    """One download button per format, in an expander whose buttons are drawn only when it is opened
    (:mod:`explainer.ui.expanders`): a page that opens draws one element for them, not five (issue 27)."""
    name = stem(label)
    box, draw = expanders.expander(st, "Download the profile (pprof, folded, JSON)", expanders.EXPORTS, _never)
    with box:
        if draw:
            with st.container(horizontal=True):
                for fmt, suffix, mime, help_text in FORMATS:
                    st.download_button(
                        fmt,
                        data=lambda fmt=fmt: encode(profile, fmt),
                        file_name=name + suffix,
                        mime=mime,
                        icon=":material/download:",
                        on_click="ignore",  # no rerun: a rerun can drop the lazy file before the browser fetches it
                        key=f"export_{fmt.lower()}",
                        help=help_text,
                    )


def _never() -> bool:
    """The downloads hold no value to keep while their expander is closed."""
    return False
