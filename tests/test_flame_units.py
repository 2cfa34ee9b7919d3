"""The flame graph's browser formatter prints every value exactly as explainer.units does.

The hover text is built in the browser from raw numbers and :func:`units.display_rule`; this
runs the component's own ``formatValue``/``formatShare`` under Node over a table of values and
units and compares with Python's ``format_value``/``format_share``.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from explainer import units

SCRIPT = Path(__file__).resolve().parent.parent / "explainer" / "ui" / "flame" / "flame.js"
VALUES = [0, 1, 7, 999, 1000, 1001, 54_999, 55_100_000_000, 74_700_000_000, 10**12, 3 * 10**15, 1_500_000, 59_999,
          1_250_000, 1_050_000_000, 2_350_000, 1_450, 9_950_000_000]  # fmt: skip
VALUES += [random.Random(k).randrange(10 ** (k % 15 + 1)) for k in range(300)]  # every magnitude below 2^53
UNITS = ["bytes", "nanoseconds", "microseconds", "milliseconds", "seconds", "count", "samples", "", "objects"]


def _function(source: str, name: str) -> str:
    match = re.search(rf"^function {name}\(.*?^}}", source, re.S | re.M)
    assert match, name
    return match.group(0)


def test_browser_formatting_matches_units() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    source = SCRIPT.read_text()
    cases = [[v, u, units.display_rule(u)] for v in VALUES for u in UNITS]
    shares = [[1, 10**6], [55_100, 74_700], [1, 3], [7, 7], [1, 2001], [1, 8], [3, 8], [1, 1600], [0, 0]]
    functions = "\n".join(_function(source, f) for f in ("fixed1", "formatValue", "formatShare"))
    program = (
        f"{functions}\nconst cases = {json.dumps(cases)}, shares = {json.dumps(shares)};\n"
        "console.log(JSON.stringify([cases.map(([v, u, r]) => formatValue(v, r)),"
        " shares.map(([p, w]) => formatShare(p, w))]));"
    )
    run = subprocess.run([node, "-"], input=program, capture_output=True, text=True, timeout=30, check=True)
    out = run.stdout
    values, share_texts = json.loads(out)
    assert values == [units.format_value(v, u) for v, u, _ in cases]
    assert share_texts == [units.format_share(p, w) for p, w in shares]
