"""The profiles the built-in question set asks about: the demo, a small CPU profile, and a before/after pair.

The CPU profile is a Python web service (ASGI server, ORM, JSON, templates) sampled for CPU time,
in nanoseconds; the baseline is the demo before ``--gpu-memory-utilization`` was raised, so the
KV cache grew from 43.6 GB to 55.1 GB and nothing else changed.
"""

from __future__ import annotations

from explainer.demo import ENTRY, STACKS, demo_profile
from explainer.model import Profile, ProfileBuilder, SampleType, Source

MS = 10**6
_SERVE = ["<module>", "main", "uvicorn.Server.serve", "Starlette.__call__", "RequestHandler.handle"]
_ORDERS = [*_SERVE, "OrderService.list_orders"]
CPU_STACKS: list[tuple[list[str], int]] = [
    ([*_ORDERS, "SQLAlchemySession.execute", "psycopg.Cursor.execute"], 3_240 * MS),
    ([*_ORDERS, "OrderSerializer.dump", "json.dumps"], 2_130 * MS),
    ([*_ORDERS, "PriceCalculator.apply_discounts"], 1_480 * MS),
    ([*_SERVE, "render_template", "Template.render"], 1_410 * MS),
    (["<module>", "main", "uvicorn.Server.serve", "asyncio.BaseEventLoop._run_once", "select.epoll.poll"], 870 * MS),
    ([*_SERVE, "AuthMiddleware.verify_token", "jwt.decode", "hmac.compare_digest"], 620 * MS),
    (["<module>", "main", "gc.collect"], 290 * MS),
]
KV_BEFORE = 43_600_000_000


def cpu_profile() -> Profile:
    st = SampleType("cpu", "nanoseconds")
    builder = ProfileBuilder(st)
    for stack, value in CPU_STACKS:
        builder.add(stack, value)
    return builder.build(sample_types=(st,), source=Source("demo", "orders API CPU (demo)", "pprof"))


def baseline_profile() -> Profile:
    """The demo as it was before the KV cache grew: the same stacks, a smaller KV cache."""
    after = demo_profile()
    builder = ProfileBuilder(after.sample_type)
    for i, (stack, value) in enumerate(STACKS):
        builder.add([*ENTRY, *stack], KV_BEFORE if i == 0 else value)
    return builder.build(sample_types=(after.sample_type,), source=Source("demo", "vLLM GPU memory, before", "pprof"))


def packaged(name: str) -> tuple[Profile, Profile | None]:
    """(profile, baseline) for ``demo``, ``cpu`` or ``diff``; KeyError for any other name."""
    if name == "demo":
        return demo_profile(), None
    if name == "cpu":
        return cpu_profile(), None
    if name == "diff":
        return demo_profile(), baseline_profile()
    raise KeyError(name)


PACKAGED = ("demo", "cpu", "diff")
