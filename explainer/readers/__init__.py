"""Read any supported profile, choosing the reader by sniffing content (never the file name).

gzip magic          -> inflate (capped), then sniff again
'{' after spaces    -> Pyroscope flame-graph JSON (render, Connect or diff)
'a;b;c 12' lines    -> folded stacks (UTF-8 or UTF-16 with BOM)
anything else       -> pprof protobuf (validated; garbage fails there with a clear error)
"""

from __future__ import annotations

import codecs
import hashlib
import importlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from explainer.errors import DecodeError, ExplainerError, FormatError
from explainer.lazy import face
from explainer.readers import limits
from explainer.readers.cost import CostBudget
from explainer.readers.files import read_file, read_stdin
from explainer.readers.folded import decode_text, looks_folded, read_folded
from explainer.readers.jsonsafe import loads
from explainer.readers.limits import Data

if TYPE_CHECKING:
    from pathlib import Path

    from explainer.model import Profile, Source

# Nothing here imports the model (numpy) until a profile is built: the CLI starts inflating a large
# profile before numpy is imported, which then loads beside the inflate (see read_bytes). ``Source``,
# offered here for the readers' callers, is the model's.
if not TYPE_CHECKING:  # for mypy the name is the import above
    __getattr__ = face("explainer", {"Source": "model"})

# The pprof reader (protobuf) and the flame-graph reader are imported by the branch that reads
# their format: a command pays start-up only for the reader its input needs.


@dataclass(frozen=True, slots=True)
class ReadOptions:
    sample_type: str | None = None  # pprof: which sample type (default: the profile's default)
    unit: str | None = None  # folded and Connect JSON carry no unit: say what the counts are
    max_decompressed: int = limits.DEFAULT_MAX_DECOMPRESSED
    max_input: int = limits.DEFAULT_MAX_INPUT
    cost: CostBudget | None = None  # the work a profile may ask for; None: the defaults and $EXPLAINER_MAX_*

    @classmethod
    def sized(cls, max_size: int, *, sample_type: str | None = None, unit: str | None = None) -> ReadOptions:
        """``--max-size`` as one option for both caps: it is the decompressed cap, and once raised past
        its default it lifts the raw-input cap with it (a 4.4M-stack profile is already 256 MiB gzipped);
        below the default raw cap it lowers that one too (see :attr:`input_limit`)."""
        max_input = max_size if max_size > limits.DEFAULT_MAX_DECOMPRESSED else limits.DEFAULT_MAX_INPUT
        return cls(sample_type, unit, max_decompressed=max_size, max_input=max_input)

    @property
    def input_limit(self) -> int:
        """Raw bytes read at all: the input cap, never more than the decompressed cap."""
        return limits.input_limit(self.max_input, self.max_decompressed)


_NOT_SPACE = re.compile(rb"[^ \t\r\n\f\v]")


def sniff(data: Data) -> str:
    """``pprof``, ``json`` or ``folded`` for already-decompressed bytes (read in place, never copied)."""
    if _NOT_SPACE.search(data) is None:
        raise FormatError("the input is empty")
    head = data[:4096].lstrip(b" \t\r\n\xef\xbb\xbf")
    if head[:1] in (b"{", b"["):
        return "json"
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or looks_folded(decode_text(data[:65536])):
        return "folded"
    return "pprof"


_THREADED_DIGEST = 4 << 20  # below this, hashing takes under 3 ms: not worth a thread


def _digest_and_inflate(
    data: Data, max_decompressed: int, overlap: Callable[[], None] | None = None
) -> tuple[str, Data]:
    """The sha256 of ``data``, and ``data`` inflated when it is gzip; with ``overlap`` (see
    :func:`read_bytes`), the format's reader is imported and ``overlap`` called first.

    On large gzip inputs the inflate runs on a thread from the start, and this thread imports the
    format's reader (with numpy, protobuf and the model: about 0.1 s that would otherwise come before
    the read), opens the window, and then hashes. The inflate and the hash release the GIL, so on two
    cores neither the imports nor the digest add wall time to the read."""
    gzipped = limits.is_gzip(data)
    if not gzipped or len(data) < _THREADED_DIGEST:
        _prepare(data, overlap)
        digest = hashlib.sha256(data).hexdigest()
        return digest, limits.gunzip(data, max_decompressed) if gzipped else data
    inflated: list[Data] = []
    failed: list[BaseException] = []

    def inflate() -> None:  # imports nothing: the warm-up's rule is one importing thread at a time
        try:
            inflated.append(limits.gunzip(data, max_decompressed))
        except BaseException as exc:  # raised again on the reading thread, as if it had inflated
            failed.append(exc)

    thread = threading.Thread(target=inflate, name="explainer-inflate", daemon=True)
    thread.start()
    try:
        _prepare(data, overlap)
        digest = hashlib.sha256(data).hexdigest()
    finally:
        thread.join()
    if failed:
        raise failed[0]
    return digest, inflated[0]


OVERLAP_MIN = 1 << 20
"""Inputs smaller than this read without ``overlap``: their inflate and decode take a few ms, and a
thread beside them would only cost GIL hand-offs (each release by the read can wait up to the
interpreter's 5 ms switch interval to get the GIL back)."""

# the module that reads each format, imported by the branch that reads it (folded is always loaded)
_READER = {"pprof": "explainer.readers.pprof", "json": "explainer.readers.flamegraph"}
# what text may be decoded with (a BOM; json's detection of UTF-16 and UTF-32): codecs load on first use
_TEXT_CODECS = ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be")


def prepare_read(fmt: str) -> None:
    """Import everything reading ``fmt`` (``pprof``, ``json`` or ``folded``) may import, so that the read
    itself imports nothing (the CLI's warm-up imports on another thread meanwhile)."""
    importlib.import_module("explainer.model")  # every format builds the model (numpy)
    if fmt in _READER:
        importlib.import_module(_READER[fmt])
    if fmt != "pprof":
        for name in _TEXT_CODECS:
            codecs.lookup(name)


def _import_reader(data: Data) -> None:
    """Prepare the read of the format ``data``'s inflated head sniffs as (pprof when the head says nothing)."""
    try:
        fmt = sniff(limits.head(data))
    except FormatError:  # blank so far: the full sniff decides, the pprof reader is the likely one
        fmt = "pprof"
    prepare_read(fmt)


def _prepare(data: Data, overlap: Callable[[], None] | None) -> None:
    if overlap is not None:
        _import_reader(data)
        overlap()


def read_bytes(
    data: Data,
    options: ReadOptions | None = None,
    *,
    location: str = "",
    kind: str = "file",
    overlap: Callable[[], None] | None = None,
) -> Profile:
    """Any supported profile from bytes; every failure is an :class:`~explainer.errors.ProfileError`.

    ``overlap`` is called once the read has imported all it will (the reader of the format, which
    it imports while a gzipped input inflates on another thread), before the rest of the inflate and
    the decode, which run mostly without the GIL: the CLI's warm-up (``explainer.cli.warmup``) imports
    the command's next modules meanwhile. It is not called for inputs under :data:`OVERLAP_MIN` bytes."""
    options = options or ReadOptions()
    budget = options.cost or CostBudget.from_env()
    limits.check_input_size(data, options.input_limit)  # before unpacking: the compressed size
    opening = overlap if len(data) >= OVERLAP_MIN else None
    digest, raw = _digest_and_inflate(data, options.max_decompressed, opening)
    del data  # the compressed bytes are not needed any more: a large profile's peak is smaller without them
    fmt = sniff(raw)
    try:
        if fmt == "json":
            from explainer.readers.flamegraph import looks_like_flamegraph, read_flamegraph_object

            obj = loads(raw, what="flame-graph JSON")
            if not looks_like_flamegraph(obj):
                raise FormatError("JSON input is not a Pyroscope flame graph (no 'flamebearer' or 'flamegraph')")
            profile = read_flamegraph_object(obj, unit=options.unit, location=location)
        elif fmt == "folded":
            profile = read_folded(raw, unit=options.unit or "count", location=location, max_names=budget.max_names)
        else:
            from explainer.readers.pprof import read_pprof

            profile = read_pprof(raw, sample_type=options.sample_type, location=location, budget=budget)
    except ExplainerError:
        raise
    except RecursionError as exc:  # belt and braces: our readers are iterative
        raise DecodeError("profile is nested too deeply") from exc
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError, MemoryError) as exc:
        raise DecodeError(f"malformed {fmt} profile: {type(exc).__name__}: {str(exc)[:160]}") from exc
    budget.check("max_names", len(profile.names))  # every format: each name is decoded and classified
    budget.check("max_frames", len(profile.frames))
    budget.check("max_name_chars", sum(map(len, profile.names)))  # the same work grows with each name's length
    return replace(profile, source=replace(profile.source, kind=kind, location=location, digest=digest))


def read_file_bytes(path: str | Path, options: ReadOptions | None = None) -> Data:
    """The raw bytes of a regular file, at most ``options.input_limit`` of them."""
    return read_file(path, (options or ReadOptions()).input_limit)


def read_stdin_bytes(options: ReadOptions | None = None, fd: int = 0) -> Data:
    """The raw bytes of stdin, at most ``options.input_limit`` of them."""
    return read_stdin((options or ReadOptions()).input_limit, fd)


def read_path(
    path: str | Path, options: ReadOptions | None = None, *, overlap: Callable[[], None] | None = None
) -> Profile:
    return read_bytes(read_file_bytes(path, options), options, location=str(path), overlap=overlap)


def read_pair_bytes(data: Data, options: ReadOptions | None = None, *, location: str = "") -> tuple[Profile, Profile]:
    """Both sides of a diff flame graph (baseline, comparison)."""
    from explainer.readers.flamegraph import read_flamegraph_pair

    options = options or ReadOptions()
    limits.check_input_size(data, options.input_limit)
    raw = limits.gunzip(data, options.max_decompressed) if limits.is_gzip(data) else data
    fmt = sniff(raw)
    if fmt != "json":  # one side only: a pprof or folded file cannot hold a baseline and a new profile
        raise FormatError(
            f"{location or 'the input'} is one {fmt} profile, not a diff",
            hint="give two profiles to compare, BASE and NEW, or one Pyroscope diff flame graph in JSON",
        )
    return read_flamegraph_pair(loads(raw, what="flame-graph JSON"), unit=options.unit, location=location)


__all__ = [
    "ReadOptions",
    "Source",
    "prepare_read",
    "read_bytes",
    "read_file_bytes",
    "read_pair_bytes",
    "read_path",
    "read_stdin_bytes",
    "sniff",
]
