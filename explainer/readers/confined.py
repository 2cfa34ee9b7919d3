"""Open a file by descriptor and prove it lies under an allowed root, so a race cannot escape.

Checking a path and then opening it again by name leaves a gap: a directory swapped for a symlink
in between led outside ``--root``. Here the file is opened once (``O_NONBLOCK``, so a FIFO cannot
block) and what is judged is the descriptor: its real path as the kernel names it
(``/proc/self/fd/N``, Linux) or, without ``/proc``, an ``openat`` walk from the root's descriptor
that refuses every symlink (``O_NOFOLLOW`` per component). The bytes are then read from that same
descriptor, so what was checked is what is read.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from explainer.errors import QueryError, SourceNotFoundError
from explainer.readers.limits import read_capped

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_PROC = "/proc/self/fd"
_HINT = "the operator sets them with explainer mcp --root DIR"


def _real_path(fd: int) -> Path | None:
    """The descriptor's path as the kernel names it, None without ``/proc``."""
    try:
        return Path(os.readlink(f"{_PROC}/{fd}"))
    except OSError:
        return None


def _walk(root: Path, relative: Path) -> int:
    """``openat`` from the root, one component at a time, never following a symlink."""
    parts = [p for p in relative.parts if p not in ("", ".")]
    if not parts or ".." in parts:
        raise OSError(2, "not under the root")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        for part in parts[:-1]:
            nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = nxt
        return os.open(parts[-1], _FLAGS | os.O_NOFOLLOW, dir_fd=fd)
    finally:
        os.close(fd)


def open_under(path: Path, roots: Sequence[Path]) -> tuple[int, Path]:
    """A descriptor of the regular file ``path`` and its real path, which is under one of ``roots``
    (already resolved). Outside every root: :class:`QueryError`; missing or not a regular file:
    :class:`SourceNotFoundError`. The caller closes the descriptor."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        raise SourceNotFoundError(f"cannot open {path}: {exc.strerror or exc}") from exc
    try:
        real = _real_path(fd)
        if real is None:  # no /proc: walk again from each root with no symlink allowed
            os.close(fd)
            fd = -1
            fd, real = _open_by_walk(path, roots)
        if not any(real.is_relative_to(root) for root in roots):
            raise QueryError(f"{path} is outside the allowed roots", hint=_HINT)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SourceNotFoundError(f"{path} is not a regular file")
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise
    return fd, real


def _open_by_walk(path: Path, roots: Sequence[Path]) -> tuple[int, Path]:
    absolute = Path(os.path.abspath(path))
    for root in roots:
        if absolute.is_relative_to(root):
            try:
                return _walk(root, absolute.relative_to(root)), absolute
            except OSError as exc:
                raise SourceNotFoundError(f"cannot open {path} without following a link") from exc
    raise QueryError(f"{path} is outside the allowed roots", hint=_HINT)


@dataclass(frozen=True, slots=True)
class ConfinedFile:
    """A file opened under a root: its descriptor, its real path and its status at the open."""

    fd: int
    real: Path
    info: os.stat_result

    def read(self, limit: int) -> bytearray:
        """Every byte from the checked descriptor, at most ``limit`` (else a ``SizeLimitError``)."""
        os.set_blocking(self.fd, True)
        os.lseek(self.fd, 0, os.SEEK_SET)
        with open(self.fd, "rb", buffering=0, closefd=False) as f:
            try:
                return read_capped(f, limit, self.real.name, size_hint=self.info.st_size)
            except OSError as exc:
                raise SourceNotFoundError(f"cannot read {self.real}: {exc.strerror or exc}") from exc


@contextlib.contextmanager
def opened_under(path: Path, roots: Sequence[Path]) -> Iterator[ConfinedFile]:
    """:func:`open_under` as a context that closes the descriptor."""
    fd, real = open_under(path, roots)
    try:
        yield ConfinedFile(fd, real, os.fstat(fd))
    finally:
        os.close(fd)
