#!/usr/bin/env python3
"""The floor of reading a pprof file, as its own process: gunzip it and parse it with protobuf's
upb backend, nothing else. Samples stay raw bytes, as explainer's reader parses them (full Sample
messages cost 4x the memory): the lower floor, so the stricter target.

usage: python bench/floor.py FILE [--isal]   (prints the sample count)

--isal inflates with ISA-L, as explainer does where its wheels exist: the floor with the same
inflater, beside the issue's floor (stdlib zlib), so a faster inflater is not read as a faster
analyzer.

The schema module is loaded from its file so the floor pays for protobuf alone, not for numpy or
the rest of explainer's readers.
"""

from __future__ import annotations

import importlib.util
import sys
import zlib
from pathlib import Path

SCHEMA = Path(__file__).resolve().parents[1] / "explainer" / "readers" / "pprof_schema.py"


def main(path: str, isal: bool = False) -> int:
    spec = importlib.util.spec_from_file_location("pprof_schema_floor", SCHEMA)
    assert spec and spec.loader
    schema = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(schema)
    data = Path(path).read_bytes()
    inflater = zlib
    if isal:
        from isal import isal_zlib as inflater  # type: ignore[no-redef]
    raw = inflater.decompress(data, 16 + zlib.MAX_WBITS) if data[:2] == b"\x1f\x8b" else data
    message = schema.ProfileRawSamplesMessage()
    message.ParseFromString(raw)
    print(len(message.sample))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], isal="--isal" in sys.argv[2:]))
