"""The roots race, shared by tests/test_confined.py and bench/redteam.py: a thread keeps swapping a
directory under an MCP root for a symlink out of the root (and back) while the roots' reader opens a file
through it, and every call is counted as an escape (the outside file was read), a read or a refusal."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from explainer.errors import ExplainerError
from explainer.mcp_server.sources import Access


@dataclass(frozen=True)
class RaceCount:
    calls: int
    reads: int
    refusals: int
    escapes: int


def root_tree(base: Path) -> tuple[Path, Path]:
    """A root with ``sub/p.folded`` inside and a file of the same name outside, whose frame says SECRET."""
    root, outside = base / "root", base / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "sub" / "p.folded").write_text("inside;allowed 5\n")
    (outside / "p.folded").write_text("outside;SECRET 7\n")
    return root, outside


def race_the_root(base: Path, calls: int) -> RaceCount:
    """Open ``sub/p.folded`` through the root ``calls`` times while ``sub`` flips to a symlink outside."""
    root, outside = root_tree(base)
    access, stop = Access.under([str(root)]), threading.Event()

    def flip() -> None:
        sub, parked = root / "sub", root / "parked"
        while not stop.is_set():
            os.rename(sub, parked)
            sub.symlink_to(outside, target_is_directory=True)
            os.unlink(sub)
            os.rename(parked, sub)

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    reads = refusals = escapes = 0
    try:
        for _ in range(calls):
            try:
                profile = access.load("sub/p.folded")
            except ExplainerError:
                refusals += 1
                continue
            reads += 1
            escapes += any("SECRET" in name for name in profile.names)
    finally:
        stop.set()
        flipper.join()
    return RaceCount(calls, reads, refusals, escapes)
