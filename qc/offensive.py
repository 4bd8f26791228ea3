"""QC check ``offensive``: no item shows, keys or orders an offensive WordNet sense.

What decides offensiveness is :func:`generators.wordnet.offensive` (WordNet's usage
domains, the gloss, the curated ``generators/data/offensive_senses.tsv``), the same
table the builders exclude with; this check reads a finished build the way a model and
a grader meet it, so that a sense that slipped past a builder (a ChainNet file, a
decision, a stale cache, a new source) fails the build:

* every WordNet sense key anywhere in an item's ``meta`` (CogEvolve: the graph's
  senses, the keyed sense, the option, image and path senses; any benchmark that
  records sense keys) must not be offensive;
* every record in ``meta`` that names a ``synset`` (CONSTRUCTURE: options, chain,
  image concept, the atomic question's concept; CogEvolve: graph senses) must not be
  offensive as shown: under its displayed ``name``/``text`` when it has one ("kaffir
  cat" is, "taco" the food is not), else under every lemma;
* no question or option text may contain the definition of an offensive synset (a
  definition shown as an option, whatever ``meta`` says); and ``graphs.jsonl``, where
  a build publishes its graphs, is read the same way.

A build with no WordNet sense or synset in its items (CARV, symbols, CoreCognition)
passes at once, without loading WordNet.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from cogforge.qc.core import Build, CheckResult, Finding

SENSE_KEY = re.compile(r"^[^\s%]+%[1-5]:\d\d:\d\d:[^\s:]*:[^\s:]*$")
SYNSET_NAME = re.compile(r"^\S+\.[nvasr]\.\d\d$")


def _records(value: Any) -> Iterator[tuple[str, str, str | None]]:
    """("sense", key, None) and ("synset", name, shown name or None) for everything in ``value``."""
    if isinstance(value, dict):
        synset = value.get("synset")
        if isinstance(synset, str) and SYNSET_NAME.match(synset):
            shown = value.get("name") or value.get("text")
            yield "synset", synset, shown if isinstance(shown, str) else None
        for key, child in value.items():
            if SENSE_KEY.match(key):  # a graph's senses, keyed by sense key
                yield "sense", key, None
            yield from _records(child)
    elif isinstance(value, list):
        for child in value:
            yield from _records(child)
    elif isinstance(value, str) and SENSE_KEY.match(value):
        yield "sense", value, None


def _why(table, kind: str, name: str, shown: str | None) -> str | None:
    if kind == "sense":
        return table.sense(name)
    return table.shown(name, shown) if shown else table.synset(name)


def check_offensive(build: Build) -> CheckResult:
    out = CheckResult()
    found = {item.id: list(_records(item.meta)) for item in build.items}
    graphs_file = build.path / "graphs.jsonl"
    graphs = ([json.loads(line) for line in graphs_file.read_text(encoding="utf-8").splitlines() if line.strip()]
              if graphs_file.is_file() else [])
    if not any(found.values()) and not graphs:
        out.stats = {"items_with_wordnet_senses": 0}
        return out
    from pathlib import Path

    from cogforge.generators import wordnet

    folder = build.manifest.get("wordnet", {}).get("dir")  # the build's WordNet, where this machine has it
    table = wordnet.offensive(folder if folder and Path(folder).is_dir() else None)
    glosses = {gloss: name for name, gloss in table.definitions.items() if len(gloss) >= 12}
    failed = set()
    for item in build.items:
        reported = set()
        for kind, name, shown in found[item.id]:
            why = _why(table, kind, name, shown)
            if why and (name, shown) not in reported:
                reported.add((name, shown))
                label = f"{name} shown as {shown!r}" if shown else name
                out.findings.append(Finding("error", "offensive", item.id,
                                            f"shows, keys or orders the offensive sense {label} ({why})"))
        texts = [item.question, *(item.options or [])]
        for gloss, name in glosses.items():
            if gloss and any(gloss in text for text in texts) and (name, None) not in reported:
                reported.add((name, None))
                out.findings.append(Finding("error", "offensive", item.id, f"shows the definition of the "
                                            f"offensive sense {name} ({table.synset(name)})"))
        if reported:
            failed.add(item.id)
    for line, graph in enumerate(graphs, 1):
        reported = set()
        for kind, name, shown in _records(graph):
            why = _why(table, kind, name, shown)
            if why and name not in reported:
                reported.add(name)
                out.findings.append(Finding("error", "offensive", f"graphs.jsonl:{line}",
                                            f"graph {graph.get('id', graph.get('word'))!r} has the offensive "
                                            f"sense {name} ({why})"))
    out.stats = {"items_with_wordnet_senses": sum(1 for v in found.values() if v),
                 "items_failed": len(failed), "graphs_read": len(graphs)}
    return out
