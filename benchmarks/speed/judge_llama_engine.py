"""The previous engine of the local judge, kept for the side-by-side measurement only: the GGUF file on llama.cpp.

llama-cpp-python has no binary wheel on PyPI (it compiles llama.cpp: about 6 minutes on two idle cores),
so the package does not use it. ``benchmarks/speed/judge_engines.py`` runs this engine in a venv of its own,
beside :class:`~bertscore_plugins.judge.engine.GemmaEngine`, with the same interface: ``prompt_tokens``,
``next_logprobs`` (only the last position's logits; the prefix the previous prompt shares is kept in the
cache) and ``piece``; prompts come as text already in Gemma's turn format
(:func:`~bertscore_plugins.judge.engine.prompt_text`). Imports nothing from bertscore_plugins (that venv has only llama-cpp-python).
"""

import math
import threading


class LlamaEngine:
    """One model, one KV cache; callers hold :attr:`lock`."""

    def __init__(self, model_path, threads, n_ctx=2048):
        import numpy as np
        from llama_cpp import Llama, llama_cpp

        self.np, self.low = np, llama_cpp
        self.llm = Llama(
            str(model_path),
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=threads,
            logits_all=False,
            verbose=False,
        )
        self.lock = threading.Lock()

    def prompt_tokens(self, text):
        return self.llm.tokenize(text.encode(), add_bos=True, special=True)

    def piece(self, token):
        return self.llm.detokenize([int(token)]).decode("utf-8", errors="replace")

    def next_logprobs(self, tokens):
        """log p(next token | tokens) as a float64 array, reading only what follows the cached prefix."""
        np, llm = self.np, self.llm
        cached = list(llm.input_ids[: llm.n_tokens])
        keep = 0
        for a, b in zip(cached, tokens[:-1], strict=False):  # the last token is always evaluated again
            if a != b:
                break
            keep += 1
        llm.n_tokens = keep
        llm.eval(list(tokens[keep:]))
        pointer = self.low.llama_get_logits_ith(llm._ctx.ctx, -1)
        logits = np.ctypeslib.as_array(pointer, shape=(llm.n_vocab(),)).astype(np.float64)
        shifted = logits - logits.max()
        return shifted - math.log(np.exp(shifted).sum())
