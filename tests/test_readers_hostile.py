"""The hostile-input table of docs/reliability.md: every case ends in a typed error naming the
field (or a documented result), quickly, with bounded memory, and the CLI says one line."""

from __future__ import annotations

import gzip
import io
import json
import random
import resource
import sys
import time
import zlib
from pathlib import Path

import pytest

from conftest import profile_of
from explainer.cli.main import main
from explainer.errors import ProfileError, SizeLimitError, ValidationError
from explainer.model import ELIDED_PREFIX, ProfileBuilder, SampleType
from explainer.readers import ReadOptions, read_bytes
from explainer.readers.pprof_schema import MESSAGES
from explainer.writers import to_folded, to_pprof

SMALL = profile_of({"main;a;b": 5, "main;a;c": 3, "main;d": 2}, unit="bytes", sample_type="alloc_space")


def _pprof_message():  # type: ignore[no-untyped-def]
    msg = MESSAGES["Profile"]()
    msg.ParseFromString(gzip.decompress(to_pprof(SMALL)))
    return msg


def _raw(msg) -> bytes:  # type: ignore[no-untyped-def]
    return msg.SerializeToString()


def _flamegraph() -> dict:  # type: ignore[type-arg]
    return {
        "names": ["total", "a", "c", "d", "b", "e"],
        "levels": [[0, 4, 0, 0], [0, 4, 0, 1], [0, 1, 0, 4, 0, 3, 2, 2], [0, 1, 1, 5, 2, 1, 1, 3]],
        "numTicks": 4,
        "maxSelf": 2,
    }


def test_the_worked_flamebearer_example_decodes() -> None:
    p = read_bytes(
        json.dumps({"flamebearer": _flamegraph(), "metadata": {"format": "single", "units": "bytes"}}).encode()
    )
    assert sorted(p.stacks()) == [(("a", "b", "e"), 1), (("a", "c"), 2), (("a", "c", "d"), 1)]
    assert p.unit == "bytes"


def test_levels_of_digit_strings_decode_as_the_same_integers() -> None:
    """Plain integer rows are checked a row at a time; a row holding strings takes the value-by-value path,
    and both give the same profile."""
    as_strings = _flamegraph()
    as_strings["levels"] = [[str(v) for v in level] for level in as_strings["levels"]]
    plain, strings = (read_bytes(json.dumps({"flamebearer": fg}).encode()) for fg in (_flamegraph(), as_strings))
    assert sorted(plain.stacks()) == sorted(strings.stacks())


@pytest.mark.parametrize(
    "data", [b"", b"   \n", b"\x00" * 10, b"garbage!!", b"\xff\xfe\x00", b"{}", b"[]", b'{"flamebearer": 3}']
)
def test_empty_and_garbage_end_in_a_profile_error(data: bytes) -> None:
    with pytest.raises(ProfileError):
        read_bytes(data)


@pytest.mark.parametrize("kind", ["pprof-gz", "pprof-raw", "json", "folded"])
def test_every_prefix_and_bit_flip_ends_in_a_typed_error_or_a_profile(kind: str) -> None:
    if kind == "pprof-gz":
        valid = to_pprof(SMALL)
    elif kind == "pprof-raw":
        valid = gzip.decompress(to_pprof(SMALL))
    elif kind == "json":
        valid = json.dumps({"flamebearer": _flamegraph()}).encode()
    else:
        valid = to_folded(SMALL).encode()
    rng = random.Random(7)
    cases = [valid[:i] for i in range(len(valid))]
    for _ in range(300):
        flipped = bytearray(valid)
        pos = rng.randrange(len(flipped))
        flipped[pos] ^= 1 << rng.randrange(8)
        cases.append(bytes(flipped))
    for data in cases:
        try:
            profile = read_bytes(data)
        except ProfileError:
            continue
        assert profile.total >= 0  # a flip can still be a valid profile; it must then be a sane one


def _mutated(mutate) -> bytes:  # type: ignore[no-untyped-def]
    msg = _pprof_message()
    mutate(msg)
    return _raw(msg)


PPROF_MUTATIONS = {
    "sample[0].value": lambda m: m.sample[0].value.append(7),
    "function[0].id": lambda m: setattr(m.function[0], "id", 0),
    "function[1].id": lambda m: setattr(m.function[1], "id", m.function[0].id),
    "location[0].id": lambda m: setattr(m.location[0], "id", 0),
    "location[0].line[0].function_id": lambda m: setattr(m.location[0].line[0], "function_id", 999),
    "function[0].name": lambda m: setattr(m.function[0], "name", 10**6),
    "string_table[0]": lambda m: m.string_table.__setitem__(0, b"x"),
    "sample[1].value": lambda m: m.sample[1].value.__setitem__(0, -5),
    "sample[0].location_id": lambda m: m.sample[0].location_id.append(4242),
    "sample_type": lambda m: m.ClearField("sample_type"),
    "sample_type[0].unit": lambda m: setattr(m.sample_type[0], "unit", 999),
}


@pytest.mark.parametrize("field", sorted(PPROF_MUTATIONS))
def test_structurally_invalid_pprof_names_the_field(field: str) -> None:
    with pytest.raises(ValidationError) as info:
        read_bytes(_mutated(PPROF_MUTATIONS[field]))
    assert info.value.field == field


def _inlining_bomb() -> bytes:
    """140 KB of pprof: one location of 20,000 inlined lines, named ten times by each of 5,000
    samples: a billion frames (2 GB) if the reader expanded them all."""
    msg = _pprof_message()
    loc = msg.location[0]
    function_id = loc.line[0].function_id
    for _ in range(20_000):
        loc.line.add(function_id=function_id)
    template = msg.sample[0]
    del msg.sample[:]
    for _ in range(5_000):
        sample = msg.sample.add()
        sample.CopyFrom(template)
        sample.location_id[:] = [loc.id] * 10
    return _raw(msg)


def test_a_location_of_many_inlined_lines_is_a_size_error_not_a_bomb() -> None:
    from explainer.readers import pprof

    data = _inlining_bomb()
    assert len(data) < 200_000
    before = _peak_kib()
    with pytest.raises(SizeLimitError, match="inlined lines"):
        read_bytes(data)
    saved, pprof._fold = pprof._fold, None  # the numpy path keeps the same bound
    try:
        with pytest.raises(SizeLimitError, match="inlined lines"):
            read_bytes(data)
    finally:
        pprof._fold = saved
    assert _peak_kib() - before < 100 * 1024  # KiB


def _peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


@pytest.mark.slow  # 100 MiB bombs, peak memory and a wall-clock bound
@pytest.mark.parametrize("layers", [1, 2])
def test_gzip_bombs_stop_at_the_limit_quickly(layers: int) -> None:
    data = b"\x00" * (100 * 2**20)
    for _ in range(layers):
        data = gzip.compress(data, compresslevel=9)
    assert len(data) < 200_000
    before = _peak_kib()
    start = time.monotonic()
    with pytest.raises(SizeLimitError):
        read_bytes(data, ReadOptions(max_decompressed=10 * 2**20))
    assert time.monotonic() - start < 1.0
    assert _peak_kib() - before < 200 * 1024  # KiB: memory stays near the 10 MiB cap, not 100 MiB


def test_multi_member_gzip_is_read_whole() -> None:
    raw = gzip.decompress(to_pprof(SMALL))
    half = len(raw) // 2
    data = gzip.compress(raw[:half]) + gzip.compress(raw[half:])
    assert sorted(read_bytes(data).stacks()) == sorted(SMALL.stacks())


def test_truncated_gzip_is_a_decode_error() -> None:
    with pytest.raises(ProfileError, match=r"truncated|decompress"):
        read_bytes(to_pprof(SMALL)[:-10])


DEPTH = 10 * sys.getrecursionlimit()


def _deep_stack() -> list[str]:
    return [f"f{i % 50}" for i in range(DEPTH)]


@pytest.mark.parametrize("fmt", ["folded", "pprof", "json"])
def test_deep_stacks_work_in_every_format(fmt: str) -> None:
    builder = ProfileBuilder(SampleType("samples", "count"), max_depth=10**6)  # no cap while building input
    builder.add(_deep_stack(), 7)
    builder.add(["main", "x"], 3)
    deep = builder.build()
    if fmt == "folded":
        data = to_folded(deep).encode()
    elif fmt == "pprof":
        data = to_pprof(deep)
    else:
        from explainer.readers.flamegraph import encode_flamegraph

        data = json.dumps({"flamegraph": encode_flamegraph(deep)}).encode()
    profile = read_bytes(data)
    assert profile.total == 10  # totals still exact
    assert any(n.startswith(ELIDED_PREFIX) for n in profile.names)  # visible truncation node
    assert profile.truncation.elided_stacks == 1


def test_deeply_nested_json_is_a_decode_error() -> None:
    with pytest.raises(ProfileError, match=r"nested|parse"):
        read_bytes(b"[" * 100_000 + b"]" * 100_000)


def _fg(levels: list[list[int]], names: list[str] | None = None) -> bytes:
    return json.dumps(
        {"flamebearer": {"names": names or ["total", "a", "b"], "levels": levels, "numTicks": 4}}
    ).encode()


FLAMEGRAPH_CASES = {
    "bad tuple length": (_fg([[0, 4, 0, 0], [0, 4, 0]]), "levels[1]"),
    "name index out of range": (_fg([[0, 4, 0, 0], [0, 4, 4, 9]]), "levels[1][0]"),
    "child outside its parent": (_fg([[0, 4, 0, 0], [0, 2, 0, 1], [3, 2, 2, 2]]), "levels[2][0]"),
    "overlapping children exceed parent": (_fg([[0, 4, 0, 0], [0, 3, 3, 1, 0, 3, 3, 2]]), "levels[1][4]"),
    "self larger than total": (_fg([[0, 4, 0, 0], [0, 2, 3, 1]]), "levels[1][0]"),
    "negative value": (_fg([[0, 4, 0, 0], [0, -2, 0, 1]]), "levels[1][0]"),
    "totals do not add up": (_fg([[0, 4, 3, 0], [0, 4, 4, 1]]), "levels[0] node at x=0"),
    "huge integer": (_fg([[0, 2**70, 0, 0]]), "levels[0][0]"),
    "name not a string": (_fg([[0, 4, 0, 0], [0, 4, 4, 1]], ["total", 5, "b"]), "names[1]"),  # type: ignore[list-item]
}


@pytest.mark.parametrize("case", sorted(FLAMEGRAPH_CASES))
def test_invalid_flamegraph_json_names_the_field(case: str) -> None:
    data, field = FLAMEGRAPH_CASES[case]
    with pytest.raises(ValidationError) as info:
        read_bytes(data)
    assert info.value.field == field


@pytest.mark.parametrize(
    "data",
    [b'{"flamebearer": {"names": ["total"], "levels": [[0, NaN, 0, 0]]}}', b'{"flamebearer": {}, "flamebearer": {}}'],
)
def test_nan_and_duplicate_keys_are_rejected(data: bytes) -> None:
    with pytest.raises(ProfileError, match=r"not a number|twice"):
        read_bytes(data)


def test_folded_documented_behaviour() -> None:
    text = "a;b 3\r\n\r\nbad line\na;b c 2\na;zero 0\na;neg -1\na;frac 1.5\nmy func;with space 4\n"
    p = read_bytes(text.encode("utf-16"))
    assert sorted(p.stacks()) == [(("a", "b"), 3), (("a", "b c"), 2), (("my func", "with space"), 4)]
    assert p.truncation.skipped_lines == 3  # bad line, -1, 1.5 (zero counts add nothing)
    with pytest.raises(ValidationError):
        read_bytes(b"a;b 99999999999999999999999\n")


def test_hostile_names_are_kept_raw_and_shown_clean(tmp_path: Path) -> None:
    from explainer.symbols import clean

    evil = "evil\x1b[31m\u202eRTL\u0000" + "x" * 100_000
    p = profile_of({f"main;{evil}": 5})
    assert evil in p.names
    shown = clean(evil)
    assert "\x1b" not in shown and "\u202e" not in shown and "\x00" not in shown and len(shown) <= 200
    path = tmp_path / "evil.pb.gz"
    path.write_bytes(to_pprof(p))
    out, err = io.StringIO(), io.StringIO()
    assert main(["analyze", str(path)], out, err) == 0
    assert "\x1b" not in out.getvalue() and "\u202e" not in out.getvalue()


def test_invalid_utf8_names_are_readable() -> None:
    msg = _pprof_message()
    msg.string_table.append(b"caf\xe9\xff")
    msg.function[0].name = len(msg.string_table) - 1
    p = read_bytes(_raw(msg))
    assert any("\ufffd" in n for n in p.names)


CLI_CASES = {
    "missing file": None,
    "empty": b"",
    "garbage": b"\x08\x96\x01garbage",
    "bomb": gzip.compress(b"\x00" * (20 * 2**20)),
    "bad json": b'{"flamebearer": {"names": ["total"], "levels": [[0, 1, 0, 5]]}}',
    "zlib but not gzip": zlib.compress(b"abc"),
}


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_cli_errors_are_one_line_and_exit_2(case: str, tmp_path: Path) -> None:
    path = tmp_path / "input"
    data = CLI_CASES[case]
    if data is not None:
        path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    code = main(["analyze", str(path), "--max-size", str(10 * 2**20)], out, err)
    assert code == 2
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("explainer: error: ")
    assert "Traceback" not in err.getvalue() and out.getvalue() == ""


@pytest.mark.slow  # wall-clock: the correctness of each case is checked above, in the fast lane
def test_every_cli_error_case_ends_within_seconds(tmp_path: Path) -> None:
    for case, data in sorted(CLI_CASES.items()):
        path = tmp_path / case
        if data is not None:
            path.write_bytes(data)
        start = time.monotonic()
        assert main(["analyze", str(path), "--max-size", str(10 * 2**20)], io.StringIO(), io.StringIO()) == 2
        assert time.monotonic() - start < 5, case
