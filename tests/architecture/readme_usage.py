"""The public API called as the README calls it, for the type checker (`make lint` runs mypy over this file
and the package). Never run: the README's own blocks run in tests/docs/. A misspelt keyword or a name
that is not exported here is an error to the checker (tests/architecture/test_type_checking.py)."""

from __future__ import annotations

import evaluate
import numpy as np
import pandas as pd
import ray
from datasets import Dataset

from bertscore_plugins import BERTScorer, ScoreConfig, Scores, corpus_intervals, score
from bertscore_plugins.errors import BertScorePluginsError, InputError
from bertscore_plugins.faithfulness import OfflineFaithfulness, offline_faithfulness
from bertscore_plugins.integrations import compat
from bertscore_plugins.integrations.hf_datasets import BERTScoreTransform, score_dataframe
from bertscore_plugins.integrations.hf_evaluate import metric_card_path
from bertscore_plugins.integrations.phoenix import (
    BERTScoreEvaluator,
    batch_evaluate_dataframe,
    evaluate_project,
)
from bertscore_plugins.integrations.ray import RayJob, score_ray_dataset

candidates = ["The patient was discharged on Thursday.", "The patient left hospital on Tuesday."]
references: list[str | list[str]] = [
    "The patient was discharged on Tuesday.",
    ["The patient was discharged on Tuesday.", "Discharged Tuesday."],
]

# Python
scores: Scores = score(candidates, references)
f1: np.ndarray = scores.f1
signature: str = scores.signature
scorer = BERTScorer(layer=4, rescale=True)
print(scorer.explain(candidates[0], "The patient was discharged on Tuesday.").summary())
config = ScoreConfig(layer=4, idf=False)
intervals = corpus_intervals(scores)

# Coming from bert_score
P, R, F = compat.score(["The cat sat."], ["A cat sat on the mat."], lang="en")
(P, R, F), hash_code = compat.score(["The cat sat."], ["A cat sat on the mat."], lang="en", return_hash=True)
upstream_scorer = compat.BERTScorer(lang="en", idf=True, idf_sents=["A cat sat on the mat."])
P, R, F = upstream_scorer.score(["The cat sat."], ["A cat sat on the mat."])

# Hugging Face evaluate and datasets
bertscore = evaluate.load(metric_card_path())
result = bertscore.compute(
    predictions=["The patient left on Tuesday."], references=["Discharged on Tuesday."]
)
ds = Dataset.from_dict({"prediction": ["A cat sat."], "reference": ["The cat sat on the mat."]})
transform = BERTScoreTransform(candidate_column="prediction", reference_column="reference")
transform = transform.fit_idf(ds["reference"])
ds = ds.map(transform, batched=True, batch_size=256)

# pandas
df = pd.DataFrame({"output": ["A cat sat."], "reference": ["The cat sat on the mat."]})
plain = score_dataframe(df, "output", "reference")
cells = batch_evaluate_dataframe(df, BERTScoreEvaluator())

# offline faithfulness
rows: list[OfflineFaithfulness] = offline_faithfulness(candidates, ["He was discharged on Tuesday."] * 2)
print(rows[0].label, rows[0].score)

# Phoenix traces
report = evaluate_project("my-rag-app", base_url="http://127.0.0.1:6006")
print(report.summary())

# Ray Data
ray.init(include_dashboard=False)
job = RayJob(
    actors=1, cpus_per_actor=1, batch_size=64, candidate_column="prediction", reference_column="reference"
)
scored = score_ray_dataset(
    ray.data.from_items([{"prediction": "A cat sat.", "reference": "A cat."}]), job=job
)

# errors: one root
try:
    score(["a"], [""])
except InputError as error:
    print(error)
except BertScorePluginsError:
    raise
