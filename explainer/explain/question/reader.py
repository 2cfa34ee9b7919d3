"""Reading a question: normalise it, find its concepts and subject, score the intents, once.

The result, a :class:`Question`, is passed on to whatever answers it; nothing downstream reads
the question's words again. A question whose best intent does not clearly beat the runner-up is
still answered with the best reading, and says how it was read.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace

from explainer import knowledge
from explainer.explain.question import scope, subjects
from explainer.explain.question.clauses import clauses
from explainer.explain.question.counts import continues, count_in, more_asked, only_a_count
from explainer.explain.question.lexicon import lexicon, words
from explainer.explain.question.signatures import (
    CARRIES_OVER,
    FOLLOW_UP_SCORE,
    HINT_BONUS,
    HINTS,
    NEEDS_SUBJECT,
    SIGNATURES,
    Signature,
)
from explainer.explain.question.subjects import Names, Subject
from explainer.lazyre import lazy

MAX_QUESTION_CHARS = 2_000
RUNTIME_KINDS = frozenset({"gc", "kernel", "jit", "scheduler", "interpreter", "unresolved"})
"""Concepts that are a kind of frame: "the kernel" is all of its frames, never its biggest one."""
HOMONYMS = frozenset({"scheduler", "gc", "jit"})
"""Runtime kinds an application may name its own code after (vLLM's ``Scheduler``)."""
POINTING_SCORE = 3.0  # a question sentence that points back ("Why is that?") and reads weaker than this
MIN_SCORE = 1.0  # below this nothing was recognised: the answer is the suggestions
CLEAR_MARGIN = 0.45  # a best reading this far ahead of the runner-up needs no "I read this as"
INTENTS = (
    "most", "responsible", "self_vs_total", "chain", "callers", "callees", "meaning", "function", "category",
    "knob", "optimise", "skip", "total", "overview", "assess", "compare", "handoff", "howto", "help", "setting",
    "visibility", "unknown",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Context:
    """What the conversation so far lends a question: its focus and the last ranking shown."""

    topic: Subject | None = None  # what the last answer was about: a function or a concept
    ranking: tuple[str, ...] = ()  # the functions of the last ranked list, in order
    lang: str = "en"
    intent: str | None = None  # what the last question asked
    shown: int = 0  # how many ranks of its list the last answer showed: "show me 3 more" goes on from there
    left: bool = False  # whether more ranks may follow them: "Show me 5 more" is offered


@dataclass(frozen=True, slots=True)
class Question:
    text: str  # cleaned, capped
    lang: str  # en or nl
    intent: str
    score: float
    runner_up: str | None  # the second-best intent, when it came close
    subject: Subject | None
    concepts: frozenset[str]
    top_n: int | None = None  # how many functions it asks for: "the top 5", "three biggest" (counts.count_in)
    offset: int = 0  # "show me 3 more": the ranks the last answer showed, which this one goes on after

    @property
    def ambiguous(self) -> bool:
        return self.runner_up is not None


def clean_question(text: str) -> str:
    """Unicode-normalised, control characters gone, whitespace collapsed, capped."""
    text = unicodedata.normalize("NFKC", text[: MAX_QUESTION_CHARS * 2])
    text = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text)
    return " ".join(text.split())[:MAX_QUESTION_CHARS]


def read(question: str, names: Names, context: Context = Context()) -> Question:
    """How a question is read: its intent, subject and language.

    A compound question ("how much does X reserve and what knob shrinks it") reads as its first part (the
    conversation answers every part in order); a ticket's context sentences ("Since the upgrade the
    nodes are CPU-bound. Which function ...?") lend a subject when the question points back at them, and
    their incidental words (grafana, handoff, regression, path) never decide what is asked.
    """
    text = clean_question(question)
    if _goes_on(text, context):
        return _more(text, context)
    if scope.outside(text):  # "write me a terraform module": the menu, not the numbers of `<module>`
        lang = lexicon().language(words(text), context.lang)
        return Question(text, lang, "unknown", 0.0, None, None, frozenset({scope.OUTSIDE}))
    cut, count = _counted(clauses(text))
    asked = _parts(text, cut, count, names, context)
    if asked:
        return replace(asked[0], text=text)
    if count is None:  # a ticket's count may stand outside its question sentence ("...? Just the top 3 for now.")
        return _counts(_read_text(text, names, context, lang_text=text), count_in(text))
    return replace(_counts(_read_text(" ".join(cut), names, context, lang_text=text), count), text=text)


CONTINUED = frozenset({"most", "responsible", "callers", "callees"})
"""The answers whose ranked list "show me more" goes on with."""
_OF_THE_TOPIC = frozenset({"callers", "callees"})  # lists of one function's neighbours: more of the same function


def _goes_on(text: str, context: Context) -> bool:
    """Whether ``text`` asks for more of the ranked list the last answer showed ("next 5")."""
    return bool(context.shown) and context.intent in CONTINUED and continues(words(text))


def _more(text: str, context: Context) -> Question:
    """ "next 5", "and the rest?": the last question's list again, from the rank after the last one it showed."""
    assert context.intent is not None
    typed = words(text)
    lang = lexicon().language(typed, context.lang)
    count = more_asked(typed)
    subject = context.topic if context.intent in _OF_THE_TOPIC else None
    return Question(text, lang, context.intent, FOLLOW_UP_SCORE, None, subject, frozenset(), count, context.shown)


def _counted(cut: list[str]) -> tuple[list[str], int | None]:
    """The parts that ask something, and the count a part after them only states: "what should I optimise
    first? give me 3 options" asks one question, for three ("options" there are not settings)."""
    counting = [i > 0 and only_a_count(words(part)) for i, part in enumerate(cut)]
    kept = [part for part, counts in zip(cut, counting, strict=True) if not counts]
    said = [count_in(part) for part, counts in zip(cut, counting, strict=True) if counts]
    return kept, next((n for n in said if n is not None), None)


def _counts(question: Question, count: int | None) -> Question:
    return question if count is None or question.top_n is not None else replace(question, top_n=count)


def parts(text: str, names: Names, context: Context) -> tuple[Question, ...]:
    """The parts of a compound question, each read in ``context``; () when ``text`` asks one thing. A question
    is compound when every part asks (starts as a question or a request, "kv cache is too big, which param
    limits it" does not), reads clearly, and the parts ask different things. A request for more of the last
    list is one question, as :func:`read` reads it."""
    text = clean_question(text)
    if _goes_on(text, context) or scope.outside(text):
        return ()
    return _parts(text, *_counted(clauses(text)), names, context)


def _parts(text: str, cut: list[str], count: int | None, names: Names, context: Context) -> tuple[Question, ...]:
    if len(cut) < 2:
        return ()
    readings = tuple(_counts(_read_text(part, names, context, lang_text=text), count) for part in cut)
    asked = {(r.intent, r.subject.label if r.subject else "") for r in readings}
    if len({r.intent for r in readings}) == 1 and any(r.subject is None for r in readings):
        return ()  # "is that something to care about or can I skip it": one question, asked twice
    asking = all(_asks(part, listed=":" in cut[0]) for part in cut)
    sure = all(r.intent not in ("unknown", "help") and r.score >= FOLLOW_UP_SCORE for r in readings)
    return readings if asking and sure and len(asked) == len(readings) else ()


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# the first word of a part of a compound question that asks something
_ASKING = _word_set(
    "what whats which who whom whose where wheres how hows why is are was were does do did can could "
    "should would will tell show list give explain find welke welk wat wie waar hoe hoeveel waarom zijn "
    "kan kun kunt moet mag doet doen geef toon laat noem leg vertel "
)
_ASKING_PAIRS = frozenset(
    (preposition, which)
    for preposition in ("in", "with", "from", "through", "via", "along", "by", "on", "at", "met", "door", "op", "langs")
    for which in ("which", "what", "welke", "welk")
)  # "..., and through which call path is it reached?"


def _asks(part: str, *, listed: bool) -> bool:
    """Does this part of a compound question ask something ("and what knob shrinks it"), rather than set the
    scene ("kv cache is too big, which param limits it")? After "two things: ..." a noun phrase asks too."""
    lex = lexicon()
    ws = lex.strip_politeness(words(split_context(part)[1]))
    if len(ws) < 3:
        return False  # "..., what option": too short to be a question of its own
    return ws[0] in _ASKING or tuple(ws[:2]) in _ASKING_PAIRS or (listed and ws[0] in ("the", "de", "het", "its"))


def _read_text(text: str, names: Names, context: Context, *, lang_text: str) -> Question:
    head, focus = split_context(text)
    whole = _read(text, names, context, lang_text=lang_text)
    if not head and focus == text and not _AFTER_QUESTION.search(text):
        return whole
    asked = _read(focus, names, context, background=head, lang_text=lang_text)
    first, _, tail = focus.partition("? ")
    if tail and _asks(tail, listed=False) and not _asks(first, listed=False) and not _bare(first):
        # "(anonymous) is 87% self??? what is that": a statement with a question mark sets the scene for the
        # question after it, and lends it its subject
        after = _read(tail, names, context, background=f"{head} {first}".strip(), lang_text=lang_text)
        if after.intent != "unknown" and after.score >= FOLLOW_UP_SCORE:
            asked = after
    elif tail and not _asks(tail, listed=False) and not _bare(tail):
        # "Which function uses the most CPU? We need this for the handoff.": what follows the question mark sets
        # the scene when it asks nothing itself ("... right? so whats self then" asks), unless the question alone
        # says too little
        alone = _read(first + "?", names, context, background=f"{head} {tail}".strip(), lang_text=lang_text)
        if alone.intent != "unknown" and alone.score >= FOLLOW_UP_SCORE:
            asked = alone
    pointing = subjects.points(words(focus))
    weak = asked.score < FOLLOW_UP_SCORE or (pointing and asked.score < POINTING_SCORE)
    if asked.intent == "unknown" or (weak and whole.score > asked.score):
        # the question sentence alone says too little ("Why?", "Why is that?"): the whole text decides
        return whole
    return replace(asked, text=text)


_AFTER_QUESTION = re.compile(r"\?\s+\S")
_BARE = _word_set("how why what y huh so then come hoe waarom hoezo wat dan dat kan is that wtf")


def _bare(part: str) -> bool:
    """A bare "how?", "why?", "hoe kan dat?" after a statement asks about that statement."""
    ws = lexicon().strip_politeness(words(part))
    return 0 < len(ws) <= 3 and all(w in _BARE for w in ws)


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Za-z0-9])")
_LEADING_CLAUSE = re.compile(
    r"^(?:since|before|after|following|because|when|while|although|though|now that|once|during|as part of|given|for|"
    r"regarding|to|in order to|sinds|voordat|nadat|omdat|toen|terwijl|tijdens|zodra|nu|gezien|voor|om)\b"
    r"[^,?;]{3,200},\s+",
    re.IGNORECASE,
)
# "For capacity planning of the produce path: how much ...": words before a colon; one name before a colon
# ("NioEventLoop.run: self is tiny but total 60%? why") is what the question is about, not its scene
_LEAD_IN = re.compile(r"^([^:?]{0,200}\S\s+[^:?]{1,200}):\s+(?=\S)")


def split_context(text: str) -> tuple[str, str]:
    """A ticket's context and its question: the sentences before the first one that asks (ends with a
    question mark; else the last sentence), and a leading clause ("Since the upgrade, ...", "For the
    review: ...") of that sentence. ``("", text)`` for a question that is only a question."""
    sentences = _SENTENCE.split(text)
    asked = next((i for i, s in enumerate(sentences) if s.rstrip().endswith("?")), len(sentences) - 1)
    head, focus = " ".join(sentences[:asked]), " ".join(sentences[asked:])
    lead = _LEADING_CLAUSE.match(focus) or _LEAD_IN.match(focus)
    if lead is not None and len(focus[lead.end() :].split()) >= 3:
        head, focus = f"{head} {lead.group(0)}".strip(), focus[lead.end() :]
    wants = _WANTS_TO_KNOW.search(focus)  # "The scheduler team wants to know which function is the hottest."
    if wants is not None and len(focus[wants.end() :].split()) >= 3:
        head, focus = f"{head} {focus[: wants.end()]}".strip(), focus[wants.end() :]
    return head, focus


_WANTS_TO_KNOW = re.compile(
    r"^[^?]{0,160}?\b(?:wants?|wanted|needs?|would like|asked|asks|wonders?|wondering|is asking|"
    r"wil|willen|wilde|vraagt|vroeg|vragen)\s+(?:us\s+|me\s+)?"
    r"(?:to\s+(?:know|understand|see|find out|confirm)\s+|weten\s+)?"
    r"(?=(?:which|what|why|how|where|who|whether|welke|wat|waarom|hoe|waar|wie|hoeveel)\b)",
    re.IGNORECASE,
)


def _read(text: str, names: Names, context: Context, *, lang_text: str, background: str = "") -> Question:
    lex = lexicon()
    # "what's slow in this ruby service", "the heap in this snapshot": the scene of the question, not a frame that
    # happens to be called `service` or `(*GoSpy).Snapshot`
    scene_free = _SCENE.sub(" ", text)
    explicit = subjects.explicit(scene_free, names)
    unnamed = subjects.without_names(scene_free, keep_quoted=explicit is None)
    typed = words(unnamed)
    tokens = lex.joined(lex.spelled(lex.strip_politeness(typed)))
    found = lex.concepts(tokens)
    if "first" in found and context.ranking and subjects.ordinal(tokens, text) == 1:
        found.pop("first")  # "the first one?" after a ranking: a rank, not "what to do first"
    span = _FROM_TO.search(text) if explicit is not None and "chain" in found else None
    if span is not None and explicit is not None and explicit.at < span.start(1):
        # "full chain from Thread.run to Pattern$GroupTail.match": the path leads to the second name
        target = subjects.explicit(text[span.start(1) :], names)
        if target is not None and target.kind == "function":
            explicit = replace(target, at=target.at + span.start(1) if target.at >= 0 else -1)
    if explicit is not None and explicit.how == "word" and any(c.startswith("concept:") for c in found):
        # a concept beats a plain word that happens to be a whole label: "kernel frames in this perf profile" is
        # about the kernel, not the root frame `perf`
        explicit = None
    for concept, at in lex.concepts(lex.spelled(words(text))).items():  # settings are written as names
        if concept.startswith("setting_"):  # (expandable_segments), which the subject pass took out above
            found.setdefault(concept, at)
    if explicit is None and any(q and all(lex.knows(w) for w in words(q)) for q in subjects.quoted(text)):
        found.setdefault("meaning", len(tokens))  # a quoted word ("self") asks what the word means
    if "compare" in found and explicit is not None and _against_a_function(text, explicit, names):
        # "how much time does slow_function take compared with fast_function": two functions of this profile, not
        # this profile against a baseline
        found.pop("compare")
        found.pop("difference", None)
    if background and {"overview", "write"} & set(found) and "handoff" in lex.concepts(words(background)):
        # "For tonight's on-call handoff, please write a short summary": a summary asked for a handoff is the handoff
        found.setdefault("handoff", len(tokens))
    lang = lex.language(words(lang_text), context.lang)  # greetings and thanks say the language too
    subject = explicit
    if subject is None and background:
        subject = _lent(background, tokens, found, names, context)
    if subject is None:
        subject = _implicit(tokens, text, found, names, context)
    if subject is None and background:
        subject = _lent(background, tokens, found, names, context, implicit=True)
    if context.topic is not None and context.topic.kind == "function" and _TO_IT_FROM.search(text):
        subject = context.topic  # "the path to it from Thread.run": it is where the path leads; Thread.run is on it
    if subject is not None:
        at = subject.at if subject.at >= 0 else _pronoun_at(text)  # "which code calls it?": where "it" stands
        if at >= 0:
            _direct(text, at, found)
    if (
        subject is None
        and context.topic is not None
        and (subjects.refers_back(tokens, found) or subjects.names_topic(tokens, context.topic))
    ):
        subject = context.topic
        if _pronoun_at(text) >= 0:  # "whats it calling": it is the caller
            _direct(text, _pronoun_at(text), found)
    scores = _scores(set(found), subject)
    if subject is not None and subject.how == "fuzzy":
        # a loose description must do better than the question read without it: "where does the cpu of the
        # kafka broker go" asks where the CPU goes, not about the broker's biggest function
        alone = _scores(set(found), None)
        if alone and max(alone.values()) >= max(scores.values(), default=0.0) - 0.15:
            subject, scores = None, alone
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], INTENTS.index(kv[0])))
    intent, score = ranked[0] if ranked and ranked[0][1] >= MIN_SCORE else ("unknown", 0.0)
    if (
        subject is not None
        and score < FOLLOW_UP_SCORE
        and len(tokens) <= 6
        and context.intent in CARRIES_OVER
        and subject.how != "focus"
    ):
        intent, score = context.intent, FOLLOW_UP_SCORE  # "and the KV cache?": the same question, a new subject
    if intent == "responsible" and subject is context.topic:
        subject = None  # "what is responsible for it?": for the resource the last answer was about, not its frame
    if intent in NEEDS_SUBJECT and subject is None and context.topic is not None:
        subject = context.topic
    runner = ranked[1] if len(ranked) > 1 and intent != "unknown" else None
    close = runner is not None and runner[1] >= MIN_SCORE and score - runner[1] < CLEAR_MARGIN
    return Question(
        text,
        lang,
        intent,
        score,
        runner[0] if close and runner else None,
        subject,
        frozenset(found),
        count_in(unnamed),  # as typed: the spelling pass reads an unknown "three" as "there"
    )


_COMPARED = lazy(
    r"\b(?:compared?\s+(?:with|to)|in\s+comparison\s+(?:with|to)|versus|vs\.?|vergeleken\s+met|tegenover)\s+(\S.*)$",
    re.IGNORECASE,
)


def _against_a_function(text: str, explicit: Subject, names: Names) -> bool:
    """Does the question compare its function with another function of the same profile?"""
    m = _COMPARED.search(text)
    if m is None or explicit.kind != "function":
        return False
    other = subjects.explicit(m.group(1), names)
    return other is not None and other.kind == "function" and other.name != explicit.name


def _lent(
    background: str, tokens: list[str], found: dict[str, int], names: Names, context: Context, *, implicit: bool = False
) -> Subject | None:
    """The subject a ticket's context lends its question: a name it writes (first), or its concept, ordinal or
    kind of frame (when the question itself names none); only when the question points back at it ("its self
    and total", "Which code calls it?", "this frame") or asks about one thing."""
    wants = _scores(set(found), None)
    needs = bool(wants) and max(wants, key=lambda k: wants[k]) in NEEDS_SUBJECT
    pointing = subjects.refers_back(tokens, found) or subjects.points(tokens)
    if not (needs or pointing):
        return None
    if not implicit:
        lent = subjects.explicit(background, names, plain=False)
        return replace(lent, at=-1) if lent is not None and lent.kind == "function" else None
    lex = lexicon()
    head = lex.spelled(lex.strip_politeness(words(subjects.without_names(background, keep_quoted=True))))
    return _implicit(head, background, lex.concepts(head), names, context, loose=pointing)  # "What are they?"


# which way a call relation runs, from where the name is written: "functions called by X" and "what does X
# call" ask for X's callees; "what calls X", "X is called from" and "wie roept X aan" for its callers
_PASSIVE_BEFORE = lazy(
    r"\b(?:called|invoked|used|reached|aangeroepen|gebruikt)\s+(?:by|from|door|vanuit)\s+(?:the\s+|de\s+|het\s+)?$"
    r"|\b(?:door|vanuit)\s+$"
)
_PASSIVE_AFTER = lazy(
    r"^\S*\s+(?:\w+\s+){0,3}?(?:called|invoked|aangeroepen|reached|triggered)\b|^\S*\s+(?:\w+\s+){0,2}?(?:called|invoked)\s+(?:by|from)\b"
)
_ACTIVE_BEFORE = lazy(
    r"\b(?:calls|call|invokes|invoke|calling|invoking|roepen|roept)\s+(?:into\s+|in\s+)?(?:the\s+|de\s+|het\s+)?$"
)
_ACTIVE_AFTER = lazy(r"^\S*\s+(?:\w+\s+){0,3}?(?:calls?|invokes?|calling|roept|aanroept)\b")
_THIS = r"(?:it|this|that)(?:\s+(?:one|function|frame|method))?"
# "what does it call", "whats it calling": the pronoun is the caller
_PRONOUN_CALLS = lazy(
    rf"\b(?:(?:does|do|did)\s+{_THIS}\s+(?:call|invoke)|(?:is|s)\s+{_THIS}\s+(?:calling|invoking))\b", re.I
)
_CALLS_PRONOUN = lazy(rf"\b(?:who|what|which\s+\w+)\s+(?:calls|invokes|call|invoke)\s+{_THIS}\b", re.I)
_PLURAL_AFTER = lazy(r"^\S*\s+(?:\w+\s+){0,2}?aanroepen\b")  # "welke functies X aanroepen": they call X


# the words a scene is described with ("this ruby service", "our prod vllm pod"); any other word before the noun
# may be a frame's own name ("in the tokenizer process")
_SCENE_WORDS = (
    r"ruby|python|java|jvm|go|golang|node|nodejs|dotnet|\.net|rust|vllm|kafka|web|api|inference|prod|production|"
    r"staging|k8s|kubernetes|aks|backend|frontend|grpc|http"
)
_SCENE = lazy(
    r"\b(?:in|on|of|for|from|op|van|voor)\s+(?:this|our|my|the|that|deze|dit|onze|ons|mijn|de|het)\s+"
    rf"(?:(?:{_SCENE_WORDS})\s+){{0,2}}"
    r"(?:service|app|application|server|box|machine|pod|container|job|worker|process|program|script|broker|host|"
    r"cluster|deployment|applicatie|dienst|proces|snapshot|dump|capture|recording|opname)\b",
    re.I,
)
_FROM_TO = lazy(r"\b(?:from|van|vanaf|vanuit)\s+\S+.*?\s(?:to|into|naar|tot)\s+(\S)", re.I)
# a path to what the last answer was about, from somewhere named on the way ("how do we get there from <module>")
_TO_IT_FROM = lazy(
    r"\b(?:(?:get|gets|getting|got|come|comes|end up|ends up|arrive|arrives)\s+there|to\s+(?:it|that|this)"
    r"(?:\s+one)?|daar(?:heen)?\s+(?:komen|komt|belanden|beland)|erheen|ernaartoe|daarnaartoe)\b"
    r".*\b(?:from|vanaf|vanuit)\b",
    re.I,
)
_PRONOUN = lazy(r"\b(?:it|this one|that one|this function|that function|this frame|that frame|hem|dat|dit)\b", re.I)


def _pronoun_at(text: str) -> int:
    found = list(_PRONOUN.finditer(text))
    return found[-1].start() if found else -1


def _direct(text: str, at: int, found: dict[str, int]) -> None:
    """Settle callers against callees by where the name stands (``found`` is changed in place)."""
    if not {"callers", "callees", "call_verb"} & set(found):
        return
    before, after = text[:at].casefold(), text[at:].casefold()
    where = min(found.get("callers", len(text)), found.get("callees", len(text)))
    if _PRONOUN_CALLS.search(text):  # "what does it call (underneath)": the pronoun is the caller
        way = "callees"
    elif _CALLS_PRONOUN.search(text):  # "scooterSearchHandler, who calls it": the pronoun is called
        way = "callers"
    elif _PASSIVE_BEFORE.search(before):
        way = "callees"
    elif _ACTIVE_BEFORE.search(before):
        active = _ACTIVE_BEFORE.search(before)
        assert active is not None
        singular = active.group(0).startswith("roept") and not re.search(r"\bwie\s+roept\s*$", before)
        way = "callees" if singular else "callers"  # "welke functies roept X aan": X calls them
    elif _PASSIVE_AFTER.search(after) or _PLURAL_AFTER.search(after):
        way = "callers"
    elif _ACTIVE_AFTER.search(after):
        # "what does X call", "welke functies X aanroept"; but "wie X aanroept" is who calls X
        way = "callers" if re.search(r"\bwie\s+(?:\S+\s+)?$", before) else "callees"
    else:
        return
    found.pop("callers", None)
    found.pop("callees", None)
    found[way] = where


def _implicit(
    tokens: list[str], text: str, found: dict[str, int], names: Names, context: Context, *, loose: bool = True
) -> Subject | None:
    """A subject the question does not write out: an ordinal, a concept, or (``loose``) a fuzzy match."""
    n = subjects.ordinal(tokens, text)
    if n is not None and count_in(text) is None and 0 < n <= len(context.ranking):
        return Subject("function", context.ranking[n - 1], "ordinal")
    concept = next((c.removeprefix("concept:") for c in found if c.startswith("concept:")), None)
    if concept is not None and _RELATION & set(found):
        # "callers of mallocgc": a concept word that is a function's own name, asked about calls, is that function
        word = tokens[found["concept:" + concept]]
        own = names.resolve(word, strict=True, member_ok=True) if len(word) >= 6 else None
        if own is not None and subjects.own_name(word, own):
            return Subject("function", own, "concept")
    if concept in HOMONYMS and concept not in names.by_category:
        # a concept word is checked against the profile first: "the scheduler" of a vLLM profile
        # with no runtime scheduler frames is vLLM's own Scheduler
        own = names.own_function(tokens[found["concept:" + concept]])
        if own is not None and knowledge.classify(own) != concept:
            return Subject("function", own, "concept")
    fuzzy, strength = subjects.fuzzy(tokens, names) if loose else (None, 0)
    if fuzzy is not None and (concept is None or strength >= 2):
        members = subjects.group(tokens, names) if _group_words(tokens) or "overall" in found else ()
        if len(members) > 1:  # "the detokenisation in total", "all the decode functions"
            return Subject("function", members[0], "fuzzy", members=members)
        return Subject("function", fuzzy, "fuzzy")
    if loose and fuzzy is None and concept is None and _group_words(tokens):
        members = subjects.group(tokens, names, whole=True)  # "all the flush functions": one whole word will do
        if members:
            return Subject("function", members[0], "fuzzy", members=members)
    asks_share = "howmuch" in found and ("use" in found or "overall" in found)
    if loose and fuzzy is None and concept is None and asks_share and _NAMING_PREPOSITION & set(tokens):
        # "hoeveel % gaat naar redis", "how much goes to redis": every function named with that word, unless
        # the word names most of the profile (a package every label carries)
        members = subjects.group(tokens, names, limit=GROUP_LIMIT, whole=True)
        if 0 < len(members) < GROUP_LIMIT:
            return Subject("function", members[0], "fuzzy", members=members)
    as_function = concept not in RUNTIME_KINDS and "function_word" in found  # "the kv cache allocation"
    if concept is not None and as_function and concept in names.by_category:
        return Subject("function", names.by_category[concept], "concept")
    if concept is not None:
        return Subject("concept", concept, "concept")
    return None


def _group_words(tokens: list[str]) -> bool:
    """ "all the flush functions", "alle decode functies", but not "all the cpu" (a resource, not a group)."""
    lex = lexicon()
    for i, t in enumerate(tokens):
        if t not in _GROUP_WORDS:
            continue
        rest = [w for w in tokens[i + 1 : i + 3] if w not in ("the", "de", "het", "of", "van", "these", "those", "die")]
        if not rest or not lex.knows(rest[0]) or t in ("together", "samen", "combined"):
            return True
    return False


_RELATION = frozenset({"callers", "callees", "chain", "call_verb", "leads"})
GROUP_LIMIT = 25
_NAMING_PREPOSITION = frozenset({"to", "into", "in", "on", "naar", "aan", "op"})
_GROUP_WORDS = frozenset({"all", "alle", "together", "samen", "combined", "everything", "alles"})


def _scores(found: set[str], subject: Subject | None) -> dict[str, float]:
    best: dict[str, float] = {}
    for sig in SIGNATURES:
        if not _fits(sig, found, subject):
            continue
        score = sig.weight + HINT_BONUS * len(found & HINTS.get(sig.intent, frozenset()))
        if score > best.get(sig.intent, 0.0):
            best[sig.intent] = score
    return best


def _fits(sig: Signature, found: set[str], subject: Subject | None) -> bool:
    if not all(group & found for group in sig.groups):
        return False
    kind = subject.kind if subject is not None else None
    return {
        "any": True,
        "none": kind is None,
        "function": kind == "function",
        "frame": kind in ("function", "missing"),
        "concept": kind == "concept",
        "named": kind is not None,
        "written": kind is not None and subject is not None and subject.how != "fuzzy",  # named, not described
    }[sig.subject]
