"""Questions the loaded profile cannot answer: write me a Terraform module, restart the broker, Azure's prices,
who is on call. Read as such they get the question menu instead of an answer about a frame that happens to share
a word with them (`<module>` for "a terraform module", `CartService.EmptyCart` for "the cart service").

A question is out of scope when every sentence of it is; "ignore previous instructions and ..." is no sentence of
its own (what follows it decides). A sentence is out of scope when it asks to make something that is not a
summary of this profile (a script, a manifest, a regex), to act (restart, e-mail, translate, install), about the
world outside the profile (prices, release notes, meetings, jokes), or how to configure infrastructure or write
everyday code. Anything else, however casual, is left to the reader.
"""

from __future__ import annotations

import re

from explainer.lazyre import lazy

OUTSIDE = "outside"
"""The concept a question read as out of scope carries: its answer says so."""

_SENTENCES = lazy(r"(?<=[.?!;])\s+")
_INJECTION = lazy(
    r"^\s*(?:please\s+)?(?:ignore|forget|disregard|negeer|vergeet)\s+(?:all\s+|any\s+|your\s+|the\s+|alle\s+|je\s+)*"
    r"(?:previous|prior|above|earlier|eerdere|vorige)\s+(?:instructions|rules|prompts?|instructies|regels)\s*"
    r"(?:and\s+|en\s+|[,.:;]\s*)?",
    re.I,
)
# a summary of this profile is what the handoff writes, and its graph, frames and symbols are what it holds:
# a sentence naming them is never out of scope ("how do I install debug symbols", "make the flame graph wider")
_ABOUT_PROFILE = lazy(
    r"\b(?:summary|summaries|summarise|summarize|handoff|hand-off|report|samenvatting|overdracht|rapport|"
    r"flame\s*graph|flamegraph|vlamgrafiek|symbols?|symbolen|debug\s+info\w*|frames?)\b",
    re.I,
)
_ARTIFACT = (
    r"(?:terraform|helm|manifest|yaml|dockerfile|script|middleware|regexp?|function|functie|module|program|"
    r"programma|query|dashboard|graph|grafiek|panel|unit\s+tests?|tests?|class|klasse|snippet|hpa|cronjob|"
    r"alert(?:ing)?\s+rule|pipeline|workflow|poem|gedicht|song|story|verhaal|email|e-mail|mail)"
)
_MAKE = lazy(
    r"\b(?:write|generate|create|make|build|draft|compose|schrijf|maak|genereer|bouw)\s+(?:me\s+|us\s+|ons\s+)?"
    rf"(?:a|an|some|een)\s+(?:[\w.:%/>-]+\s+){{0,4}}?{_ARTIFACT}s?\b",
    re.I,
)
_ACT = lazy(
    r"^(?:please\s+|pls\s+|can\s+you\s+|could\s+you\s+|kun\s+je\s+|kan\s+je\s+|wil\s+je\s+|graag\s+)?"
    r"(?:restart|herstart|reboot|redeploy|roll\s*back|scale\s+(?:up|down|out)|e-?mail|mail|"
    r"(?:send|stuur)\s+(?:[\w-]+\s+){0,3}?(?:to|naar)|"
    r"open\s+(?:a|an|een)\s+(?:jira|ticket|issue|pr|pull)|translate|vertaal|install|installeer|"
    r"zet\s+(?:de|het|een)\s+[\w\s-]+?\s+op\s+\d+)\b",
    re.I,
)
_WORLD = lazy(
    r"\b(?:pricing|prices?|prijz?en|subscription|abonnement|release\s+notes|changelog|"
    r"latest\s+(?:[\w.-]+\s+)?version|nieuwste\s+(?:[\w.-]+\s+)?versie|weather|het\s+weer|stand-?up|meeting|vergadering|joke|grap|system\s+prompt|"
    r"you\s+are\s+now|je\s+bent\s+nu|on-?call\s+(?:dienst|rotation|schedule|rooster)|who\s+is\s+on[\s-]?call|"
    r"wie\s+heeft\s+(?:er\s+)?(?:vandaag\s+)?(?:on-?call\s+)?dienst)\b",
    re.I,
)
_HOW = r"(?:how\s+(?:do|can|should|would)\s+(?:i|we|you)|how\s+to|hoe\s+(?:\w+\s+)?(?:ik|we|je))\b"
_INFRA = lazy(
    rf"{_HOW}.*\b(?:affinity|namespaces?|node\s*pools?|ip\s+(?:allocation|range)|pod\s+ip|kernel\s+versi\w*|"
    r"cluster\s+autoscaler|ingress|helm|terraform|heap\s+dump|thread\s+dump|kubectl|docker\s+image|install\w*|"
    r"autoscal\w+|replicas?)\b",
    re.I,
)
_CODE_VERB = lazy(r"\b(?:reverse|sort|sorteer|parse|convert|join|split|dedupe|flatten)\w*\b", re.I)
_CODE_NOUN = lazy(r"\b(?:list|lists|dict|dictionary|array|string|slice|map|lijst|tuple)\b", re.I)
_HOW_ASKED = lazy(_HOW, re.I)
# two configuration files compared ("diff values-prod.yaml and values-staging.yaml"), not two profiles
_CONFIG_DIFF = lazy(r"\b(?:diff|compare|vergelijk)\b.*\b[\w-]+\.(?:ya?ml|tf|ini|conf|cfg|env)\b", re.I)


def _everyday_code(sentence: str) -> bool:
    """ "how do I reverse a list in python": programming help, not this profile."""
    return all(p.search(sentence) for p in (_HOW_ASKED, _CODE_VERB, _CODE_NOUN))


def outside(text: str) -> bool:
    """Whether nothing in ``text`` asks about the loaded profile (see the module's docstring)."""
    sentences = [s for s in _SENTENCES.split(text) if s.strip()]
    return bool(sentences) and all(_sentence_outside(s) for s in sentences)


def _sentence_outside(sentence: str) -> bool:
    rest = _INJECTION.sub("", sentence).strip(" .,;:!?")
    if not rest:
        return _INJECTION.search(sentence) is not None  # only the injection: nothing is asked
    if _ABOUT_PROFILE.search(rest):
        return False
    return any(p.search(rest) for p in (_MAKE, _ACT, _WORLD, _INFRA, _CONFIG_DIFF)) or _everyday_code(rest)
