"""The runtime a profile comes from, guessed once from its labels.

Only labels whose shape belongs to one language vote (``file.py:12 - f``, ``pkg.(*T).m``,
``java/util/HashMap.get``...). Application languages outrank native code, which appears under
every runtime (the interpreter, libc, the kernel, CUDA): a vLLM profile full of ``c10::`` frames is
still a Python profile. A profile whose votes are split, or that has none, gets ``""``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from explainer.symbols.decode import family_of
from explainer.symbols.families import FAMILIES

Runtime = str  # a language from :data:`explainer.symbols.model.LANGUAGES`, or "" when unknown or mixed
SAMPLE = 512  # labels looked at, spread over the table: enough to be sure (the 42 real profiles
# agree down to 256), and each costs a decode: 4,096 of them were 40 ms of every `analyze`
APPLICATION = ("python", "go", "java", "dotnet", "js", "ruby", "rust")
_VOTES = {"cpython": "python"}  # the interpreter's own frames say which language runs on it
_NATIVE = ("cpp", "c", "kernel", "cuda", "native")


def votes(names: Sequence[str]) -> Counter[str]:
    """How many of (a spread sample of) ``names`` have a shape only one language writes."""
    step = max(1, len(names) // SAMPLE)
    out: Counter[str] = Counter()
    for name in names[::step][:SAMPLE]:
        i, sym = family_of(name)
        if i < len(FAMILIES) and FAMILIES[i].decisive and sym.language and not sym.ambiguous:
            out[_VOTES.get(sym.language, sym.language)] += 1
    return out


def guess_runtime(names: Sequence[str]) -> Runtime:
    """The profile's language, or ``""`` when its labels do not agree on one.

    Cheap to ask again: it reads at most :data:`SAMPLE` labels, each decoded once (cached)."""
    count = votes(names)
    for group in (APPLICATION, _NATIVE):
        ranked = sorted(((count[lang], lang) for lang in group if count[lang]), reverse=True)
        if not ranked:
            continue
        best, lang = ranked[0]
        if best * 2 > sum(n for n, _ in ranked):  # a majority, not just the most
            return "native" if group is _NATIVE else lang
        return ""
    return ""
