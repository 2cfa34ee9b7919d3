"""Build the message catalogs: ``python tools/catalogs.py`` (``make catalogs``), a development tool.

Extracts every message the offline answers write (``w.t``, ``w.tn``, ``N_``), the knowledge base's
texts (frame explanations, knob effects, category labels and descriptions) and the meanings and
caveats of :mod:`explainer.knowledge.semantics` into ``explainer/locale/explainer.pot``; merges it
into each language's ``.po`` (new messages arrive untranslated, and the tests say so); and compiles
the ``.mo`` files the package reads. Needs Babel (a development dependency).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from explainer.explain.answers.language import DOMAIN, LANGUAGES

PACKAGE = Path(__file__).resolve().parents[1] / "explainer"
LOCALE = PACKAGE / "locale"
KEYWORDS = {"t": None, "tn": (1, 2), "N_": None}
SOURCES = ("explain/answers/**.py", "explain/route.py", "explain/llm/turn.py", "knowledge/visibility.py")


def _python_messages() -> Iterator[tuple[str | tuple[str, ...], str]]:
    method_map = [(pattern, "python") for pattern in SOURCES]
    for filename, lineno, message, _comments, _context in extract_from_dir(
        str(PACKAGE), method_map, keywords=KEYWORDS, comment_tags=(), strip_comment_tags=True
    ):
        yield message, f"{filename}:{lineno}"


def _knowledge_messages() -> Iterator[tuple[str, str]]:
    semantics = importlib.import_module("explainer.knowledge.semantics")  # the module, not its function
    from explainer.knowledge.classify import categories, entries

    for cat in categories().values():
        yield cat.label, "knowledge/categories.toml"
        yield cat.description, "knowledge/categories.toml"
    for entry in entries():
        yield entry.explanation, "knowledge/frames.toml"
        for action in entry.actions:
            yield action.effect, "knowledge/frames.toml"
            if action.risk:
                yield action.risk, "knowledge/frames.toml"
    from explainer.knowledge.facts import facts

    for fact in facts().values():
        yield fact.text, "knowledge/facts.toml"
        if fact.risk:
            yield fact.risk, "knowledge/facts.toml"
    for text in (*semantics._MEANINGS.values(), semantics._CUMULATIVE, semantics._BEFORE_START,
                 semantics._DRIVER_ONLY, semantics._SNAPSHOT):  # fmt: skip
        yield text, "knowledge/semantics.py"


def template() -> Catalog:
    catalog = Catalog(project="explainer", domain=DOMAIN)
    for message, where in [*_python_messages(), *_knowledge_messages()]:
        if message:
            catalog.add(message, locations=[(where.split(":")[0], 0)])
    return catalog


def main() -> int:
    pot = template()
    LOCALE.mkdir(exist_ok=True)
    with (LOCALE / f"{DOMAIN}.pot").open("wb") as f:
        write_po(f, pot, omit_header=True, sort_output=True, no_location=True)
    for lang in LANGUAGES[1:]:
        po_path = LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
        po_path.parent.mkdir(parents=True, exist_ok=True)
        if po_path.exists():
            with po_path.open("rb") as f:
                catalog = read_po(f, locale=lang)
        else:
            catalog = Catalog(locale=lang, domain=DOMAIN, project="explainer")
        pot.creation_date = catalog.creation_date  # unchanged messages give an unchanged file
        catalog.update(pot, no_fuzzy_matching=True)
        with po_path.open("wb") as f:
            write_po(f, catalog, sort_output=True, no_location=True, ignore_obsolete=True)
        with po_path.with_suffix(".mo").open("wb") as f:
            write_mo(f, catalog)
        missing = sum(1 for m in catalog if m.id and not m.string)
        sys.stderr.write(f"{po_path.relative_to(PACKAGE.parent)}: {len(catalog)} messages, {missing} untranslated\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
