"""CogEvolve items (paper section 3.4): sense graphs -> Tiers 1a, 1b, 2, 3a, 3b and controls.

The graphs come from WordNet 3.0 through the regular-polysemy patterns (or from
ChainNet-format files named in the config or with ``--input chainnet=FILE``), after
the ``sense-graph-audit`` decisions. Sentences come from WordNet's examples (and
unified-format WSD corpora). Each word whose prototype has a curated Twemoji drawing
(``schemas.load_cores``) gets one SVG schema per sense, all reusing one core through
``<defs>``/``<use>``, each checked by :mod:`cogforge.svgcheck` before it is rendered;
its settings are dealt so that none tells a prototype from an extension (``settings_for``).

Tasks (``task`` ids):

* ``1a``: a sentence, the target word, the graph's definitions as options A, B, ...
* ``1b-i2t`` / ``1b-t2i``: a schema image and the definitions / a definition and the
  word's schema images (options "Image 1", ...);
* ``2``: a sentence and the target word; options Prototype, Metaphor, Metonymy;
  balanced over the three roles;
* ``3a`` / ``3a-masked``: the shuffled definitions of one root-to-sense path, IDs A,
  B, ...; the answer is the gold order "B -> A -> C"; the masked control replaces the
  word, its inflections, compounds and synonyms with ``[TARGET]`` and does not name it;
* ``3b`` / ``3b-svg``: the path's schema images as "Image A", "Image B", ... / their SVG
  sources as text.

IDs and option orders come from the build's RNG and never follow WordNet's sense
numbers (which are ordered by frequency: ordering by them solves most pairs). Answer
positions are balanced with a ledger (the least used position for that option count).
Words are split 7:1:2, so that no word appears in two splits.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import os
import random
import re
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Annotated

from pydantic import Field, model_validator
from tqdm import tqdm

from cogforge.builders._filtering import filter_shortcuts
from cogforge import __version__
from cogforge.core import svgcheck
from cogforge.core.project import project_root
from cogforge.core.buildio import BuildWriter
from cogforge.core.config import Schema, check_splits, load
from cogforge.core.errors import UserError
from cogforge.core.positions import Positions
from cogforge.core.record import Item
from cogforge.core.stats import build_stats
from cogforge.generators import wordnet
from cogforge.generators.cogevolve import graphs as sense_graphs
from cogforge.generators.cogevolve import schemas, sentences

NAME = "cogevolve"
DEFAULT_CONFIG = Path(__file__).with_suffix(".toml")
ROOT = Path(__file__).resolve().parent.parent
TASKS = ["1a", "1b-i2t", "1b-t2i", "2", "3a", "3a-masked", "3b", "3b-svg"]
ROLE_OPTIONS = ["Prototype", "Metaphor", "Metonymy"]
MASK = "[TARGET]"
SEQUENCE_FORMAT = "Final Sequence: [ID] -> [ID] -> ..."

PROMPTS = {
    "1a": ("Sentence: {sentence}\nTarget word: {form}\n"
           "Which definition gives the meaning of the target word as it is used in this sentence?"),
    "1b-i2t": ('The image represents one meaning of the word "{word}". '
               "Which definition corresponds to the meaning the image depicts?"),
    "1b-t2i": ('Definition of one meaning of the word "{word}": {gloss}\n'
               "The images are numbered in the order they are given (Image 1, Image 2, ...). "
               "Which image depicts this meaning?"),
    "2": ("Sentence: {sentence}\nTarget word: {form}\n"
          "What is the cognitive role of the target word's meaning in this sentence? "
          "Prototype: the literal, core, most typical sense. "
          "Metaphor: used figuratively to draw a comparison (similarity). "
          "Metonymy: refers to something closely related to the core sense (contiguity)."),
    "3a": ('These are meanings of the word "{word}", in no particular order:\n{listing}\n'
           "Order them as a path of semantic extension: first the prototype (the most concrete, basic "
           "meaning), then each meaning that extends the previous one by metaphor or metonymy. "
           "Reason only from the definitions given, not from etymology. "
           "End with the line: " + SEQUENCE_FORMAT),
    "3a-masked": ("These are meanings of an unknown word, written [TARGET] where it occurs, in no particular "
                  "order:\n{listing}\n"
                  "Order them as a path of semantic extension: first the prototype (the definition that "
                  "describes the most physical, tangible meaning), then each meaning that extends the previous "
                  "one by metaphor or metonymy. End with the line: " + SEQUENCE_FORMAT),
    "3b": ('The images, given in order as {ids}, each represent one meaning of the word "{word}". '
           "Order them as a path of semantic extension: first the prototype (the most concrete, physical "
           "meaning), then each image whose meaning extends the previous one. "
           "End with the line: " + SEQUENCE_FORMAT),
    "3b-svg": ('Below are SVG sources of images, {ids}, each representing one meaning of the word "{word}".\n'
               "{listing}\n"
               "Order them as a path of semantic extension: first the prototype (the most concrete, physical "
               "meaning), then each image whose meaning extends the previous one. "
               "End with the line: " + SEQUENCE_FORMAT),
}


class Config(Schema):
    """``builders/cogevolve.toml``."""

    seed: Annotated[int, Field(ge=0)] = 0
    citation: str = ""
    wordnet_dir: str | None = None
    patterns: str = "generators/data/cogevolve_patterns.toml"
    chainnet: list[str] = []
    wsd_xml: list[str] = []
    twemoji_dir: str | None = None
    tier3_long_share: Annotated[float, Field(ge=0, lt=1)] = 0.0
    splits: dict[str, Annotated[int, Field(ge=0)]] = {"train": 7, "validation": 1, "test": 2}

    @model_validator(mode="after")
    def _consistent(self):
        check_splits(self.splits)
        return self


GRAPH_CACHE_FORMAT = "v1"  # bump when the miner changes what it keeps


def mined_graphs(wn, patterns_path: Path, wordnet_dir: str | None, progress: bool) -> list[dict]:
    """The miner's graphs, cached in ``.cache/`` by the WordNet files' and the pattern
    file's hashes (mining reads every noun: ~12 s here; a warm load takes milliseconds)."""
    import hashlib

    # the offensive-sense exclusion decides which senses the miner sees
    # the miner's own code is part of the key: a change to its evidence rules must re-mine
    key = hashlib.sha256(patterns_path.read_bytes() + wordnet.offensive_fingerprint().encode()
                         + Path(sense_graphs.__file__).read_bytes()).hexdigest()[:16]
    fp = wordnet.fingerprint(wordnet.wordnet_dir(wordnet_dir))
    cache = wordnet.CACHE / f"cogevolve-graphs-{GRAPH_CACHE_FORMAT}-{fp}-{key}.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    graphs = sense_graphs.mine(wn(), patterns_path, progress=progress)
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_name(cache.name + ".tmp")
    tmp.write_text(json.dumps(graphs))  # key order kept: senses are in sense-number order
    tmp.replace(cache)
    return graphs


def drop_offensive(graphs: list[dict], sents: list[dict], table: wordnet.Offensive, wn) -> tuple[list, list, dict]:
    """The graphs and sentences without an offensive sense (a slur or an obscenity).

    The miner never sees one; ChainNet files and decisions can bring one in. Such a
    sense leaves its graph with every sense reached only through it (its chain to the
    prototype is gone); a graph whose prototype is offensive, or that keeps fewer than
    two senses, is dropped; a sentence in such a sense is dropped. Returns the counts
    the manifest records (``sources.offensive``)."""
    import networkx as nx

    counts: Counter = Counter()
    kept = []
    for graph in graphs:
        bad = {key for key in graph["senses"] if table.sense(key)}
        if not bad:
            kept.append(graph)
            continue
        counts["senses (offensive)"] += len(bad)
        g = sense_graphs.to_networkx(graph)
        g.remove_nodes_from(bad)
        root = graph["prototype"]
        reach = {root} | nx.descendants(g, root) if root in g else set()
        counts["senses (cut off from the prototype)"] += len(graph["senses"]) - len(bad) - len(reach)
        if len(reach) < 2:
            counts["graphs dropped"] += 1
            continue
        counts["graphs pruned"] += 1
        pruned = {**graph, "senses": {k: v for k, v in graph["senses"].items() if k in reach},
                  "edges": [e for e in graph["edges"] if e[0] in reach and e[1] in reach],
                  "patterns": {k: v for k, v in graph.get("patterns", {}).items()
                               if set(k.split(">")) <= reach}}
        kept.append(sense_graphs.lexical(wn(), {k: v for k, v in pruned.items() if k != "lexical"}))
    clean = [s for s in sents if not table.sense(s["sense"])]
    counts["sentences"] = len(sents) - len(clean)
    return kept, clean, {k: v for k, v in sorted(counts.items()) if v}


def load_config(path: Path | str | None = None, inputs: dict[str, list[str]] | None = None) -> dict:
    config = load(Path(path or DEFAULT_CONFIG), Config).model_dump()
    for key, paths in (inputs or {}).items():
        if key not in ("chainnet", "wsd_xml"):
            raise UserError(f"--input {key}=...: cogevolve takes chainnet=FILE or wsd_xml=FILE")
        config[key] = list(config[key]) + list(paths)
    return config


class _Deferred:
    """Stands for the WordNet reader and loads it on first use (loading takes seconds)."""

    def __init__(self, load):
        self._load = load

    def __getattr__(self, name: str):
        return getattr(self._load(), name)


def _resolve(path: str) -> Path:
    p = Path(path)
    return p if p.is_absolute() or p.exists() else ROOT / p


# --------------------------------------------------------------------------- masking


def mask_terms(graph: dict) -> list[str]:
    """What 3a-masked hides: the word, its inflections and every lemma of the graph's
    synsets (synonyms); :func:`mask` also hides compounds that contain the word."""
    terms = set(graph["lexical"]["forms"]) | set(graph["lexical"]["synonyms"])
    return sorted((t for t in terms if t), key=lambda t: (-len(t), t))


def mask(text: str, terms: list[str], word: str) -> str:
    out = text
    for term in terms:
        out = re.sub(rf"(?<![\w-]){re.escape(term)}(?![\w-])", MASK, out, flags=re.I)
    # compounds: any token that contains the word (canful, tin-can)
    return re.sub(rf"[\w-]*{re.escape(word.replace('_', ' '))}[\w-]*", MASK, out, flags=re.I)


def leaks(text: str, forms: list[str]) -> bool:
    """True when a masked text still names the word or an inflection (the mask itself aside)."""
    return sentences.find_form(text.replace(MASK, " "), forms) is not None


# --------------------------------------------------------------------------- images


def depictions_for(graph: dict, patterns: dict[str, sense_graphs.Pattern],
                   colours: dict[str, str]) -> dict[str, str]:
    """Sense key -> how it is drawn (``frame/variant``, :data:`generators.cogevolve.schemas.DEPICTIONS`)
    for the senses some frame shows; the others are left out. A sense is drawn by what it
    is, never by its role: the scene its pattern gives it (as a target, or ``source_scene``
    as a source), else its lexicographer file's (:data:`~generators.cogevolve.schemas.BY_LEXNAME`),
    and only where the depiction fits its file (``FITS``); a colour needs its paint in
    ``cogevolve_colours.tsv``. Two senses of a word never share a depiction."""
    edges = graph.get("patterns", {})
    out: dict[str, str] = {}
    proto = graph["prototype"]  # first: where two senses would share a depiction, the prototype keeps it
    for key, sense in sorted(graph["senses"].items(), key=lambda kv: kv[0] != proto):
        named = [patterns[name].scene for pair, name in edges.items() if pair.endswith(f">{key}") and name in patterns]
        named += [patterns[name].source_scene for pair, name in edges.items()
                  if pair.startswith(f"{key}>") and name in patterns and patterns[name].source_scene]
        kind = named[0] if named else schemas.BY_LEXNAME.get(sense["lexname"], "")  # ChainNet has no patterns
        if kind == "material/paint" and key not in colours:
            kind = ""  # a swatch in the drawing's own colours would show a yellow "teal"
        if kind and sense["lexname"] in schemas.FITS[kind] and kind not in out.values():
            out[key] = kind
    return dict(sorted(out.items(), key=lambda kv: list(graph["senses"]).index(kv[0])))


FRAME_SLACK, FRAME_BALANCE = 2, 0.2  # a frame's |prototypes - extensions| <= max(slack, balance * pictures)


def balanced_frames(graphs: list[dict], kinds_of: dict[str, dict[str, str]], rng: random.Random) -> set[str]:
    """The ids of the words that get pictures: in a seeded order, and again while any more
    fit, a word is taken when every frame it draws in stays within FRAME_BALANCE of as many
    prototypes as extensions. Animals are always prototypes and fruit trees always
    extensions, so without this the field would say "first" (I-RAVEN's lesson: the
    sampler, not the reader, must keep the answer out of the picture's style)."""
    order = list(graphs)
    rng.shuffle(order)
    counts: Counter = Counter()
    chosen: set[str] = set()
    while True:
        before = len(chosen)
        for graph in order:
            if graph["id"] in chosen:
                continue
            mine = Counter((kind.split("/")[0], key == graph["prototype"]) for key, kind in kinds_of[graph["id"]].items())
            trial = counts + mine
            if all(abs(trial[(f, True)] - trial[(f, False)])
                   <= max(FRAME_SLACK, FRAME_BALANCE * (trial[(f, True)] + trial[(f, False)])) for f, _ in mine):
                counts, chosen = trial, chosen | {graph["id"]}
        if len(chosen) == before:
            return chosen


def settings_for(graph: dict, keys: list[str], ledger: Counter, rng: random.Random) -> dict[str, str]:
    """A setting (:data:`generators.cogevolve.schemas.SETTINGS`) for each drawn sense ``keys`` of the word:
    different settings within a word where there are enough, and across the build each
    setting as often for prototypes as for extensions (``ledger`` counts (setting, role)
    over the words drawn so far), so that the backdrop says nothing about the role."""
    keys = list(keys)
    rng.shuffle(keys)
    out: dict[str, str] = {}
    for key in keys:
        role = "prototype" if key == graph["prototype"] else "extension"
        free = [s for s in schemas.SETTINGS if s not in out.values()] or list(schemas.SETTINGS)
        least = min(ledger[(s, role)] for s in free)
        out[key] = rng.choice([s for s in free if ledger[(s, role)] == least])
        ledger[(out[key], role)] += 1
    return out


# --------------------------------------------------------------------------- helpers


def _letters(n: int) -> list[str]:
    return [chr(65 + k) for k in range(n)]


def _mcq_prompt(question: str, options: list[str]) -> str:
    return question + "\n" + "\n".join(f"{chr(65 + k)}. {o}" for k, o in enumerate(options)) + \
        "\nAnswer with the option's letter."


def split_words(words: list[str], weights: dict[str, int], seed: int) -> dict[str, str]:
    order = sorted(words)
    random.Random(f"cogevolve:{seed}:splits").shuffle(order)
    total, out, start = sum(weights.values()), {}, 0
    names = [n for n in weights if weights[n] > 0]
    for k, split in enumerate(names):
        end = len(order) if k == len(names) - 1 else start + round(len(order) * weights[split] / total)
        for word in order[start:end]:
            out[word] = split
        start = end
    return out


# --------------------------------------------------------------------------- shared by the build and streams


def graphs_and_sentences(config: dict, wn, decisions: list[dict] | None, progress: bool) -> tuple[list, list, dict]:
    """The sense graphs (mined, imported, decided, sorted by word) and their sentences, both
    without offensive senses (:func:`drop_offensive`), and the manifest's ``sources``."""
    patterns_path = _resolve(config["patterns"])
    sense_graphs.load_patterns(patterns_path)  # a bad pattern file fails before WordNet is read
    # Input files are read before WordNet is loaded or mined, so a bad file fails in a
    # moment: a ChainNet file's format is checked before its sense keys need WordNet.
    sources, imported = {}, []
    for path in config["chainnet"]:
        found, info = sense_graphs.import_chainnet(_resolve(path), _Deferred(wn))
        imported += [sense_graphs.lexical(wn(), g) for g in found]
        sources[f"chainnet:{Path(path).name}"] = info
    corpora = {path: sentences.read_wsd_xml(_resolve(path)) for path in config["wsd_xml"]}
    graphs = mined_graphs(wn, patterns_path, config.get("wordnet_dir"), progress)
    sources["wordnet-patterns"] = len(graphs)
    if imported:
        replaced = {g["word"] for g in imported}
        graphs = [g for g in graphs if g["word"] not in replaced] + imported
    graphs, decided = sense_graphs.apply_decisions(graphs, decisions, wn()) if decisions else (graphs, {})
    graphs.sort(key=lambda g: (g["word"], g.get("id", g["word"])))
    for graph in graphs:
        graph.setdefault("id", graph["word"])

    sents = sentences.wordnet_examples(graphs)
    corpus_counts = {}
    for path in config["wsd_xml"]:
        found, info = sentences.import_wsd_xml(_resolve(path), graphs, corpus=corpora[path])
        sents += found
        corpus_counts[Path(path).name] = info
    graphs, sents, offended = drop_offensive(graphs, sents, wordnet.offensive(config.get("wordnet_dir")), wn)
    return graphs, sents, {"graphs": sources, "decisions": decided, "corpora": corpus_counts, "offensive": offended}


def draw_schemas(graphs: list[dict], config: dict, seed: int, decisions: list[dict] | None, add_image,
                 dropped: Counter, progress: bool = False, render=schemas.render) -> tuple[dict, dict]:
    """The words' pictures: ``(schema_of, svg_source)``, graph id -> sense key -> image
    record and image path -> SVG text. ``add_image(data, suffix, folder)`` stores a file
    and returns its path (:meth:`cogforge.core.buildio.BuildWriter.add_image`); ``render``
    is :func:`generators.cogevolve.schemas.render` or a memo of it."""
    patterns, _concrete = sense_graphs.load_patterns(_resolve(config["patterns"]))
    pattern_of = {p.name: p for p in patterns}
    twemoji = Path(config.get("twemoji_dir") or project_root() / ".cache" / "twemoji")
    cores = schemas.load_cores()
    rejected_images = {d["key"] for d in decisions or [] if d.get("unit") == "image" and d["decision"] == "reject"}
    schema_of: dict[str, dict[str, dict]] = {}  # graph id -> sense key -> image record
    svg_source: dict[str, str] = {}  # build path -> SVG text (for 3b-svg)
    drawn_by: dict[str, str] = {}  # PNG sha256 -> graph id: no picture is shared by two words
    colours = schemas.load_colours()
    backdrops: Counter = Counter()  # (setting, role) -> senses drawn so far
    kinds_of = {g["id"]: depictions_for(g, pattern_of, colours) for g in graphs if schemas.core_for(g, cores)}
    drawable = [g for g in graphs if len(kinds_of.get(g["id"], ())) >= 2]  # a picture needs another to differ from
    dropped["schemas (fewer than two senses a frame can show)"] += len(kinds_of) - len(drawable)
    chosen = balanced_frames(drawable, kinds_of, random.Random(f"cogevolve:{seed}:frames"))
    imaged = [g for g in drawable if g["id"] in chosen]
    dropped["schemas (a frame would show one role more than the other)"] += len(drawable) - len(imaged)
    for graph in tqdm(imaged, desc="schemas", unit="word", disable=not progress):
        points, depicted = schemas.core_for(graph, cores)
        kinds = kinds_of[graph["id"]]
        srng = random.Random(f"cogevolve:{seed}:{graph['id']}:svg")
        core_id = "k" + "".join(srng.choice("0123456789") for _ in range(8))
        core, colour = schemas.core_group(schemas.core_file(twemoji, points).read_bytes(), core_id)
        backdrop = settings_for(graph, list(kinds), backdrops, srng)
        records = {}
        for key, kind in kinds.items():
            paint = colours[key] if kind == "material/paint" else colour
            for _ in range(50):  # another word with the same core may have drawn the same picture
                svg = schemas.compose(core, core_id, paint, kind, backdrop[key], srng)
                png = render(svg)
                digest = hashlib.sha256(png).hexdigest()
                if drawn_by.setdefault(digest, graph["id"]) == graph["id"]:
                    break
            else:
                raise RuntimeError(f"{graph['id']}: no picture of {key} differs from other words' pictures")
            checked = svgcheck.ensure(svg, f"{graph['id']}:{key}", banned_words=[graph["word"]])
            svg_path = add_image(svg, ".svg", folder="svg")
            svg_source[svg_path] = svg.decode()
            records[key] = {"sense": key, "svg": svg_path, "png": add_image(png),
                            "core_sha256": checked.core_sha256, "elements": checked.elements,
                            "png_bytes": len(png), "scene": backdrop[key], "depiction": kind,
                            "core": {"emoji": points, "synset": depicted}}
            if kind == "material/paint":
                records[key]["colour"] = paint
        if len({r["core_sha256"] for r in records.values()}) != 1:
            raise svgcheck.SVGError([svgcheck.Problem(graph["id"], "core-differs", "core",
                                                      "the core differs between the word's images")])
        if any(Path(r["png"]).stem in rejected_images for r in records.values()):
            dropped["schemas (a picture rejected in cogevolve-schema-audit)"] += 1
            continue  # 1b-t2i and 3b show all of a word's pictures: one bad one spoils them
        schema_of[graph["id"]] = records
    return schema_of, svg_source


def sentence_graphs(graphs: list[dict], sents: list[dict]):
    """``(k, graph, sentence)`` for each sentence (``k``: its number) whose sense a graph of its word has."""
    by_word = defaultdict(list)
    for g in graphs:
        by_word[g["word"]].append(g)
    for k, s in enumerate(sents):
        graph = next((g for g in by_word.get(s["word"], []) if s["sense"] in g["senses"]), None)
        if graph is not None:
            yield k, graph, s


def tier3_paths(graphs: list[dict], schema_of: dict, config: dict, seed: int,
                dropped: Counter) -> list[tuple[dict, list[str]]]:
    """Tier 3's paths: every root-to-sense path, N=2 paths thinned to ``tier3_long_share``,
    then :func:`balance_paths` against blind orderings."""
    all_paths = [(g, p) for g in graphs for p in sense_graphs.paths(g)]
    long_paths = [gp for gp in all_paths if len(gp[1]) > 2]
    short = [gp for gp in all_paths if len(gp[1]) == 2]
    share = config["tier3_long_share"]
    if share > 0 and long_paths:
        keep = min(len(short), round(len(long_paths) * (1 - share) / share))
        rng3 = random.Random(f"cogevolve:{seed}:tier3")
        kept = set(map(id, rng3.sample(short, keep)))
        dropped["3 (thinning N=2 paths)"] += len(short) - keep
        short = [gp for gp in short if id(gp) in kept]
    return balance_paths(short + long_paths, schema_of, random.Random(f"cogevolve:{seed}:balance"), dropped)


def make_item(item_id: str, split: str, task: str, graph: dict, question: str, images: list[str], options,
              answer: str, meta: dict) -> Item:
    """An item with the meta every CogEvolve item has: the word, its graph and its split unit."""
    full = {"word": graph["word"], "graph_id": graph["id"], "graph": graph_meta(graph),
            "split_unit": f"word-{graph['word']}", **meta}
    if options:
        full["answer_letter"] = chr(65 + options.index(answer))
    return Item(id=item_id, benchmark=NAME, task=task, split=split, question=question, images=images,
                options=options, answer=answer, meta=full)


def tier3_questions(graph: dict, path: list[str], shown: list[str], schema_of: dict,
                    svg_source: dict[str, str]) -> dict[str, tuple | None]:
    """Tier 3's questions on ``path`` with its senses listed in the order ``shown`` (IDs
    A, B, ... in that order): task -> ``(question, images, options, answer, meta)``, for
    3a, 3a-masked (None where the mask leaves the word visible) and, when every sense of
    the path has a picture, 3b and 3b-svg."""
    ids = _letters(len(shown))
    id_of = dict(zip(shown, ids))
    answer = " -> ".join(id_of[k] for k in path)
    base = {"path": path, "n": len(path), "stratum": "N=2" if len(path) == 2 else "N>2",
            "id_map": {i: k for k, i in id_of.items()}}
    listing = "\n".join(f"[{id_of[k]}] {graph['senses'][k]['gloss']}" for k in shown)
    out: dict[str, tuple | None] = {
        "3a": (PROMPTS["3a"].format(word=graph["word"], listing=listing), [], None, answer, base)}
    terms = mask_terms(graph)
    masked = "\n".join(f"[{id_of[k]}] {mask(graph['senses'][k]['gloss'], terms, graph['word'])}" for k in shown)
    out["3a-masked"] = None if leaks(masked, graph["lexical"]["forms"]) else (
        PROMPTS["3a-masked"].format(listing=masked), [], None, answer, base | {"masked_terms": terms})
    if pictured(graph, path, schema_of):
        records = schema_of[graph["id"]]
        names = ", ".join(f"Image {i}" for i in ids)
        out["3b"] = (PROMPTS["3b"].format(word=graph["word"], ids=names), [records[k]["png"] for k in shown], None,
                     answer, base | {"image_records": [records[k] for k in shown]})
        listing = "\n".join(f"Image {id_of[k]}:\n" + svg_source[records[k]["svg"]].strip() for k in shown)
        out["3b-svg"] = (PROMPTS["3b-svg"].format(word=graph["word"], ids=names, listing=listing), [], None, answer,
                         base | {"svg_records": [records[k] for k in shown]})
    return out


# --------------------------------------------------------------------------- build


def build(out_dir: Path | str, seed: int | None = None, config_path: Path | str | None = None,
          progress: bool = True, decisions: list[dict] | None = None,
          inputs: dict[str, list[str]] | None = None) -> dict:
    """Build CogEvolve into ``out_dir``; returns the manifest (with timings)."""
    started = time.perf_counter()
    config = load_config(config_path, inputs)
    seed = config["seed"] if seed is None else seed
    wn = functools.cache(lambda: wordnet.reader(config.get("wordnet_dir")))  # only when something needs it
    graphs, sents, sources = graphs_and_sentences(config, wn, decisions, progress)
    mined = time.perf_counter()
    split_of = split_words(sorted({g["word"] for g in graphs}), config["splits"], seed)

    with BuildWriter(out_dir) as writer:
        # ---- schemas: one core per word, one scene per sense
        dropped: Counter = Counter()
        schema_of, svg_source = draw_schemas(graphs, config, seed, decisions, writer.add_image, dropped, progress)
        drawn = time.perf_counter()

        items, counters = [], Counter()
        positions = Positions()
        seen: set[tuple] = set()

        def add(task: str, graph: dict, question: str, images: list[str], options, answer: str, meta: dict):
            key = (task, question, tuple(images), tuple(options or ()))  # what a model is shown
            if key in seen:
                dropped[f"{task} (duplicate)"] += 1
                return
            seen.add(key)
            counters[task] += 1
            items.append(make_item(f"cogevolve-{task}-{counters[task]:05d}", split_of[graph["word"]], task, graph,
                                   question, images, options, answer, meta))

        role_of = {g["id"]: sense_graphs.roles(g) for g in graphs}

        # ---- Tier 1a and the Tier-2 pool: sentences
        tier2_pool: dict[str, list] = defaultdict(list)
        for k, graph, s in sentence_graphs(graphs, sents):
            rng = random.Random(f"cogevolve:{seed}:sentence:{k}:{s['sense']}")
            glosses = {key: v["gloss"] for key, v in graph["senses"].items()}
            if len(set(glosses.values())) != len(glosses):
                dropped["1a (two senses share a gloss)"] += 1
            else:
                answer = glosses[s["sense"]]
                options = positions.place("1a", answer, [v for key, v in glosses.items() if key != s["sense"]], rng)
                question = _mcq_prompt(PROMPTS["1a"].format(sentence=s["text"], form=s["form"]), options)
                add("1a", graph, question, [], options, answer,
                    {"sense": s["sense"], "sentence": s, "option_senses": _option_senses(graph, options)})
            role = role_of[graph["id"]].get(s["sense"])
            if role:
                tier2_pool[role].append((graph, s))

        # ---- Tier 2: balanced over the three roles
        per_role = min((len(tier2_pool[r]) for r in ROLE_OPTIONS), default=0)
        rng2 = random.Random(f"cogevolve:{seed}:tier2")
        for role in ROLE_OPTIONS:
            pool = list(tier2_pool[role])
            rng2.shuffle(pool)
            dropped[f"2 (balancing {role})"] += len(pool) - per_role
            for graph, s in sorted(pool[:per_role], key=lambda gs: (gs[0]["word"], gs[1]["text"])):
                question = _mcq_prompt(PROMPTS["2"].format(sentence=s["text"], form=s["form"]), ROLE_OPTIONS)
                add("2", graph, question, [], list(ROLE_OPTIONS), role, {"sense": s["sense"], "sentence": s,
                                                                          "role": role})
        dropped = Counter({k: v for k, v in dropped.items() if v})

        # ---- Tier 1b: images <-> definitions
        imaged = [g for g in graphs if g["id"] in schema_of]
        for graph in imaged:
            records = schema_of[graph["id"]]
            glosses = {key: v["gloss"] for key, v in graph["senses"].items()}
            if len(set(glosses.values())) != len(glosses):
                continue
            for key in records:  # the senses a frame shows; the others are options, never pictures
                rng = random.Random(f"cogevolve:{seed}:1b:{key}")
                options = positions.place("1b-i2t", glosses[key], [glosses[o] for o in glosses if o != key], rng)
                add("1b-i2t", graph, _mcq_prompt(PROMPTS["1b-i2t"].format(word=graph["word"]), options),
                    [records[key]["png"]], options, glosses[key],
                    {"sense": key, "option_senses": _option_senses(graph, options),
                     "image_records": [records[key]]})
                order = positions.place("1b-t2i", key, [o for o in records if o != key], rng)
                options = [f"Image {n}" for n in range(1, len(order) + 1)]
                add("1b-t2i", graph, _mcq_prompt(PROMPTS["1b-t2i"].format(word=graph["word"], gloss=glosses[key]),
                                                 options),
                    [records[o]["png"] for o in order], options, f"Image {order.index(key) + 1}",
                    {"sense": key, "image_senses": order, "image_records": [records[o] for o in order]})

        # ---- Tier 3: paths
        paths_kept = tier3_paths(graphs, schema_of, config, seed, dropped)
        gold_first: dict[tuple, Counter] = defaultdict(Counter)  # (imaged, split) -> shown in gold order?
        for graph, path in paths_kept:
            rng = random.Random(f"cogevolve:{seed}:path:{'>'.join(path)}")
            shown = list(path)
            rng.shuffle(shown)
            if len(path) == 2:  # half the pairs in gold order, half reversed (per split; 3b's own too)
                ledger = gold_first[(pictured(graph, path, schema_of), split_of[graph["word"]])]
                same = ledger[True] <= ledger[False]
                shown = list(path) if same else list(path)[::-1]
                ledger[same] += 1
            for task, made in tier3_questions(graph, path, shown, schema_of, svg_source).items():
                if made is None:
                    dropped[f"{task} (word still visible)"] += 1
                else:
                    add(task, graph, *made)
        items = _filter_and_number(items, random.Random(f"cogevolve:{seed}:filter"), dropped)
        counters = Counter(i.task for i in items)
        questioned = time.perf_counter()

        writer.write_items(items)
        stats = statistics(graphs, sents, items, split_of, role_of, schema_of)
        writer.write_text("graphs.jsonl", "".join(json.dumps(g, sort_keys=True) + "\n" for g in graphs))
        writer.write_text("stats.md", build_stats(items) + "\n" + stats_markdown(stats))
        manifest = writer.commit({
            "toolkit": {"name": "cogforge", "version": __version__}, "benchmark": NAME, "seed": seed,
            "config": config,
            "wordnet": {"dir": str(wordnet.wordnet_dir(config.get("wordnet_dir"))),
                        "fingerprint": wordnet.fingerprint(wordnet.wordnet_dir(config.get("wordnet_dir")))},
            "media": {"mode": "RGB", "size": [schemas.SIZE, schemas.SIZE]},
            "sources": sources,
            "counts": {"items": len(items), "images": len({p for i in items for p in i.images}),
                       "graphs": len(graphs), "schemas": sum(map(len, schema_of.values())),
                       "by_task": dict(sorted(counters.items())), "dropped_questions": dict(sorted(dropped.items()))},
            "statistics": stats,
        })
    done = time.perf_counter()
    manifest["elapsed_s"] = done - started
    manifest["timings"] = {"graphs_s": mined - started, "schemas_s": drawn - mined,
                           "questions_s": questioned - drawn, "write_s": done - questioned}
    return manifest


SHORTCUT_MARGIN = 0.03  # blind orderings may beat chance by this much (QC warns at 0.05)
AUDIT_MIN_ITEMS = 30  # smaller strata are reported by QC, not filtered or judged


def ordering_keys(graph: dict, path: list[str], records: dict | None) -> dict[str, dict[str, float]]:
    """What blind heuristics sort a path's senses by (ascending), from what a model may
    know without reasoning: frequency (WordNet sense numbers, SemCor counts) and, for
    images, drawing complexity (drawn elements, PNG bytes)."""
    senses = graph["senses"]
    out = {"sense number": {k: senses[k]["number"] for k in path},
           "SemCor count": {k: -senses[k]["count"] for k in path}}
    if records:
        out["fewest elements first"] = {k: records[k]["elements"] for k in path}
        out["smallest PNG first"] = {k: records[k]["png_bytes"] for k in path}
    return out


def ordering_hit(keys: dict[str, float], path: list[str]) -> float:
    """Probability that sorting by ``keys``, ties broken at random, gives ``path``."""
    values = [keys[k] for k in path]
    if any(a > b for a, b in zip(values, values[1:])):
        return 0.0
    chance = 1.0
    for count in Counter(values).values():
        chance /= math.factorial(count)
    return chance


def pictured(graph: dict, path: list[str], schema_of: dict) -> bool:
    """Whether every sense of ``path`` has a picture (3b shows the path's pictures)."""
    return all(key in schema_of.get(graph["id"], {}) for key in path)


def balance_paths(paths: list[tuple[dict, list[str]]], schema_of: dict, rng: random.Random,
                  dropped: Counter) -> list[tuple[dict, list[str]]]:
    """Adversarial filtering of Tier-3 paths (I-RAVEN's lesson): WordNet numbers senses
    by frequency and prototypes are often the most frequent sense, so "order by sense
    number" could solve pairs without reading them. While a blind ordering's expected
    exact match (random tie-breaks) is more than SHORTCUT_MARGIN from chance in a
    stratum (N=2, N>2), a seeded quarter of the
    paths it decides the wrong way (solves when above chance, fails when below) is
    dropped; what is dropped is counted in the manifest. Paths with pictures (3b's) and
    paths without are balanced apart (a mixture of two balanced sets is balanced), so that
    the text's cues do not cost 3b more of its few paths than its own cues need."""
    kept = list(paths)
    for stratum in ("N=2", "N>2"):
        for scope in ("3a", "3b"):  # paths without pictures, paths with: each balanced, so both together
            for _ in range(80):
                mine = [gp for gp in kept if (len(gp[1]) == 2) == (stratum == "N=2")
                        and pictured(gp[0], gp[1], schema_of) == (scope == "3b")]
                if len(mine) < AUDIT_MIN_ITEMS:  # too few to tell a cue from sampling noise
                    break
                chance = sum(1 / math.factorial(len(p)) for _, p in mine) / len(mine)
                hits: dict[str, list[float]] = defaultdict(list)
                for g, p in mine:  # 3b's paths are also shown as pictures: the drawing heuristics too
                    records = schema_of.get(g["id"]) if scope == "3b" else None
                    for name, keys in ordering_keys(g, p, records).items():
                        hits[name].append(ordering_hit(keys, p))
                name, scores = max(hits.items(), key=lambda kv: (abs(sum(kv[1]) / len(mine) - chance), kv[0]))
                acc = sum(scores) / len(mine)
                if abs(acc - chance) <= SHORTCUT_MARGIN:
                    break
                decided = [gp for gp, h in zip(mine, scores) if (h == 1.0 if acc > chance else h == 0.0)]
                drop = set(map(id, rng.sample(decided, max(1, len(decided) // 4))))
                dropped[f"3 {stratum} (blind ordering: {name} {'above' if acc > chance else 'below'} chance)"] += len(drop)
                kept = [gp for gp in kept if id(gp) not in drop]
    return kept


def _filter_and_number(items: list[Item], rng: random.Random, dropped: Counter) -> list[Item]:
    """Drop multiple-choice items that blind heuristics answer (a sentence's sense tends
    to have the shorter gloss), then number items per task in order."""
    from cogforge.core.shortcuts import question_stem

    # 1a and 2 are read from their sentence: overlap with it is evidence, not a cue (QC
    # skips those heuristics there too), so the filter does not see the question
    pending = [{"task": i.task, "options": i.options, "answer": i.answer,
                "question": "" if i.task in ("1a", "2") else question_stem(i.question, i.options), "item": i}
               for i in items if i.options]
    kept = {id(q["item"]) for q in filter_shortcuts(pending, rng, dropped, [t for t in TASKS if t[0] in "12"])}
    out, numbers = [], Counter()
    for item in items:
        if item.options and id(item) not in kept:
            continue
        numbers[item.task] += 1
        out.append(dataclasses.replace(item, id=f"cogevolve-{item.task}-{numbers[item.task]:05d}"))
    return out


def graph_meta(graph: dict) -> dict:
    """The graph as items record it: senses with keys and glosses, edges, the prototype."""
    return {"prototype": graph["prototype"], "source": graph["source"],
            "senses": [{"key": k, "gloss": v["gloss"], "synset": v["synset"], "lexname": v["lexname"],
                        "number": v["number"], "count": v["count"]} for k, v in graph["senses"].items()],
            "edges": [list(e) for e in graph["edges"]]}


def _option_senses(graph: dict, options: list[str]) -> list[str]:
    by_gloss = {v["gloss"]: k for k, v in graph["senses"].items()}
    return [by_gloss[o] for o in options]


def statistics(graphs, sents, items, split_of, role_of, schema_of) -> dict:
    """Words, senses, edges, paths by length, the label split, sentences per role (Table 6)."""
    paths = Counter(len(p) for g in graphs for p in sense_graphs.paths(g))
    labels = Counter(e[2] for g in graphs for e in g["edges"])
    in_graph = {(g["word"], k): g["id"] for g in graphs for k in g["senses"]}
    roles = Counter(role_of[in_graph[(s["word"], s["sense"])]].get(s["sense"]) or "mixed"
                    for s in sents if (s["word"], s["sense"]) in in_graph)
    patterns = Counter(v for g in graphs for v in g.get("patterns", {}).values())
    total = sum(roles.values()) or 1
    return {
        "graphs": {"words": len({g["word"] for g in graphs}), "graphs": len(graphs),
                   "senses": sum(len(g["senses"]) for g in graphs), "edges": sum(labels.values()),
                   "paths_n2": paths.get(2, 0), "paths_n_gt2": sum(v for k, v in paths.items() if k > 2),
                   "paths_by_length": {str(k): v for k, v in sorted(paths.items())},
                   "metaphor": labels.get("metaphor", 0), "metonymy": labels.get("metonymy", 0),
                   "words_with_schemas": len(schema_of), "schemas": sum(map(len, schema_of.values()))},
        "sentences_by_role": {r: {"count": roles.get(r, 0), "share": round(roles.get(r, 0) / total, 3)}
                              for r in ROLE_OPTIONS},
        "edges_by_pattern": dict(sorted(patterns.items())),
        "words_by_split": dict(sorted(Counter(split_of.values()).items())),
    }


def stats_markdown(stats: dict) -> str:
    from cogforge.core.stats import markdown_table

    g = stats["graphs"]
    out = ["Sense graphs:", "",
           markdown_table(["words", "senses", "edges", "metaphor", "metonymy", "paths N=2", "paths N>2",
                           "words with schemas", "schemas"],
                          [[g["words"], g["senses"], g["edges"], g["metaphor"], g["metonymy"], g["paths_n2"],
                            g["paths_n_gt2"], g["words_with_schemas"], g["schemas"]]]),
           "", "Sentences by the role of their sense (the paper's Table 6):", "",
           markdown_table(["role", "sentences", "share"],
                          [[r, v["count"], f"{100 * v['share']:.1f}%"] for r, v in stats["sentences_by_role"].items()])]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- streams
# The hooks of `cogforge.environments`. What the build decides over the whole benchmark is
# made once per process from the config, with the config's seed as the build makes it
# (:func:`_stream_pools`): the graphs and sentences without offensive senses, the words'
# pictures (frames balanced over the words), and each task's pool of units after the
# build's own filters (blind heuristics for 1a and 1b-i2t, blind orderings for Tier 3,
# the mask check for 3a-masked). Item ``index`` of a task draws one unit of its pool and
# its answer position, option order or path order from (seed, task, index, attempt)
# alone: what the build balances with ledgers (answer positions, pairs shown in gold
# order, Tier 2's roles) is drawn uniformly per item, so it balances in expectation.

STREAM_KNOBS = {"1a": "options", "1b-i2t": "options", "1b-t2i": "images", "3a": "n", "3a-masked": "n", "3b": "n",
                "3b-svg": "n"}  # Tier 2 has none: its three options are always the three roles


@functools.cache
def _renderer_key() -> str:
    import cairosvg
    import PIL

    code = Path(schemas.__file__).read_bytes() + f"{cairosvg.__version__}:{PIL.__version__}".encode()
    return hashlib.sha256(code).hexdigest()[:16]


def _rendered(svg: bytes) -> bytes:
    """:func:`generators.cogevolve.schemas.render` kept in ``.cache/`` by the SVG's hash (and
    the renderer's code and versions): a picture takes ~0.1 s to render, a stream process
    needs all of the build's at once (Tier 3's pools are balanced against their sizes)."""
    path = wordnet.CACHE / f"cogevolve-renders-{_renderer_key()}" / f"{hashlib.sha256(svg).hexdigest()}.png"
    if path.is_file():
        return path.read_bytes()
    png = schemas.render(svg)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(png)
    tmp.replace(path)
    return png


def _distinct_glosses(graph: dict) -> bool:
    return len({v["gloss"] for v in graph["senses"].values()}) == len(graph["senses"])


def _stream_size(task: str, unit: tuple, schema_of: dict) -> int:
    """The unit's value of the task's knob (:data:`STREAM_KNOBS`)."""
    graph, part = unit
    if task == "1b-t2i":
        return len(schema_of[graph["id"]])
    return len(graph["senses"]) if task in ("1a", "1b-i2t") else len(part)


@functools.cache
def _stream_pools(config_key: str) -> dict:
    """Each task's units (``(graph, sentence)``, ``(graph, sense key)`` or ``(graph,
    path)``; Tier 2's by role), the pictures and the files, for the config (as JSON)."""
    from cogforge.core.decisions import decisions_path, load_decisions

    config = json.loads(config_key)
    seed = config["seed"]
    decisions = load_decisions(decisions_path(NAME, project_root()))  # what `cogforge build` applies
    wn = functools.cache(lambda: wordnet.reader(config.get("wordnet_dir")))
    graphs, sents, _sources = graphs_and_sentences(config, wn, decisions, progress=False)
    files: dict[str, bytes] = {}

    def keep(data: bytes, suffix: str = ".png", folder: str = "images") -> str:
        rel = f"{folder}/{hashlib.sha256(data).hexdigest()}{suffix}"
        files[rel] = data
        return rel

    dropped: Counter = Counter()
    schema_of, svg_source = draw_schemas(graphs, config, seed, decisions, keep, dropped, render=_rendered)
    role_of = {g["id"]: sense_graphs.roles(g) for g in graphs}
    said = {(g["id"], s["sense"], s["text"], s["form"]): (g, s) for _k, g, s in sentence_graphs(graphs, sents)}
    pools: dict = {"2": {role: [(g, s) for g, s in said.values() if role_of[g["id"]].get(s["sense"]) == role]
                         for role in ROLE_OPTIONS}}

    def unfiltered(task: str, units: list[tuple], answer, stem) -> list[tuple]:
        """The units the build's blind-heuristic filter keeps (it reads option texts, not their order)."""
        pending = [{"task": task, "options": [v["gloss"] for v in g["senses"].values()], "answer": answer(g, part),
                    "question": stem(g), "item": (g, part)} for g, part in units]
        kept = filter_shortcuts(pending, random.Random(f"cogevolve:{seed}:stream-filter:{task}"), dropped, [task])
        return [q["item"] for q in kept]

    pools["1a"] = unfiltered("1a", [(g, s) for g, s in said.values() if _distinct_glosses(g)],
                             lambda g, s: g["senses"][s["sense"]]["gloss"], lambda g: "")
    pictured_senses = [(g, key) for g in graphs if g["id"] in schema_of and _distinct_glosses(g)
                       for key in schema_of[g["id"]]]
    pools["1b-i2t"] = unfiltered("1b-i2t", pictured_senses, lambda g, key: g["senses"][key]["gloss"],
                                 lambda g: PROMPTS["1b-i2t"].format(word=g["word"]))  # the stem: no options
    pools["1b-t2i"] = pictured_senses  # options "Image 1", ...: only their order could cue, and it is drawn
    paths = tier3_paths(graphs, schema_of, config, seed, dropped)
    pools["3a"] = paths
    pools["3a-masked"] = [(g, p) for g, p in paths if tier3_questions(g, p, p, {}, {})["3a-masked"] is not None]
    pools["3b"] = pools["3b-svg"] = [(g, p) for g, p in paths if pictured(g, p, schema_of)]
    return {"pools": pools, "schema_of": schema_of, "svg_source": svg_source, "files": files}


def _config_key(config: dict) -> str:
    return json.dumps(config, sort_keys=True)


@functools.cache
def _stream_units(config_key: str, task: str, chosen: tuple) -> list[tuple]:
    """The task's units with the chosen knob values (``((knob, value), ...)``)."""
    made = _stream_pools(config_key)
    return [u for u in made["pools"][task]
            if all(_stream_size(task, u, made["schema_of"]) == value for _knob, value in chosen)]


def stream_tasks(config: dict) -> list[str]:
    """Every task the build makes."""
    return list(TASKS)


def stream_knobs(config: dict) -> dict[str, dict[str, tuple[int, ...]]]:
    """``options`` (1a, 1b-i2t: the word's senses), ``images`` (1b-t2i: its pictures), ``n``
    (Tier 3: the path's senses), each with the values its pool has (a knob with one value is
    left out: it would change nothing)."""
    made = _stream_pools(_config_key(config))
    out: dict[str, dict[str, tuple[int, ...]]] = {}
    for task in TASKS:
        values = () if task == "2" else \
            tuple(sorted({_stream_size(task, u, made["schema_of"]) for u in made["pools"][task]}))
        out[task] = {STREAM_KNOBS[task]: values} if len(values) > 1 else {}
    return out


def stream_item(config: dict, seed: int, task: str, index: int, attempt: int,
                difficulty: dict) -> tuple[Item, dict[str, bytes]]:
    """Item ``index`` of ``task``: one unit of the task's pool (Tier 2: a role, then one of
    its sentences), its option order, answer position or path order, all drawn from (seed,
    task, index, attempt)."""
    key = _config_key(config)
    made = _stream_pools(key)
    schema_of, svg_source = made["schema_of"], made["svg_source"]
    rng = random.Random(f"cogevolve:stream:{seed}:{task}:{index}:{attempt}")
    if task == "2":
        role = rng.choice(ROLE_OPTIONS)
        units = made["pools"]["2"][role]
    else:
        units = _stream_units(key, task, tuple(sorted(difficulty.items())))
    if not units:
        raise RuntimeError(f"cogevolve {task}: no unit to draw from with {difficulty or 'the default config'}")
    graph, part = units[rng.randrange(len(units))]
    item_id = f"{NAME}-{task}-stream-{index}"
    glosses = {k: v["gloss"] for k, v in graph["senses"].items()}
    if task in ("1a", "2"):
        s = part
        if task == "2":
            question = _mcq_prompt(PROMPTS["2"].format(sentence=s["text"], form=s["form"]), ROLE_OPTIONS)
            item = make_item(item_id, "train", task, graph, question, [], list(ROLE_OPTIONS), role,
                             {"sense": s["sense"], "sentence": s, "role": role})
        else:
            answer = glosses[s["sense"]]
            options = Positions().place(task, answer, [v for k, v in glosses.items() if k != s["sense"]], rng)
            question = _mcq_prompt(PROMPTS["1a"].format(sentence=s["text"], form=s["form"]), options)
            item = make_item(item_id, "train", task, graph, question, [], options, answer,
                             {"sense": s["sense"], "sentence": s, "option_senses": _option_senses(graph, options)})
    elif task == "1b-i2t":
        records = schema_of[graph["id"]]
        options = Positions().place(task, glosses[part], [glosses[o] for o in glosses if o != part], rng)
        item = make_item(item_id, "train", task, graph, _mcq_prompt(PROMPTS[task].format(word=graph["word"]), options),
                         [records[part]["png"]], options, glosses[part],
                         {"sense": part, "option_senses": _option_senses(graph, options),
                          "image_records": [records[part]]})
    elif task == "1b-t2i":
        records = schema_of[graph["id"]]
        order = Positions().place(task, part, [o for o in records if o != part], rng)
        options = [f"Image {n}" for n in range(1, len(order) + 1)]
        question = _mcq_prompt(PROMPTS[task].format(word=graph["word"], gloss=glosses[part]), options)
        item = make_item(item_id, "train", task, graph, question, [records[o]["png"] for o in order], options,
                         f"Image {order.index(part) + 1}",
                         {"sense": part, "image_senses": order, "image_records": [records[o] for o in order]})
    else:
        shown = list(part)
        rng.shuffle(shown)  # a pair: in gold order or reversed, each half the time
        item = make_item(item_id, "train", task, graph, *tier3_questions(graph, part, shown, schema_of,
                                                                         svg_source)[task])
    return item, {path: made["files"][path] for path in item.images}


def stream_unit(item: Item | dict) -> str:
    """The word (its sense graph): the unit the build splits by, so a word a release holds
    is never streamed beside it, whatever its task."""
    meta = item.meta if isinstance(item, Item) else item["meta"]
    return meta["split_unit"]


def load_stream_config() -> dict:
    """The default config (``builders/cogevolve.toml``)."""
    return load_config()
