"""CogEvolve's release: its card text, the schema SVG sources, and the art's licence."""

from __future__ import annotations

import json
from pathlib import Path


def extra_exports(rows: list[dict], build_dir: Path) -> dict[str, bytes]:
    """``exports/svg/<sha256>.svg``: every schema's source (the SVG-code ablation reads them;
    ``meta.image_records[].svg`` names them), and ``exports/graphs.jsonl``: the sense graphs."""
    out: dict[str, bytes] = {}
    for row in rows:
        meta = row["meta"] if isinstance(row["meta"], dict) else json.loads(row["meta"])
        for record in meta.get("image_records", []) + meta.get("svg_records", []):
            out[f"exports/{record['svg']}"] = (build_dir / record["svg"]).read_bytes()
    if (build_dir / "graphs.jsonl").is_file():
        out["exports/graphs.jsonl"] = (build_dir / "graphs.jsonl").read_bytes()
    return out


PRETTY_NAME = "CogEvolve"
LICENSE = "cc-by-4.0"
TASK_CATEGORIES = ["visual-question-answering", "multiple-choice", "text-classification"]
SUMMARY = (
    "CogEvolve asks how word senses extend from a concrete prototype by metaphor or "
    "metonymy: identify a sentence's sense (Tier 1a), match schema images and "
    "definitions (1b), classify a sense's role (Tier 2), and order the senses of a path "
    "from its definitions or its image schemas (Tier 3, with a masked-word control and "
    "an SVG-code ablation). This release is built by cogforge from Princeton WordNet 3.0 "
    "(sense graphs mined with regular-polysemy patterns, definitions and example sentences "
    "verbatim; WordNet licence: free use with its copyright notice, "
    "https://wordnet.princeton.edu/license-and-commercial-use). The schema images reuse "
    "Twemoji drawings (Copyright 2020 Twitter, Inc and other contributors; graphics "
    "licensed under CC-BY 4.0, https://creativecommons.org/licenses/by/4.0/; from the npm "
    "package @twemoji/svg 15.0.0) placed in scenes drawn by cogforge."
)
META_FIELDS = {
    "word, graph": "the word and its sense graph: senses (WordNet 3.0 sense keys, glosses, "
                   "sense numbers, SemCor counts), edges [from, to, label], prototype",
    "sense, sentence": "Tiers 1 and 2: the sense shown and the sentence using it",
    "role": "Tier 2: Prototype, Metaphor or Metonymy",
    "path, n, stratum, id_map": "Tier 3: the senses in gold order, the path length, N=2 or N>2, "
                                "and each ID's sense key",
    "image_records": "per image: sense, PNG path, SVG path (in exports/svg/), core_sha256, scene",
    "masked_terms": "3a-masked: what [TARGET] replaced",
}
LIMITATIONS = [
    "Sense graphs are mined by lexical patterns from WordNet, not authored by experts as "
    "in the paper; some edges are wrong (homonyms, reversed history) until people audit "
    "them with the sense-graph-audit stage.",
    "Sentences are WordNet's own examples (a few hundred), not the paper's 42,934; the "
    "frequency baseline uses SemCor counts, not C4.",
    "Multi-step paths (N>2) are rare in mined graphs; image schemas exist only for words "
    "whose prototype has an emoji drawing.",
]
