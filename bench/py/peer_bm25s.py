"""Benchmark peer: bm25s (Python), the reference BM25 for relevance.

Measures index build time, peak RSS, per-query latency (OR only: bm25s has no
conjunctive mode) and, for relevance, the ranked ids per query. Documents are
indexed as "title text" (bm25s has a single text field). English config =
bm25s.tokenize(stopwords="en", stemmer=PyStemmer english); default config = no
stopwords, no stemmer. BM25 variant: bm25s default ("lucene", k1=1.5, b=0.75).
Speaks the common peer protocol: one JSON spec as argv[1], one JSON object on stdout.
"""
import json
import resource
import sys
import time

import bm25s
import numpy as np
import Stemmer


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def peak_rss_mib():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    spec = json.loads(sys.argv[1])
    out = {"peer": "bm25s", "version": bm25s.__version__, "config": spec["config"], "task": spec["task"],
           "python": sys.version.split()[0], "notes": ["title and text concatenated; bm25s default BM25 (lucene, k1=1.5, b=0.75)"]}
    if spec["task"] == "agent":
        out["unsupported"] = "bm25s has no incremental add: every write needs a full re-index"
        print(json.dumps(out))
        return
    english = spec["config"] == "english"
    stemmer = Stemmer.Stemmer("english") if english else None
    stopwords = "en" if english else None
    docs = read_jsonl(spec["docs"])
    queries = read_jsonl(spec["queries"]) if spec.get("queries") else []
    out["docs"] = len(docs)
    ids = [d["id"] for d in docs]

    t = time.perf_counter()
    corpus = [f'{d.get("title") or ""} {d.get("text") or ""}' for d in docs]
    tokens = bm25s.tokenize(corpus, stopwords=stopwords, stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    out["build_ms"] = (time.perf_counter() - t) * 1e3
    out["rss_after_build_mib"] = peak_rss_mib()
    out["serialize_unsupported"] = "not measured for bm25s"

    k = min(spec.get("k", 10), len(docs))
    out["queries"] = {}
    runs = {}
    for mode in spec.get("modes", ["or"]):
        if mode != "or":
            out["queries"][mode] = {"unsupported": "bm25s has no AND mode"}
            continue
        lat, run, hits = [], {}, 0
        t0 = time.perf_counter()
        truncated = False
        for q in queries:
            if spec.get("query_budget_ms") and (time.perf_counter() - t0) * 1e3 > spec["query_budget_ms"]:
                truncated = True
                break
            tq = time.perf_counter()
            qt = bm25s.tokenize([q["text"]], stopwords=stopwords, stemmer=stemmer, return_ids=False, show_progress=False)
            qt = [[w for w in qt[0] if w in retriever.vocab_dict]]
            if qt[0]:
                res, scores = retriever.retrieve(qt, k=k, show_progress=False, n_threads=1)
                ranked = [ids[int(i)] for i, s in zip(res[0], scores[0]) if s > 0]
            else:
                ranked = []
            lat.append((time.perf_counter() - tq) * 1e3)
            hits += len(ranked)
            run[q["id"]] = ranked
        out["queries"][mode] = {"latencies_ms": lat, "total_ms": (time.perf_counter() - t0) * 1e3, "hits": hits,
                                "truncated": truncated, "planned": len(queries)}
        runs[mode] = run
    if spec["task"] == "relevance":
        out["runs"] = runs
    out["peak_rss_mib"] = peak_rss_mib()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
