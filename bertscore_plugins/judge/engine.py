"""The local judge's model: the packaged Gemma 3 270M GGUF file, run by transformers on torch (no compiler).

transformers reads the GGUF file (``from_pretrained(folder, gguf_file=...)``, with the ``gguf`` and
``accelerate`` packages) and dequantises it to float32 weights. That takes about a minute, so it is done
once: the dequantised model is saved beside the GGUF file (:func:`dequantised_dir`, named by the file's
sha256 and the transformers version) and later starts load it in seconds.

The engine answers one question: the log probabilities of the next token after a prompt. Only the last
position's logits are computed (``logits_to_keep=1``: the vocabulary has 262,144 words), and the key/value
cache of the previous prompt is kept, so a prompt that starts like the previous one (the summaries of one
source share everything up to the answer) is read only from where it differs. One request at a time: the
caller holds :attr:`GemmaEngine.lock` (one model, one cache).
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: Gemma's turn markers (the GGUF is the base model and carries no chat template of its own)
TURN = "<start_of_turn>{role}\n{content}<end_of_turn>\n"
REPLY = "<start_of_turn>model\n"
END_OF_TURN = "<end_of_turn>"
#: the prompt is read in blocks of this many tokens at fixed positions (see GemmaEngine.next_logprobs)
BLOCK = 128


def dequantised_dir(gguf_path: Path, sha256: str) -> Path:
    """Where the dequantised model of ``gguf_path`` is kept: beside it, named by its digest and by the
    transformers version that wrote it (another version writes its own)."""
    import transformers

    return gguf_path.parent / f"dequantised-{sha256[:16]}-transformers-{transformers.__version__}"


def prompt_text(messages: Sequence[dict[str, str]]) -> str:
    """The chat messages in Gemma's turn format, ending where the model's reply starts."""
    turns = "".join(
        TURN.format(role="model" if m["role"] == "assistant" else "user", content=m["content"])
        for m in messages
    )
    return turns + REPLY


class GemmaEngine:
    """The packaged model on torch; :meth:`next_logprobs` under :attr:`lock`.

    Args:
        gguf_path: the GGUF file. sha256: its digest (names the dequantised copy).
        threads: torch's CPU threads (default: every core).
    """

    def __init__(self, gguf_path: str | Path, sha256: str, threads: int | None = None) -> None:
        import torch

        if threads:
            torch.set_num_threads(int(threads))
        self.torch = torch
        self.lock = threading.Lock()
        self.model, self.tokenizer = _load(Path(gguf_path), sha256)
        self.vocab_size = int(self.model.get_output_embeddings().weight.shape[0])
        self.end_ids = {
            int(i)
            for i in (self.tokenizer.eos_token_id, self.tokenizer.convert_tokens_to_ids(END_OF_TURN))
            if isinstance(i, int) and i >= 0
        }
        self._tokens: list[int] = []
        self._cache: Any = None

    def tokens(self, messages: Sequence[dict[str, str]]) -> list[int]:
        """The prompt's token ids (with the beginning-of-text token); no lock needed."""
        return self.prompt_tokens(prompt_text(messages))

    def prompt_tokens(self, text: str) -> list[int]:
        """The token ids of a prompt already in the turn format (with the beginning-of-text token)."""
        return list(self.tokenizer(text, add_special_tokens=True)["input_ids"])

    def count(self, text: str) -> int:
        """How many tokens ``text`` is (without special tokens)."""
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def piece(self, token: int) -> str:
        return str(self.tokenizer.decode([int(token)]))

    def encode_piece(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def next_logprobs(self, tokens: Sequence[int]) -> Any:
        """log p(next token | ``tokens``) over the vocabulary (a float64 tensor); call under :attr:`lock`.

        The prompt is read in blocks of :data:`BLOCK` tokens at fixed positions, and the cache of the
        previous call is cut back to the last block boundary the two prompts share: only what follows is
        computed. Every position is computed by the same operations whatever was asked before, so one
        prompt gets the same answer alone, after another prompt, or among concurrent requests."""
        torch = self.torch
        tokens = [int(t) for t in tokens]
        keep = 0
        for a, b in zip(self._tokens, tokens[:-1], strict=False):
            if a != b:
                break
            keep += 1
        keep -= keep % BLOCK
        if keep == 0 or self._cache is None:
            from transformers import DynamicCache

            self._cache = DynamicCache()  # full-length layers: can be cut back to any prefix
        elif len(self._tokens) > keep:
            self._cache.crop(-(len(self._tokens) - keep))
        self._tokens = tokens[:keep]  # what the cache holds if a block below fails
        with torch.inference_mode():
            for start in range(keep, len(tokens), BLOCK):
                block = tokens[start : start + BLOCK]
                out = self.model(
                    input_ids=torch.tensor([block]),
                    cache=self._cache,
                    use_cache=True,
                    cache_position=torch.arange(start, start + len(block)),
                    logits_to_keep=1,
                )
                self._cache, self._tokens = out.past_key_values, tokens[: start + len(block)]
        return torch.log_softmax(out.logits[0, -1].double(), dim=-1)


def _load(gguf_path: Path, sha256: str) -> tuple[Any, Any]:
    """(model, tokenizer): from the dequantised copy when there is one, else from the GGUF file (then the
    copy is written, atomically: a start killed while writing leaves no half copy)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # the server's log keeps errors, not progress bars
    saved = dequantised_dir(gguf_path, sha256)
    if (saved / "config.json").exists():
        try:
            model = AutoModelForCausalLM.from_pretrained(saved, dtype=torch.float32)
            return model.eval(), AutoTokenizer.from_pretrained(saved)
        except (OSError, ValueError):  # a damaged copy: made again below
            shutil.rmtree(saved, ignore_errors=True)
    folder, name = gguf_path.parent, gguf_path.name
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    staging = folder / f".dequantising-{os.getpid()}"
    try:
        staging.mkdir(exist_ok=True)
        # the weights are plain float32 once read: saved as such (transformers refuses to save a model it
        # still takes for a quantised one)
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        os.replace(staging, saved)
    except OSError:  # a read-only or full disk: served from the GGUF file each start, still correct
        shutil.rmtree(staging, ignore_errors=True)
    return model, tokenizer
