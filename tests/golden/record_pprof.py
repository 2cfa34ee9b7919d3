#!/usr/bin/env python3
"""Record Google pprof's answers for the real profile corpus, once, so tests never need Go.

usage: python tests/golden/record_pprof.py [--real DIR]

DIR defaults to $EXPLAINER_REAL_PROFILES, else ../shared/profiles/real relative to the repo root.
For every pprof protobuf in DIR (gzip or raw, sniffed from the bytes; flamebearer JSON and folded
text are skipped) and for every sample type in it, this runs

    go tool pprof -symbolize=none -top [-cum] -sample_index=I -unit=U \
        -nodefraction=0 -edgefraction=0 -nodecount=1000000 FILE

and writes tests/golden/pprof/<folder>/<file>.<type>.json (schema: see NOTES.md beside this file).

Exact integers: pprof formats values as "%.2f" of a float64 scaled from the sample unit to the
-unit unit, then trims ".00". With -unit equal to the sample's own unit the scale factor cancels,
so a value prints as its exact integer (e.g. "1280000000ns", "818615B", "7742000us" for
microseconds) as long as it stays below 2**53. Units pprof does not know ("count", "samples")
are never scaled. The recorder checks this three ways: every printed value must be an integer,
the printed grand total must equal the sum of |value| computed here from the raw protobuf, and
every row must equal the same row of `-topproto` (pprof's int64 output of the same table).

What pprof (go1.19's vendored copy; upstream's text reports behave the same) does with names;
the analyzer must match this. Details and examples in NOTES.md:
  * Granularity is "functions": a node is keyed by Function.name only. Function.filename,
    start_line, system_name, line numbers and addresses are dropped, so two Function messages
    with the same name in different files are ONE row (cpu-js.pb.gz: "(anonymous)" from 3+ files).
  * A frame with no function (a Location without Line, i.e. unsymbolized) is named by its
    mapping: "[" + basename(mapping.filename) + "]", e.g. "[cppbench_server_main]",
    "[libc-2.15.so]", "[[vdso]]". All unsymbolized frames of one mapping file collapse into one
    row (the address is dropped). No mapping, or a mapping with an empty filename -> "<unknown>".
  * An inlined frame (a Location with several Lines) is one node per Line; -top appends
    " (inline)" (every caller edge inlined) or " (partial-inline)". We store the bare name and
    put that label in an optional "inline" key.
  * cum counts a node once per sample even if it recurs in the stack; flat goes to Line[0] of
    the sample's first (leaf) Location.

Safe file names for sample types: the type name with every character outside [A-Za-z0-9._-]
replaced by "_"; an empty name becomes "index<I>" (cpu-big.pprof's "/samples" type ->
"cpu-big.pprof.index0.json"); if two types of one profile map to the same safe name, every such
name gets ".index<I>" appended.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
OUT_DIR = Path(__file__).resolve().parent / "pprof"
TOP_N = 10
NODECOUNT = 1_000_000  # far above any profile here: nothing is dropped
FLOAT_EXACT_LIMIT = 2**53  # pprof goes through float64; above this integers may round

# ---------------------------------------------------------------------------------------------
# Minimal protobuf wire reading: enough to sniff a Profile and read its sample types and
# sample values. Our own few lines, so the recorder needs neither protoc nor pprof's schema.
# ---------------------------------------------------------------------------------------------

# perftools.profiles.Profile fields: number -> allowed wire types (0 varint, 2 length-delimited).
# 1-6 and 11 are messages or strings, the rest int64; 13 (comment) may be packed.
PROFILE_WIRE_TYPES = {n: {2} for n in (1, 2, 3, 4, 5, 6, 11)} | {n: {0} for n in (7, 8, 9, 10, 12, 14)} | {13: {0, 2}}


def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, pos
        if shift > 70:
            raise ValueError("varint too long")


def iter_fields(buf: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """Yield (field number, wire type, value) for one message; raise ValueError if malformed."""
    pos = 0
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, pos = read_varint(buf, pos)
        elif wire == 2:
            size, pos = read_varint(buf, pos)
            if pos + size > len(buf):
                raise ValueError("truncated field")
            value, pos = buf[pos : pos + size], pos + size
        elif wire == 1:
            value, pos = buf[pos : pos + 8], pos + 8
        elif wire == 5:
            value, pos = buf[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        if number == 0 or pos > len(buf):
            raise ValueError("bad field")
        yield number, wire, value


def ints(wire: int, value: int | bytes) -> list[int]:
    """A repeated int field, packed (wire 2) or not (wire 0)."""
    if isinstance(value, int):
        return [value]
    out, pos = [], 0
    while pos < len(value):
        item, pos = read_varint(value, pos)
        out.append(item)
    return out


def as_int64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


@dataclass
class ProfileHeader:
    sample_types: list[tuple[str, str]]  # (type, unit) as pprof shows them
    default_index: int
    abs_totals: list[int]  # per sample type: sum of |value|, as pprof's total


def unzip_if_gzip(data: bytes) -> bytes | None:
    if data[:2] != b"\x1f\x8b":
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError):
        return None


def looks_like_profile(raw: bytes) -> bool:
    """True if raw parses as a Profile message at the wire level with at least one sample type.

    JSON ('{' = field 15, wire 3) and text (e.g. 'a' = field 12, wire 1) fail on the first byte.
    """
    has_type = False
    try:
        for number, wire, _ in iter_fields(raw):
            if wire not in PROFILE_WIRE_TYPES.get(number, set()):
                return False
            has_type = has_type or number == 1
    except ValueError:
        return False
    return has_type


def read_header(raw: bytes) -> ProfileHeader:
    strings: list[bytes] = []
    types: list[tuple[int, int]] = []
    samples: list[list[int]] = []
    default_type = 0
    for number, _wire, value in iter_fields(raw):
        if number == 6 and isinstance(value, bytes):
            strings.append(value)
        elif number == 1 and isinstance(value, bytes):
            fields = {n: v for n, _, v in iter_fields(value)}
            types.append((int(fields.get(1, 0)), int(fields.get(2, 0))))
        elif number == 2 and isinstance(value, bytes):
            values: list[int] = []
            for n, w, v in iter_fields(value):
                if n == 2:
                    values += [as_int64(x) for x in ints(w, v)]
            samples.append(values)
        elif number == 14 and isinstance(value, int):
            default_type = value

    def text(index: int) -> str:
        return decode_name(strings[index]) if 0 <= index < len(strings) else ""

    sample_types = [(text(t), text(u)) for t, u in types]
    # pprof's rule: the first type named by default_sample_type, else the last type.
    wanted = text(default_type) if default_type else ""
    names = [name for name, _ in sample_types]
    default_index = names.index(wanted) if wanted and wanted in names else len(sample_types) - 1
    abs_totals = [sum(abs(s[i]) for s in samples if i < len(s)) for i in range(len(sample_types))]
    return ProfileHeader(sample_types, default_index, abs_totals)


def decode_name(raw: bytes) -> str:
    # Go keeps names as raw bytes; we store them as UTF-8 with U+FFFD for invalid bytes
    # (invalid_utf8.pb.gz) and keep the exact bytes in "name_hex" for those rows.
    return raw.decode("utf-8", errors="replace")


# ---------------------------------------------------------------------------------------------
# Running pprof and reading its -top table.
# ---------------------------------------------------------------------------------------------

# One -top row: flat, flat%, sum%, cum, cum%, two spaces, name [ (inline)|(partial-inline)].
ROW_RE = re.compile(rb"^ *(\S+) +(\S+%) +(\S+%) +(\S+) +(\S+%)  (.*)\Z", re.DOTALL)
COLUMNS_RE = re.compile(rb"^ +flat +flat% +sum% +cum +cum%\Z")
SHOWING_RE = re.compile(rb"^Showing nodes accounting for (\S+), \S+ of (\S+) total\Z")
TOP_OF_RE = re.compile(rb"^Showing top (\d+) nodes out of (\d+)\Z")
VALUE_RE = re.compile(rb"^(-?\d+)(?:\.\d+)?(\D*)\Z")
INLINE_SUFFIXES = ((b" (partial-inline)", "partial-inline"), (b" (inline)", "inline"))


class PprofError(Exception):
    pass


@dataclass
class Row:
    name: bytes
    flat: int
    cum: int
    inline: str | None


@dataclass
class TopTable:
    total: int
    accounted: int
    nodes: int
    rows: list[Row]


def pprof_unit(unit: str) -> str:
    # Same unit in and out -> no scaling. An empty unit (or one with spaces, which would break
    # column splitting) is unknown to pprof anyway; "count" then prints the bare number.
    return unit if unit and not re.search(r"\s", unit) else "count"


def run_pprof(real: Path, rel: str, index: int, unit: str, cum: bool, fmt: str) -> bytes:
    cmd = [
        "go",
        "tool",
        "pprof",
        "-symbolize=none",
        f"-{fmt}",
        f"-sample_index={index}",
        f"-unit={pprof_unit(unit)}",
        "-nodefraction=0",
        "-edgefraction=0",
        f"-nodecount={NODECOUNT}",
    ]
    if cum:
        cmd.append("-cum")
    # cwd=real and a relative path: pprof's error messages then do not depend on where DIR is.
    proc = subprocess.run([*cmd, rel], cwd=real, capture_output=True, check=False)
    if proc.returncode != 0 or not proc.stdout:
        raise PprofError(proc.stderr.decode("utf-8", errors="replace").strip())
    return proc.stdout


def parse_value(token: bytes) -> int:
    match = VALUE_RE.match(token)
    if not match or b"." in token:
        raise ValueError(f"pprof printed a non-integer value {token!r}: scaling is not exact")
    value = int(match.group(1))
    if abs(value) >= FLOAT_EXACT_LIMIT:
        raise ValueError(f"value {value} is beyond float64's exact integers")
    return value


def parse_top(out: bytes) -> TopTable:
    lines = out.split(b"\n")  # not splitlines(): names may hold \r, \x0b, \x1c... (invalid_utf8)
    if lines and lines[-1] == b"":
        lines.pop()
    total = accounted = -1
    nodes_out_of: int | None = None
    start = None
    for i, line in enumerate(lines):
        if m := SHOWING_RE.match(line):
            accounted, total = parse_value(m.group(1)), parse_value(m.group(2))
        elif m := TOP_OF_RE.match(line):
            nodes_out_of = int(m.group(2))
        elif COLUMNS_RE.match(line):
            start = i + 1
            break
    if start is None or total < 0:
        raise ValueError("no -top table in pprof's output")
    rows: list[Row] = []
    for line in lines[start:]:
        m = ROW_RE.match(line)
        if m is None:
            # A name holding "\n" continues on the next line (invalid_utf8.pb.gz does this).
            if not rows:
                raise ValueError(f"unexpected line {line!r}")
            rows[-1].name += b"\n" + line
            continue
        rows.append(Row(m.group(6), parse_value(m.group(1)), parse_value(m.group(4)), None))
    for row in rows:
        for suffix, label in INLINE_SUFFIXES:
            if row.name.endswith(suffix):
                row.name, row.inline = row.name[: -len(suffix)], label
                break
    return TopTable(total, accounted, nodes_out_of if nodes_out_of is not None else len(rows), rows)


def parse_topproto(out: bytes) -> list[tuple[bytes, int, int]]:
    """(function name or b"", flat, cum) per row of pprof's -topproto output, in table order."""
    raw = gzip.decompress(out)
    strings: list[bytes] = []
    func_names: dict[int, int] = {}
    loc_funcs: dict[int, int] = {}
    samples: list[tuple[int, list[int]]] = []
    for number, _, value in iter_fields(raw):
        if not isinstance(value, bytes):
            continue
        if number == 6:
            strings.append(value)
        elif number == 5:
            f = {n: v for n, _, v in iter_fields(value)}
            func_names[int(f.get(1, 0))] = int(f.get(2, 0))
        elif number == 4:
            loc_id, func_id = 0, 0
            for n, _, v in iter_fields(value):
                if n == 1:
                    loc_id = int(v) if isinstance(v, int) else 0
                elif n == 4 and isinstance(v, bytes):
                    func_id = int({k: x for k, _, x in iter_fields(v)}.get(1, 0))
            loc_funcs[loc_id] = func_id
        elif number == 2:
            loc, vals = 0, []
            for n, w, v in iter_fields(value):
                if n == 1:
                    loc = ints(w, v)[0]
                elif n == 2:
                    vals += [as_int64(x) for x in ints(w, v)]
            samples.append((loc, vals))
    rows = []
    for loc, (cum, flat) in samples:  # sample types are [cum, flat]
        name_index = func_names.get(loc_funcs.get(loc, 0), 0)
        rows.append((strings[name_index] if name_index < len(strings) else b"", flat, cum))
    return rows


def check_against_topproto(table: TopTable, proto_rows: list[tuple[bytes, int, int]], where: str) -> None:
    if len(proto_rows) != len(table.rows):
        raise ValueError(f"{where}: -top has {len(table.rows)} rows, -topproto {len(proto_rows)}")
    for row, (name, flat, cum) in zip(table.rows, proto_rows, strict=True):
        # -topproto keeps only Function.name, so unsymbolized rows ("[lib]", "<unknown>") have b"".
        if (name and name != row.name) or (row.flat, row.cum) != (flat, cum):
            raise ValueError(f"{where}: -top row {row} != -topproto ({name!r}, {flat}, {cum})")


def check_default(real: Path, rel: str, header: ProfileHeader) -> None:
    """Our reading of pprof's default-type rule must agree with pprof's own pick ("Type:" line)."""
    proc = subprocess.run(
        ["go", "tool", "pprof", "-symbolize=none", "-top", "-nodecount=1", rel],
        cwd=real,
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        return  # rejected profile: recorded as an error per sample type
    shown = [line[len(b"Type: ") :] for line in proc.stdout.split(b"\n") if line.startswith(b"Type: ")]
    expected = header.sample_types[header.default_index][0]
    if shown != ([expected.encode()] if expected else []):
        raise ValueError(f"{rel}: pprof's default type {shown} != ours {expected!r}")


def top_table(real: Path, rel: str, index: int, unit: str, cum: bool) -> TopTable:
    table = parse_top(run_pprof(real, rel, index, unit, cum, "top"))
    proto = parse_topproto(run_pprof(real, rel, index, unit, cum, "topproto"))
    check_against_topproto(table, proto, f"{rel} index {index}{' -cum' if cum else ''}")
    return table


# ---------------------------------------------------------------------------------------------
# Golden files.
# ---------------------------------------------------------------------------------------------


def row_json(row: Row) -> dict[str, Any]:
    item: dict[str, Any] = {"name": decode_name(row.name), "self": row.flat, "total": row.cum}
    if row.inline:
        item["inline"] = row.inline
    if row.name.decode("utf-8", errors="replace").encode("utf-8") != row.name:
        item["name_hex"] = row.name.hex()
    return item


def safe_type_names(types: list[tuple[str, str]]) -> list[str]:
    names = [re.sub(r"[^A-Za-z0-9._-]", "_", t) or f"index{i}" for i, (t, _) in enumerate(types)]
    counts = Counter(names)
    return [f"{n}.index{i}" if counts[n] > 1 else n for i, n in enumerate(names)]


def golden_for(real: Path, rel: str, header: ProfileHeader, index: int, go_version: str) -> dict[str, Any]:
    type_name, unit = header.sample_types[index]
    doc: dict[str, Any] = {
        "file": rel,
        "sample_index": index,
        "sample_type": type_name,
        "unit": unit,
        "default": index == header.default_index,
        "pprof": f"go tool pprof ({go_version})",
    }
    try:
        flat = top_table(real, rel, index, unit, cum=False)
        cum = top_table(real, rel, index, unit, cum=True)
    except PprofError as exc:
        message = str(exc)
        first = message.splitlines()[0] if message else "pprof failed"
        doc["error"] = first.removeprefix(f"{rel}: ")  # e.g. "malformed profile: found function ..."
        doc["pprof_stderr"] = message
        return doc
    if flat.total != header.abs_totals[index]:
        raise ValueError(f"{rel}[{index}]: pprof total {flat.total} != exact sum {header.abs_totals[index]}")
    if (flat.total, flat.nodes) != (cum.total, cum.nodes):
        raise ValueError(f"{rel}[{index}]: flat and cum runs disagree")
    doc.update(
        total=flat.total,
        accounted=flat.accounted,
        functions=flat.nodes,
        top_self=[row_json(r) for r in flat.rows[:TOP_N]],
        top_total=[row_json(r) for r in cum.rows[:TOP_N]],
    )
    return doc


def find_profiles(real: Path) -> Iterator[tuple[str, bytes]]:
    for path in sorted(p for p in real.rglob("*") if p.is_file()):
        raw = unzip_if_gzip(path.read_bytes())
        if raw is not None and looks_like_profile(raw):
            yield path.relative_to(real).as_posix(), raw


def default_real_dir() -> Path:
    env = os.environ.get("EXPLAINER_REAL_PROFILES")
    return Path(env) if env else REPO_ROOT.parent / "shared" / "profiles" / "real"


def go_version() -> str:
    out = subprocess.run(["go", "version"], capture_output=True, text=True, check=True).stdout
    return out.split()[2] if len(out.split()) > 2 else out.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, default=None, help="real profile corpus (default: %(default)s)")
    args = parser.parse_args(argv)
    real = (args.real or default_real_dir()).resolve()
    if not real.is_dir():
        print(f"record_pprof: no profile folder at {real} (use --real or $EXPLAINER_REAL_PROFILES)", file=sys.stderr)
        return 2
    if shutil.which("go") is None:
        print("record_pprof: `go` not found (apt-get install golang-go)", file=sys.stderr)
        return 2
    version = go_version()
    written = 0
    for rel, raw in find_profiles(real):
        header = read_header(raw)
        check_default(real, rel, header)
        folder = OUT_DIR / Path(rel).parent
        folder.mkdir(parents=True, exist_ok=True)
        for index, safe in enumerate(safe_type_names(header.sample_types)):
            doc = golden_for(real, rel, header, index, version)
            target = folder / f"{Path(rel).name}.{safe}.json"
            target.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            written += 1
            status = doc.get("error") or f"total={doc['total']} functions={doc['functions']}"
            print(f"{target.relative_to(REPO_ROOT)}: {status}")
    print(f"record_pprof: wrote {written} files under {OUT_DIR.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
