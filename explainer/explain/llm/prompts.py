"""Prompt templates: files in ``prompts/`` (the package ``explainer.prompts``), versioned with the code.

Each file starts with one header line naming the prompt, its version and the exact variables it
takes, e.g. ``<!-- prompt: answer; version: 1; variables: question, data_block -->``. Rendering
uses :class:`string.Template` (one pass, so a substituted value is never expanded again) and
insists that the caller passes exactly the declared variables: a typo or a forgotten value is an
error, not a silently empty hole in a prompt.

The directory is ``$EXPLAINER_PROMPTS`` when set, else the packaged ``explainer.prompts``
(package data, so a normal, non-editable install has them too).
"""

from __future__ import annotations

import os
import re
import string
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from explainer.errors import ModelError

PROMPTS_ENV = "EXPLAINER_PROMPTS"
NAMES = ("system", "answer", "symbol", "handoff")
_HEADER = re.compile(
    r"<!--\s*prompt:\s*(?P<name>[a-z_]+);\s*version:\s*(?P<version>\d+);\s*variables:\s*(?P<vars>[a-z_, ]*?)\s*-->\n"
)


class PromptError(ModelError):
    """A prompt file is missing or malformed, or was rendered with the wrong variables."""


@dataclass(frozen=True, slots=True)
class Prompt:
    name: str
    version: int
    variables: frozenset[str]
    template: string.Template

    def render(self, **values: str) -> str:
        given = set(values)
        if given != self.variables:
            missing, extra = sorted(self.variables - given), sorted(given - self.variables)
            raise PromptError(f"prompt {self.name!r}: missing {missing}, unexpected {extra}")
        return self.template.substitute(values)


def prompts_dir() -> Path:
    override = os.environ.get(PROMPTS_ENV)
    if override:
        return Path(override)
    # the installed package is a directory tree (never zipped: setuptools installs it unpacked)
    return Path(str(resources.files("explainer.prompts")))  # the root's prompts/, mapped into the package


def parse(name: str, text: str) -> Prompt:
    match = _HEADER.match(text)
    if not match or match.group("name") != name:
        raise PromptError(
            f"prompt {name!r}: the first line must be '<!-- prompt: {name}; version: N; variables: ... -->'"
        )
    declared = frozenset(v.strip() for v in match.group("vars").split(",") if v.strip())
    template = string.Template(text[match.end() :])
    if not template.is_valid():
        raise PromptError(f"prompt {name!r}: invalid placeholder (write a literal dollar sign as $$)")
    used = frozenset(template.get_identifiers())
    if used != declared:
        raise PromptError(f"prompt {name!r}: declares {sorted(declared)} but uses {sorted(used)}")
    return Prompt(name, int(match.group("version")), declared, template)


@lru_cache(maxsize=16)
def _load_from(directory: str, name: str) -> Prompt:
    path = Path(directory) / f"{name}.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PromptError(f"prompt {name!r} not found in {directory} (set {PROMPTS_ENV})") from exc
    return parse(name, text)


def load(name: str) -> Prompt:
    if name not in NAMES:
        raise PromptError(f"unknown prompt {name!r}")
    return _load_from(str(prompts_dir()), name)


def versions() -> dict[str, int]:
    """``{"system": 1, ...}`` for reports that say which prompts produced an answer."""
    return {name: load(name).version for name in NAMES}
