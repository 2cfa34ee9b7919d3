"""Writing out: reports to files (atomically, never over an input), and profiles as folded
stacks or pprof protobuf.

The profile writers are used for round-trip tests, for building the demo fixture, and by the
test servers; one location per function, no line numbers (the model keeps none).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
from collections.abc import Iterable
from pathlib import Path

from explainer.errors import OutputError
from explainer.model import Profile
from explainer.readers.pprof_schema import MESSAGES


def to_folded(profile: Profile) -> str:
    """``a;b;c value`` per stack, root first, in the profile's stack order."""
    lines = [";".join(stack) + f" {value}" for stack, value in profile.stacks()]
    return "\n".join(lines) + ("\n" if lines else "")


def to_pprof_message(profile: Profile) -> object:
    msg = MESSAGES["Profile"]()
    strings: dict[str, int] = {}

    def s(text: str) -> int:
        idx = strings.get(text)
        if idx is None:
            idx = strings[text] = len(strings)
            msg.string_table.append(text.encode("utf-8", errors="surrogateescape"))
        return idx

    s("")
    msg.sample_type.add(type=s(profile.sample_type.type), unit=s(profile.sample_type.unit))
    msg.default_sample_type = s(profile.sample_type.type)
    for i, name in enumerate(profile.names, start=1):
        msg.function.add(id=i, name=s(name))
        msg.location.add(id=i).line.add(function_id=i)
    if profile.period_type is not None:
        msg.period_type.type = s(profile.period_type.type)
        msg.period_type.unit = s(profile.period_type.unit)
    msg.period = profile.period
    msg.time_nanos = profile.time_ns
    msg.duration_nanos = profile.duration_ns
    for i in range(profile.stack_count):
        lo, hi = int(profile.offsets[i]), int(profile.offsets[i + 1])
        sample = msg.sample.add()
        sample.location_id.extend(int(f) + 1 for f in profile.frames[lo:hi][::-1])  # leaf first
        sample.value.append(int(profile.values[i]))
    return msg


def to_pprof(profile: Profile) -> bytes:
    """Gzipped pprof bytes, deterministic (gzip mtime 0)."""
    data = to_pprof_message(profile).SerializeToString(deterministic=True)  # type: ignore[attr-defined]
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as z:
        z.write(data)
    return buf.getvalue()


MAX_JSON_NODES = 2_000_000
"""A flame graph in JSON holds every node of the call tree: past this, pprof is the format to keep."""


def to_flamebearer(profile: Profile) -> dict[str, object]:
    """The whole call tree as Pyroscope's flame-graph JSON (``flamebearer``, single form), which the
    flame-graph reader reads back to the same stacks and totals. Each level is a row of
    ``[x_delta, total, self, name]``, ``x`` delta-encoded against the end of the previous node in
    the row; children sit left to right in name order under their parent's span."""
    from explainer.analysis.tree import build_tree  # only this export needs the call tree

    tree = build_tree(profile, max_nodes=0)
    if tree.size > MAX_JSON_NODES:
        raise OutputError(
            f"the call tree has {tree.size:,} nodes, more than a JSON flame graph holds here ({MAX_JSON_NODES:,})",
            hint="write it as pprof=FILE instead",
        )
    names: list[str] = []
    index: dict[str, int] = {}
    levels: list[list[int]] = []
    row_end: list[int] = []
    pending = [(0, 0)]  # (node, x): depth first, so every row fills left to right
    while pending:
        node, x = pending.pop()
        depth = int(tree.depth[node])
        if depth == len(levels):
            levels.append([])
            row_end.append(0)
        name = tree.name(node)
        if name not in index:
            index[name] = len(names)
            names.append(name)
        total = int(tree.total[node])
        levels[depth] += [x - row_end[depth], total, int(tree.self[node]), index[name]]
        row_end[depth] = x + total
        child_x, children = x, []
        for child in tree.children(node):
            children.append((child, child_x))
            child_x += int(tree.total[child])
        pending.extend(reversed(children))
    return {
        "version": 1,
        "flamebearer": {
            "names": names,
            "levels": levels,
            "numTicks": int(tree.total[0]),
            "maxSelf": int(tree.self.max()) if tree.size else 0,
        },
        "metadata": {"format": "single", "name": profile.sample_type.type, "units": profile.sample_type.unit},
    }


def check_not_an_input(output: str | Path, inputs: Iterable[str | Path | None]) -> None:
    """Refuse an output that is one of the command's inputs: same resolved path, or the same file
    (device and inode: a hard link, a symlink, ``./x`` and ``x``). ``-`` and None are skipped."""
    target = Path(output)
    try:
        target_info: os.stat_result | None = target.stat()
    except OSError:
        target_info = None  # not there yet: only a path can match
    for given in inputs:
        if given is None or str(given) in ("", "-"):
            continue
        same = Path(given).resolve() == target.resolve()
        if not same and target_info is not None:
            with contextlib.suppress(OSError):
                info = Path(given).stat()
                same = (info.st_dev, info.st_ino) == (target_info.st_dev, target_info.st_ino)
        if same:
            raise OutputError(
                f"the output {output} is also an input of this command ({given}); it was left as it was",
                hint="write the output to another file",
            )


def write_atomic(path: str | Path, text: str | bytes) -> None:
    """Replace the regular file ``path`` (or create it) with ``text``, atomically.

    Only a regular file is ever replaced: a symlink, device, FIFO, socket or directory at the path
    is refused, decided on a descriptor opened with ``O_NOFOLLOW | O_NONBLOCK`` (so neither a link
    nor a FIFO is followed or waited on) and checked again, by device and inode, just before the
    rename. A new file gets ``0o666`` less the umask; an existing one keeps its mode. The data is
    written to an anonymous ``O_TMPFILE`` where the system has it, so even a SIGKILL while writing
    leaves nothing behind; it gets a name only for the instant of the rename, with SIGINT, SIGTERM
    and SIGHUP held off, and a ``finally`` removes it on every other exit.
    """
    from explainer.safe_write import replace_regular_file

    replace_regular_file(Path(path), text if isinstance(text, bytes) else text.encode("utf-8"))
