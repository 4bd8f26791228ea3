"""Sense-extension graphs: one prototype sense, directed metaphor/metonymy edges.

A graph is a plain dict (what builds and releases store in ``meta``)::

    {"word": "can", "source": "wordnet-patterns",
     "senses": {"can%1:06:00::": {"synset": "can.n.01", "gloss": "...", "lexname": "noun.artifact",
                                  "number": 1, "count": 2}, ...},
     "prototype": "can%1:06:00::",
     "edges": [["can%1:06:00::", "can%1:23:00::", "metonymy"], ...],
     "patterns": {"can%1:06:00::>can%1:23:00::": "container-contents"}}

``number`` is the WordNet 3.0 sense number of the word, ``count`` its SemCor tag
count (``index.sense``): both feed the shortcut audits, neither is ever shown.

Three sources make the same records and pass the same :func:`validate`: the
regular-polysemy miner (:func:`mine`), ChainNet-format edge files
(:func:`import_chainnet`), and human decisions applied to either
(:func:`apply_decisions`).
"""

from __future__ import annotations

import csv
import re
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import networkx as nx

PATTERNS = Path(__file__).resolve().parent.parent / "data" / "cogevolve_patterns.toml"
LABELS = ("metaphor", "metonymy")
ROLES = ("Prototype", "Metaphor", "Metonymy")


class GraphError(ValueError):
    """A sense graph (or a file of them) that breaks a rule; the message says where and which."""


@dataclass(frozen=True)
class Pattern:
    name: str
    label: str
    source: tuple[str, ...]
    target: tuple[str, ...]
    source_under: tuple[str, ...] = ()
    cue: re.Pattern | None = None
    exclude: re.Pattern | None = None
    scene: str = "outline"


def load_patterns(path: Path | str = PATTERNS) -> tuple[list[Pattern], tuple[str, ...]]:
    """The pattern file: (patterns, prototype lexnames); errors name the pattern and key."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise GraphError(f"{path}: not valid TOML ({err})") from None
    out, names = [], set()
    for k, raw in enumerate(data.get("pattern", []), 1):
        where = f"{path}: pattern {k} ({raw.get('name', '?')})"
        missing = [f for f in ("name", "label", "source", "target") if f not in raw]
        if missing:
            raise GraphError(f"{where}: missing {missing}")
        unknown = set(raw) - {"name", "label", "source", "target", "source_under", "cue", "exclude", "scene"}
        if unknown:
            raise GraphError(f"{where}: unknown keys {sorted(unknown)}")
        if raw["label"] not in LABELS:
            raise GraphError(f"{where}: label must be one of {LABELS}, not {raw['label']!r}")
        if raw["name"] in names:
            raise GraphError(f"{where}: the name is used twice")
        names.add(raw["name"])
        try:
            cue = re.compile(raw["cue"], re.I) if raw.get("cue") else None
            exclude = re.compile(raw["exclude"], re.I) if raw.get("exclude") else None
        except re.error as err:
            raise GraphError(f"{where}: bad regular expression ({err})") from None
        out.append(Pattern(raw["name"], raw["label"], tuple(raw["source"]), tuple(raw["target"]),
                           tuple(raw.get("source_under", ())), cue, exclude, raw.get("scene", "outline")))
    if not out:
        raise GraphError(f"{path}: no [[pattern]] entries")
    return out, tuple(data.get("prototype_lexnames", ()))


# --------------------------------------------------------------------------- WordNet senses


def _lemma_senses(wn, word: str) -> list:
    """The WordNet noun lemmas of ``word`` in sense-number order, common-noun uses only
    (a capitalised lemma or an instance synset is a proper name: Fox the statesman)."""
    return [lemma for lemma in wn.lemmas(word, "n")
            if lemma.name() == word and not lemma.synset().instance_hypernyms()]


def sense_record(lemma, number: int) -> dict:
    synset = lemma.synset()
    return {"synset": synset.name(), "gloss": synset.definition(), "lexname": synset.lexname(),
            "number": number, "count": lemma.count()}


def word_senses(wn, word: str) -> dict[str, dict]:
    """Every noun sense of ``word`` by sense key (numbers are WordNet's, from 1)."""
    return {lemma.key(): sense_record(lemma, k) for k, lemma in enumerate(wn.lemmas(word, "n"), 1)
            if lemma.name().lower() == word.lower()}


# --------------------------------------------------------------------------- mining


def _fits(p: Pattern, source, target, under: set[str], word: str) -> bool:
    if source.lexname() not in p.source or target.lexname() not in p.target:
        return False
    if p.source_under and not under & set(p.source_under):
        return False
    gloss = target.definition()
    if p.cue and not p.cue.search(gloss.replace(word.replace("_", " "), "{word}")):
        return False
    return not (p.exclude and p.exclude.search(gloss))


def explain(wn, word: str, patterns: list[Pattern], prototype_lexnames: Iterable[str]) -> dict | None:
    """The graph the patterns explain unambiguously for one word, or None.

    Every ordered pair of the word's (common-noun) senses is tested against every
    pattern. Left out: a pair two labels fit; a pair that fits both ways; a pattern
    that fits two targets of one source (which one is meant?); every edge into a sense
    with two possible parents, unless the same pattern fits both and one parent is
    the other's child (the nearer one is kept). What remains is a forest; its largest tree whose root
    sits in a concrete lexicographer file is the word's graph (ties: the root with the
    lower sense number).
    """
    lemmas = _lemma_senses(wn, word)
    if len(lemmas) < 2:
        return None
    numbers = {lemma.key(): k for k, lemma in enumerate(wn.lemmas(word, "n"), 1)}
    under = {lemma.key(): {h.name() for path in lemma.synset().hypernym_paths() for h in path} for lemma in lemmas}
    fits: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)  # (src, tgt) -> {(pattern, label)}
    for s in lemmas:
        for t in lemmas:
            if s is t:
                continue
            for p in patterns:
                if _fits(p, s.synset(), t.synset(), under[s.key()], word):
                    fits[(s.key(), t.key())].add((p.name, p.label))
    edges = {}
    for (s, t), found in fits.items():
        if len({label for _, label in found}) != 1 or (t, s) in fits:
            continue
        edges[(s, t)] = sorted(found)[0]
    # A sense that fits under a parent and under that parent's own parent hangs from
    # the nearer one: lemon tree -> lemon (fruit) -> lemon yellow, not tree -> yellow.
    edges = {(s, t): v for (s, t), v in edges.items()
             if not any((s, m) in edges and edges.get((m, t), ("",))[0] == v[0] for m in numbers)}
    per_pattern = defaultdict(list)
    for (s, t), (name, _) in edges.items():
        per_pattern[(s, name)].append(t)
    edges = {e: v for e, v in edges.items() if len(per_pattern[(e[0], v[0])]) == 1}
    parents = defaultdict(list)
    for s, t in edges:
        parents[t].append(s)
    edges = {e: v for e, v in edges.items() if len(parents[e[1]]) == 1}
    graph = nx.DiGraph(list(edges))
    concrete = set(prototype_lexnames)
    lexname = {lemma.key(): lemma.synset().lexname() for lemma in lemmas}
    best = None
    for part in nx.weakly_connected_components(graph):
        roots = [n for n in part if graph.in_degree(n) == 0]
        if len(roots) != 1 or lexname[roots[0]] not in concrete or not nx.is_directed_acyclic_graph(
                graph.subgraph(part)):
            continue
        rank = (-len(part), numbers[roots[0]])
        if best is None or rank < best[0]:
            best = (rank, roots[0], part)
    if best is None:
        return None
    _, root, part = best
    by_key = {lemma.key(): lemma for lemma in lemmas}
    kept = sorted((e for e in edges if e[0] in part), key=lambda e: (numbers[e[0]], numbers[e[1]]))
    return {
        "word": word, "source": "wordnet-patterns",
        "senses": {k: sense_record(by_key[k], numbers[k]) for k in sorted(part, key=numbers.get)},
        "prototype": root,
        "edges": [[s, t, edges[(s, t)][1]] for s, t in kept],
        "patterns": {f"{s}>{t}": edges[(s, t)][0] for s, t in kept},
    }


def candidate_words(wn, prototype_lexnames: Iterable[str]) -> list[str]:
    """Single-word, lower-case nouns with two or more common-noun senses, one of them concrete."""
    concrete = set(prototype_lexnames)
    out = []
    for word in sorted({name for name in wn.all_lemma_names("n") if name.isalpha() and name.islower()}):
        lemmas = _lemma_senses(wn, word)
        if len(lemmas) >= 2 and any(lemma.synset().lexname() in concrete for lemma in lemmas):
            out.append(word)
    return out


def mine(wn, patterns_path: Path | str = PATTERNS, progress: bool = False) -> list[dict]:
    """Every graph the pattern file explains, word by word in alphabetical order."""
    from tqdm import tqdm

    patterns, concrete = load_patterns(patterns_path)
    graphs = []
    for word in tqdm(candidate_words(wn, concrete), desc="sense graphs", unit="word", disable=not progress):
        graph = explain(wn, word, patterns, concrete)
        if graph is not None:
            validate(graph, wn)
            graphs.append(lexical(wn, graph))
    return graphs


def lexical(wn, graph: dict) -> dict:
    """What builds need from WordNet besides the graph, so that a warm build needs no
    WordNet reader: the word's inflected forms, each sense's example sentences, the
    lemmas of the graph's synsets (synonyms, for masking) and the prototype's hypernyms
    (for its drawing)."""
    from generators.cogevolve.sentences import inflections

    proto = wn.lemma_from_key(graph["prototype"]).synset()
    return {**graph, "lexical": {
        "forms": inflections(wn, graph["word"]),
        "examples": {k: wn.lemma_from_key(k).synset().examples() for k in graph["senses"]},
        "synonyms": sorted({lemma.name().replace("_", " ") for k in graph["senses"]
                            for lemma in wn.lemma_from_key(k).synset().lemmas()}),
        "prototype_hypernyms": sorted(h.name() for h in proto.hypernyms()),
    }}


# --------------------------------------------------------------------------- validation and paths


def validate(graph: dict, wn, where: str | None = None) -> None:
    """Raise :class:`GraphError` unless the graph has exactly one root (its prototype),
    no cycle, labels in {metaphor, metonymy}, every edge between two of its senses, and
    every sense a real WordNet noun sense of the word."""
    word = graph.get("word")
    where = where or f"graph {word!r} ({graph.get('source')})"
    senses, edges = graph.get("senses") or {}, graph.get("edges") or []
    if not word or not senses:
        raise GraphError(f"{where}: a graph needs a word and senses")
    real = word_senses(wn, word)
    fake = [k for k in senses if k not in real]
    if fake:
        raise GraphError(f"{where}: {fake} are not WordNet 3.0 noun senses of {word!r} "
                         f"(its senses: {', '.join(real) or 'none'})")
    g = nx.DiGraph()
    g.add_nodes_from(senses)
    for edge in edges:
        if len(edge) != 3:
            raise GraphError(f"{where}: an edge is [source, target, label], got {edge!r}")
        s, t, label = edge
        if label not in LABELS:
            raise GraphError(f"{where}: edge {s} -> {t} has label {label!r}; labels are {LABELS}")
        if s not in senses or t not in senses:
            raise GraphError(f"{where}: edge {s} -> {t} names a sense outside the graph")
        if s == t or g.has_edge(s, t):
            raise GraphError(f"{where}: edge {s} -> {t} is a loop or a repeat")
        g.add_edge(s, t)
    if not nx.is_directed_acyclic_graph(g):
        raise GraphError(f"{where}: cycle {' -> '.join(s for s, _ in nx.find_cycle(g))}")
    roots = [n for n in g if g.in_degree(n) == 0]
    if len(roots) != 1:
        raise GraphError(f"{where}: {len(roots)} roots ({', '.join(sorted(roots))}); a graph has one prototype")
    if graph.get("prototype") != roots[0]:
        raise GraphError(f"{where}: prototype {graph.get('prototype')!r} is not the root {roots[0]!r}")
    if not nx.is_weakly_connected(g):
        raise GraphError(f"{where}: the senses are not all connected to the prototype")


def to_networkx(graph: dict) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(graph["senses"])
    g.add_edges_from((s, t, {"label": label}) for s, t, label in graph["edges"])
    return g


def roles(graph: dict) -> dict[str, str]:
    """Each sense's cognitive role: Prototype for the root, else the label of its incoming
    edge (None when two incoming edges disagree: such a sense gets no Tier-2 item)."""
    out = {graph["prototype"]: "Prototype"}
    incoming = defaultdict(set)
    for _s, t, label in graph["edges"]:
        incoming[t].add(label.capitalize())
    for t, labels in incoming.items():
        out[t] = labels.pop() if len(labels) == 1 else None
    return out


def paths(graph: dict) -> list[list[str]]:
    """Every root-to-node chain of senses (N >= 2), in a fixed order."""
    g = to_networkx(graph)
    root = graph["prototype"]
    out = []
    for node in graph["senses"]:
        if node != root:
            out.extend(nx.all_simple_paths(g, root, node))
    return sorted(out, key=lambda p: (len(p), p))


# --------------------------------------------------------------------------- ChainNet import


def import_chainnet(path: Path | str, wn) -> tuple[list[dict], dict[str, Any]]:
    """Graphs from a ChainNet-format edge file (TSV: wordform, from_sense_id, to_sense_id, label).

    ChainNet's virtual senses (``word%V1``, senses it split or added) are not WordNet
    senses: edges that touch one are skipped and counted. Each weakly connected
    component of a word's edges becomes one graph (``word``, ``word/2``, ...); a
    component that fails :func:`validate` raises with the file and the lines of its edges.
    """
    path = Path(path)
    by_word: dict[str, list[tuple[int, str, str, str]]] = defaultdict(list)
    skipped = defaultdict(int)
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        header = next(reader, None)
        if header is None or [h.strip() for h in header[:4]] != ["wordform", "from_sense_id", "to_sense_id", "label"]:
            raise GraphError(f"{path}:1: expected the header 'wordform<TAB>from_sense_id<TAB>to_sense_id<TAB>label', "
                             f"got {header!r}")
        for line, row in enumerate(reader, 2):
            if not row or not "".join(row).strip():
                continue
            if len(row) < 4:
                raise GraphError(f"{path}:{line}: expected 4 tab-separated fields, got {len(row)}")
            word, s, t, label = (x.strip() for x in row[:4])
            if label not in LABELS:
                raise GraphError(f"{path}:{line}: label {label!r} is not one of {LABELS}")
            if "%V" in s or "%V" in t:
                skipped["virtual sense"] += 1
                continue
            by_word[word].append((line, s, t, label))
    graphs = []
    for word in sorted(by_word):
        rows = by_word[word]
        real = word_senses(wn, word.replace(" ", "_"))
        for line, s, t, _ in rows:
            for key in (s, t):
                if key not in real:
                    raise GraphError(f"{path}:{line}: {key} is not a WordNet 3.0 noun sense of {word!r}; "
                                     "sense keys must be WordNet 3.0's (e.g. can%1:06:00::)")
        g = nx.DiGraph([(s, t) for _, s, t, _ in rows])
        parts = sorted(nx.weakly_connected_components(g), key=lambda p: min(real[k]["number"] for k in p))
        for k, part in enumerate(parts, 1):
            mine_rows = [r for r in rows if r[1] in part]
            roots = [n for n in part if g.in_degree(n) == 0]
            graph = {"word": word.replace(" ", "_"), "id": word if k == 1 else f"{word}/{k}",
                     "source": f"chainnet:{path.name}",
                     "senses": {n: real[n] for n in sorted(part, key=lambda n: real[n]["number"])},
                     "prototype": roots[0] if len(roots) == 1 else None,
                     "edges": [[s, t, label] for _, s, t, label in mine_rows], "patterns": {}}
            lines = ",".join(str(r[0]) for r in mine_rows)
            validate(graph, wn, where=f"{path}:{lines} ({word})")
            graphs.append(graph)
    return graphs, {"file": str(path), "graphs": len(graphs), "skipped_edges": dict(skipped)}


# --------------------------------------------------------------------------- human decisions


def edge_key(word: str, source: str, target: str) -> str:
    """How a decision names an edge: stable across builds, readable in a decisions file."""
    return f"{word}|{source}>{target}"


def apply_decisions(graphs: list[dict], decisions: list[dict], wn) -> tuple[list[dict], dict[str, int]]:
    """The graphs after the ``sense-graph-audit`` decisions (unit ``edge``).

    A rejected edge is removed; one whose rejecters mostly marked "direction reversed"
    is turned round, and one whose rejecters mostly marked "wrong label" keeps its
    direction with the other label. Senses cut off from the prototype leave the graph.
    A graph that is no longer valid (two roots after a reversal, say) is left out and
    counted; ties wait for an expert and change nothing.
    """
    verdicts = {d["key"]: d for d in decisions if d.get("unit") == "edge"}
    out, counts = [], defaultdict(int)
    for graph in graphs:
        edges, changed = [], False
        for s, t, label in graph["edges"]:
            d = verdicts.get(edge_key(graph["word"], s, t))
            if d is None or d["decision"] in ("accept", "tie"):
                edges.append([s, t, label])
                continue
            changed = True
            fix = d.get("fix")
            if fix == "reverse":
                edges.append([t, s, label])
                counts["edges reversed"] += 1
            elif fix == "relabel":
                edges.append([s, t, "metonymy" if label == "metaphor" else "metaphor"])
                counts["edges relabelled"] += 1
            else:
                counts["edges removed"] += 1
        if not changed:
            out.append(graph)
            continue
        g = nx.DiGraph([(s, t) for s, t, _ in edges])
        roots = [n for n in g if g.in_degree(n) == 0]
        root = graph["prototype"] if graph["prototype"] in roots else (roots[0] if len(roots) == 1 else None)
        reach = ({root} | nx.descendants(g, root)) if root in g else set()
        new = {**graph, "prototype": root,
               "senses": {k: v for k, v in graph["senses"].items() if k in reach},
               "edges": [e for e in edges if e[0] in reach and e[1] in reach],
               "patterns": {k: v for k, v in graph.get("patterns", {}).items()
                            if k.split(">")[0] in reach and k.split(">")[1] in reach}}
        try:
            if len(new["senses"]) < 2:
                raise GraphError("fewer than two senses left")
            validate(new, wn)
        except GraphError:
            counts["graphs dropped"] += 1
            continue
        out.append(new)
    return out, dict(counts)
