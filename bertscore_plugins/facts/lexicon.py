"""The closed word lists the fact check reads: numbers, calendar words, negation cues, antonyms.

Every list here is small and closed on purpose: a fact is only checked where the words themselves say
what kind of fact it is, so an open-ended paraphrase is never mistaken for one.
"""

from __future__ import annotations

UNITS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
SCALES = {
    "hundred": 100,
    "thousand": 1_000,
    "million": 1_000_000,
    "billion": 1_000_000_000,
    "trillion": 1_000_000_000_000,
    "bn": 1_000_000_000,
    "m": 1_000_000,
    "k": 1_000,
}
#: words that only scale a number written in digits ("5m", "1.5bn"), never stand alone
DIGIT_ONLY_SCALES = {"m", "k", "bn"}
DOZEN = {"dozen": 12}

ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
    "twentieth": 20,
    "thirtieth": 30,
    "fortieth": 40,
    "fiftieth": 50,
    "sixtieth": 60,
    "seventieth": 70,
    "eightieth": 80,
    "ninetieth": 90,
    "hundredth": 100,
}
#: "first" and "second" mostly mean "earlier" and "a moment": only counted inside a date
AMBIGUOUS_ORDINALS = {"first", "second"}

WEEKDAYS = {
    "monday": "Monday",
    "tuesday": "Tuesday",
    "wednesday": "Wednesday",
    "thursday": "Thursday",
    "friday": "Friday",
    "saturday": "Saturday",
    "sunday": "Sunday",
}
MONTHS = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
#: month words that are also everyday words: a month only next to a day number or when capitalised
AMBIGUOUS_MONTHS = {
    "may",
    "march",
    "jan",
    "mar",
    "dec",
    "sep",
    "oct",
    "nov",
    "aug",
    "jun",
    "jul",
    "apr",
    "feb",
}

#: what sequence models write for a word outside their vocabulary ("UNK", "<unk>", "[UNK]"): a gap in
#: the output, not a claim, so neither a name to check nor a word the source must write
PLACEHOLDERS = {"unk"}

#: how many of the second unit make one of the first: a number the context gives in another unit of the
#: same measure is carried when it converts ("1.2 kilometres" for "1,190 metres", "four weeks" for "28 days")
CONVERSIONS = {
    ("kilometre", "metre"): 1000.0,
    ("metre", "centimetre"): 100.0,
    ("centimetre", "millimetre"): 10.0,
    ("metre", "millimetre"): 1000.0,
    ("mile", "yard"): 1760.0,
    ("foot", "inch"): 12.0,
    ("yard", "foot"): 3.0,
    ("kilogram", "gram"): 1000.0,
    ("tonne", "kilogram"): 1000.0,
    ("litre", "millilitre"): 1000.0,
    ("week", "day"): 7.0,
    ("day", "hour"): 24.0,
    ("hour", "minute"): 60.0,
    ("minute", "second"): 60.0,
    ("year", "month"): 12.0,
}

#: verbal negation. "no" and "without" are left out: "at no cost" and "without a deposit" are
#: paraphrases of positive statements far more often than they negate a claim.
NEGATION_CUES = {"not", "n't", "never", "cannot", "neither", "nor", "nobody", "nothing", "none", "nowhere"}
NEGATION_PHRASES = (("no", "longer"), ("no", "one"))

#: words that end a clause for the scope of a negation
CLAUSE_WORDS = {"but", "although", "though", "whereas", "while", "however", "yet", "because", "so"}

#: pairs of words with opposite meaning (stems as stem() returns them); a word aligned to its antonym is
#: a polarity error just as "not" is.
#: words before a number that make it approximate: (phrase, kind), longest phrases first. "about": within
#: 10%; "over": the true value is at or above it (up to 25% more); "under": at or below it (up to 25% less)
APPROXIMATORS = (
    ("no more than", "under"),
    ("not more than", "under"),
    ("no less than", "over"),
    ("no fewer than", "over"),
    ("just over", "over"),
    ("just under", "under"),
    ("more than", "over"),
    ("less than", "under"),
    ("fewer than", "under"),
    ("close to", "about"),
    ("up to", "under"),
    ("at least", "over"),
    ("over", "over"),
    ("under", "under"),
    ("almost", "under"),
    ("nearly", "under"),
    ("about", "about"),
    ("around", "about"),
    ("roughly", "about"),
    ("approximately", "about"),
    ("some", "about"),
)
#: words that say something is allowed or harmless: restating a context clause that forbids it ("should
#: not be given") is a polarity error even without a negation in the output
PERMISSIVE = frozenset(
    {"safe", "safely", "harmless", "allowed", "permitted", "recommended", "suitable", "fine", "ok", "okay"}
)
ANTONYM_PAIRS = (
    # event status: the same event cannot be both
    ("cancelled", "delayed"),
    ("canceled", "delayed"),
    ("cancelled", "postponed"),
    ("canceled", "postponed"),
    ("approve", "reject"),
    ("accept", "reject"),
    ("accept", "refuse"),
    ("allow", "forbid"),
    ("allow", "prohibit"),
    ("allow", "ban"),
    ("permit", "forbid"),
    ("permit", "prohibit"),
    ("include", "exclude"),
    ("increase", "decrease"),
    ("increase", "reduce"),
    ("rise", "fall"),
    ("rose", "fell"),
    ("grew", "fell"),
    ("grow", "shrink"),
    ("grew", "shrank"),
    ("profit", "loss"),
    ("raise", "lower"),
    ("win", "lose"),
    ("won", "lost"),
    ("pass", "fail"),
    ("succeed", "fail"),
    ("success", "failure"),
    ("open", "close"),
    ("open", "closed"),
    ("higher", "lower"),
    ("more", "less"),
    ("more", "fewer"),
    ("above", "below"),
    ("before", "after"),
    ("maximum", "minimum"),
    ("true", "false"),
    ("confirm", "deny"),
    ("guilty", "innocent"),
    ("alive", "dead"),
    ("legal", "illegal"),
    ("safe", "dangerous"),
    ("cheap", "expensive"),
    ("early", "late"),
    ("earlier", "later"),
    ("gain", "loss"),
    ("profit", "loss"),
    ("buy", "sell"),
    ("bought", "sold"),
    ("arrive", "depart"),
    ("enter", "exit"),
    ("start", "end"),
    ("begin", "end"),
    ("first", "last"),
    ("support", "oppose"),
    ("agree", "disagree"),
    ("mandatory", "optional"),
    ("required", "optional"),
    ("public", "private"),
    ("male", "female"),
    ("north", "south"),
    ("east", "west"),
    ("acquit", "convict"),
    ("import", "export"),
)
#: prefixes that negate the word they are put on ("unavailable" vs "available")
NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non", "non-")

#: titles after which a capitalised word is a person's name
TITLES = {
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "sir",
    "dame",
    "lord",
    "lady",
    "st",
    "mt",
    "gen",
    "col",
    "capt",
    "sgt",
    "rev",
    "president",
    "judge",
}
#: abbreviations whose full stop does not end a sentence
ABBREVIATIONS = TITLES | {
    "vs",
    "etc",
    "inc",
    "ltd",
    "co",
    "jr",
    "sr",
    "no",
    "fig",
    "approx",
    "e.g",
    "i.e",
    "u.s",
}

#: function words: never a fact's unit, never an entity, never counted when aligning clauses
_STOPWORD_TEXT = """
a an the and or but if then else of in on at to for from by with without about into onto over under
after before between through during above below up down out off than as so such that this these those
there here where when which who whom whose what why how is are was were be been being am do does did
done doing have has had having will would shall should can could may might must i me my mine we us our
ours you your yours he him his she her hers it its they them their theirs one ones some any all each
every both either no nor not only own same too very just also even still yet again further once more
most other another much many few less least several per via upon within across along around near off
since until till unto among amongst whether because while although though however ll re ve 's s t d m 't
n't mr mrs ms dr please let lets get got gets
"""
STOPWORDS = set(_STOPWORD_TEXT.split())
#: frequent function words of English and of the other languages most often met in Latin script: a text
#: with more of the others than of English reads as another language (its numbers, names and negations
#: would be misread by English word lists), and so does a text whose letters are mostly not Latin
ENGLISH_WORDS = frozenset(
    [
        "the",
        "of",
        "and",
        "to",
        "is",
        "was",
        "a",
        "an",
        "for",
        "on",
        "that",
        "with",
        "it",
        "as",
        "by",
        "at",
        "be",
        "are",
        "were",
        "from",
        "this",
        "has",
        "have",
        "had",
        "not",
        "no",
        "than",
        "he",
        "she",
        "they",
        "we",
        "you",
        "his",
        "her",
        "their",
        "its",
        "or",
        "but",
        "will",
        "would",
        "said",
        "which",
        "who",
        "should",
        "can",
        "may",
        "must",
        "more",
        "after",
        "before",
        "there",
        "been",
        "one",
        "do",
        "does",
        "did",
        "if",
        "up",
        "out",
        "about",
        "what",
        "when",
        "only",
        "my",
        "your",
        "our",
        "them",
        "in",
    ]
)
OTHER_LANGUAGE_WORDS = frozenset(
    [
        "der",
        "die",
        "das",
        "und",
        "ist",
        "nicht",
        "ein",
        "eine",
        "einen",
        "dem",
        "den",
        "wurde",
        "wird",
        "sind",
        "mit",
        "von",
        "zu",
        "auf",
        "für",
        "im",
        "nach",
        "bei",
        "aus",
        "sich",
        "le",
        "la",
        "les",
        "et",
        "est",
        "une",
        "des",
        "du",
        "au",
        "aux",
        "pour",
        "avec",
        "sur",
        "dans",
        "pas",
        "qui",
        "que",
        "ce",
        "cette",
        "été",
        "sont",
        "el",
        "los",
        "las",
        "y",
        "es",
        "una",
        "por",
        "con",
        "para",
        "del",
        "se",
        "het",
        "een",
        "zijn",
        "niet",
        "il",
        "di",
        "che",
        "non",
        "sono",
        "della",
        "nel",
        "gli",
        "não",
        "com",
        "uma",
        "os",
    ]
)
