"""The noise floor of a diff: when a change between two profiles is too small to call a regression.

A change counts only when it clears both thresholds (the reasons are in :mod:`explainer.analysis.diff`).
Apart from the diff (numpy) because the CLI builds its options from these defaults before it reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer.errors import AnalysisError

DEFAULT_MIN_SHARE = 0.01
DEFAULT_MIN_RELATIVE = 0.05


@dataclass(frozen=True, slots=True)
class NoiseFloor:
    """Changes below either threshold are noise; see the module docstring for why both."""

    min_share: float = DEFAULT_MIN_SHARE  # of the larger grand total
    min_relative: float = DEFAULT_MIN_RELATIVE  # of the value before

    def __post_init__(self) -> None:
        for name, value in (("share", self.min_share), ("relative", self.min_relative)):
            if not 0.0 <= value < 1e6:  # also rejects NaN
                raise AnalysisError(f"noise floor {name} must be a non-negative fraction, got {value!r}")

    def is_noise(self, before: int, after: int, scale: int) -> bool:
        delta = abs(after - before)
        if delta == 0:
            return True
        if delta < self.min_share * scale:
            return True
        return before > 0 and delta < self.min_relative * before
