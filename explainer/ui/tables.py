"""Tables as the page shows them: raw numbers underneath (so a click on a header sorts by value),
each size written by :mod:`explainer.units` on top ("55.1 GB", as the chat and the flame graph say
it), names whole; and the same rows as CSV, with the raw numbers and their unit in the header.

The display strings are a pandas Styler's: Streamlit draws the Styler's text and keeps the column's
numbers for sorting and selection.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from explainer import units


def styled(frame: pd.DataFrame, unit: str, values: Iterable[str] = (), shares: Iterable[str] = (),
           signed: Iterable[str] = ()) -> Any:  # fmt: skip
    """``frame`` with its ``values`` columns shown as sizes, ``shares`` as percentages (numbers 0-100)
    and ``signed`` as changes ("+3.2 GB", "−1.0 GB"), each in the units' notation; cells stay numbers."""

    def size(v: float) -> str:
        return units.format_value(int(v), unit)

    def change(v: float) -> str:
        n = int(v)
        return ("+" if n > 0 else "−" if n < 0 else "±") + units.format_value(abs(n), unit)

    def share(v: float) -> str:
        return units.format_share(v, 100.0)

    formats: dict[str, Any] = {c: size for c in values}
    formats.update({c: share for c in shares})
    formats.update({c: change for c in signed})
    return frame.style.format(formats)


def csv_bytes(frame: pd.DataFrame, unit: str, values: Iterable[str] = (), hidden: Iterable[str] = ()) -> bytes:
    """The rows as CSV (UTF-8): raw numbers, each value column's header naming its unit (``self (bytes)``)."""
    named = {c: f"{c} ({unit or 'count'})" for c in values}
    out = frame.drop(columns=[c for c in hidden if c in frame.columns]).rename(columns=named)
    text: str = out.to_csv(index=False)
    return text.encode("utf-8")
