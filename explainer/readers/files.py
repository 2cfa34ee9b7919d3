"""Bytes from a file or stdin, bounded: the one place a profile's raw bytes are read.

Only a regular file (or stdin) is read. A device such as ``/dev/zero`` never ends, a FIFO can
block forever before a byte arrives, and a socket is not a file: each gets a one-line error at
once. The type is checked on the open descriptor (opened with ``O_NONBLOCK``, so opening a FIFO
cannot block), which also closes the gap between a check of the path and the open.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from explainer.errors import SourceNotFoundError
from explainer.readers.limits import read_capped

if TYPE_CHECKING:  # paths are handled with os.path: pathlib (and urllib.parse under it) is not imported to read a file
    from pathlib import Path

_KINDS = {
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


def read_file(path: str | Path, limit: int) -> bytearray:
    """The bytes of the regular file ``path``; more than ``limit`` bytes is a ``SizeLimitError``."""
    p = os.fspath(path)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError as exc:
        raise SourceNotFoundError(f"no such file: {p}") from exc
    except IsADirectoryError as exc:
        raise SourceNotFoundError(f"{p} is a directory, not a profile") from exc
    except PermissionError as exc:
        raise SourceNotFoundError(f"cannot read {p}: permission denied") from exc
    except OSError as exc:
        raise SourceNotFoundError(f"cannot read {p}: {exc.strerror or exc}") from exc
    try:
        _check_regular(p, os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
        size = os.fstat(fd).st_size
    except BaseException:
        os.close(fd)
        raise
    with open(fd, "rb", buffering=0) as f:
        try:
            return read_capped(f, limit, os.path.basename(p), size_hint=size)
        except OSError as exc:
            raise SourceNotFoundError(f"cannot read {p}: {exc.strerror or exc}") from exc


def _check_regular(path: str, mode: int) -> None:
    if not stat.S_ISREG(mode):
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise SourceNotFoundError(f"{path} is {kind}, not a profile file", hint="give a regular file, or - for stdin")


def read_stdin(limit: int, fd: int = 0) -> bytearray:
    """All of stdin (a pipe, a socket or a redirected file), failing once it passes ``limit`` bytes."""
    try:
        info = os.fstat(fd)
    except OSError as exc:
        raise SourceNotFoundError("cannot read stdin: it is closed") from exc
    kind = _KINDS.get(stat.S_IFMT(info.st_mode))
    if kind in ("a character device", "a block device", "a directory"):  # a terminal, /dev/zero, ...
        raise SourceNotFoundError(
            f"stdin is {kind}, not a profile", hint="pipe a profile in, e.g. explainer analyze - < FILE"
        )
    size = info.st_size if stat.S_ISREG(info.st_mode) else 0
    with open(fd, "rb", buffering=0, closefd=False) as f:
        try:
            return read_capped(f, limit, "stdin", size_hint=size)
        except OSError as exc:
            raise SourceNotFoundError(f"cannot read stdin: {exc.strerror or exc}") from exc
