"""Replace a regular file, and nothing else, atomically (see :func:`explainer.writers.write_atomic`).

Why each step: ``rename`` replaces whatever directory entry is at the target, so run as root
``-o /dev/null`` used to turn the device into a file, a symlink was replaced instead of written
through, and a FIFO vanished. The target is therefore opened with ``O_NOFOLLOW | O_NONBLOCK``
and its *descriptor* checked (a path check could be raced), and its identity is checked again
right before the rename. The temporary file is anonymous (``O_TMPFILE``) while it is written and
named only for the rename, with the usual termination signals held off in between.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import stat
import threading
from pathlib import Path

from explainer.errors import OutputError

_KINDS = {
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}
_HELD = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def current_umask() -> int:
    """The process umask, read without changing it where Linux says it (``os.umask`` both sets and
    returns it, which would race with other threads creating files)."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _fail(target: Path, why: str) -> OutputError:
    return OutputError(f"cannot write {target}: {why}")


def existing_identity(target: Path) -> tuple[int, int, int] | None:
    """``(device, inode, mode)`` of the regular file at ``target``, None when nothing is there;
    anything else there is an :class:`OutputError`. Decided on the opened descriptor."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(target, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        # ELOOP: the last component is a symlink (O_NOFOLLOW); a socket cannot be opened (ENXIO)
        with contextlib.suppress(OSError):
            kind = _KINDS.get(stat.S_IFMT(os.lstat(target).st_mode))
            if kind:
                raise _refused(target, kind) from None
        raise _fail(target, exc.strerror or str(exc)) from exc
    try:
        info = os.fstat(fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(info.st_mode):
        raise _refused(target, _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file"))
    return info.st_dev, info.st_ino, stat.S_IMODE(info.st_mode)


def _refused(target: Path, kind: str) -> OutputError:
    return OutputError(
        f"{target} is {kind}; only a regular file is replaced, and it was left as it was",
        hint="give the path of a regular file (or a new one)",
    )


def _anonymous(directory: str) -> int | None:
    """An unnamed file in ``directory``, or None where the kernel or file system has no ``O_TMPFILE``."""
    tmpfile = getattr(os, "O_TMPFILE", 0)
    if not tmpfile or not os.path.isdir("/proc/self/fd"):  # it is named through /proc
        return None
    try:
        return os.open(directory, tmpfile | os.O_WRONLY | _CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno in (95, 22, 21):  # EOPNOTSUPP, EINVAL, EISDIR: no O_TMPFILE here
            return None
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def _named(directory: str, target: Path, data: bytes, mode: int) -> tuple[str, int]:
    tmp = os.path.join(directory, f".{target.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC, 0o600)
    try:
        _write_all(fd, data)
        os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp, fd


_proc_link = [True]  # becomes False once linking a /proc descriptor failed (some sandboxes: EXDEV)


def replace_regular_file(target: Path, data: bytes) -> None:
    directory = str(target.parent) if str(target.parent) else "."
    before = existing_identity(target)
    mode = before[2] if before else 0o666 & ~current_umask()
    tmp: str | None = None
    fd: int | None = None
    # SIGINT, SIGTERM and SIGHUP wait while a named temporary file exists, so the finally below
    # always runs (only in the main thread: signals are delivered there)
    held = threading.current_thread() is threading.main_thread()
    old_mask: set[int | signal.Signals] | None = None
    try:
        fd = _anonymous(directory) if _proc_link[0] else None
        if fd is not None:
            _write_all(fd, data)
            os.fchmod(fd, mode)
        old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD) if held else None
        if fd is not None:
            tmp = os.path.join(directory, f".{target.name}.{secrets.token_hex(6)}.tmp")
            try:
                os.link(f"/proc/self/fd/{fd}", tmp, follow_symlinks=True)
            except OSError:
                _proc_link[0] = False
                os.close(fd)
                fd = tmp = None
        if tmp is None:
            tmp, fd = _named(directory, target, data, mode)
        now = existing_identity(target)  # it may have changed since it was checked
        if now is not None and now != before:
            raise _fail(target, "it changed while the report was written; nothing was replaced")
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise _fail(target, exc.strerror or str(exc)) from exc
    finally:
        if fd is not None:
            os.close(fd)
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if old_mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
