"""The words of a question about pods, namespaces and services, and the answer a file gives them.

Kept apart from :mod:`explainer.explain.cluster` so that a question asked of a profile *file*
(which has no pods) is checked without importing the Pyroscope client side: ``ask FILE`` loads
only these few patterns.
"""

from __future__ import annotations

import re
import unicodedata

from explainer.lazyre import lazy
from explainer.symbols import clean

_DUTCH = lazy(
    r"\b(welke|wat|wanneer|hoeveel|gebruikt|het|de|en|met|vergelijk|groeit|groeien|begon|te|piek|meest|meeste|"
    r"sinds|hoe|van|deze|zijn|nog|geheugen|gpu-geheugen|waar)\b"
)
# A question *about* pods (or namespaces, services) asks which, per, each, across or the top of them ("which
# pod", "per pod", "welke replica", "the top 3 pods", "compare the pods"); a pod only named as the scene ("our
# vLLM pod gets OOM-killed ... list the 4 largest consumers") asks about the profile.
_WHICH = r"(?:which|what|per|by|each|every|all|across|between|among|other|welke|elke|alle|tussen|andere)[\s-]+"
_TOP = r"(?:top|biggest|largest|heaviest|hungriest|grootste|zwaarste)[\s-]+"
_COMPARED = r"(?:compare|vergelijk)[\s-]+(?:the\s+|de\s+|all\s+|alle\s+)?"
_POD_WORDS = r"pods?|replicas?"


def asks_about(words: str, text: str) -> bool:
    """Whether the (normalised) question asks about the label values ``words`` (a regex alternation)."""
    label = rf"(?:{words})\b"
    return bool(
        re.search(
            rf"\b{_WHICH}(?:[\w.-]+\s+){{0,2}}?{label}|\b{_TOP}(?:[\w.-]+\s+)?{label}|\b{_COMPARED}{label}"
            rf"|\b(?:{words})[\s-]+(?:compared?|versus|vs|vergelijk\w*)\b|\bk8s_\w+|\bservice_name\b",
            text,
        )
    )


FILE_TEXT = (
    "A profile file has no pods, namespaces or services: it is one merged profile, so it cannot say which pod "
    'uses the most. Ask the server instead, e.g. `explainer ask --server URL "{q}"`, or list the totals per '
    "pod with `explainer pyroscope top --server URL --by k8s_podName`.",
    "Een profielbestand heeft geen pods, namespaces of services: het is één samengevoegd profiel, dus het kan "
    "niet zeggen welke pod het meest gebruikt. Vraag het de server, bijvoorbeeld `explainer ask --server URL "
    '"{q}"`, of toon de totalen per pod met `explainer pyroscope top --server URL --by k8s_podName`.',
)


def normalise(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in folded if not unicodedata.combining(c))


def language(text: str, previous: str = "en") -> str:
    """Dutch when two Dutch words show, or one in a conversation already in Dutch ("en in vllm-1?")."""
    words = len(_DUTCH.findall(normalise(text)))
    return "nl" if words >= 2 or (words == 1 and previous == "nl") else "en"


def file_answer(question: str) -> str | None:
    """On a file source: a question about pods gets a plain "a file has none"."""
    if not asks_about(_POD_WORDS, normalise(question)):
        return None
    text = FILE_TEXT[1 if language(question) == "nl" else 0]
    return text.format(q=clean(question, 200).replace('"', "'").replace("`", "'"))
