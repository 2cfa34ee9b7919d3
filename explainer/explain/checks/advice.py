"""Advice in a model's answer that nothing in the profile can back: commands, outside links, installs.

A number or a function name is checked against the analyzer; a shell command (``curl … | sudo
sh``), a URL to a host that is not the configured Pyroscope or Grafana, or an instruction to
install or run software cannot be, and a profile's names can carry text that asks the model for
exactly that (prompt injection). Such a line is shown with :data:`ADVICE_FLAG` and listed with
the unverified claims, so a reader knows it is the model's suggestion and not a fact.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

ADVICE_FLAG = " [unverified advice]"

# a command word where a command starts: the start of a code span or line, after a prompt, a pipe, && or ;
_COMMAND = re.compile(
    r"(?:^|[|;&`]|\$\s|&&|\bthen\s|\brun\s)\s*(?:sudo\s+)?"
    r"(?:curl|wget|sudo|bash|sh|zsh|fish|pip3?|pipx|uv|npm|npx|yarn|pnpm|apt(?:-get)?|yum|dnf|apk|brew|conda|"
    r"docker|podman|kubectl|helm|chmod|chown|rm|dd|mkfs|mount|iptables|powershell|iex|Invoke-WebRequest|"
    r"nc|ncat|ssh|scp|eval|exec|source|git\s+clone|go\s+install|cargo\s+install|gem\s+install|"
    r"python3?\s+-c|perl\s+-e|base64\s+-d|systemctl|crontab|export)\b",
    re.I,
)
_PIPE_TO_SHELL = re.compile(r"\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b", re.I)
_INSTALL = re.compile(
    r"\b(?:(?:pip|npm|apt|brew|conda|gem|cargo|go)\s+install|install(?:ing)?\s+(?:the\s+|a\s+|this\s+)?\S+"
    r"|download(?:ing)?\s+(?:and\s+(?:run|install|execute)|the\s+\S+\s+(?:script|binary|installer))"
    r"|run(?:ning)?\s+(?:this|the\s+following|these|that)\s+(?:command|script|one-liner)s?"
    r"|execute\s+(?:this|the\s+following|these)\b"
    r"|installeer|voer\s+(?:dit|het\s+volgende)\s+(?:commando|script)\s+uit)",
    re.I,
)
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>()\"'`\]]+|\bwww\.[^\s<>()\"'`\]]+", re.I)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_FENCE = re.compile(r"^\s*(?:```|~~~)")


def outside_urls(line: str, hosts: Iterable[str]) -> list[str]:
    """URLs in ``line`` whose host is not one of ``hosts`` (nor a subdomain of one)."""
    allowed = [h.lower() for h in hosts if h]
    found = []
    for m in _URL.finditer(line):
        url = m.group(0)
        try:
            host = (urlsplit(url if "://" in url else f"http://{url}").hostname or "").lower()
        except ValueError:
            host = ""
        if not any(host == h or host.endswith("." + h) for h in allowed):
            found.append(url)
    return found


def looks_like_command(text: str) -> bool:
    return bool(_COMMAND.search(text) or _PIPE_TO_SHELL.search(text))


class AdviceFinder:
    """Judges an answer line by line (code fences span lines); :meth:`line` says why a line is advice."""

    def __init__(self, hosts: Iterable[str]) -> None:
        self.hosts = tuple(hosts)
        self.in_fence = False

    def line(self, text: str) -> list[str]:
        """What in ``text`` is unverified advice (empty when nothing is)."""
        if _FENCE.match(text):
            self.in_fence = not self.in_fence
            return []
        why: list[str] = []
        if self.in_fence:
            if text.strip() and looks_like_command(text.strip()):
                why.append(f"a command: {text.strip()[:80]}")
        else:
            spans = [m.group(2) for m in _CODE_SPAN.finditer(text)]
            why += [f"a command: {s[:80]}" for s in spans if looks_like_command(s.strip())]
            plain = _CODE_SPAN.sub(" ", text)
            if _PIPE_TO_SHELL.search(plain) or re.search(r"(?:^|\s)\$\s+\w", plain):
                why.append(f"a command: {plain.strip()[:80]}")
            install = _INSTALL.search(plain)
            if install and not why:
                why.append(f"an instruction to install or run software: {install.group(0)[:60]}")
        why += [f"a link outside the configured hosts: {u[:80]}" for u in outside_urls(text, self.hosts)]
        return why
