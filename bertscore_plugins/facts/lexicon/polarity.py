"""Negation cues, the words that end a negation's scope, and words of opposite meaning."""

from __future__ import annotations

from bertscore_plugins.facts.lexicon.words import listed

#: verbal negation. "no" and "without" are left out: "at no cost" and "without a deposit" are
#: paraphrases of positive statements far more often than they negate a claim.
NEGATION_CUES = {"not", "n't", "never", "cannot", "neither", "nor", "nobody", "nothing", "none", "nowhere"}
NEGATION_PHRASES = (("no", "longer"), ("no", "one"))

#: words that end a clause for the scope of a negation
CLAUSE_WORDS = {"but", "although", "though", "whereas", "while", "however", "yet", "because", "so"}

#: words that say something is allowed or harmless: restating a context clause that forbids it ("should
#: not be given") is a polarity error even without a negation in the output
PERMISSIVE = frozenset(
    {"safe", "safely", "harmless", "allowed", "permitted", "recommended", "suitable", "fine", "ok", "okay"}
)
#: pairs of words with opposite meaning; a word aligned to its antonym is a polarity error just as "not" is
ANTONYM_PAIRS = tuple(
    tuple(pair.split("/"))
    for pair in listed("""
    cancelled/delayed canceled/delayed cancelled/postponed canceled/postponed approve/reject accept/reject
    accept/refuse allow/forbid allow/prohibit allow/ban permit/forbid permit/prohibit include/exclude
    increase/decrease increase/reduce rise/fall rose/fell grew/fell grow/shrink grew/shrank profit/loss
    raise/lower win/lose won/lost pass/fail succeed/fail success/failure open/close open/closed
    higher/lower more/less more/fewer above/below before/after maximum/minimum true/false confirm/deny
    guilty/innocent alive/dead legal/illegal safe/dangerous cheap/expensive early/late earlier/later
    gain/loss buy/sell bought/sold arrive/depart enter/exit start/end begin/end first/last
    support/oppose agree/disagree mandatory/optional required/optional public/private male/female
    north/south east/west acquit/convict import/export
    """)
)
#: prefixes that negate the word they are put on ("unavailable" vs "available")
NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non", "non-")

#: words that negate by themselves: "not" on one of them is a double negation, a positive ("never failed
#: to call": called every time). Verbs of not doing in their forms, and adjectives whose negating prefix is
#: not "un" (for "un", see UN_ENDINGS: "in-", "im-", "dis-" begin too many plain words: "important")
NEGATIVE_WORDS = frozenset(
    listed("""fail fails failed failing lack lacks lacked lacking refuse refused refuses deny denied denies
    forget forgot forgotten neglect neglected cease ceased absent unable impossible improbable illegal
    illogical irregular irrelevant inappropriate insufficient incorrect invalid inaccurate incomplete
    inadequate inconsistent ineffective infrequent insignificant impractical dishonest disagree dislike""")
)
#: "un" on a word of four letters or more with one of these (adjective and adverb) endings makes a negative
#: word ("unlikely", "uncommon", "unusual"); the words of NOT_UN_WORDS only begin with the letters
UN_ENDINGS = ("ly", "able", "ible", "ful", "al", "ant", "ent", "ive", "ous", "ic", "ar", "ary", "on", "ear")
NOT_UN_WORDS = frozenset(listed("universal unanimous unilateral union unicorn uniform"))
