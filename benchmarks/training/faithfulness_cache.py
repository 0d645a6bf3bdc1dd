"""Embed the development faithfulness sets ONCE and keep each row's alignment on disk.

    python benchmarks/training/faithfulness_cache.py summeval      # 1,600 rows
    python benchmarks/training/faithfulness_cache.py frank         # 671 rows

Per row: the summary, its source, BERTScore precision against the whole source (long_text="window",
packaged default model) and the core's Explanation (similarity matrix as float16, token spans), so the
signal's parts and their combination can be studied (benchmarks/training/faithfulness_train.py) without
re-embedding. Written to .feature-cache/NAME.pkl (ignored by git), in chunks: a stopped run resumes.
"""

from __future__ import annotations

import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.quality_data import eval_data_dir, load_frank, load_summeval

CACHE = Path(__file__).resolve().parents[2] / ".feature-cache"
CHUNK = 32


def rows(name: str) -> list[dict]:
    folder = eval_data_dir()
    if name == "summeval":
        return [
            {
                "set": "summeval",
                "summary": r.summary,
                "source": r.source,
                "human": r.consistency,
                "faithful": r.consistency == 5.0,
                "group": r.doc_id,
            }
            for r in load_summeval(folder)
        ]
    return [
        {
            "set": f"frank_{r.dataset}",
            "summary": r.summary,
            "source": r.article,
            "human": r.factuality,
            "faithful": r.factuality == 1.0,
            "group": r.hash,
        }
        for r in load_frank(folder)
    ]


def packed(explanation) -> dict:
    return {
        "similarity": explanation.similarity.numpy().astype("float16"),
        "candidate_tokens": explanation.candidate_tokens,
        "reference_tokens": explanation.reference_tokens,
        "candidate_spans": explanation.candidate_spans,
        "reference_spans": explanation.reference_spans,
        "candidate_text": explanation.candidate_text,
        "reference_text": explanation.reference_text,
    }


def main(name: str) -> None:
    from bertscore_plugins.core.scorer import get_scorer

    data = rows(name)
    path = CACHE / f"{name}.pkl"
    done = pickle.loads(path.read_bytes()) if path.exists() else []
    scorer = get_scorer(long_text="window")
    CACHE.mkdir(exist_ok=True)
    started = time.perf_counter()
    for start in range(len(done), len(data), CHUNK):
        chunk = data[start : start + CHUNK]
        result = scorer.score([r["summary"] for r in chunk], [r["source"] for r in chunk], explain=True)
        for row, precision, explanation in zip(chunk, result.precision, result.explanations, strict=True):
            done.append({**row, "precision": float(precision), "explanation": packed(explanation)})
        path.write_bytes(pickle.dumps(done))
        print(f"{name}: {len(done)}/{len(data)} rows, {time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
