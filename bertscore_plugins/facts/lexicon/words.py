"""Function words, titles and abbreviations: what is never a fact, and what a sentence does not end at."""

from __future__ import annotations


def listed(text: str) -> list[str]:
    """The words of a whitespace-separated list (the lists here are written as running text)."""
    return text.split()


#: what sequence models write for a word outside their vocabulary ("UNK", "<unk>", "[UNK]"): a gap in
#: the output, not a claim, so neither a name to check nor a word the source must write
PLACEHOLDERS = {"unk"}

#: titles after which a capitalised word is a person's name
TITLES = set(listed("mr mrs ms dr prof sir dame lord lady st mt gen col capt sgt rev president judge"))
#: abbreviations whose full stop does not end a sentence
ABBREVIATIONS = TITLES | set(listed("vs etc inc ltd co jr sr no fig approx e.g i.e u.s"))
#: the words before "not" that make it a verb's negation ("did not", "is not")
AUXILIARIES = set(
    listed("do does did is are was were has have had will would can could should must may might")
)

#: the forms of "be": a word after one is a predicate ("is free", "was not open")
BE_FORMS = set(listed("is are was were be been being 's 're am"))

#: function words: never a fact's unit, never an entity, never counted when aligning clauses
STOPWORDS = set(
    listed("""
a an the and or but if then else of in on at to for from by with without about into onto over under
after before between through during above below up down out off than as so such that this these those
there here where when which who whom whose what why how is are was were be been being am do does did
done doing have has had having will would shall should can could may might must i me my mine we us our
ours you your yours he him his she her hers it its they them their theirs one ones some any all each
every both either no nor not only own same too very just also even still yet again further once more
most other another much many few less least several per via upon within across along around near off
since until till unto among amongst whether because while although though however ll re ve 's s t d m 't
n't mr mrs ms dr please let lets get got gets
""")
)
