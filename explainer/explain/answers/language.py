"""The language of an answer: gettext message catalogs, compiled from ``explainer/locale/*/LC_MESSAGES/explainer.po``.

English is the source language (the messages themselves). ``make catalogs`` (``tools/catalogs.py``) re-extracts the
messages with Babel (the answers' ``w.t(...)``/``w.tn(...)`` calls, the resource words marked with
:func:`N_`, and the knowledge base's texts) into ``explainer.pot``, merges them into each ``.po``,
and compiles the ``.mo`` the package reads with the standard library's :mod:`gettext`.
"""

from __future__ import annotations

import gettext
import io
import pkgutil
from functools import cache

DOMAIN = "explainer"
LANGUAGES = ("en", "nl")


def N_(message: str) -> str:
    """Marks a message for extraction; it is translated where it is shown."""
    return message


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalog for ``lang``; English (and any language without a catalog) reads the messages as written."""
    if lang == "en" or lang not in LANGUAGES:
        return gettext.NullTranslations()
    # pkgutil, not importlib.resources: that would add tempfile, shutil and zipfile to every question's start-up
    data = pkgutil.get_data("explainer", f"locale/{lang}/LC_MESSAGES/{DOMAIN}.mo")
    if data is None:  # pragma: no cover - a loader without get_data; the package's own loader has it
        raise FileNotFoundError(f"{lang}/{DOMAIN}.mo")
    return gettext.GNUTranslations(io.BytesIO(data))


# What the widths measure and what happens to it (explainer.reading words them in English).
RESOURCE_WORDS = (
    N_("GPU memory"),
    N_("memory"),
    N_("CPU time"),
    N_("wall-clock time"),
    N_("time"),
    N_("samples"),
    N_("allocated"),
    N_("spent"),
    N_("counted"),
    N_("is allocated"),
    N_("is spent"),
    N_("are counted"),
    N_("is counted"),
)
