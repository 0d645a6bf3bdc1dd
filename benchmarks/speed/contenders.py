"""One benchmark contender, run in a fresh process: ``python contenders.py SPEC.json RESULT.json``.

A contender is the project (`bertscore_plugins`), bert_score 0.3.13, or the bare forward pass (the floor).
Each run loads its model (timed as `load_s`, with a short warm-up), scores its texts once (timed as
`score_s`), and reports its peak resident memory (VmHWM) so runs never pollute each other's numbers.

Spec keys: contender, texts ({"kind": "pairs"|"rescoring"|"long", ...}), model_dir, layer, device,
dtype, config (extra ScoreConfig settings), cache (None|"memory"|"disk"), cache_dir, prepare_only,
batch_tokens (floor), save_scores (path of an .npz for P/R/F1), source (a folder holding another revision
of the package, put first on PYTHONPATH by the harness; the result names the package file imported).
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import texts as bench_texts


def _status_mib(field: str) -> float | None:
    """A memory field of /proc/self/status (VmRSS, VmHWM) in MiB, None where /proc is absent."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def peak_rss_mib() -> float:
    """This process's peak resident set size in MiB (VmHWM, else ru_maxrss)."""
    peak = _status_mib("VmHWM")
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_texts(spec: dict, count_tokens=None) -> tuple[list[str], list[str], list[str] | None]:
    """(candidates, references, first-pass candidates or None) for the spec's text kind."""
    kind = spec["texts"]["kind"]
    if kind == "pairs":
        pairs = bench_texts.wmt16_pairs(spec["texts"]["pairs"], unique=spec["texts"].get("unique", False))
        return pairs.candidates, pairs.references, None
    if kind == "rescoring":
        pairs = bench_texts.wmt16_pairs(spec["texts"]["pairs"], unique=spec["texts"].get("unique", False))
        return bench_texts.new_candidates(pairs.candidates), pairs.references, pairs.candidates
    if kind == "long":
        docs = bench_texts.long_documents(spec["texts"]["count"], spec["texts"]["tokens"], count_tokens)
        return docs.candidates, docs.references, None
    raise ValueError(f"unknown texts kind {kind!r}")


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


class ProjectContender:
    """bertscore_plugins.BERTScorer with the spec's settings (and optional reference cache)."""

    def __init__(self, spec: dict) -> None:
        import bertscore_plugins
        from bertscore_plugins import BERTScorer, ScoreConfig

        self.package = bertscore_plugins.__file__  # which revision ran (see the spec's `source`)
        settings = {"model": spec["model_dir"], "layer": spec["layer"], "dtype": spec.get("dtype", "float32")}
        if spec.get("device"):
            settings["device"] = spec["device"]
        settings.update(spec.get("config") or {})
        self.scorer = BERTScorer(ScoreConfig(**settings))
        if spec.get("cache") == "memory":
            self.scorer.enable_reference_cache()
        elif spec.get("cache") == "disk":
            self.scorer.enable_reference_cache(disk_dir=spec["cache_dir"])

    def score(self, candidates: list[str], references: list[str]):
        result = self.scorer.score(candidates, references)
        return result.precision, result.recall, result.f1


class BertScoreContender:
    """bert_score 0.3.13's BERTScorer on the same local model directory and layer."""

    def __init__(self, spec: dict) -> None:
        import bert_score

        self.scorer = bert_score.BERTScorer(
            model_type=spec["model_dir"], num_layers=spec["layer"], batch_size=64, device=spec.get("device")
        )

    def score(self, candidates: list[str], references: list[str]):
        precision, recall, f1 = self.scorer.score(candidates, references, batch_size=64)
        return precision.numpy(), recall.numpy(), f1.numpy()


class FloorContender:
    """The bare forward pass: fast batched tokenization, length-sorted token-budget batches, only the
    layers needed, inference mode, over the unique texts. No matching, no scores."""

    def __init__(self, spec: dict) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.device = spec.get("device") or "cpu"
        self.budget = int(spec.get("batch_tokens") or 8192)
        self.tokenizer = AutoTokenizer.from_pretrained(spec["model_dir"], use_fast=True)
        dtype = getattr(torch, spec.get("dtype", "float32"))
        model = AutoModel.from_pretrained(spec["model_dir"], dtype=dtype, attn_implementation="sdpa")
        model.encoder.layer = model.encoder.layer[: spec["layer"]]  # run only the layers needed
        model.config.num_hidden_layers = spec["layer"]
        self.model = model.eval().to(self.device)
        self.max_length = min(int(self.tokenizer.model_max_length), model.config.max_position_embeddings)
        self.pad_id = self.tokenizer.pad_token_id or 0

    def score(self, candidates: list[str], references: list[str]):
        import numpy as np
        import torch

        unique = list(dict.fromkeys(candidates + references))
        ids = self.tokenizer(unique, truncation=True, max_length=self.max_length)["input_ids"]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]), reverse=True)
        with torch.inference_mode():
            start = 0
            while start < len(order):
                width = len(ids[order[start]])  # longest first: the batch's first row sets its width
                rows = max(1, self.budget // max(width, 1))
                batch = order[start : start + rows]
                start += len(batch)
                padded = np.full((len(batch), width), self.pad_id, dtype=np.int64)
                mask = np.zeros((len(batch), width), dtype=np.int64)
                for row, index in enumerate(batch):
                    padded[row, : len(ids[index])] = ids[index]
                    mask[row, : len(ids[index])] = 1
                input_ids = torch.from_numpy(padded).to(self.device, non_blocking=True)
                attention = torch.from_numpy(mask).to(self.device, non_blocking=True)
                self.model(input_ids=input_ids, attention_mask=attention)
        _sync(self.device)


CONTENDERS = {"project": ProjectContender, "bert_score": BertScoreContender, "floor": FloorContender}


def token_counts(model_dir: str, texts: list[str]) -> tuple[list[int], int]:
    """Token counts (with special tokens, untruncated) of `texts`, and the model's window length."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir, use_fast=True)
    counts = [len(ids) for ids in tokenizer(texts, add_special_tokens=True)["input_ids"]]
    return counts, int(min(tokenizer.model_max_length, 1_000_000))


def run(spec: dict) -> dict:
    """Load, warm up, score once; return timings, sizes and peak memory."""
    import numpy as np
    import torch

    device = spec.get("device") or "cpu"
    counter = None
    if spec["texts"]["kind"] == "long":
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(spec["model_dir"], use_fast=True)

        def counter(text: str) -> int:
            return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    candidates, references, first_pass = load_texts(spec, counter)

    started = time.perf_counter()
    contender = CONTENDERS[spec["contender"]](spec)
    contender.score(bench_texts.WARMUP_CANDIDATES, bench_texts.WARMUP_REFERENCES)
    _sync(device)
    load_s = time.perf_counter() - started
    rss_after_load = _status_mib("VmRSS")
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()

    # re-scoring: a memory cache (or the run preparing a disk cache) first scores the first system's
    # outputs, untimed, which fills the cache; a disk-cache run starts fresh and finds the references in
    # the folder a prepare run filled; bert_score has no cache, so a first pass would only cost time
    if first_pass is not None and (spec.get("cache") == "memory" or spec.get("prepare_only")):
        contender.score(first_pass, references)
    result: dict = {"load_s": load_s, "rss_after_load_mib": rss_after_load}
    if getattr(contender, "package", None):
        result["package"] = contender.package
    if spec.get("prepare_only"):
        result.update(score_s=0.0, pairs=len(candidates), peak_rss_mib=peak_rss_mib())
        return result

    started = time.perf_counter()
    scores = contender.score(candidates, references)
    _sync(device)
    result["score_s"] = time.perf_counter() - started
    result["peak_rss_mib"] = peak_rss_mib()  # before the token counting below adds anything

    unique = list(dict.fromkeys(candidates + references))
    counts, window = token_counts(spec["model_dir"], unique)
    result.update(
        pairs=len(candidates),
        unique_texts=len(unique),
        tokens=sum(counts),
        tokens_truncated=sum(min(count, window) for count in counts),
        torch_threads=torch.get_num_threads(),
    )
    if device.startswith("cuda"):
        result["gpu_peak_mib"] = torch.cuda.max_memory_allocated() / 2**20
    if scores is not None and spec.get("save_scores"):
        precision, recall, f1 = (np.asarray(values, dtype=np.float64) for values in scores)
        np.savez(spec["save_scores"], precision=precision, recall=recall, f1=f1)
    return result


def main(argv: list[str]) -> int:
    spec_path, result_path = argv
    spec = json.loads(Path(spec_path).read_text())
    result = run(spec)
    Path(result_path).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
