"""Operating-system kernel frames: perf's ``name_[k]`` and ``[k] name``, and the entry points every
system call, page fault and interrupt passes through (``do_syscall_64``, ``page_fault``)."""

from __future__ import annotations

import re

from explainer.symbols.model import Symbol, make

# names that only the Linux kernel uses; shorter, common prefixes (vfs_, tcp_) are only read as
# kernel code when the profile is native (see bare.py)
_ENTRY = re.compile(
    r"^(?:entry_SYSCALL\w*|do_syscall_\d+|__(?:x64|arm64|ia32)_sys_\w+|syscall_(?:exit|enter)_\w+|__audit_syscall_\w+"
    r"|asm_(?:sysvec|exc|common)_\w+|sysvec_\w+|(?:__)?do_page_fault|(?:async_)?page_fault|exc_page_fault"
    r"|handle_mm_fault|native_write_msr\w*|ret_from_fork\w*|(?:system_call|sysenter)_\w+"
    r"|\w*softirqs?\w*|irq_exit\w*|\w+_rcu|rcu_\w+|\w*rebalance_domains|update_blocked_averages|finish_task_switch\w*"
    r"|__schedule|schedule_timeout|do_futex|futex_wait\w*|hrtimer_\w+|__x86_\w+|x86_pmu_\w+|native_\w+)$"
)
_SYSCALL = re.compile(r"^(?:__(?:x64|arm64|ia32)_)?(?:sys|ksys|do_sys)_(?P<call>\w+)$")


def decode(n: str, hint: str) -> Symbol | None:
    name = _strip_marker(n)
    if name is None and not _ENTRY.match(n):
        return None
    return describe(n, name or n)


def _strip_marker(n: str) -> str | None:
    if n.endswith("_[k]"):
        return n[: -len("_[k]")]
    if n.startswith("[k] "):
        return n[len("[k] ") :]
    return None


def describe(raw: str, name: str) -> Symbol:
    """A kernel function ``name`` (``raw`` as the profile wrote it)."""
    call = _SYSCALL.match(name)
    if call:
        what = f"the kernel side of the {call.group('call')}() system call"
    elif "syscall" in name.lower() or "system_call" in name:
        what = "kernel code that enters or leaves a system call"
    elif "page_fault" in name or name == "handle_mm_fault":
        what = "kernel page-fault handling (memory being mapped in on first touch, or swapped)"
    elif "irq" in name or "sysvec" in name or "interrupt" in name:
        what = "kernel interrupt handling"
    else:
        what = "a function inside the operating-system kernel"
    return make(
        raw,
        "native",
        f"{name}, {what}; time here is spent by the kernel on the process's behalf.",
        "kernel",
        member=name,
    )
