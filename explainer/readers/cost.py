"""The cost budget beside the size budget: how much *work* a profile may ask for.

The size caps (``limits.py``) bound bytes; a small valid file can still ask for a great deal of
work: a pprof declaring a million sample types (every one an object before any sample is read),
a profile of a million distinct names (each is decoded and classified), or samples that expand to
billions of frames. Each bound here fails with one line naming it and the variable that raises it.

Defaults pass every profile in the real corpus (``../shared/profiles/real``: at most 4 sample
types, 3,486 names, 992,028 frames) and the 2M-stack vLLM profile of ``gen_gpu_profile.py``
(2 types, 4,028 names, 161M frames) with a margin. The names bound is the tight one:
every distinct name is decoded and classified (about 0.12 ms each), so 10,000 names keep a small
file's answer under the 2 s target (16,384 took 2.4 s); ``bench/amplify.py`` measures the worst.
That work grows with each name's length too (decoding, classifying and the app's flame graph cost
1-7 microseconds a character, the most for bracketed ``a<b>::`` paths), so the characters of all
names are bounded as well: 1,000,000 is 5.8 times the real corpus's most (173,691) and keeps a
file of a thousand 40,000-character names (67 KB gzipped) from costing minutes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from explainer.errors import SizeLimitError


class CostLimitError(SizeLimitError):
    """A profile that would cost more work than a bound allows."""

    hint = ""


@dataclass(frozen=True, slots=True)
class Bound:
    attr: str
    env: str
    default: int
    what: str  # "distinct function names", ...


BOUNDS = (
    Bound("max_names", "EXPLAINER_MAX_NAMES", 10_000, "distinct function names"),
    Bound("max_frames", "EXPLAINER_MAX_FRAMES", 400_000_000, "frames in its stacks"),
    Bound("max_sample_types", "EXPLAINER_MAX_SAMPLE_TYPES", 256, "sample types"),
    Bound("max_values", "EXPLAINER_MAX_VALUES", 16 * 2**20, "values (sample types x samples)"),
    Bound("max_name_chars", "EXPLAINER_MAX_NAME_CHARS", 1_000_000, "characters in its distinct function names"),
)


@dataclass(frozen=True, slots=True)
class CostBudget:
    max_names: int = BOUNDS[0].default
    max_frames: int = BOUNDS[1].default
    max_sample_types: int = BOUNDS[2].default
    max_values: int = BOUNDS[3].default
    max_name_chars: int = BOUNDS[4].default

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> CostBudget:
        """The defaults, each raised or lowered by its variable (a whole number of at least 1)."""
        env = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for bound in BOUNDS:
            text = env.get(bound.env, "").strip().replace("_", "")
            if not text:
                continue
            if not text.isdigit() or int(text) < 1:
                raise CostLimitError(f"${bound.env} must be a whole number of at least 1, not {text[:20]!r}")
            values[bound.attr] = int(text)
        return cls(**values)

    def check(self, attr: str, count: int, *, at_least: bool = False) -> None:
        """Raise :class:`CostLimitError` when ``count`` passes the bound named ``attr`` (``at_least``:
        counting stopped there, so the message says "more than")."""
        limit = int(getattr(self, attr))
        if count > limit:
            bound = next(b for b in BOUNDS if b.attr == attr)
            has = f"more than {limit:,}" if at_least else f"{count:,}"
            raise CostLimitError(
                f"the profile has {has} {bound.what}, over the bound of {limit:,}; "
                f"if you trust it, raise the bound with {bound.env}={_suggest(count if not at_least else limit * 2)}"
            )


def _suggest(count: int) -> int:
    """A round number above ``count`` to put in the message."""
    step = int(10 ** max(len(str(count)) - 2, 0))
    return (count // step + 1) * step
