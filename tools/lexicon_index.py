"""Rebuild the question lexicon's prebuilt index: ``python tools/lexicon_index.py`` (``make lexicon``).

Run it after editing ``explainer/explain/question/lexicon.toml``; ``tests/test_lexicon_index.py`` fails
until it has run. Until then the program reads the TOML itself (correct, only slower).
"""

from __future__ import annotations

from pathlib import Path

from explainer.explain.question.lexicon import INDEX, SOURCE
from explainer.explain.question.lexicon_build import index

HERE = Path(__file__).resolve().parents[1] / "explainer" / "explain" / "question"


def main() -> None:
    text = index((HERE / SOURCE).read_bytes())
    (HERE / INDEX).write_text(text, encoding="ascii", newline="\n")
    print(f"wrote {HERE / INDEX} ({len(text):,} bytes)")


if __name__ == "__main__":
    main()
