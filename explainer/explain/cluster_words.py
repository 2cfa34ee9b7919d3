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
# a question *about* pods asks which, per, each or across them ("which pod", "per pod", "welke replica"); a pod
# only named as the scene ("our vLLM pod gets OOM-killed ... list the 4 largest consumers") asks about the profile
_ABOUT_PODS = re.compile(
    r"\b(which|what|per|by|each|every|all|across|between|among|other|welke|elke|alle|tussen|andere)[\s-]+"
    r"(?:[\w.-]+\s+){0,2}?(pods?|replicas?)\b|\b(pods?|replicas?)[\s-]+(compared?|versus|vs|vergelijk\w*)\b"
    r"|\b(compare|vergelijk)[\s-]+(?:the\s+|de\s+|all\s+|alle\s+)?(pods|replicas)\b|\bk8s_podname\b"
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
    if not _ABOUT_PODS.search(normalise(question)):
        return None
    text = FILE_TEXT[1 if language(question) == "nl" else 0]
    return text.format(q=clean(question, 200).replace('"', "'").replace("`", "'"))
