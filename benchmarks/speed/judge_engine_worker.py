"""One engine's side of benchmarks/speed/judge_engines.py, run in that engine's own venv (llama.cpp has one).

    python judge_engine_worker.py gemma|llama MODEL.gguf SHA256 THREADS PROMPTS.jsonl OUT.json

Reads prompts (text already in Gemma's turn format), one a line; writes, per prompt, the first token's 20
most likely words with their log probabilities and the seconds it took, plus the load time and the
process's peak memory. The engine module is loaded by its file path: the llama venv has no bertscore_plugins
dependencies.
"""

import importlib.util
import json
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
JUDGE = HERE.parents[1] / "bertscore_plugins" / "judge"
TOP = 20


def _module(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv):
    kind, model, sha256, threads, prompts, out = argv
    started = time.perf_counter()
    if kind == "gemma":
        engine = _module(JUDGE / "engine.py").GemmaEngine(model, sha256, threads=int(threads))
    else:
        engine = _module(HERE / "judge_llama_engine.py").LlamaEngine(model, threads=int(threads))
    load = time.perf_counter() - started
    rows = []
    for line in Path(prompts).read_text(encoding="utf-8").splitlines():
        tick = time.perf_counter()
        tokens = engine.prompt_tokens(json.loads(line))
        logprobs = engine.next_logprobs(tokens)
        values = logprobs.numpy() if hasattr(logprobs, "numpy") else logprobs
        best = values.argsort()[::-1][:TOP]
        top = [[engine.piece(int(i)), float(values[i])] for i in best]
        rows.append({"tokens": len(tokens), "top": top, "seconds": time.perf_counter() - tick})
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    Path(out).write_text(json.dumps({"load_seconds": load, "peak_rss_mb": peak_mb, "rows": rows}))


if __name__ == "__main__":
    main(sys.argv[1:])
