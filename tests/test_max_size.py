"""``--max-size`` is one option for both size caps (issue 27): raised past its default it lifts the
raw-input cap too, so a profile over 256 MiB gzipped reads; the refusal names that option."""

from __future__ import annotations

import argparse
import gzip
import random
from pathlib import Path

import pytest

from explainer.cli.sources import read_options
from explainer.errors import SizeLimitError
from explainer.readers import ReadOptions, limits, read_path

MiB = 2**20


def test_the_defaults_are_unchanged_and_a_lower_max_size_lowers_both() -> None:
    default = ReadOptions.sized(limits.DEFAULT_MAX_DECOMPRESSED)
    assert default == ReadOptions()
    assert default.input_limit == limits.DEFAULT_MAX_INPUT == 256 * MiB
    assert ReadOptions.sized(1000).input_limit == 1000


def test_a_raised_max_size_raises_the_raw_input_cap_with_it() -> None:
    args = argparse.Namespace(sample_type="alloc_space", unit=None, max_size=2048 * MiB)
    big = read_options(args)  # what every command that reads a SOURCE uses
    assert big.input_limit == big.max_decompressed == 2048 * MiB and big.sample_type == "alloc_space"


def _incompressible_folded(path: Path, lines: int) -> int:
    rng = random.Random(7)
    text = "".join(
        f"main;f{rng.getrandbits(64):x};g{rng.getrandbits(64):x} {rng.randint(1, 99)}\n" for _ in range(lines)
    )
    path.write_bytes(gzip.compress(text.encode(), mtime=0))
    return path.stat().st_size


def test_a_file_over_the_raw_cap_reads_once_max_size_is_raised(tmp_path, monkeypatch) -> None:
    # the caps scaled down (raw 4 KB, decompressed 8 KB) so the file stands in for one over 256 MiB
    monkeypatch.setattr(limits, "DEFAULT_MAX_INPUT", 4000)
    monkeypatch.setattr(limits, "DEFAULT_MAX_DECOMPRESSED", 8000)
    path = tmp_path / "big.folded.gz"
    size = _incompressible_folded(path, 400)
    assert size > 8000
    with pytest.raises(SizeLimitError) as refused:
        read_path(path, ReadOptions.sized(8000))
    assert "--max-size" in str(refused.value)
    profile = read_path(path, ReadOptions.sized(10 * size))
    assert profile.stack_count == 400
