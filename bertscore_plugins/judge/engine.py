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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bertscore_plugins.errors import ModelLoadError

if TYPE_CHECKING:
    import torch
    from transformers import DynamicCache, PreTrainedModel, PreTrainedTokenizerBase

#: Gemma's turn markers (the GGUF is the base model and carries no chat template of its own): control tokens
#: of the template alone, never read out of a message's text (see GemmaEngine.tokens)
START_OF_TURN, END_OF_TURN = "<start_of_turn>", "<end_of_turn>"
TURN = START_OF_TURN + "{role}\n{content}" + END_OF_TURN + "\n"
REPLY = START_OF_TURN + "model\n"
#: the prompt is read in blocks of this many tokens at fixed positions (see GemmaEngine.next_logprobs)
BLOCK = 128


def dequantised_dir(gguf_path: Path, sha256: str) -> Path:
    """Where the dequantised model of ``gguf_path`` is kept: beside it, named by its digest and by the
    transformers version that wrote it (another version writes its own)."""
    import transformers

    return gguf_path.parent / f"dequantised-{sha256[:16]}-transformers-{transformers.__version__}"


def turn_role(role: str) -> str:
    """Gemma's name for a chat role: ``model`` for the assistant, ``user`` for every other."""
    return "model" if role == "assistant" else "user"


def prompt_text(messages: Sequence[dict[str, str]]) -> str:
    """The chat messages in Gemma's turn format, ending where the model's reply starts: for reading and
    logs; the engine builds the token ids turn by turn (:meth:`GemmaEngine.tokens`), not from this string."""
    turns = "".join(TURN.format(role=turn_role(m["role"]), content=m["content"]) for m in messages)
    return turns + REPLY


class Turns:
    """Gemma's turn format as token ids, over a tokenizer: the template's markers are control tokens, every
    message's text is text.

    The prompt was once one string tokenised with special tokens parsed, so an answer that carried
    ``<end_of_turn>`` and ``<start_of_turn>model`` closed the user's turn and wrote the model's verdict
    itself (p(yes) of a wrong answer 0.646 -> 1.000). Here each message (its role line and content) is
    tokenised with special tokens split, and the markers are added as ids. A message without markers gets
    the same ids as the one string did: the tokenizer splits a string at its control tokens and reads each
    piece on its own, as here."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase) -> None:
        self.tokenizer = tokenizer
        self.start_of_turn = _control_token(tokenizer, START_OF_TURN)
        self.end_of_turn = _control_token(tokenizer, END_OF_TURN)
        bos = tokenizer.bos_token_id
        self.begin = [int(bos)] if isinstance(bos, int) and bos >= 0 else []

    def tokens(self, messages: Sequence[dict[str, str]]) -> list[int]:
        """The prompt's token ids (with the beginning-of-text token), ending where the model's reply starts."""
        ids = list(self.begin)
        for message in messages:
            ids += [self.start_of_turn, *self.text(f"{turn_role(message['role'])}\n{message['content']}")]
            ids += [self.end_of_turn, *self.text("\n")]
        return [*ids, self.start_of_turn, *self.text("model\n")]

    def text(self, text: str) -> list[int]:
        """The token ids of ``text`` read as text: a control token's spelling inside it is its characters."""
        return list(self.tokenizer(text, add_special_tokens=False, split_special_tokens=True)["input_ids"])


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
        self.turns = Turns(self.tokenizer)
        self.end_ids = {self.turns.end_of_turn} | (
            {int(self.tokenizer.eos_token_id)} if isinstance(self.tokenizer.eos_token_id, int) else set()
        )
        self._tokens: list[int] = []
        self._cache: DynamicCache | None = None

    def tokens(self, messages: Sequence[dict[str, str]]) -> list[int]:
        """The prompt's token ids (:class:`Turns`); no lock needed."""
        return self.turns.tokens(messages)

    def count(self, text: str) -> int:
        """How many tokens ``text`` is, read as text."""
        return len(self.turns.text(text))

    def piece(self, token: int) -> str:
        return str(self.tokenizer.decode([int(token)]))

    def encode_piece(self, text: str) -> list[int]:
        """A label's or a stop string's token ids, read as text (a label spelt like a marker is that text)."""
        return self.turns.text(text)

    def next_logprobs(self, tokens: Sequence[int]) -> torch.Tensor:
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


def _control_token(tokenizer: PreTrainedTokenizerBase, spelling: str) -> int:
    """The id of one of the template's control tokens; a tokenizer without it cannot serve the template."""
    token = tokenizer.convert_tokens_to_ids(spelling)
    if not isinstance(token, int) or token < 0 or token == tokenizer.unk_token_id:
        raise ModelLoadError(
            f"the judge's tokenizer has no {spelling} token: it cannot read Gemma's turn format"
        )
    return token


def _load(gguf_path: Path, sha256: str) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """(model, tokenizer): from the dequantised copy when there is one, else from the GGUF file (then the
    copy is written, atomically: a start killed while writing leaves no half copy)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    quiet: Callable[[], None] = transformers_logging.disable_progress_bar  # untyped in transformers
    quiet()  # the server's log keeps errors, not progress bars
    saved = dequantised_dir(gguf_path, sha256)
    model: PreTrainedModel
    if (saved / "config.json").exists():
        try:
            model = AutoModelForCausalLM.from_pretrained(saved, dtype=torch.float32)
            return model.eval(), AutoTokenizer.from_pretrained(saved)
        except (OSError, ValueError):  # a damaged copy: made again below
            shutil.rmtree(saved, ignore_errors=True)
    folder, name = gguf_path.parent, gguf_path.name
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    model = model.eval()
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
