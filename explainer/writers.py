"""Writing a profile back out: folded stacks and pprof protobuf.

Used for round-trip tests, for building the demo fixture, and by the test servers; one
location per function, no line numbers (the model keeps none).
"""

from __future__ import annotations

import gzip
import io

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
