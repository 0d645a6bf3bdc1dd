"""Number words, scales, ordinals, units and the hedges before a number."""

from __future__ import annotations

from bertscore_plugins.facts.lexicon.words import listed

UNITS = {
    word: value
    for value, word in enumerate(
        listed(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
        )
        + listed("sixteen seventeen eighteen nineteen")
    )
}
TENS = {
    word: 10 * (k + 2)
    for k, word in enumerate(listed("twenty thirty forty fifty sixty seventy eighty ninety"))
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

_ORDINAL_WORDS = """first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth
thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"""
ORDINALS = {
    **{word: k + 1 for k, word in enumerate(listed(_ORDINAL_WORDS))},
    **{
        word: 10 * (k + 3)
        for k, word in enumerate(
            listed("thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth")
        )
    },
    "hundredth": 100,
}
#: "first" and "second" mostly mean "earlier" and "a moment": only counted inside a date
AMBIGUOUS_ORDINALS = {"first", "second"}

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

#: units after which a number from 1800 to 2100 is a quantity, not a year
MEASURES = set(
    listed("""metre kilometre mile foot yard kilogram gram pound tonne ton litre dollar euro yen percent person
    people calorie hour minute second day week month year room seat job employee worker student unit acre
    hectare watt kilowatt point vote mark""")
)
#: count nouns that say how many people in general: "5,000 people" carries "5,000 employees" and the reverse
PEOPLE = frozenset(listed("people person individual"))
#: count nouns of people, each carried by a count of PEOPLE (not by one another: residents are not visitors)
PEOPLE_COUNTED = frozenset(
    listed("""employee staff worker staffer resident inhabitant citizen member fan spectator visitor patient
    student pupil voter participant passenger runner attendee adult child customer user""")
)
#: count nouns that name the same people ("5,000 staff" is "5,000 employees")
SAME_PEOPLE = (frozenset(listed("employee staff worker staffer")),)
CURRENCY = {
    "$": "dollar",
    "€": "euro",
    "£": "pound",
    "¥": "yen",
    "usd": "dollar",
    "eur": "euro",
    "gbp": "pound",
}
UNIT_ALIASES = {
    "m": "metre",
    "meter": "metre",
    "kilometer": "kilometre",
    "centimeter": "centimetre",
    "liter": "litre",
    "min": "minute",
    "mins": "minute",
    "hr": "hour",
    "hrs": "hour",
    "yr": "year",
    "yrs": "year",
    "sec": "second",
    "secs": "second",
    "km": "kilometre",
    "kg": "kilogram",
    "cm": "centimetre",
    "mm": "millimetre",
    "percent": "percent",
    "pct": "percent",
    "%": "percent",
    "euros": "euro",
    "dollars": "dollar",
    "pounds": "pound",
    "people": "person",
    "men": "man",
    "women": "woman",
    "children": "child",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "am": "am",  # "9 am": a time of day, not the verb (after a number only: units are read there)
}

#: words after "no" that make no count of zero ("no longer", "no doubt", "no matter")
NOT_COUNTED = set(listed("longer doubt matter way one"))
