"""The three rows every entry point scores in a fresh interpreter, and what their numbers are checked against.

The wrong day looks like the reference (F1 0.97) but is unfaithful to it; the paraphrase looks less like it
(0.83) and is faithful; the copy scores 1 and is faithful.
"""

from __future__ import annotations

WRONG_DAY = "The patient was discharged on Thursday."
PARAPHRASE = "The patient left hospital on Tuesday."
REFERENCE = "The patient was discharged on Tuesday."
CANDIDATES = [WRONG_DAY, PARAPHRASE, REFERENCE]
REFERENCES = [REFERENCE] * 3
SIGNATURE_START = "bertscore_plugins:0.1.0|model:sentence-transformers/all-MiniLM-L6-v2@"
TOLERANCE = 1e-5  # the project's parity bound with bert_score
