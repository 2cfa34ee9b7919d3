"""Roots hold under races (issue 26, item 3).

GIVEN ``explainer mcp --root R`` WHEN a directory under R is swapped for a symlink out of R (and
back) while an assistant opens a file through it THEN no call ever reads the file outside R: the
descriptor that is read is the one proven under the root.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from root_race import race_the_root, root_tree

from explainer.errors import ExplainerError, QueryError
from explainer.readers.confined import open_under, opened_under

CALLS = 3_000


def test_a_directory_swapped_for_a_symlink_never_escapes_the_root(tmp_path: Path) -> None:
    race = race_the_root(tmp_path, CALLS)
    assert race.escapes == 0
    assert race.reads + race.refusals == CALLS and race.reads > 0  # the race was live: some calls read the real file


def test_a_symlink_out_of_the_root_is_refused_on_the_descriptor(tmp_path: Path) -> None:
    root, outside = root_tree(tmp_path)
    (root / "link").symlink_to(outside / "p.folded")
    with pytest.raises(QueryError, match="outside the allowed roots"):
        open_under(root / "link", [root.resolve()])
    with opened_under(root / "sub" / "p.folded", [root.resolve()]) as file:
        assert file.read(1 << 20) == bytearray(b"inside;allowed 5\n")


def test_without_proc_the_walk_refuses_every_symlink(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from explainer.readers import confined

    root, _outside = root_tree(tmp_path)
    (root / "inner").symlink_to(root / "sub", target_is_directory=True)
    monkeypatch.setattr(confined, "_real_path", lambda fd: None)
    with opened_under(root / "sub" / "p.folded", [root.resolve()]) as file:
        assert file.read(100) == bytearray(b"inside;allowed 5\n")
    with pytest.raises(ExplainerError):
        open_under(root / "inner" / "p.folded", [root.resolve()])
