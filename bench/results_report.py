"""The Markdown report of bench/run.py: tables, ratios, the scaling exponent and the targets."""

from __future__ import annotations

import math
import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

Sizes = dict[int, dict[str, Any]]  # stacks -> tool -> Measurement


@dataclass(frozen=True)
class Targets:
    floor_ratio: float
    peak_mib: float
    scale_2m: float
    one_shot: float
    startup_s: float
    # issue 27: against the physical floor (ISA-L inflate + one pass), and tighter one-shot verbs
    physical_ratio: float = 2.2
    physical_peak_mib: float = 200.0
    handoff: float = 1.05
    ask: float = 1.08
    exponent_8m: float = 1.05


# what each command's row is read against (the ratio column): the floor for analyze, analyze for the rest
REFERENCE = {"analyze": "floor", "ask": "analyze", "handoff": "analyze", "pprof": "analyze", "floor-isal": "floor"}


def busy_warning(load: float) -> list[str]:
    # pprof uses every core (Go's parallel GC) and explainer one, so contention skews the ratio.
    if load <= 0.5 * (os.cpu_count() or 1):
        return []
    return [
        "",
        "**Warning: the machine was busy; absolute wall times are unreliable. The ratios are measured "
        "side by side (runs interleaved), which is what the targets compare.**",
    ]


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def exponent(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope of log(time) against log(stacks): 1.0 is linear."""
    if len(points) < 2:
        return None
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else None


def render(
    sizes: Sizes,
    startup: dict[str, Any],
    top1: Callable[[Any], tuple[str, str]],
    *,
    repeat: int,
    versions: dict[str, str],
    load_at_start: float,
    targets: Targets,
) -> tuple[str, bool]:
    lines = [
        "# explainer: speed and memory, side by side",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} CPUs, {platform.platform()}; "
        f"{repeat} run(s) per command, each a separate process, the commands interleaved run by run. "
        "Ratios and targets use each command's fastest run (other jobs on a shared machine only ever "
        "add time); the median is shown beside it.",
        "",
        f"Load average (1 min) at start {load_at_start:.2f}, at end {os.getloadavg()[0]:.2f}; "
        "each row shows the load its runs started under.",
        *busy_warning(load_at_start),
        "",
        f"- analyze: `explainer analyze FILE --format json` ({versions['explainer']})",
        "- floor: `python bench/floor.py FILE` (gunzip + upb parse, samples as raw bytes; nothing else)",
        "- floor-isal: `python bench/floor.py FILE --isal`: the same floor inflating with ISA-L, as explainer "
        "does (information beside the target: a faster inflater is not a faster analyzer)",
        f"- ask: `explainer ask FILE {versions['question']!r} --llm offline`",
        "- handoff: `explainer handoff FILE --llm offline`",
        f"- pprof: `pprof -symbolize=none -top FILE` ({versions['pprof']})",
        "",
        "| stacks | command | fastest s | median s | peak MiB (max) | load min-max | reference | ratio (fastest) |",
        "|---:|---|---:|---:|---:|---:|---|---:|",
    ]
    for stacks, tools in sizes.items():
        for m in tools.values():
            ref = tools.get(REFERENCE.get(m.tool, ""))
            lines.append(
                f"| {stacks} | {m.tool} | {m.best_s:.3f} | {m.wall_s:.3f} | {m.peak_mib:.1f} | {m.span('load')} "
                f"| {ref.tool if ref else '-'} | {_ratio(m, ref)} |"
            )
    ok = True
    lines += [
        "",
        "| stacks | analyze / floor | pprof / analyze (time) | pprof / analyze (memory) | top-1 self agrees |",
    ]
    lines.append("|---:|---:|---:|---:|---|")
    for stacks, tools in sizes.items():
        ex, floor, pp = tools["analyze"], tools.get("floor"), tools.get("pprof")
        agree = "-"
        if pp is not None:
            ours, theirs = top1(tools)
            ok &= ours == theirs
            agree = f"{verdict(ours == theirs)} (`{ours[:60]}`)"
        lines.append(
            f"| {stacks} | {_ratio(ex, floor)} | {_ratio(pp, ex)} | "
            f"{f'{pp.peak_mib / ex.peak_mib:.1f}x' if pp else '-'} | {agree} |"
        )
    verdicts, section = _targets(sizes, startup, targets)
    lines += section
    ok &= all(verdicts)
    return "\n".join(lines) + "\n", ok


def _ratio(a: Any, b: Any) -> str:
    return f"{a.best_s / b.best_s:.2f}x" if a is not None and b is not None else "-"


def _targets(sizes: Sizes, startup: dict[str, Any], t: Targets) -> tuple[list[bool], list[str]]:
    lines = ["", "## Scaling and start-up", ""]
    points = [(n, tools["analyze"].best_s) for n, tools in sizes.items() if n >= 50_000]
    slope = exponent(points)
    if slope is not None:
        sizes_run = [n for n, _ in points]
        lines.append(f"- fitted exponent of analyze's time over {sizes_run} stacks: **{slope:.2f}** (1.0 is linear; "
                     "below 1 while fixed costs such as start-up still weigh)")  # fmt: skip
        (n1, t1), (n2, t2) = points[-2:]
        local = math.log(t2 / t1) / math.log(n2 / n1)
        lines.append(f"- exponent between the two largest, {n1} and {n2} stacks: **{local:.2f}**")
    for tool, m in startup.items():
        lines.append(f"- start-up, `{tool}`: fastest {m.best_s:.3f} s, median {m.wall_s:.3f} s "
                     f"over {len(m.runs)} runs, load {m.span('load')}")  # fmt: skip
    lines += ["", "## Targets (issue 13)", ""]
    verdicts: list[bool] = []

    def check(ok: bool, text: str) -> None:
        verdicts.append(ok)
        lines.append(f"- {verdict(ok)}: {text}")

    big, small, huge = sizes.get(500_000), sizes.get(5_000), sizes.get(2_000_000)
    if big:
        ex, floor = big["analyze"], big["floor"]
        check(ex.best_s <= t.floor_ratio * floor.best_s, f"500k analyze {ex.best_s / floor.best_s:.2f}x the floor "
              f"({ex.best_s:.2f} s vs {floor.best_s:.2f} s; target <= {t.floor_ratio:g}x)")  # fmt: skip
        if "floor-isal" in big:
            same = big["floor-isal"]
            lines.append(f"- info: 500k analyze {ex.best_s / same.best_s:.2f}x the floor with the same inflater "
                         f"(ISA-L, {same.best_s:.2f} s): explainer inflates with ISA-L, the target's floor "
                         "with zlib")  # fmt: skip
        check(ex.peak_mib <= t.peak_mib, f"500k analyze peak {ex.peak_mib:.0f} MiB (target <= {t.peak_mib:.0f} MiB; "
              f"the floor's is {floor.peak_mib:.0f} MiB)")  # fmt: skip
        for tool in ("ask", "handoff"):
            if tool in big:
                r = big[tool].best_s / ex.best_s
                check(r <= t.one_shot, f"500k {tool} {r:.2f}x analyze (target <= {t.one_shot:g}x)")
    if small and "pprof" in small:
        ex, pp = small["analyze"], small["pprof"]
        check(ex.best_s <= pp.best_s, f"5k analyze {ex.best_s:.3f} s vs pprof {pp.best_s:.3f} s (target: no slower)")
    if big and huge:
        r = huge["analyze"].best_s / big["analyze"].best_s
        check(r <= t.scale_2m, f"2M analyze {r:.2f}x the 500k time (target <= {t.scale_2m:g}x; 4.0 is linear)")
    for tool, m in startup.items():
        check(m.best_s < t.startup_s, f"start-up `{tool}` fastest {m.best_s:.3f} s (target < {t.startup_s:g} s)")
    lines += ["", "## Targets (issue 27)", ""]
    if big and "floor-isal" in big:
        ex, phys = big["analyze"], big["floor-isal"]
        ratio = ex.best_s / phys.best_s
        check(ratio <= t.physical_ratio, f"500k analyze {ratio:.2f}x the floor-isal (ISA-L inflate + parse, "
              f"{phys.best_s:.2f} s; target <= {t.physical_ratio:g}x)")  # fmt: skip
        check(ex.peak_mib <= t.physical_peak_mib, f"500k analyze peak {ex.peak_mib:.0f} MiB (target <= "
              f"{t.physical_peak_mib:.0f} MiB)")  # fmt: skip
    for tool, limit in (("handoff", t.handoff), ("ask", t.ask)):
        if big and tool in big:
            r = big[tool].best_s / big["analyze"].best_s
            check(r <= limit, f"500k {tool} {r:.2f}x analyze (target <= {limit:g}x)")
    very = sizes.get(8_000_000)
    if huge and very:
        slope = math.log(very["analyze"].best_s / huge["analyze"].best_s) / math.log(4)
        check(slope <= t.exponent_8m, f"exponent of analyze's time between 2M and 8M stacks {slope:.2f} "
              f"(target <= {t.exponent_8m:g}; run with --max-size over 256 MiB)")  # fmt: skip
    if not verdicts:
        lines.append("- not checked: run 5000, 500000 and 2000000 stacks for the targets")
    return verdicts, lines
