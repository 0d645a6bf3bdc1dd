"""Non-English text is not fact-checked (the word lists are English): reported "not checked", never
"all supported", so a verbatim copy in another language is not vouched for as faithful."""

from __future__ import annotations

import pytest

from bertscore_plugins.facts import NOT_CHECKED, check_pair, extract
from bertscore_plugins.facts.language import MIN_ENGLISH_SHARE, english_share, is_english

#: one short news paragraph per language (a bridge opening: a month, a year, an amount, a negation)
TEXTS = {
    "indonesian": "Pemerintah kota mengumumkan bahwa jembatan baru di atas sungai itu akan dibuka pada bulan "
    "Maret 2019. Jembatan tersebut dibangun dengan biaya 12 miliar rupiah dan dapat dilalui oleh kendaraan berat.",
    # Turkish writes the dotless i (U+0131)
    "turkish": "Belediye, nehir üzerindeki yeni köprünün Mart 2019'da açılacağını duyurdu. Köprü 12 milyar "  # noqa: RUF001
    "liraya mal oldu ve ağır araçlar da köprüyü kullanabilecek. Bu proje için çok çalışıldı.",  # noqa: RUF001
    "polish": "Władze miasta ogłosiły, że nowy most na rzece zostanie otwarty w marcu 2019 roku. Most kosztował "
    "12 miliardów złotych i jest przystosowany do ruchu ciężkich pojazdów, ale nie dla pieszych.",
    "swahili": "Serikali ya mji imetangaza kwamba daraja jipya juu ya mto litafunguliwa mwezi Machi 2019. Daraja "
    "hilo lilijengwa kwa gharama ya shilingi bilioni 12 na magari makubwa pia yanaweza kulitumia.",
    "finnish": "Kaupunki ilmoitti, että joen yli rakennettu uusi silta avataan maaliskuussa 2019. Silta maksoi "
    "12 miljardia euroa ja se on myös raskaiden ajoneuvojen käytössä, mutta ei jalankulkijoiden.",
}
ENGLISH = (
    "The city announced that the new bridge over the river will open in March 2019. It cost 12 billion "
    "euros and heavy vehicles can use it, but it is not open to people on foot."
)


@pytest.mark.parametrize("language", sorted(TEXTS))
def test_a_verbatim_copy_in_another_language_is_not_checked(language):
    text = TEXTS[language]
    assert not is_english(extract(text))
    check = check_pair(text, text)
    assert check.label == NOT_CHECKED and check.checked is False
    assert check.explanation == "facts not checked: the fact check reads English text only"
    first_sentence = text.split(". ")[0] + "."
    assert check_pair(first_sentence, text).label == NOT_CHECKED


def test_english_is_checked_and_its_share_of_function_words_is_far_above_the_cut():
    facts = extract(ENGLISH)
    assert is_english(facts) and english_share(facts) > 3 * MIN_ENGLISH_SHARE
    assert check_pair("The bridge will open in March 2019.", ENGLISH).label == "supported"
    assert check_pair("The bridge will open in May 2019.", ENGLISH).label == "unsupported"
    assert max(english_share(extract(text)) for text in TEXTS.values()) < 1.5 * MIN_ENGLISH_SHARE


@pytest.mark.parametrize(
    "text",
    [
        "Paris.",
        "Discharged on Thursday.",
        "crawley town have signed right-back glenn groves from non-league side leway town.",
        "Ingredients: flour, sugar, two eggs and butter.",
    ],
)
def test_short_or_terse_english_is_still_english(text):
    assert is_english(extract(text))
