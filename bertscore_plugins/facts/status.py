"""Event and thing status: "the train left on time" against "the train was delayed by 20 minutes".

Word lists in lexicon/status.py group the states that exclude each other (on time / late, open / closed,
free / paid, went ahead / called off ...). An output clause that says one state, plainly, is unsupported
when the context never says that state and says another state of the same group, plainly, close to a
word of the output's clause (the thing both speak of: "train"). Without such a shared word the context
may speak of something else, and nothing is flagged.
"""

from __future__ import annotations

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.findings import Finding
from bertscore_plugins.facts.text import TextFacts, stem

#: the context's state and the shared word must be this close (in words, same sentence)
NEAR = 8

#: stem of the first word of each phrase -> (group, state, the phrase's stems), longest phrases first
_BY_FIRST_WORD: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {}
for _group, _states in lx.STATUS_GROUPS.items():
    for _state, _phrases in _states.items():
        for _phrase in _phrases:
            _stems = tuple(stem(word) for word in _phrase)
            _BY_FIRST_WORD.setdefault(_stems[0], []).append((_group, _state, _stems))
for _entries in _BY_FIRST_WORD.values():
    _entries.sort(key=lambda entry: -len(entry[2]))
#: words before a state that deny it ("not free" is read by the negation check; "no" and "without" here)
_DENIED = {"no", "without", "not", "never", "n't"}


def states(facts: TextFacts) -> list[tuple[int, int, str, str]]:
    """(first word, last word, group, state) of every state phrase the text says plainly (not negated)."""

    def build(f: TextFacts) -> list[tuple[int, int, str, str]]:
        found, k = [], 0
        stems = f.derived("word_stems", lambda t: [stem(w.lower) for w in t.words])
        while k < len(f.words):
            match = next(
                (
                    (group, state, phrase)
                    for group, state, phrase in _BY_FIRST_WORD.get(stems[k], ())
                    if tuple(stems[k : k + len(phrase)]) == phrase
                ),
                None,
            )
            if match is None:
                k += 1
                continue
            group, state, phrase = match
            if not f.negated[k] and (k == 0 or f.words[k - 1].lower not in _DENIED):
                found.append((k, k + len(phrase) - 1, group, state))
            k += len(phrase)
        return found

    return facts.derived("states", build)


def check_status(out: TextFacts, ctx: TextFacts) -> list[Finding]:
    """One finding per output state that the context contradicts about the same thing."""
    said = {(group, state) for _, _, group, state in states(ctx)}
    findings = []
    for first, last, group, state in states(out):
        if (group, state) in said:
            continue
        others = _contrary(ctx, group, state)
        if not others:
            continue
        shared = _shared_stems(out, first, last)
        against = next((s for s in others if _near_shared(ctx, s[0], shared)), None)
        if against is not None:
            text = out.text[out.words[first].start : out.words[last].end]
            says = ctx.text[ctx.words[against[0]].start : ctx.words[against[1]].end]
            findings.append(Finding("status", text, False, says))
    return findings


def _contrary(ctx: TextFacts, group: str, state: str) -> list[tuple[int, int, str, str]]:
    """The context's states that contradict ``state`` of ``group``, in text order (listed once per
    context and state: a long output says the same states many times)."""
    found: dict[tuple[str, str], list[tuple[int, int, str, str]]] = ctx.derived(
        "contrary_states", lambda f: {}
    )
    if (group, state) not in found:
        excluded = lx.EXCLUDED_ACROSS_GROUPS.get((group, state), ())
        found[group, state] = [
            s for s in states(ctx) if (s[2] == group and s[3] != state) or (s[2], s[3]) in excluded
        ]
    return found[group, state]


def _shared_stems(out: TextFacts, first: int, last: int) -> set[str]:
    """The stems of the content words of the output's sentence around the state (what it is said of)."""
    sentence = out.words[first].sentence
    return {
        stem(w.lower)
        for k in out.sentence_words(sentence)
        if not first <= k <= last
        and (w := out.words[k]).text[:1].isalpha()
        and w.lower not in lx.STOPWORDS
        and stem(w.lower) not in _BY_FIRST_WORD
    }


def _near_shared(ctx: TextFacts, at: int, shared: set[str]) -> bool:
    sentence = ctx.words[at].sentence
    return any(
        abs(k - at) <= NEAR and stem(ctx.words[k].lower) in shared
        for k in ctx.sentence_words(sentence)
        if k != at
    )
