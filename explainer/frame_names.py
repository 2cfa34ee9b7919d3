"""The frame labels that name no function, made by the profile model and read by the symbol decoders.

Kept apart from :mod:`explainer.model` (numpy) so that :mod:`explainer.symbols`, which the CLI imports
before it reads a profile, does not load numpy: a large read imports it beside the inflate instead.
"""

from __future__ import annotations

OTHER = "other"
"""The name Pyroscope gives to merged small subtrees when a query hits ``maxNodes``."""

ELIDED_PREFIX = "[elided "
"""Stacks deeper than the cap keep both ends and show the middle as one visible frame."""
