"""CONSTRUCTURE items: WordNet isA chains and four multiple-choice tasks (paper section 3).

A *chain* is the last 3 to 5 concepts of the tree path from the root to an imaged
synset, all from WordNet's visual lexicographer files; level 0 is the most abstract
concept, the last level is the concept in the image. For a chain of length N:

* atomic concept understanding: N yes/no questions "Is the concept depicted in the
  image a {c}?"; half show the chain's image (Yes), half an image of an unrelated
  concept from a chain of the same split, one outside the chain's top concept (No);
* abstraction: N-1 questions at levels 1..N-1 with options current-level,
  lower-level, positive upper-level (the answer) and negative upper-level concepts;
* concretization: N-1 questions at levels 0..N-2 with options current-level,
  upper-level, positive lower-level (the answer) and negative lower-level concepts;
* common ancestor: N-1 questions at levels 1..N-1 with options current-level,
  upper-level, lower-level, and a brother (or brother's son) concept, the answer.

A model reads option *names*, not synsets, so every question is judged under every
WordNet noun sense of every displayed name (:func:`judge`), on the full graph
(hypernyms and instance hypernyms through any path): the answer must be right under
every reading that fits the image and every distractor wrong under all of them. A
distractor that breaks this is redrawn; a question that cannot be made unambiguous
is dropped and counted. Two questions that a model would see identically (same
text, image bytes, options and answer) are never both made. Chains are split 7:1:2
so that no chain, and no image, appears in two splits.
"""

from __future__ import annotations

import functools
import random
import time
from collections import Counter
from pathlib import Path
from typing import Annotated

from pydantic import Field, model_validator

from tqdm import tqdm

from builders._filtering import filter_shortcuts
from cogforge import __version__
from cogforge.buildio import BuildWriter
from cogforge.config import SPLIT_NAMES, Schema, check_splits, load
from cogforge.stats import build_stats
from cogforge.record import Item
from generators import constructure as images
from generators import wordnet

NAME = "constructure"
DEFAULT_CONFIG = Path(__file__).with_suffix(".toml")
TASKS = ["atomic", "abstraction", "concretization", "common-ancestor"]
_TRIES = 50

QUESTIONS = {
    "atomic": "Is the concept depicted in the image {article} {concept}?",
    "abstraction": ("Which of the following is the most abstract (most general) concept that correctly "
                    "describes what the image shows?"),
    "concretization": ("Which of the following is the most specific concept that correctly describes "
                       "what the image shows?"),
    "common-ancestor": ("Which of the following is a different concept from the one depicted in the image "
                        "(neither that concept nor a more general or more specific kind of it) but shares "
                        "a parent or a common ancestor with it?"),
}


def _lexnames() -> list[str]:
    return [line.split()[1] for line in wordnet.LEXNAMES.read_text().splitlines() if line.strip()]


class Config(Schema):
    """``builders/constructure.toml``."""

    seed: Annotated[int, Field(ge=0)] = 0
    citation: str = ""  # BibTeX of the paper; releases put it in the card and Croissant `citeAs`
    wordnet_dir: str | None = None
    photo_dirs: list[str] = []
    visual_lexnames: Annotated[list[str], Field(min_length=1)]
    min_chain: Annotated[int, Field(ge=2)] = 3
    max_chain: Annotated[int, Field(ge=2)] = 5
    splits: dict[str, Annotated[int, Field(ge=0)]] = {"train": 7, "validation": 1, "test": 2}

    @model_validator(mode="after")
    def _consistent(self):
        if self.min_chain > self.max_chain:
            raise ValueError(f"min_chain ({self.min_chain}) is above max_chain ({self.max_chain})")
        unknown = [n for n in self.visual_lexnames if n not in _lexnames()]
        if unknown:
            raise ValueError(f"visual_lexnames {unknown} are not WordNet lexicographer files "
                             f"(noun ones: {', '.join(n for n in _lexnames() if n.startswith('noun.'))})")
        check_splits(self.splits)
        return self




def load_config(path: Path | str | None = None) -> dict:
    """The config as a dict, validated against :class:`Config`."""
    return load(Path(path or DEFAULT_CONFIG), Config).model_dump()


class Graph:
    """The isA graph with the relations the questions need, memoised."""

    def __init__(self, isa: wordnet.IsA):
        self.isa = isa
        self._anc: dict[str, frozenset] = {}
        self._desc: dict[str, frozenset] = {}
        self.children = isa.tree_children()
        self.uppers_at: dict[int, list[str]] = {}  # filled once the chains are known
        self.chain_concepts: list[str] = []  # likewise
        self._pools: dict[tuple, list[str]] = {}

    def anc(self, node: str) -> frozenset:
        if node not in self._anc:
            self._anc[node] = frozenset(self.isa.ancestors(node))
        return self._anc[node]

    def desc(self, node: str) -> frozenset:
        if node not in self._desc:
            self._desc[node] = frozenset(self.isa.descendants(node))
        return self._desc[node]

    def is_a(self, x: str, c: str) -> bool:
        """x is c or a kind of c, through any path."""
        return x == c or c in self.anc(x)

    def lineage(self, x: str, o: str) -> bool:
        """o is x, an ancestor of x or a descendant of x."""
        return self.is_a(x, o) or self.is_a(o, x)

    def name(self, node: str) -> str:
        return self.isa.graph.nodes[node]["name"]

    def senses(self, name: str) -> list[str]:
        """Every noun synset a reader may take a displayed name to mean."""
        return self.isa.senses(name)

    def pool(self, key: tuple, make) -> list[str]:
        """A question's candidate list, filtered once: redraws only re-rank it with the ledger."""
        if key not in self._pools:
            self._pools[key] = sorted(set(make()))
        return self._pools[key]

    def showable(self, node: str) -> bool:
        """False when every lemma is a missing-value string for table readers (nan.n.01: "nan")."""
        return wordnet.name_key(self.name(node)) not in self._na

    @functools.cached_property
    def _na(self) -> frozenset[str]:
        return wordnet.na_strings()

    def lexname(self, node: str) -> str:
        return self.isa.graph.nodes[node]["lexname"]


def find_chains(graph: Graph, imaged: list[str], visual: set[str], lo: int, hi: int) -> list[tuple[str, ...]]:
    chains, seen = [], set()
    for node in imaged:
        path = graph.isa.tree_path(node)
        suffix: list[str] = []
        for n in reversed(path):
            if graph.lexname(n) not in visual:
                break
            suffix.append(n)
        chain = tuple(reversed(suffix[:hi]))
        if len(chain) >= lo and chain not in seen:
            seen.add(chain)
            chains.append(chain)
    return chains


def _names(graph: Graph, nodes: list[str]) -> list[str] | None:
    """The options' displayed names; None when two read the same (no parenthesised hints:
    a hint is text a model must parse, and the sense check below covers the case)."""
    names = [graph.name(n) for n in nodes]
    keys = [wordnet.name_key(n) for n in names]
    if len(set(keys)) != len(keys) or any(not graph.showable(n) for n in nodes):
        return None
    return names


def _atomic_question(concept: str) -> str:
    article = "an" if concept[:1].lower() in "aeiou" else "a"
    return QUESTIONS["atomic"].format(article=article, concept=concept)


class Ledger:
    """How often each concept has been an option, and the answer, in one task so far.

    Without care, a concept's role gives the answer away across the benchmark: the
    chain's top concept is the answer of abstraction questions and never a
    distractor, brothers are always answers, chain members always distractors. A
    model (or a baseline) that learns "this text is usually right" would then score
    without looking at the image (RAVEN's lesson; QC's choices-only audit measures
    it). So free choices are made to even the rates out: a distractor is drawn from
    the candidates most often right so far, an answer from those least often right.
    """

    def __init__(self):
        self.appear: Counter = Counter()
        self.correct: Counter = Counter()

    def rate(self, node: str) -> float:
        return (self.correct[node] + 0.5) / (self.appear[node] + 1)

    def record(self, nodes: list[str], answer: str) -> None:
        self.appear.update(nodes)
        self.correct[answer] += 1


def _any(_: str) -> bool:
    return True


def _pick(rng: random.Random, pool: list[str], ok, ledger: Ledger | None = None,
          as_answer: bool = False) -> str | None:
    """A candidate that passes ``ok``; with a ledger, one that evens the answer rates."""
    candidates = sorted(set(p for p in pool if ok(p)))
    if not candidates:
        return None
    if ledger is not None:
        # A distractor: the candidate most often the answer so far, by count and then
        # by rate (an answer-count heuristic then points at it as often as at the
        # answer); an answer: the one least often right, by rate.
        keys = {c: (-ledger.rate(c),) if as_answer else (ledger.correct[c], ledger.rate(c)) for c in candidates}
        best = max(keys.values())
        candidates = [c for c in candidates if keys[c] == best]
    return rng.choice(candidates)


def mcq(graph: Graph, task: str, chain: tuple[str, ...], i: int, rng: random.Random,
        ledger: Ledger | None = None) -> dict | None:
    """One abstraction / concretization / common-ancestor question at level i, or None."""
    x = chain[-1]
    parent_of = graph.isa.tree_parent
    n = len(chain)
    up = chain[i - 1] if i > 0 else parent_of.get(chain[0])
    if up is None:
        return None
    if task == "abstraction":
        lower = chain[i + 1] if i + 1 < n else _pick(rng, graph.children.get(chain[i], []), lambda c: True, ledger)
        # Negative upper: a concept at the upper level's depth outside x's lineage: the
        # upper concept's siblings, or upper concepts of other chains at that depth (so
        # that those, answers elsewhere, also appear here as distractors).
        depth = len(graph.isa.tree_path(up))
        negative = _pick(rng, graph.pool(("negative upper", up, x), lambda: [
            s for s in graph.children.get(parent_of.get(up, ""), []) + graph.uppers_at.get(depth, [])
            if s != up and not graph.lineage(x, s)]), _any, ledger)
        nodes = {"current": chain[i], "lower": lower, "positive upper": up, "negative upper": negative}
        answer = "positive upper"
    elif task == "concretization":
        negative = _pick(rng, graph.pool(("negative lower", chain[i], x), lambda: [
            c for c in graph.children.get(chain[i], []) if c != chain[i + 1] and not graph.lineage(x, c)]),
            _any, ledger)
        nodes = {"current": chain[i], "upper": up, "positive lower": chain[i + 1], "negative lower": negative}
        answer = "positive lower"
    else:  # common ancestor
        lower = chain[i + 1] if i + 1 < n else (chain[i - 2] if i >= 2 else parent_of.get(up))
        def candidates() -> list[str]:
            brothers = [s for s in graph.children.get(up, []) if s != chain[i]]
            nephews = [c for s in brothers for c in graph.children.get(s, [])]
            # Other chains' concepts under the same parent share it as a common ancestor
            # too; offering them keeps the answer's name as frequent as the distractors'.
            cousins = [c for c in graph.chain_concepts if up in graph.anc(c)]
            return [b for b in brothers + nephews + cousins
                    if not graph.lineage(x, b) and not graph.lineage(chain[i], b)]

        answer_node = _pick(rng, graph.pool(("brother", up, chain[i], x), candidates), _any, ledger,
                            as_answer=True)
        nodes = {"current": chain[i], "upper": up, "lower": lower, "brother": answer_node}
        answer = "brother"
    if any(v is None for v in nodes.values()) or len(set(nodes.values())) != 4:
        return None
    names = _names(graph, list(nodes.values()))
    if names is None:
        return None
    by_role = dict(zip(nodes, names))
    if not judge(graph, task, x, chain[0], by_role[answer], [v for k, v in by_role.items() if k != answer]):
        return None
    return {"nodes": nodes, "answer": answer}


def judge(graph: Graph, task: str, x: str, top: str, answer: str, others: list[str]) -> bool:
    """Is ``answer`` the one right option, whatever noun sense a reader gives each name?

    Args:
        graph: the isA graph.
        task: abstraction, concretization or common-ancestor.
        x: the concept in the image.
        top: the chain's most abstract concept (where "a common ancestor" is read).
        answer: the keyed option's displayed name.
        others: the distractors' displayed names.

    A sense *fits the image* when x is it or a kind of it. Abstraction: the answer has
    a fitting sense, and each fitting sense of it is strictly more general than each
    fitting sense of every other name (so no reading makes a distractor the most
    general). Concretization: the same, strictly more specific. Common ancestor: a
    sense is right when it lies below the chain's top concept but outside x's lineage
    (every noun shares "entity" with x, so a common ancestor is read within the
    chain); the answer needs a right sense and no sense in x's lineage (the leopard
    case: "cat" also names big_cat.n.01, an ancestor of leopard), and no distractor
    may have a right sense.
    """
    if task in ("abstraction", "concretization"):
        fits = {name: [s for s in graph.senses(name) if graph.is_a(x, s)] for name in [answer, *others]}
        if not fits[answer]:
            return False
        for other in others:
            for o in fits[other]:
                for a in fits[answer]:
                    if (a not in graph.anc(o)) if task == "abstraction" else (o not in graph.anc(a)):
                        return False
        return True

    def right(s: str) -> bool:
        return s != top and top in graph.anc(s) and not graph.lineage(x, s)

    senses = graph.senses(answer)
    return (any(right(s) for s in senses) and not any(graph.lineage(x, s) for s in senses)
            and not any(right(s) for name in others for s in graph.senses(name)))


def atomic_ok(graph: Graph, shown: str, name: str, yes: bool) -> bool:
    """Yes: some sense of the concept's name is the shown concept or above it; No: none is."""
    return any(graph.is_a(shown, s) for s in graph.senses(name)) == yes


def build(out_dir: Path | str, seed: int | None = None, config_path: Path | str | None = None,
          progress: bool = True) -> dict:
    """Build CONSTRUCTURE into ``out_dir``; returns the manifest (with timings)."""
    started = time.perf_counter()
    config = load_config(config_path)
    seed = config.get("seed", 0) if seed is None else seed
    isa = wordnet.load(config.get("wordnet_dir"))
    loaded = time.perf_counter()
    graph = Graph(isa)
    visual = set(config["visual_lexnames"])
    by_synset = {data["synset"]: node for node, data in isa.graph.nodes(data=True)}
    sources: dict[str, tuple[str, str]] = {}  # wnid -> (source, key)
    for entry in images.load_emoji_map():
        if entry.synset not in by_synset:
            raise ValueError(f"{images.EMOJI_MAP}: {entry.synset} ({entry.unicode_name}) is not a WordNet noun synset")
        sources.setdefault(by_synset[entry.synset], ("emoji", entry.codepoints))
    for node, photos in images.photo_sources([Path(p) for p in config.get("photo_dirs", [])]).items():
        if node in isa.graph:
            sources[node] = ("photo", str(photos[0]))
    imaged = sorted(n for n in sources if graph.lexname(n) in visual)
    chains = find_chains(graph, imaged, visual, config["min_chain"], config["max_chain"])

    rng = random.Random(f"constructure:{seed}")
    order = list(range(len(chains)))
    rng.shuffle(order)
    weights = config["splits"]
    total = sum(weights.values())
    split_of: dict[int, str] = {}
    start = 0
    names = list(weights)
    for k, split in enumerate(names):
        count = round(len(chains) * weights[split] / total) if k < len(names) - 1 else len(chains) - start
        for idx in order[start:start + count]:
            split_of[idx] = split
        start += count

    for chain in chains:
        for node in chain[:-1]:
            graph.uppers_at.setdefault(len(isa.tree_path(node)), []).append(node)
    graph.uppers_at = {d: sorted(set(v)) for d, v in graph.uppers_at.items()}
    graph.chain_concepts = sorted({n for chain in chains for n in chain})
    # "No" images come from chains of the same split, so that no image is in two splits.
    unrelated_pool = {split: [c[-1] for k, c in enumerate(chains) if split_of[k] == split]
                      for split in weights}
    ledgers = {task: Ledger() for task in TASKS}
    # Common ancestor: every chain concept will be a distractor (its lineage) many
    # times; counting that in advance makes the answer draw prefer brothers that are
    # other chains' concepts, so an option's frequency does not tell answer from
    # distractor.
    ledgers["common-ancestor"].appear.update(n for chain in chains for n in chain)
    pending: list[dict] = []
    seen: set[tuple] = set()  # what a model is shown: question, image, options, answer
    dropped = Counter()
    balance = Counter()
    for idx, chain in enumerate(tqdm(chains, desc="questions", unit="chain", disable=not progress)):
        crng = random.Random(f"constructure:{seed}:{chain[-1]}")
        x, top = chain[-1], chain[0]
        # Half Yes, half No; an odd chain's extra question goes to whichever is behind.
        extra = len(chain) % 2 and balance["Yes"] <= balance["No"]
        yes = [True] * (len(chain) // 2 + extra) + [False] * (len(chain) - len(chain) // 2 - extra)
        crng.shuffle(yes)
        for i, concept in enumerate(chain):
            question = _atomic_question(graph.name(concept))
            answer = "Yes" if yes[i] else "No"
            if not graph.showable(concept):
                dropped["atomic"] += 1
                continue

            def fresh(u: str) -> bool:
                return (question, u, answer) not in seen

            shown = x if yes[i] and fresh(x) and atomic_ok(graph, x, graph.name(concept), True) else None
            if not yes[i]:
                shown = _pick(crng, unrelated_pool[split_of[idx]],
                              lambda u: not graph.is_a(u, top) and fresh(u)
                              and atomic_ok(graph, u, graph.name(concept), False))
            if shown is None:
                dropped["atomic"] += 1
                continue
            seen.add((question, shown, answer))
            balance[answer] += 1
            pending.append({"task": "atomic", "chain": idx, "level": i, "image": shown, "question": question,
                            "options": ["Yes", "No"], "answer": answer, "roles": {"concept": concept}})
        for task, levels in (("abstraction", range(1, len(chain))), ("concretization", range(0, len(chain) - 1)),
                             ("common-ancestor", range(1, len(chain)))):
            for i in levels:
                for _ in range(_TRIES):
                    made = mcq(graph, task, chain, i, crng, ledgers[task])
                    if made is None:
                        continue
                    roles = list(made["nodes"].items())
                    crng.shuffle(roles)
                    texts = [graph.name(n) for _, n in roles]
                    answer = texts[[r for r, _ in roles].index(made["answer"])]
                    key = (QUESTIONS[task], x, tuple(texts), answer)
                    if key not in seen:
                        break
                else:
                    dropped[task] += 1
                    continue
                seen.add(key)
                ledgers[task].record(list(made["nodes"].values()), made["nodes"][made["answer"]])
                pending.append({"task": task, "chain": idx, "level": i, "image": x,
                                "question": QUESTIONS[task], "options": texts, "answer": answer,
                                "roles": dict(roles)})
    pending = filter_shortcuts(pending, random.Random(f"constructure:{seed}:filter"), dropped, TASKS)
    questioned = time.perf_counter()

    needed = sorted({q["image"] for q in pending})
    with BuildWriter(out_dir) as writer:
        path_of = {}
        for node in tqdm(needed, desc="images", disable=not progress):
            source, key = sources[node]
            data = (images.render_emoji("".join(chr(int(c, 16)) for c in key.split())) if source == "emoji"
                    else images.load_photo(Path(key)))
            path_of[node] = writer.add_image(data)
        items, counters = [], Counter()
        for q in pending:
            chain = chains[q["chain"]]
            level_of = {n: k for k, n in enumerate(chain)}
            counters[q["task"]] += 1
            node_meta = lambda n: {"id": n, "synset": isa.graph.nodes[n]["synset"], "name": graph.name(n),  # noqa: E731
                                   "level": level_of.get(n)}
            meta = {
                "chain": [node_meta(n) for n in chain],
                "image_concept": node_meta(q["image"]) | {"source": sources[q["image"]][0],
                                                          "key": sources[q["image"]][1]},
                "chain_concept": node_meta(chain[-1]),
                "question_level": q["level"],
                "options": [{"text": t, "role": r, **node_meta(n)}
                            for t, (r, n) in zip(q["options"], q["roles"].items())] if q["task"] != "atomic"
                else [{"text": "Yes"}, {"text": "No"}],
                "answer_letter": chr(65 + q["options"].index(q["answer"])),
                "split_unit": f"chain-{q['chain']:04d}",
            }
            if q["task"] == "atomic":
                meta["concept"] = node_meta(q["roles"]["concept"])
            prompt = q["question"] + "\n" + "\n".join(f"{chr(65 + k)}. {o}" for k, o in enumerate(q["options"])) \
                + "\nAnswer with the option's letter."
            items.append(Item(id=f"constructure-{q['task']}-{counters[q['task']]:05d}", benchmark=NAME,
                              task=q["task"], split=split_of[q["chain"]], question=prompt,
                              images=[path_of[q["image"]]], options=q["options"], answer=q["answer"], meta=meta))
        writer.write_items(items)
        stats = statistics(items, chains, split_of, graph)
        writer.write_text("stats.md", build_stats(items, stats["table4"]))
        manifest = writer.commit({
            "toolkit": {"name": "cogforge", "version": __version__}, "benchmark": NAME, "seed": seed,
            "config": config, "wordnet": {"dir": str(wordnet.wordnet_dir(config.get("wordnet_dir"))),
                                          "fingerprint": wordnet.fingerprint(wordnet.wordnet_dir(config.get("wordnet_dir")))},
            "media": {"mode": "RGB"} | ({"size": [images.EMOJI_SIZE] * 2} if not config.get("photo_dirs") else {}),
            "counts": {"items": len(items), "images": len(path_of), "by_task": dict(sorted(counters.items())),
                       "dropped_questions": dict(dropped)},
            "statistics": stats,
        })
    done = time.perf_counter()
    manifest["elapsed_s"] = done - started
    manifest["timings"] = {"graph_s": loaded - started, "questions_s": questioned - loaded,
                           "write_s": done - questioned}
    return manifest


def statistics(items: list[Item], chains: list[tuple[str, ...]], split_of: dict[int, str], graph: Graph) -> dict:
    """The paper's Table 2 (questions per task and split) and Table 4 (per split)."""
    table2: dict[str, dict[str, int]] = {}
    for item in items:
        table2.setdefault(item.task, Counter())[item.split] += 1
    table4 = {}
    for split in [s for s in SPLIT_NAMES if s in set(split_of.values())]:
        mine = [c for k, c in enumerate(chains) if split_of[k] == split]
        split_items = [i for i in items if i.split == split]
        table4[split] = {"concepts": len({n for c in mine for n in c}), "chains": len(mine),
                         "avg_chain_length": round(sum(map(len, mine)) / len(mine), 2) if mine else 0,
                         "images": len({p for i in split_items for p in i.images})}
    table4["total"] = {"concepts": len({n for c in chains for n in c}), "chains": len(chains),
                       "avg_chain_length": round(sum(map(len, chains)) / len(chains), 2) if chains else 0,
                       "images": len({p for i in items for p in i.images})}
    return {"table2": {t: dict(sorted(v.items())) for t, v in table2.items()}, "table4": table4}
