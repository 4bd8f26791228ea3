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
import io
import math
import re
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import networkx as nx

from cogforge.generators.cogevolve.schemas import DEPICTIONS

from cogforge.core.errors import UserError, read_text

PATTERNS = Path(__file__).resolve().parent.parent / "data" / "cogevolve_patterns.toml"
LABELS = ("metaphor", "metonymy")
ROLES = ("Prototype", "Metaphor", "Metonymy")


class GraphError(UserError):
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
    scene: str = ""  # how the target is drawn ("frame/variant", schemas.DEPICTIONS); "" = not drawn
    source_scene: str = ""  # how the source is drawn where its lexicographer file does not say
    mention: bool = False


def load_patterns(path: Path | str = PATTERNS) -> tuple[list[Pattern], tuple[str, ...]]:
    """The pattern file: (patterns, prototype lexnames); errors name the pattern and key."""
    path = Path(path)
    try:
        data = tomllib.loads(_edge_file_text(path, "pattern file"))
    except tomllib.TOMLDecodeError as err:
        raise GraphError(f"{path}: not valid TOML ({err})") from None
    out, names = [], set()
    for k, raw in enumerate(data.get("pattern", []), 1):
        where = f"{path}: pattern {k} ({raw.get('name', '?')})"
        missing = [f for f in ("name", "label", "source", "target") if f not in raw]
        if missing:
            raise GraphError(f"{where}: missing {missing}")
        unknown = set(raw) - {"name", "label", "source", "target", "source_under", "cue", "exclude", "scene",
                                  "source_scene", "mention"}
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
        for key in ("scene", "source_scene"):
            if raw.get(key, "") not in ("", *DEPICTIONS):
                raise GraphError(f"{where}: {key} must be one of {', '.join(DEPICTIONS)} (or absent: not drawn), "
                                 f"not {raw[key]!r}")
        out.append(Pattern(raw["name"], raw["label"], tuple(raw["source"]), tuple(raw["target"]),
                           tuple(raw.get("source_under", ())), cue, exclude, raw.get("scene", ""),
                           raw.get("source_scene", ""), bool(raw.get("mention", False))))
    if not out:
        raise GraphError(f"{path}: no [[pattern]] entries")
    return out, tuple(data.get("prototype_lexnames", ()))


# --------------------------------------------------------------------------- WordNet senses


def _lemma_senses(wn, word: str) -> list:
    """The WordNet noun lemmas of ``word`` in sense-number order, common-noun uses only
    (a capitalised lemma or an instance synset is a proper name: Fox the statesman),
    never an offensive one (a slur or an obscenity, :func:`generators.wordnet.offensive`:
    no graph may show, key or order it, so the miner never sees it)."""
    from cogforge.generators.wordnet import offensive

    table = offensive(wn)
    return [lemma for lemma in wn.lemmas(word, "n")
            if lemma.name() == word and not lemma.synset().instance_hypernyms() and not table.lemma(lemma)]


def sense_record(lemma, number: int) -> dict:
    synset = lemma.synset()
    return {"synset": synset.name(), "gloss": synset.definition(), "lexname": synset.lexname(),
            "number": number, "count": lemma.count()}


def word_senses(wn, word: str) -> dict[str, dict]:
    """Every noun sense of ``word`` by sense key (numbers are WordNet's, from 1)."""
    return {lemma.key(): sense_record(lemma, k) for k, lemma in enumerate(wn.lemmas(word, "n"), 1)
            if lemma.name().lower() == word.lower()}


# --------------------------------------------------------------------------- evidence

# An -er/-or noun whose stem is a verb (killer, camper, bomber, peacekeeper) names
# whatever does the verb's action: its person and its object senses are both the
# verb's (siblings), so neither extends the other (a killer whale is not named for
# resembling a killer's victim, a jumper dress is not a person who jumps).
AGENTIVE_SUFFIXES = ("er", "or")
# SemCor counts are small; a difference counts as evidence only past a one-sided
# binomial test at this level (5 tags to 0, 8 to 1, 15 to 5, ...).
FREQUENCY_ALPHA = 0.05


def agentive_stem(wn, word: str) -> str | None:
    """The verb an agentive -er/-or noun is made from (its head's, for a compound:
    peacekeeper -> keep), or None."""
    for start in range(len(word) - 4):
        head = word[start:]
        for suffix in AGENTIVE_SUFFIXES:
            if not head.endswith(suffix) or len(head) < len(suffix) + 3:
                continue
            stem = head[:-len(suffix)]
            # camper -> camp, shaver -> shave, skidder -> skid, pacifier -> pacify
            undoubled = stem[:-1] if len(stem) > 3 and stem[-1] == stem[-2] else None
            for verb in (stem, stem + "e", undoubled, stem[:-1] + "y" if stem.endswith("i") else None):
                if verb and len(verb) >= 3 and wn.synsets(verb, "v"):
                    return verb
    return None


def _verbs(lemma, word: str) -> set[str]:
    """The verbs a sense is derivationally linked to, less a verb spelt like the noun
    and defined through it (to star: "feature as the star"), which is made from the noun."""
    return {form.name() for form in lemma.derivationally_related_forms()
            if form.synset().pos() == "v" and not (form.name() == word and _mentions(form.synset().definition(), word))}


def related(wn, word: str, source, target) -> bool:
    """Whether two senses of ``word`` are plausibly one word extended, not two words
    that share a spelling (homonyms) or two senses made from a third word (siblings).

    Person and act senses are where WordNet says so: one that is derivationally
    linked to a verb the other sense is not (a camper, someone who camps; a maroon,
    someone marooned; an opening, the act of opening) is named from that verb, and so
    is the person sense of an agentive noun (a jumper, a killer, a tuner): no object,
    animal or body part extends to it. Other pairs are taken as related when a
    pattern fits them (its cue, and for ``mention`` patterns the gloss, is the evidence)."""
    kind = target.synset().lexname()
    if kind not in ("noun.person", "noun.act") or source.synset().lexname() == kind:
        return True
    if kind == "noun.person" and agentive_stem(wn, word):
        return False
    return not (_verbs(target, word) - _verbs(source, word))


def _mentions(gloss: str, word: str) -> bool:
    return re.search(rf"\b{re.escape(word.replace('_', ' '))}(s|es)?\b", gloss, re.I) is not None


def mentions_source(word: str, source, gloss: str) -> bool:
    """Positive evidence that a gloss extends ``source`` (a Synset): it names the word,
    a synonym of the source, or one of the source's hypernyms up to three levels ("a
    person who resembles a nonhuman primate" for anthropoid, "a perambulator that
    resembles a bassinet"). "Like" alone is not enough: a cape is not a garment like
    a headland, though both are "like" something."""
    if _mentions(gloss, word):
        return True
    names, frontier = set(), [source]
    for _ in range(4):
        names |= {lemma.name() for synset in frontier for lemma in synset.lemmas()}
        frontier = [h for synset in frontier for h in synset.hypernyms()]
    return any(_mentions(gloss, name) for name in names if name.islower() and len(name) > 3)


def _more_frequent(a: int, b: int) -> bool:
    """Whether ``a`` SemCor tags against ``b`` show the first sense to be the more
    frequent one (one-sided binomial test, p = 1/2)."""
    n = a + b
    if a <= b:
        return False
    tail = sum(math.comb(n, k) for k in range(a, n + 1)) / 2 ** n
    return tail < FREQUENCY_ALPHA


def direction(word: str, source, target) -> int:
    """+1 when the evidence says ``source`` is the older sense and ``target`` extends
    it, 0 when there is none, -1 when any of it says the opposite (also when the rest
    agrees: an edge whose direction is in doubt is dropped rather than guessed).

    Two kinds of evidence: a gloss that is written through the word in the other
    sense ("the edible seed of the almond tree" extends the tree; "a shrub bearing
    cranberries" is named after the berry), and SemCor frequency (the prototype is the
    more frequent sense: a killer is first someone who kills, not the whale)."""
    votes = set()
    in_source, in_target = _mentions(source.synset().definition(), word), _mentions(target.synset().definition(), word)
    if in_target != in_source:
        votes.add(1 if in_target else -1)
    if _more_frequent(source.count(), target.count()):
        votes.add(1)
    if _more_frequent(target.count(), source.count()):
        votes.add(-1)
    return min(votes, default=0)


# --------------------------------------------------------------------------- mining


def _fits(p: Pattern, source, target, under: set[str], word: str) -> bool:
    if source.lexname() not in p.source or target.lexname() not in p.target:
        return False
    if p.source_under and not under & set(p.source_under):
        return False
    gloss = target.definition()
    if p.cue and not p.cue.search(gloss.replace(word.replace("_", " "), "{word}")):
        return False
    if p.exclude and p.exclude.search(gloss):
        return False
    return not p.mention or mentions_source(word, source, gloss)


def explain(wn, word: str, patterns: list[Pattern], prototype_lexnames: Iterable[str]) -> dict | None:
    """The graph the patterns explain unambiguously for one word, or None.

    Every ordered pair of the word's (common-noun) senses is tested against every
    pattern. Left out: a pair two labels fit; a pair without positive evidence that
    the two senses are one word (:func:`related`); a pair whose direction the evidence
    contradicts (:func:`direction`), or, when it fits both ways, does not decide; a pattern
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
    by_key = {lemma.key(): lemma for lemma in lemmas}
    edges = {}
    for (s, t), found in fits.items():
        if len({label for _, label in found}) != 1:
            continue
        if (t, s) in fits and {label for _, label in fits[(t, s)]} != {label for _, label in found}:
            continue
        if not related(wn, word, by_key[s], by_key[t]):
            continue
        # A pair that fits both ways (a plant and its fruit) takes the direction the
        # evidence gives; one way only, the edge stays unless the evidence runs against it.
        if direction(word, by_key[s], by_key[t]) < (1 if (t, s) in fits else 0):
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
    from cogforge.generators.cogevolve.sentences import inflections

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


SPLIT_SENSE = re.compile(r"%M(\d+)([AB])$")


def _chainnet_key(key: str, real: dict[str, dict]) -> tuple[str | None, str]:
    """A ChainNet sense id as a WordNet 3.0 sense key: (key, kind), kind one of
    "wordnet", "split" (``word%M3B``: half B of the word's WordNet sense 3, which
    ChainNet split in two; the half is mapped onto that sense) and "virtual"
    (``word%V1``, a sense ChainNet added: no WordNet key, None)."""
    if "%V" in key:
        return None, "virtual"
    split = SPLIT_SENSE.search(key)
    if split:
        number = int(split.group(1))
        found = [k for k, v in real.items() if v["number"] == number]
        return (found[0] if found else None), "split"
    return key, "wordnet"


def _edge_file_text(path: Path, what: str = "ChainNet edge file") -> str:
    """The text of an input file; a missing, binary or non-UTF-8 one is a :class:`GraphError`."""
    try:
        return read_text(path, what)
    except UserError as err:
        raise GraphError(str(err)) from None


def import_chainnet(path: Path | str, wn) -> tuple[list[dict], dict[str, Any]]:
    """Graphs from a ChainNet-format edge file (TSV: wordform, from_sense_id, to_sense_id, label).

    ChainNet's own ids besides WordNet sense keys: ``word%V1`` is a virtual sense
    (one ChainNet added; no WordNet sense), and ``word%M3A`` / ``word%M3B`` are the
    two halves of WordNet sense 3 of the word, which ChainNet split in two. Edges that
    touch a virtual sense are skipped. A split half is mapped onto its WordNet sense
    where the word's graph stays valid: an edge between the two halves of one sense
    (a loop once mapped) or one repeating an edge already there is skipped, and when
    the mapped edges would break the word's graph (a cycle, two roots) all of that
    word's split-sense edges are skipped instead. Every skip and mapping is counted.
    Each weakly connected component of a word's edges becomes one graph (``word``,
    ``word/2``, ...); a component that fails :func:`validate` raises with the file and
    the lines of its edges.
    """
    path = Path(path)
    rows_of: dict[str, list[tuple[int, str, str, str]]] = defaultdict(list)
    with io.StringIO(_edge_file_text(path), newline="") as handle:
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
            rows_of[word].append((line, s, t, label))
    skipped: dict[str, int] = defaultdict(int)
    mapped: dict[str, int] = defaultdict(int)
    graphs = []
    for word in sorted(rows_of):
        real = word_senses(wn, word.replace(" ", "_"))
        rows, split_rows = [], []
        for line, s, t, label in rows_of[word]:
            (ks, kind_s), (kt, kind_t) = _chainnet_key(s, real), _chainnet_key(t, real)
            if "virtual" in (kind_s, kind_t):
                skipped["virtual sense"] += 1
                continue
            for key, kind, raw in ((ks, kind_s, s), (kt, kind_t, t)):
                if key not in real:
                    what = (f"{raw} names WordNet sense {SPLIT_SENSE.search(raw).group(1)} of {word!r}, which has "
                            f"{len(real)} noun senses" if kind == "split" else
                            f"{raw} is not a WordNet 3.0 noun sense of {word!r}")
                    raise GraphError(f"{path}:{line}: {what}; sense ids are WordNet 3.0 keys (e.g. can%1:06:00::), "
                                     "ChainNet's split halves (word%M3A) or virtual senses (word%V1)")
            (split_rows if "split" in (kind_s, kind_t) else rows).append((line, ks, kt, label))
        kept = _with_split_senses(path, word, rows, split_rows, real, wn, skipped, mapped)
        graphs += _chainnet_graphs(path, word, kept, real, wn)
    info = {"file": str(path), "graphs": len(graphs), "skipped_edges": dict(skipped)}
    if mapped:
        info["mapped_edges"] = dict(mapped)
    return graphs, info


def _with_split_senses(path, word, rows, split_rows, real, wn, skipped, mapped) -> list:
    """``rows`` plus the split-sense edges mapped onto their WordNet senses, where that
    keeps every component of the word valid (else none of them; the skips counted)."""
    seen = {(s, t) for _, s, t, _ in rows}
    extra = []
    for line, s, t, label in split_rows:
        if s == t:
            skipped["split sense: the two halves of one WordNet sense"] += 1
        elif (s, t) in seen:
            skipped["split sense: repeats an edge once mapped"] += 1
        else:
            seen.add((s, t))
            extra.append((line, s, t, label))
    if not extra:
        return rows
    try:
        _chainnet_graphs(path, word, rows + extra, real, wn)
    except GraphError:
        skipped["split sense: mapped edges would break the graph"] += len(extra)
        return rows
    mapped["split sense"] += len(extra)
    return rows + extra


def _chainnet_graphs(path, word: str, rows: list, real: dict, wn) -> list[dict]:
    """One validated graph per weakly connected component of a word's edges."""
    if not rows:
        return []
    g = nx.DiGraph([(s, t) for _, s, t, _ in rows])
    parts = sorted(nx.weakly_connected_components(g), key=lambda p: min(real[k]["number"] for k in p))
    out = []
    for k, part in enumerate(parts, 1):
        mine_rows = sorted((r for r in rows if r[1] in part), key=lambda r: r[0])
        roots = [n for n in part if g.in_degree(n) == 0]
        graph = {"word": word.replace(" ", "_"), "id": word if k == 1 else f"{word}/{k}",
                 "source": f"chainnet:{Path(path).name}",
                 "senses": {n: real[n] for n in sorted(part, key=lambda n: real[n]["number"])},
                 "prototype": roots[0] if len(roots) == 1 else None,
                 "edges": [[s, t, label] for _, s, t, label in mine_rows], "patterns": {}}
        lines = ",".join(str(r[0]) for r in mine_rows)
        validate(graph, wn, where=f"{path}:{lines} ({word})")
        out.append(graph)
    return out


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
