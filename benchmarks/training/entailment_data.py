"""Data for the entailment model (benchmarks/training/entailment_train.py): NLI files, held-back sets, perturbations.

Everything is read from the eval-data folder (env ``BERTSCORE_EVAL_DATA``, default ``../shared/eval-data``
relative to the repository root); nothing is copied into the repository. Pairs are dicts with ``premise``,
``hypothesis``, ``label`` (``entailment`` / ``neutral`` / ``contradiction`` for 3-way pairs,
``entailment`` / ``not_entailment`` for binary ones) and ``source`` (the file it came from).

What is trained on and what is held back (never trained on; deduplicated against the training pairs by
normalised premise+hypothesis text, and by normalised premise, so no held-back premise was seen in training):

- train: SNLI dev+test, CAD-SNLI train/dev/test, ConjNLI train+dev, TaxiNLI (MNLI) train+dev subsets,
  the DocNLI binary MNLI pairs (dev+test files) whose premise is not in the held-back share (split by a hash
  of the normalised premise, so a premise is never on both sides), the DocNLI binary FEVER *test* file
  (claims in FEVER-Symmetric removed), and perturbation pairs generated from the SummEval and FRANK-valid
  development articles.
- held back: the DocNLI binary MNLI pairs of the held-back premise share, the DocNLI binary FEVER *dev*
  file, FEVER-Symmetric dev+test.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import re
from pathlib import Path

from bertscore_plugins.facts.lexicon.calendar import MONTH_NAMES, WEEKDAYS

REPO = Path(__file__).resolve().parents[2]
LABELS = ("entailment", "neutral", "contradiction")

TRAIN_FILES = (
    "snli/snli_dev.jsonl.gz",
    "snli/snli_test.jsonl.gz",
    "cad_snli/cad_snli_train.jsonl.gz",
    "cad_snli/cad_snli_dev.jsonl.gz",
    "cad_snli/cad_snli_test.jsonl.gz",
    "conjnli/conjnli_train_adversarial.jsonl.gz",
    "conjnli/conjnli_dev.jsonl.gz",
    "taxinli/taxinli_mnli_train_subset.jsonl.gz",
    "taxinli/taxinli_mnli_dev_subset.jsonl.gz",
    "docnli_binary/fever_nli_binary_test.jsonl.gz",
)
#: DocNLI binary MNLI (all of MNLI dev): pairs whose premise hashes below this share of 100 are held back
MNLI_BINARY = ("docnli_binary/mnli_binary_dev.jsonl.gz", "docnli_binary/mnli_binary_test.jsonl.gz")
MNLI_HELD_SHARE = 45
HELD_BACK = {
    "mnli_binary": MNLI_BINARY,
    "fever_binary": ("docnli_binary/fever_nli_binary_dev.jsonl.gz",),
    "fever_symmetric": (
        "fever_symmetric/fever_symmetric_v0.2_dev.jsonl.gz",
        "fever_symmetric/fever_symmetric_v0.2_test.jsonl.gz",
    ),
}
ARTICLE_FILES = (
    ("summeval/summeval_bartscore_flat.jsonl.gz", "source"),
    ("frank_valid/frank_valid.jsonl.gz", "article"),
)


def data_root() -> Path:
    root = os.environ.get("BERTSCORE_EVAL_DATA")
    return Path(root) if root else (REPO / ".." / "shared" / "eval-data").resolve()


def read_jsonl(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def norm(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def pair_key(pair: dict) -> str:
    return norm(pair["premise"]) + " ||| " + norm(pair["hypothesis"])


def load_nli(rel: str) -> list[dict]:
    rows = read_jsonl(data_root() / "nli" / rel)
    return [
        {"premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["label"], "source": rel}
        for r in rows
        if r.get("label") in (*LABELS, "not_entailment")
    ]


def mnli_held(premise: str) -> bool:
    digest = hashlib.sha256(norm(premise).encode()).hexdigest()
    return int(digest[:8], 16) % 100 < MNLI_HELD_SHARE


def training_nli() -> tuple[list[dict], dict]:
    """The NLI training pairs (deduplicated by pair text) and a report of counts."""
    symmetric_claims = {norm(p["hypothesis"]) for rel in HELD_BACK["fever_symmetric"] for p in load_nli(rel)}
    seen: set[str] = set()
    pairs, report = [], {}
    for rel in (*TRAIN_FILES, *MNLI_BINARY):
        rows = load_nli(rel)
        if rel in MNLI_BINARY:
            rows = [p for p in rows if not mnli_held(p["premise"])]
        kept = 0
        for pair in rows:
            key = pair_key(pair)
            if key in seen or ("fever" in rel and norm(pair["hypothesis"]) in symmetric_claims):
                continue
            seen.add(key)
            pairs.append(pair)
            kept += 1
        report[rel] = {"rows": len(rows), "kept_after_dedup": kept}
    return pairs, report


def held_back(train_pairs: list[dict], limit: int, seed: int) -> tuple[dict[str, list[dict]], dict]:
    """Held-back evaluation sets, deduplicated against training (pair text and premise), subsampled."""
    train_keys = {pair_key(p) for p in train_pairs}
    train_premises = {norm(p["premise"]) for p in train_pairs}
    sets, report = {}, {}
    for name, rels in HELD_BACK.items():
        rows = [p for rel in rels for p in load_nli(rel)]
        if name == "mnli_binary":
            rows = [p for p in rows if mnli_held(p["premise"])]
        fresh, seen = [], set()
        for pair in rows:
            key = pair_key(pair)
            strict = name != "fever_symmetric"  # FEVER-Symmetric is held back entirely; its own dedup only
            if key in seen or (strict and (key in train_keys or norm(pair["premise"]) in train_premises)):
                continue
            seen.add(key)
            fresh.append(pair)
        rng = random.Random(seed)
        sample = rng.sample(fresh, limit) if len(fresh) > limit else list(fresh)
        sets[name] = sample
        report[name] = {"files": list(rels), "rows": len(rows), "after_dedup": len(fresh), "n": len(sample)}
    return sets, report


# ---------------------------------------------------------------- perturbation pairs from articles

MONTHS = list(MONTH_NAMES)  # the fact check's own calendar words
DAYS = list(WEEKDAYS.values())
ANTONYMS = [
    ("on time", "delayed"),
    ("won", "lost"),
    ("increased", "decreased"),
    ("rose", "fell"),
    ("before", "after"),
    ("more than", "less than"),
    ("higher", "lower"),
    ("open", "closed"),
    ("allowed", "banned"),
    ("alive", "dead"),
    ("innocent", "guilty"),
    ("accepted", "rejected"),
    ("arrived", "left"),
    ("early", "late"),
    ("first", "last"),
    ("largest", "smallest"),
    ("free", "not free"),
    ("available", "not available"),
    ("married", "divorced"),
    ("male", "female"),
    ("agreed", "refused"),
    ("started", "ended"),
    ("support", "oppose"),
]
AUX = r"\b(is|are|was|were|has|have|had|will|can|could|would|should|does|do|did|must|may)\b"
STOP_CAPS = {
    "The",
    "A",
    "An",
    "He",
    "She",
    "It",
    "They",
    "We",
    "I",
    "In",
    "On",
    "At",
    "But",
    "And",
    "This",
    "That",
    "His",
    "Her",
    "Their",
    "Its",
    "After",
    "As",
    "For",
    "When",
    "If",
    "Mr",
    "Mrs",
    "Ms",
    "Dr",
}


def detok(text: str) -> str:
    text = re.sub(r" ([.,!?;:%)\]])", r"\1", text)
    text = re.sub(r"([(\[$]) ", r"\1", text)
    text = re.sub(r" (n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def sentences(article: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z\"'])", detok(article))
    return [s.strip() for s in parts if 6 <= len(s.split()) <= 45]


def entities(text: str) -> list[str]:
    found = re.findall(r"(?<=[a-z0-9,] )[A-Z][a-z]+(?: [A-Z][a-z]+)*\b", text)  # not sentence-initial
    return [e for e in found if e.split()[0] not in STOP_CAPS and e not in MONTHS and e not in DAYS]


def negate(sentence: str, vocab: set[str], rng: random.Random) -> str | None:
    if re.search(r"\bnot\b", sentence):  # remove an existing negation
        return re.sub(r"\s*\bnot\b", "", sentence, count=1)
    if "n't" in sentence:
        return re.sub(
            r"\b(\w+)n't\b",
            lambda m: {"ca": "can", "wo": "will"}.get(m.group(1), m.group(1)),
            sentence,
            count=1,
        )
    if re.search(r"\bnever\b", sentence):
        return re.sub(r"\bnever\s+", "", sentence, count=1)
    if re.search(AUX, sentence):
        return re.sub(AUX, r"\1 not", sentence, count=1)
    for match in re.finditer(r"\b([a-z]{3,})ed\b", sentence):
        stem = match.group(1)
        for base in (
            stem,
            stem + "e",
            stem[:-1] if len(stem) > 3 and stem[-1] == stem[-2] else None,
            stem[:-1] + "y" if stem.endswith("i") else None,
        ):
            if base and base in vocab:
                return sentence[: match.start()] + "did not " + base + sentence[match.end() :]
    return None


def swap_entity(sentence: str, pool: list[str], rng: random.Random) -> str | None:
    own = sorted(set(entities(sentence)))
    if not own:
        return None
    target = rng.choice(own)
    others = sorted({e for e in pool if e != target and e not in target and target not in e})
    if len(own) >= 2 and rng.random() < 0.4:  # role swap: two entities of the same sentence trade places
        a, b = rng.sample(own, 2)
        if a in b or b in a:
            return None
        return sentence.replace(a, "\0").replace(b, a).replace("\0", b)
    return sentence.replace(target, rng.choice(others)) if others else None


def change_number(sentence: str, rng: random.Random) -> str | None:
    months = [m for m in MONTHS if re.search(rf"\b{m}\b", sentence)]
    if months and rng.random() < 0.6:
        m = months[0]
        return re.sub(rf"\b{m}\b", rng.choice([x for x in MONTHS if x != m]), sentence, count=1)
    days = [d for d in DAYS if d in sentence]
    if days and rng.random() < 0.5:
        return sentence.replace(days[0], rng.choice([x for x in DAYS if x != days[0]]), 1)
    nums = list(re.finditer(r"\b\d+(?:[.,]\d+)?\b", sentence))
    if not nums:
        return None
    m = rng.choice(nums)
    value = m.group().replace(",", "")
    whole = int(float(value)) if value.replace(".", "", 1).isdigit() else 0
    new = (
        str(whole + rng.choice([1, 2, 3, 5, 10, 20])) if whole < 100 or rng.random() < 0.5 else str(whole * 2)
    )
    if "1900" <= m.group() <= "2030" and len(m.group()) == 4:
        new = str(int(m.group()) + rng.choice([-3, -2, -1, 1, 2, 3]))
    return sentence[: m.start()] + new + sentence[m.end() :]


def antonym(sentence: str, rng: random.Random) -> str | None:
    options = []
    for a, b in ANTONYMS:
        for x, y in ((a, b), (b, a)):
            if re.search(rf"\b{x}\b", sentence) and not (x == "free" and "not free" in sentence):
                options.append((x, y))
    if not options:
        return None
    x, y = rng.choice(options)
    return re.sub(rf"\b{x}\b", y, sentence, count=1)


def shorten(sentence: str) -> str | None:
    head = re.split(r",| and | but | which | who | after | because ", sentence)[0].strip()
    return head.rstrip(".") + "." if 5 <= len(head.split()) < len(sentence.split()) - 2 else None


def articles() -> list[str]:
    seen, out = set(), []
    for rel, field in ARTICLE_FILES:
        for row in read_jsonl(data_root() / rel):
            text = detok(row[field])
            key = norm(text)[:300]
            if key not in seen:
                seen.add(key)
                out.append(text)
    return out


def perturbation_pairs(vocab: set[str], seed: int, per_article: int = 30) -> list[dict]:
    """FactCC-style pairs: premise = 1-3 consecutive article sentences; hypothesis = one of them, kept,
    shortened (entailment) or changed (negation, number/date/month, antonym: contradiction; entity or role
    swap: not_entailment). Negation and antonym pairs also go the other way (changed premise, original
    hypothesis), so "X is not free" / "X is free" is learned in both directions."""
    rng = random.Random(seed)
    pairs: list[dict] = []
    for art in articles():
        sents = sentences(art)
        pool = entities(art)
        if len(sents) < 2:
            continue
        for _ in range(per_article):
            start = rng.randrange(len(sents))
            passage = sents[start : start + rng.choice([1, 2, 3])]
            idx = rng.randrange(len(passage))
            target = passage[idx]
            premise = " ".join(passage)
            kind = rng.choice(["keep", "short", "negate", "negate", "number", "entity", "entity", "antonym"])
            pair = _make_pair(kind, premise, passage, idx, target, pool, vocab, rng)
            if pair:
                pair["source"] = "perturbation:" + kind
                pairs.append(pair)
                if pair["label"] != "entailment":
                    # its entailed twin on the same passage: without it, "a sentence of a long passage"
                    # alone predicted contradiction (the first model read copied summary sentences as
                    # contradicted, 0.75); with it only the changed word tells the two apart
                    twin = shorten(target) if rng.random() < 0.3 else None
                    pairs.append(
                        {
                            "premise": premise,
                            "hypothesis": twin or target,
                            "label": "entailment",
                            "source": "perturbation:twin",
                        }
                    )
    seen, out = set(), []
    for pair in pairs:
        if pair_key(pair) not in seen:
            seen.add(pair_key(pair))
            out.append(pair)
    return out


def _make_pair(kind, premise, passage, idx, target, pool, vocab, rng) -> dict | None:
    if kind == "keep":
        return {"premise": premise, "hypothesis": target, "label": "entailment"}
    if kind == "short":
        short = shorten(target)
        return {"premise": premise, "hypothesis": short, "label": "entailment"} if short else None
    changed = {
        "negate": lambda: negate(target, vocab, rng),
        "number": lambda: change_number(target, rng),
        "entity": lambda: swap_entity(target, pool, rng),
        "antonym": lambda: antonym(target, rng),
    }[kind]()
    if not changed or changed == target:
        return None
    label = "not_entailment" if kind == "entity" else "contradiction"
    if kind in ("negate", "antonym") and rng.random() < 0.4:  # the changed sentence is the premise
        flipped = list(passage)
        flipped[idx] = changed
        return {"premise": " ".join(flipped), "hypothesis": target, "label": label}
    return {"premise": premise, "hypothesis": changed, "label": label}
