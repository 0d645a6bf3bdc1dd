"""A small entailment (NLI) cross-encoder shipped with the package: does a source passage entail a sentence?

The encoder is all-MiniLM-L6-v2 (BERT, 6 layers, hidden 384). What ships is only the adapter trained on it
by ``benchmarks/training/entailment_train.py``: the replaced top encoder layers and a 3-way head (``entailment.safetensors``),
described by ``entailment.json`` (the weights' sha256, the encoder's sha256, the architecture, the data, the
held-back accuracies). Input is ``[CLS] premise [SEP] hypothesis [SEP]`` (premise truncated first), the head
reads the mean-pooled last layer, and the output is probabilities in the order entailment, neutral, contradiction.

    >>> model = load_entailment(get_model_path())                              # doctest: +SKIP
    >>> model.probabilities(["Parking is not free."], ["Parking is free."]).argmax(1)  # doctest: +SKIP
    array([2])
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

from bertscore_plugins.errors import ArgumentError, ModelLoadError

HERE = Path(__file__).resolve().parent
WEIGHTS = HERE / "entailment.safetensors"
META = HERE / "entailment.json"
LABELS = ("entailment", "neutral", "contradiction")
FORMAT = "bertscore_plugins.entailment/1"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_meta(meta_path: Path = META) -> dict[str, Any]:
    """entailment.json, checked for the keys the loader needs (ModelLoadError naming the file otherwise)."""
    try:
        meta = json.loads(Path(meta_path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{meta_path}: cannot read the entailment model description ({exc})") from exc
    need = ("format", "weights_sha256", "encoder", "architecture")
    if not isinstance(meta, dict) or any(key not in meta for key in need) or meta["format"] != FORMAT:
        raise ModelLoadError(f"{meta_path}: not an entailment model description of format {FORMAT}")
    return meta


def read_weights(
    weights_path: Path = WEIGHTS, meta_path: Path = META
) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """The adapter tensors, after their file's sha256 matched entailment.json (ModelLoadError otherwise)."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    meta = read_meta(meta_path)
    try:
        actual = sha256_file(Path(weights_path))
    except OSError as exc:
        raise ModelLoadError(f"{weights_path}: cannot read the entailment weights ({exc})") from exc
    if actual != meta["weights_sha256"]:
        raise ModelLoadError(
            f"{weights_path}: sha256 {actual[:12]}... does not match {meta_path} "
            f"({meta['weights_sha256'][:12]}...): a damaged, truncated or foreign weights file"
        )
    try:
        tensors = load_file(str(weights_path))
    except (SafetensorError, OSError, ValueError) as exc:
        raise ModelLoadError(f"{weights_path}: not a readable safetensors file ({exc})") from exc
    return tensors, meta


class EntailmentModel:
    """The encoder with the shipped adapter loaded; `probabilities` gives (n, 3) entailment/neutral/contradiction."""

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        weights_path: Path = WEIGHTS,
        meta_path: Path = META,
        token_budget: int = 8192,
    ) -> None:
        import torch

        tensors, meta = read_weights(weights_path, meta_path)
        arch = meta["architecture"]
        self.meta, self.max_length, self.token_budget = meta, int(arch["max_length"]), int(token_budget)
        self.identity = meta["weights_sha256"][:12]
        hidden = model.config.hidden_size
        self.head = torch.nn.Sequential(
            torch.nn.Linear(hidden, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 3)
        )
        try:
            layers = {k[len("layer.") :]: v.float() for k, v in tensors.items() if k.startswith("layer.")}
            for index in arch["trained_layers"]:
                own = {k[len(f"{index}.") :]: v for k, v in layers.items() if k.startswith(f"{index}.")}
                model.encoder.layer[index].load_state_dict(own, strict=True)
            head = {k[len("head.") :]: v.float() for k, v in tensors.items() if k.startswith("head.")}
            self.head.load_state_dict(head, strict=True)
        except (RuntimeError, KeyError, IndexError, AttributeError) as exc:
            raise ModelLoadError(f"{weights_path}: the tensors do not fit this encoder ({exc})") from exc
        self.model, self.tokenizer = model.eval(), tokenizer
        self.head.eval()

    def _encode(
        self, premises: Sequence[str], hypotheses: Sequence[str]
    ) -> list[tuple[list[int], list[int]]]:
        enc = self.tokenizer(
            list(premises),
            list(hypotheses),
            # the premise is cut first in practice (it is the longer); a hypothesis longer than the window
            # (a run-on output sentence) is cut too rather than refused
            truncation="longest_first",
            max_length=self.max_length,
            return_token_type_ids=True,
        )
        return [
            (ids[: self.max_length], types[: self.max_length])
            for ids, types in zip(enc["input_ids"], enc["token_type_ids"], strict=True)
        ]

    def _batches(self, lengths: list[int]) -> list[list[int]]:
        order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
        batches: list[list[int]] = []
        current: list[int] = []
        longest = 0
        for i in order:
            longest_if = max(longest, lengths[i])
            if current and longest_if * (len(current) + 1) > self.token_budget:
                batches.append(current)
                current, longest_if = [], lengths[i]
            current.append(i)
            longest = longest_if
        return batches + ([current] if current else [])

    def probabilities(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """(n, 3) float64 probabilities, label order entailment / neutral / contradiction; deterministic."""
        import torch

        if isinstance(premises, str) or isinstance(hypotheses, str) or len(premises) != len(hypotheses):
            raise ArgumentError("premises and hypotheses must be sequences of strings of the same length")
        out = np.zeros((len(premises), 3), dtype=np.float64)
        if not len(premises):
            return out
        encoded = self._encode(premises, hypotheses)
        pad = self.tokenizer.pad_token_id or 0
        with torch.inference_mode():
            for batch in self._batches([len(ids) for ids, _ in encoded]):
                ids, mask, types = collate(encoded, batch, pad)
                logits = forward_logits(self.model, self.head, ids, mask, types)
                out[batch] = torch.softmax(logits.double(), dim=-1).numpy()
        return out


def collate(
    encoded: Sequence[tuple[list[int], list[int]]], batch: list[int], pad: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(ids, attention mask, token types) of the batch's pairs, padded to its longest (training and
    inference share it)."""
    import torch

    width = max(len(encoded[i][0]) for i in batch)
    ids = torch.full((len(batch), width), pad, dtype=torch.long)
    types = torch.zeros((len(batch), width), dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, i in enumerate(batch):
        n = len(encoded[i][0])
        ids[row, :n] = torch.tensor(encoded[i][0])
        types[row, :n] = torch.tensor(encoded[i][1])
        mask[row, :n] = 1
    return ids, mask, types


def forward_logits(
    model: PreTrainedModel, head: torch.nn.Module, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor
) -> torch.Tensor:
    """Mean-pooled last layer of the encoder through the head (shared by training and inference)."""
    hidden = model(input_ids=ids, attention_mask=mask, token_type_ids=types).last_hidden_state
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1.0)
    return head(pooled)


def load_entailment(
    encoder_path: str | Path, weights_path: Path = WEIGHTS, meta_path: Path = META, token_budget: int = 8192
) -> EntailmentModel:
    """Load the encoder from `encoder_path` (checked against entailment.json's sha256) and the shipped adapter."""
    from transformers import AutoModel, AutoTokenizer

    meta = read_meta(meta_path)
    folder = Path(encoder_path)
    expected = meta["encoder"].get("model_safetensors_sha256")
    if (
        expected
        and (folder / "model.safetensors").is_file()
        and sha256_file(folder / "model.safetensors") != expected
    ):
        raise ModelLoadError(
            f"{folder / 'model.safetensors'}: not the encoder the entailment adapter was trained on "
            f"(sha256 differs from {meta_path})"
        )
    try:
        model = AutoModel.from_pretrained(str(folder))
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"{folder}: cannot load the entailment encoder ({exc})") from exc
    return EntailmentModel(model, tokenizer, weights_path, meta_path, token_budget)
