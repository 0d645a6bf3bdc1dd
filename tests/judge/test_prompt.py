"""The judge's window is counted in tokens for every script: the estimate never undercounts what the local
model's own tokenizer reads, so a source in Chinese, Hindi or Russian is cut before it overflows."""

from __future__ import annotations

import pytest

from bertscore_plugins.judge.prompt import RESERVED_TOKENS, estimated_tokens, fit_source, question

TEXTS = {
    "English": "The patient was discharged on Thursday after three days of observation; she returns on 14 March.",
    "German": "Die Patientin wurde am Donnerstag nach dreitägiger Beobachtung entlassen. Größe: 1,72 m.",
    "Chinese": "患者在观察三天后于星期四出院。她的血压为120/80。诊所每周一至周五早上八点开门。",
    "Japanese": "患者は三日間の経過観察の後、木曜日に退院しました。血圧は120/80でした。",
    "Korean": "환자는 3일간의 관찰 후 목요일에 퇴원했습니다. 혈압은 120/80이었습니다.",
    "Russian": "Пациентку выписали в четверг после трёх дней наблюдения. Давление было 120/80.",
    "Arabic": "خرجت المريضة من المستشفى يوم الخميس بعد ثلاثة أيام من المراقبة.",
    "Hindi": "तीन दिनों की निगरानी के बाद मरीज को गुरुवार को छुट्टी दे दी गई।",
    "Thai": "ผู้ป่วยได้รับอนุญาตให้กลับบ้านในวันพฤหัสบดีหลังจากเฝ้าสังเกตอาการเป็นเวลาสามวัน",
    "Greek": "Η ασθενής πήρε εξιτήριο την Πέμπτη μετά από τρεις ημέρες παρακολούθησης.",  # noqa: RUF001
    "emoji": "Great job 🎉🎉 see you 👋🏽 soon 😀",
}


@pytest.fixture(scope="module")
def gemma_tokenizer():
    """The local model's own tokenizer: from its dequantised copy when a server made one, else the GGUF file."""
    from transformers import AutoTokenizer

    from bertscore_plugins.judge.engine import dequantised_dir
    from bertscore_plugins.judge.local_model import local_model

    path, sha256 = local_model()
    saved = dequantised_dir(path, sha256)
    if (saved / "tokenizer_config.json").exists():
        return AutoTokenizer.from_pretrained(saved)
    return AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)


@pytest.mark.slow  # the judge model's own tokenizer, read from its weights file
@pytest.mark.parametrize("script", sorted(TEXTS))
def test_the_estimate_never_undercounts_the_local_models_tokens(gemma_tokenizer, script):
    text = TEXTS[script] * 5
    counted = len(gemma_tokenizer(text, add_special_tokens=False)["input_ids"])
    assert counted <= estimated_tokens(text) <= 2.2 * counted


def test_a_long_chinese_source_is_cut_to_the_token_budget_and_says_so():
    source = TEXTS["Chinese"] * 300
    shown, cut = fit_source(source, (), 1000)
    assert estimated_tokens(shown) <= 1000 < estimated_tokens(source)
    assert source.startswith(shown) and len(shown) < 1000
    assert (
        cut
        == f"source cut to its first {len(shown):,} of {len(source):,} characters (no alignment to choose passages by): the judge's window is full"
    )


@pytest.mark.slow  # the judge model's own tokenizer, read from its weights file
def test_the_whole_question_fits_the_window_for_every_script(gemma_tokenizer):
    for script, text in TEXTS.items():
        asked = question(text, text * 400, (), 2048)
        content = asked.messages[0]["content"]
        counted = len(gemma_tokenizer(content, add_special_tokens=True)["input_ids"])
        assert counted <= 2048 - 1, script  # room for the one-word verdict
        assert asked.cut.startswith("source cut to its first"), script


def test_a_source_that_fits_is_shown_whole():
    shown, cut = fit_source("The clinic opens at 8.", (), 2048 - RESERVED_TOKENS)
    assert (shown, cut) == ("The clinic opens at 8.", "")
