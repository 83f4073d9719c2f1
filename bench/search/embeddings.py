"""Recall@5 of an embedding model beside `searchTools`, and of the two fused (issue 26, sixth round).

Not part of CI: an experiment, kept so its figures in bench/RESULTS.md can be reproduced.

    cargo build -p carnet-cli
    cargo run --release -p carnet-bench --bin search-quality      # writes target/search-quality/
    python3 -m venv /tmp/wlenv && /tmp/wlenv/bin/pip install wordllama==0.4.0.post1
    /tmp/wlenv/bin/python bench/search/embeddings.py [--parameters]

WordLlama 0.4.0's wheel holds its weights (256 dimensions) and its tokenizer, but looks for the
tokenizer under `wordllama/tokenizer/` while the wheel puts it in `wordllama/tokenizers/`, and
otherwise downloads it: this script copies it where it is looked for, so nothing is downloaded.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import wordllama

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "target/search-quality/real.manifest.json"
CARNET = ROOT / "target/debug/carnet"
SETS = ["queries.json", "queries-holdout.json", "queries-holdout-2.json"]

package = Path(wordllama.__file__).parent
(package / "tokenizer").mkdir(exist_ok=True)
for config in (package / "tokenizers").glob("*.json"):
    shutil.copy(config, package / "tokenizer" / config.name)
model = wordllama.WordLlama.load(disable_download=True)


def words(name):
    """A tool's name as words: camelCase, snake_case, kebab-case and dots split."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    return " ".join(re.split(r"[_\-.\s]+", spaced)).strip()


def parameters(tool):
    schema = (tool.get("remote") or {}).get("inputSchema") or tool.get("parameters") or {}
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return " ".join(
        f"{words(name)} {spec.get('description', '') if isinstance(spec, dict) else ''}"
        for name, spec in properties.items()
    )


def bm25(query):
    """`searchTools`' ranking of the real catalog, as `carnet search` prints it."""
    out = subprocess.run(
        [CARNET, "--manifest", MANIFEST, "--format", "json", "search", "bench", query, "--limit", "50"],
        capture_output=True, text=True, check=True,
    )
    return [(hit["name"], hit["score"]) for hit in json.loads(out.stdout)["hits"]]


def fused_rrf(lists, k):
    score = {}
    for ranked in lists:
        for rank, name in enumerate(ranked):
            score[name] = score.get(name, 0.0) + 1.0 / (k + rank + 1)
    return sorted(score, key=lambda n: -score[n])


def main():
    tools = json.loads(MANIFEST.read_text())["tools"]
    names = sorted(tools)
    with_parameters = "--parameters" in sys.argv
    texts = [
        f"{words(n)}. {tools[n].get('description', '')}" + (f" {parameters(tools[n])}" if with_parameters else "")
        for n in names
    ]
    embedded = model.embed(texts, norm=True)
    for file in SETS:
        queries = json.loads((ROOT / "bench/search" / file).read_text())
        similarity = model.embed([q["query"] for q in queries], norm=True) @ embedded.T
        found = {}
        for i, q in enumerate(queries):
            wanted = {q["tool"], *q.get("also", [])}
            lexical = bm25(q["query"])
            semantic = [names[j] for j in np.argsort(-similarity[i])]
            low, high = similarity[i].min(), similarity[i].max()
            scaled = {n: (similarity[i][j] - low) / (high - low) for j, n in enumerate(names)}
            top = max([s for _, s in lexical] or [1.0])
            rankings = {
                "searchTools": [n for n, _ in lexical],
                "embeddings": semantic,
                "rrf10": fused_rrf([[n for n, _ in lexical], semantic], 10),
                "rrf60": fused_rrf([[n for n, _ in lexical], semantic], 60),
            }
            for weight in (0.3, 0.5, 0.7):
                lexical_scaled = {n: s / top for n, s in lexical}
                mix = {n: weight * lexical_scaled.get(n, 0.0) + (1 - weight) * scaled[n] for n in names}
                rankings[f"mix{weight}"] = sorted(mix, key=lambda n: -mix[n])
            for method, ranked in rankings.items():
                found.setdefault(method, []).append(any(t in wanted for t in ranked[:5]))
        line = " ".join(f"{m}={sum(v) / len(v):.3f}" for m, v in found.items())
        print(f"{file} ({len(queries)} requests), recall@5: {line}")


main()
