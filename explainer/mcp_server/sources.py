"""Which profiles an assistant may open, and a small cache of the files it opened.

The assistant names a source; the operator decides what that may reach. A path must resolve
(symlinks followed) to a file under one of the configured roots; ``demo`` is the bundled demo;
``pyroscope`` queries the :class:`ServerSource` the operator configured (URL, auth and tenant
are never arguments; an assistant may choose only the query). Parsed files are kept, keyed by
path, size and modification time, so a conversation's ten calls on one profile parse it once.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from explainer.errors import QueryError, SourceNotFoundError
from explainer.model import Profile
from explainer.pyroscope.source import ServerSource
from explainer.readers import ReadOptions, read_bytes
from explainer.readers.confined import opened_under
from explainer.readers.limits import DEFAULT_MAX_DECOMPRESSED
from explainer.symbols import clean

DEMO, PYROSCOPE = "demo", "pyroscope"
MAX_PATH_CHARS = 4_096
CACHED_PROFILES = 4  # parsed profiles kept (each can be hundreds of MB for a huge file)


@dataclass(frozen=True, slots=True)
class ServerQuery:
    """What an assistant may choose about a Pyroscope query (never the server, auth or tenant);
    ``None`` keeps the operator's default (``explainer mcp --from/--until/--selector``)."""

    profile_type: str | None = None
    selector: str | None = None
    start: str | None = None
    end: str | None = None


@dataclass
class Access:
    """The operator's limits: the roots files must be under, and the Pyroscope connection (or None)."""

    roots: tuple[Path, ...]
    server: ServerSource | None = None
    max_size: int = DEFAULT_MAX_DECOMPRESSED
    _cache: OrderedDict[tuple[str, int, int, str | None], Profile] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def under(
        cls, roots: list[str], server: ServerSource | None = None, max_size: int = DEFAULT_MAX_DECOMPRESSED
    ) -> Access:
        resolved = []
        for root in roots:
            path = Path(root).resolve()
            if not path.is_dir():
                raise SourceNotFoundError(f"--root {clean(str(root), 200)} is not a directory")
            resolved.append(path)
        return cls(tuple(resolved), server, max_size)

    def describe_roots(self) -> str:
        return ", ".join(str(r) for r in self.roots)

    def resolve(self, text: str) -> Path:
        """The real file ``text`` names, if it is under a root; relative paths are read against each root."""
        if not text or len(text) > MAX_PATH_CHARS or "\0" in text:
            raise QueryError("a source is a file path under the allowed roots, 'demo' or 'pyroscope'")
        given = Path(text)
        candidates = [given] if given.is_absolute() else [root / given for root in self.roots]
        for candidate in candidates:
            try:
                real = candidate.resolve()
            except OSError as exc:  # a link changed while it was resolved
                raise SourceNotFoundError(f"{clean(text, 200)}: cannot be resolved ({exc.strerror})") from exc
            if not any(real.is_relative_to(root) for root in self.roots):
                raise QueryError(
                    f"{clean(text, 200)} is outside the allowed roots ({self.describe_roots()}); "
                    "the operator sets them with explainer mcp --root DIR"
                )
            if real.is_file():
                return real
        raise SourceNotFoundError(f"{clean(text, 200)}: no such file under {self.describe_roots()}")

    def load(self, source: str, sample_type: str | None = None, query: ServerQuery | None = None) -> Profile:
        if source == DEMO:
            from explainer.demo import demo_profile

            return demo_profile()
        if source == PYROSCOPE:
            return self._query(query or ServerQuery(), sample_type)
        options = ReadOptions.sized(self.max_size, sample_type=sample_type)
        # read from the one descriptor proven under a root: a name checked, then opened again, can be raced
        with opened_under(self.resolve(source), self.roots) as file:
            key = (str(file.real), file.info.st_size, file.info.st_mtime_ns, sample_type)
            with self._lock:
                if key in self._cache:
                    self._cache.move_to_end(key)
                    return self._cache[key]
            profile = read_bytes(file.read(options.input_limit), options, location=str(file.real))
        with self._lock:
            self._cache[key] = profile
            while len(self._cache) > CACHED_PROFILES:
                self._cache.popitem(last=False)
        return profile

    def _query(self, query: ServerQuery, sample_type: str | None) -> Profile:
        if self.server is None:
            raise QueryError("no Pyroscope server is configured (the operator starts explainer mcp with --server URL)")
        source = self.server.query(query.profile_type, query.selector, query.start, query.end)
        # the node budget and the answer's size are the operator's (--max-size), never the assistant's
        cap = None if self.max_size == DEFAULT_MAX_DECOMPRESSED else self.max_size
        return dataclasses.replace(source, max_response=cap).open()
