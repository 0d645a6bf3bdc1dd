"""An empty answer or a refusal is its own outcome, read by one rule (faithfulness/outcome.py), before any
signal or judge: never "faithful", never "unfaithful". Every door's label is checked in
tests/integrations/test_one_answer_on_every_door.py; here the rule itself, with no model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bertscore_plugins.evaluation.cells import Cell, DisagreementMetadata
from bertscore_plugins.evaluation.disagreement import Thresholds, disagreement_cells
from bertscore_plugins.faithfulness.outcome import ABSTAINED, EMPTY, answer_outcome
from bertscore_plugins.faithfulness.reading import plain_text

LABELLED = Path(__file__).resolve().parents[2] / "benchmarks" / "quality" / "answer_outcomes_dev.jsonl"
NO_CONTENT = ["", " ", "\n\t ", "\U0001f642\U0001f389", "?!...", "\u2014 \u2026", "***", "<p></p>", "\u200b"]
REFUSALS = [
    "I don't know.",
    "I do not know",
    "I don\u2019t know. Please consult your doctor.",
    "The context does not say.",
    "The provided context doesn't mention the discharge date.",
    "There is no information about the dosage in the documents.",
    "I'm sorry, but I don't know.",
    "I'm sorry, I cannot answer that from the documents.",
    "Based on the provided context, I cannot determine when he left.",
    "This cannot be determined from the context.",
    "Not enough information.",
    "Unknown.",
    "N/A",
    "Not mentioned in the context.",
    "I'm not sure.",
    '"I don\'t know."',
    "I don't know when the clinic opens on Sundays.",
]
ANSWERS = [
    "The patient was discharged on Thursday.",
    "It was Tuesday.",
    "42",
    "\u4e1c\u4eac\u662f\u65e5\u672c\u7684\u9996\u90fd\u3002",
    "The context does not say, but it was Tuesday.",  # a refusal that claims something anyway
    "I don't know. He was discharged on Thursday.",
    "None of the patients died.",
    "No evidence of infection was found.",
    "There is no evidence of cancer.",
    "Unknown gunmen attacked the village.",
    "The records do not show any infection.",
    "I can't say that I'm really objective.",  # a that-clause is a claim
    "I can't say with certainty that Richard Giffe is innocent.",
    "\"I don't know whether the person I'm talking to now may end up being someone else,\" Parrish said.",
    "I am not sure if you can open a bank account in France if you are not a resident.",
]


# Refusals in the wordings RAG systems and chat models produce.
ORDINARY_REFUSALS = [
    "I'm afraid I can't help with that.",
    "Sorry, that information isn't in the documents.",
    "The answer is not in the context.",
    "It is not mentioned.",
    "I'm unable to answer that based on the given text.",
    "There's no mention of the author in the sources.",
    "No information is provided about the fees.",
    "That is not something I can answer from the sources.",
    "The retrieved passages do not address this question.",
    "Unfortunately, I couldn't find the opening times.",
    "I don't have access to that information.",
    "It's unclear from the context.",
    "Nothing in the passages answers this.",
    "The source material doesn't cover that topic.",
    "Hmm, I'm not certain.",
    "Apologies, but I'm not able to answer that.",
    "I don't have that information. Please check with your pharmacist.",
    "The answer cannot be found in the context.",
    "That's not covered in the documents.",
    "I am not able to answer this question based on the context provided.",
    "Not specified in the documents.",
]
#: "I don't know" (and its kin) in the most used languages, and some more
DONT_KNOW = {
    "zh": ["我不知道。", "上下文中没有提到。", "抱歉，我无法回答这个问题。"],
    "es": ["No lo sé.", "No sé.", "Lo siento, el contexto no lo menciona."],
    "hi": ["मुझे नहीं पता।", "मैं नहीं जानता।", "मुझे इसका उत्तर नहीं पता।"],
    "ar": ["لا أعرف.", "لا أَعْرِف", "عذراً، لا توجد معلومات في السياق."],
    "fr": ["Je ne sais pas.", "Je ne connais pas la réponse.", "Désolé, je n\u2019ai pas cette information."],
    "bn": ["আমি জানি না।"],
    "pt": ["Não sei.", "Eu não sei.", "O contexto não menciona isso."],
    "ru": ["Я не знаю.", "Не знаю.", "В контексте это не указано."],
    "ja": ["わかりません。", "申し訳ありませんが、文書に記載されていません。"],
    "de": ["Ich weiß es nicht.", "Weiß ich nicht.", "Das steht leider nicht im Text."],
    "id": ["Saya tidak tahu."],
    "ko": ["모르겠습니다.", "죄송합니다. 답변할 수 없습니다."],
    "it": ["Non lo so.", "Mi dispiace, non lo so."],
    "tr": ["Bilmiyorum.", "Üzgünüm, bilmiyorum."],
    "vi": ["Tôi không biết."],
    "pl": ["Nie wiem."],
    "nl": ["Ik weet het niet."],
    "fa": ["نمی\u200cدانم."],
    "uk": ["Я не знаю."],
    "he": ["אני לא יודע."],
    "el": ["Δεν ξέρω."],
    "sw": ["Sijui."],
    "th": ["ฉันไม่รู้"],
    "ur": ["مجھے نہیں معلوم۔"],
}
#: what surrounds or splits the words without changing them for a reader
INVISIBLE = {
    "right-to-left mark": "\u200fI don't know.\u200f",
    "left-to-right mark": "\u200eI don't know.",
    "byte order mark": "\ufeffI don't know.",
    "zero-width space": "\u200bI\u200b don't know.\u200b",
    "zero-width joiner": "I do\u200dn't know.",
    "word joiner": "\u2060I don't know.",
    "soft hyphen": "I don't kno\u00adw.",
    "no-break spaces": "I\u00a0don't\u00a0know.",
    "bidi isolate": "\u2067I don't know.\u2069",
    "bidi embedding": "\u202bI don't know.\u202c",
    "arabic letter mark": "\u061cلا أعرف.",
    "markdown bold": "**I don't know.**",
    "markdown italic": "_I don't know._",
    "markdown quote": "> I don't know.",
    "markdown heading": "## I don't know.",
    "html paragraph": "<p>I don't know.</p>",
    "fullwidth letters": "Ｉ ｄｏｎ'ｔ ｋｎｏｗ.",
    "curly apostrophe": "I don\u2019t know.",
    "ideographic space": "我\u3000不知道。",
}
#: an answer that declines in part and claims something anyway: the claim must be fact-checked
CLAIMS_AFTER_HEDGES = [
    "I can't find the date, it was 12 March.",
    "I'm not a doctor. Take 500 mg of paracetamol every 6 hours.",
    "There is no information about fees, so the service is free.",
    "No.",
    "Not that I know of, but it opens at 9.",
    "I'm not sure, but I think the clinic opens at 8 am.",
    "I don't know exactly; it was around 40 people.",
    "The documents don't mention it, however the fee is 20 pounds.",
    "I don't know. Please take 500 mg every 6 hours.",
    "I'm not a lawyer. You have 30 days to appeal.",
    "No mention of parking, so you can park anywhere.",
    "I don't know the exact time but it starts in the morning.",
    "I don't know the date and the patient died.",
    "Honestly I don't know, it might be the mayor.",
    "Sorry. Your appointment is on Monday.",
    "\u200fI don't know, but it was Tuesday.\u200f",
    "**I'm not sure.** The fee is 15 dollars.",
    "Je ne sais pas, mais il est parti mardi.",
    "No lo sé, pero abre a las 9.",
    "Ich weiß es nicht, aber es war Dienstag.",
    "我不知道，但是他周二出院了。",
    "لا أعرف، لكن العيادة تفتح في التاسعة.",
    "Não sei, então o serviço é gratuito.",
    "मुझे नहीं पता, लेकिन क्लिनिक 9 बजे खुलता है।",
    "Не знаю, поэтому услуга бесплатна.",
    "わかりませんが、診療所は9時に開きます。",
    "모르겠습니다. 하지만 병원은 9시에 엽니다.",
]
#: yes/no and short answers claim something; so do negations that look like a refusal
ANSWERS_THAT_LOOK_LIKE_REFUSALS = [
    "No.",
    "Yes.",
    "Nope.",
    "None.",
    "Nobody.",
    "Never.",
    "Non.",
    "Nein.",
    "Нет.",
    "不是。",
    "لا.",
    "いいえ。",
    "There was no information desk at the station.",
    "The dose is not given to children.",
    "The mayor does not know the answer, she told reporters.",
    "Er weiß nicht, wo sie wohnt.",
    "No se registraron muertes.",
    "他没有提到价格。",
    "医院不能提供床位。",
    "Dia tidak tahu jalan ke rumah sakit.",
    "הוא לא יודע איפה היא גרה.",
]


@pytest.mark.parametrize("answer", ORDINARY_REFUSALS)
def test_a_refusal_in_ordinary_wording_is_abstained(answer):
    assert answer_outcome(answer) == ABSTAINED


@pytest.mark.parametrize(
    ("language", "answer"), [(lang, text) for lang, texts in DONT_KNOW.items() for text in texts]
)
def test_i_dont_know_in_each_language_is_abstained(language, answer):
    assert answer_outcome(answer) == ABSTAINED


@pytest.mark.parametrize("name", list(INVISIBLE))
def test_invisible_and_formatting_characters_are_taken_away_before_the_answer_is_read(name):
    assert answer_outcome(INVISIBLE[name]) == ABSTAINED


@pytest.mark.parametrize("answer", CLAIMS_AFTER_HEDGES)
def test_a_claim_after_a_hedge_or_disclaimer_is_an_answer_to_fact_check(answer):
    assert answer_outcome(answer) is None


@pytest.mark.parametrize("answer", ANSWERS_THAT_LOOK_LIKE_REFUSALS)
def test_yes_no_short_and_negated_answers_are_answers(answer):
    assert answer_outcome(answer) is None


def test_invisible_characters_alone_are_an_empty_answer():
    assert [answer_outcome(text) for text in ("\u200f\u200e", "\ufeff", "\u00ad", "**")] == [EMPTY] * 4


@pytest.mark.parametrize("answer", NO_CONTENT)
def test_an_answer_with_no_word_to_read_is_empty(answer):
    assert answer_outcome(plain_text(answer)) == EMPTY


@pytest.mark.parametrize("answer", REFUSALS)
def test_an_answer_that_only_declines_is_abstained(answer):
    assert answer_outcome(answer) == ABSTAINED


@pytest.mark.parametrize("answer", ANSWERS)
def test_an_answer_that_claims_something_is_read_for_faithfulness(answer):
    assert answer_outcome(answer) is None


def test_a_value_that_is_not_text_has_no_outcome_the_doors_refuse_it_first():
    assert answer_outcome(None) is None and answer_outcome(3.0) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("outcome", [EMPTY, ABSTAINED])
def test_the_disagreement_of_an_empty_or_refusing_answer_is_its_outcome_not_a_quadrant(outcome):
    similarity = Cell("bertscore", None, outcome, None)
    faithfulness = Cell("offline_faithfulness", None, outcome, None)  # an outcome has no score on any signal
    cells, details = disagreement_cells(
        [similarity, None], [faithfulness, faithfulness], Thresholds(0.9), row_names=["0", "1"]
    )
    found = [cell for cell in cells if cell is not None]
    assert [cell.label for cell in found] == [outcome, outcome]  # with no similarity (no reference) too
    assert [cell.score for cell in found] == [None, None]
    assert [detail["status"] for detail in details] == ["COMPLETED", "COMPLETED"]
    metadata = [cell.metadata for cell in found]
    assert all(isinstance(m, DisagreementMetadata) for m in metadata)
    assert [(m.similarity, m.faithfulness) for m in metadata if isinstance(m, DisagreementMetadata)] == [
        (None, None),
        (None, None),
    ]


def test_the_labelled_answers_meet_the_reader_targets_and_no_claim_is_read_as_a_refusal():
    """benchmarks/quality/answer_outcomes_dev.jsonl (its figures per language are in QUALITY.md): abstained
    precision and recall at least 0.95 in English and 0.90 in the other languages; no claim abstained."""
    rows = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 500 and sum(row["lang"] != "en" for row in rows) >= len(rows) / 3
    escaped = [row["text"] for row in rows if row["label"] == "answered" and answer_outcome(row["text"])]
    assert escaped == []
    for english, least in ((True, 0.95), (False, 0.90)):
        chosen = [row for row in rows if (row["lang"] == "en") == english]
        said = [answer_outcome(row["text"]) == ABSTAINED for row in chosen]
        refusals = [row["label"] == ABSTAINED for row in chosen]
        hits = sum(s and r for s, r in zip(said, refusals, strict=True))
        assert hits / sum(said) >= least and hits / sum(refusals) >= least, (
            english,
            hits,
            sum(said),
            sum(refusals),
        )
