"""Folded (collapsed) stacks: ``root;caller;leaf COUNT`` per line, as Brendan Gregg's tools write.

Documented choices: lines end at ``\n`` only, as in the tools that write the format (one ``\r``
before it is dropped, so CRLF files read the same); every other character (U+2028, U+0085,
``\v``, ``\f``, ``\x1c``, a lone ``\r``) stays inside the name it is in, so a symbol cannot
start a forged line of its own. UTF-16 with a BOM is accepted; blank lines are ignored; a line
whose last space-separated field is not a whole number >= 0 is skipped and counted; names may
contain spaces (we split on the last space); zero counts add nothing; fractional counts are
skipped (the unit would be a lie); counts above 2**63-1 are rejected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer.errors import DecodeError, ValidationError

if TYPE_CHECKING:
    from explainer.model import Profile, ProfileBuilder

_MAX_COUNT = 2**63 - 1


def decode_text(data: bytes | bytearray) -> str:
    """Bytes to text: UTF-16 by its BOM, else UTF-8 with invalid bytes replaced (names stay visible)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise DecodeError(f"folded stacks: invalid UTF-16 ({exc.reason})") from exc
    text = data.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


def lines(text: str) -> list[str]:
    """The lines of ``text``: split at ``\n`` only, one trailing ``\r`` dropped from each."""
    return [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]


def looks_folded(text: str) -> bool:
    """True when most non-blank lines of the first few end in `` <integer>`` and none is binary."""
    head = text[:65536]
    head = head[: head.rfind("\n") + 1] or head  # whole lines only (a cut one could end in a half count)
    found = [ln for ln in lines(head) if ln.strip()][:50]
    if not found or "\x00" in text[:65536]:
        return False
    good = sum(1 for ln in found if _split(ln) is not None)
    return good > 0 and good * 2 >= len(found)


def _split(line: str) -> tuple[str, int] | None:
    stack, sep, count = line.rstrip(" \t").rpartition(" ")
    if not sep or not stack.strip() or not (count.isascii() and count.isdigit()):
        return None
    return stack, int(count)


def _check_names(builder: ProfileBuilder, max_names: int) -> None:
    from explainer.readers.cost import CostBudget

    count = len(builder.intern_table())
    if count > max_names:
        CostBudget(max_names=max_names).check("max_names", count, at_least=True)


def read_folded(
    data: bytes | bytearray,
    *,
    unit: str = "count",
    sample_type: str = "samples",
    location: str = "",
    max_names: int | None = None,
) -> Profile:
    # the model (numpy) is imported here, not with the module: the format sniffer uses this module's
    # helpers before a read, and the CLI imports numpy while a large profile inflates (readers.read_bytes)
    from explainer.model import ProfileBuilder, SampleType, Source, Truncation

    text = decode_text(data)
    builder = ProfileBuilder(SampleType(sample_type, unit))
    skipped = 0
    for number, line in enumerate(lines(text), start=1):
        if not line.strip():
            continue
        parsed = _split(line)
        if parsed is None:
            skipped += 1
            continue
        stack, count = parsed
        if count > _MAX_COUNT:
            raise ValidationError(f"count {count} on line {number} does not fit in 64 bits", field=f"line {number}")
        frames = [f for f in stack.split(";") if f != ""]
        if not frames:
            skipped += 1
            continue
        builder.add(frames, count)
        if max_names is not None and not number % 4096:  # a million names: refused early, not after reading
            _check_names(builder, max_names)
    if not len(builder):
        raise DecodeError(f"folded stacks: no line of the form 'a;b;c COUNT' ({skipped} lines skipped)")
    return builder.build(source=Source("file", location, "folded"), truncation=Truncation(skipped_lines=skipped))
