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
every reading that fits the image and every distractor wrong under all of them. Each
role's candidates are cut to those that pass; a question that cannot be made
unambiguous is dropped and counted. Which candidate fills a role is chosen for the
whole task at once (:class:`Ledger`, :func:`assign`) so that each option text is the
answer about once in every four showings, and neither the rarest nor the commonest
text of a question points at its answer. Two questions that a model would see identically (same
text, image bytes, options and answer) are never both made. Chains are split 7:1:2
so that no chain, and no image, appears in two splits.
"""

from __future__ import annotations

import functools
import hashlib
import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Annotated

from pydantic import Field, model_validator

from tqdm import tqdm

from cogforge.builders._filtering import SMALL_TASK, filter_shortcuts
from cogforge import __version__
from cogforge.core.buildio import BuildWriter
from cogforge.core.config import SPLIT_NAMES, Schema, check_splits, load
from cogforge.core.errors import UserError
from cogforge.core.parallel import draw_all
from cogforge.core.stats import build_stats
from cogforge.core.record import Item
from cogforge.generators import constructure as images
from cogforge.generators import wordnet

NAME = "constructure"
DEFAULT_CONFIG = Path(__file__).with_suffix(".toml")
TASKS = ["atomic", "abstraction", "concretization", "common-ancestor"]
# Exposure balance (:func:`assign`): sweeps of coordinate descent; the ledger cost
# (squared binomial z, summed over the question's option texts) above which a question
# is left out rather than shown; and the weights of the per-band and rarest/commonest
# terms against the per-text one (set on the seed-0 build: with the band term at weight 1
# and no rank term, "avoid the rarest option" stayed above QC's margin on abstraction).
SWEEPS = 8
DROP_COST = 4.0
BAND_WEIGHT = 4.0
RANK_WEIGHT = 4.0
# No option text's answer count may leave its two-sided binomial bound at this P (the
# tests check 1e-3 over a task's ~1,000 texts); a showing that would costs OUT_OF_BOUND.
BOUND_P = 1e-5
OUT_OF_BOUND = 1e3

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

    def __init__(self, isa: wordnet.IsA, names: dict[str, str] | None = None):
        self.isa = isa
        self._anc: dict[str, frozenset] = {}
        self._desc: dict[str, frozenset] = {}
        self.children = isa.tree_children()
        self.uppers_at: dict[int, list[str]] = {}  # filled once the chains are known
        self.chain_concepts: list[str] = []  # likewise
        self._pools: dict[tuple, list[str]] = {}
        self._names: dict[str, str] = dict(names or {})  # shown names other than the first lemma
        self._showable: dict[str, bool] = {}

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
        name = self._names.get(node)
        if name is None:
            name = self._names[node] = self.isa.graph.nodes[node]["name"]
        return name

    def senses(self, name: str) -> list[str]:
        """Every noun synset a reader may take a displayed name to mean."""
        return self.isa.senses(name)

    def chain_concepts_under(self, node: str) -> list[str]:
        """The chains' concepts that are kinds of ``node`` (not ``node`` itself)."""
        return self.pool(("under", node), lambda: [c for c in self.chain_concepts if node in self.anc(c)])

    def pool(self, key: tuple, make) -> list[str]:
        """A role's candidate list, made once per key (chains that share it share the list)."""
        if key not in self._pools:
            self._pools[key] = sorted(set(make()))
        return self._pools[key]

    def showable(self, node: str) -> bool:
        """False when every lemma is a missing-value string for table readers (nan.n.01: "nan"),
        or when the node under its displayed name is offensive (:meth:`offensive`)."""
        ok = self._showable.get(node)
        if ok is None:
            ok = self._showable[node] = wordnet.name_key(self.name(node)) not in self._na and not self.offensive(node)
        return ok

    wordnet_dir: str | None = None  # the build's WordNet folder (None: the default)

    def offensive(self, node: str) -> str | None:
        """Why the node, shown under its name, is a slur or an obscenity, or None. A name is
        judged by the sense it is shown in: "taco" the food may be shown, although "taco"
        also names an ethnic slur; "kaffir cat" may not, though the cat is harmless."""
        return self._offensive.shown(self.isa.graph.nodes[node]["synset"], self.name(node))

    @functools.cached_property
    def _offensive(self) -> wordnet.Offensive:
        return wordnet.offensive(self.wordnet_dir)

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
            if graph.lexname(n) not in visual or graph.offensive(n):  # every chain concept is shown
                break
            suffix.append(n)
        chain = tuple(reversed(suffix[:hi]))
        if len(chain) >= lo and chain not in seen:
            seen.add(chain)
            chains.append(chain)
    return chains


def _atomic_question(concept: str) -> str:
    article = "an" if concept[:1].lower() in "aeiou" else "a"
    return QUESTIONS["atomic"].format(article=article, concept=concept)


def _band_of(shown: int) -> int:
    """A coarse exposure band (1, 2, 3, 4, 5-6, 7-9, 10-14, 15-24, 25-49, 50+ showings)."""
    return next((b for b in (50, 25, 15, 10, 7, 5) if shown >= b), shown)


# the ledger asks for bands tens of millions of times in a build: a table, not a search
_BANDS = [_band_of(s) for s in range(51)]


def _band(shown: int) -> int:
    return _BANDS[shown] if shown <= 50 else 50


@functools.lru_cache(maxsize=None)
def _outside(shown: int, answered: int, p: float) -> bool:
    """Is the answer count outside the two-sided exact binomial bound (P < BOUND_P)?"""
    sd = (shown * p * (1 - p)) ** 0.5
    if abs(answered - shown * p) < 3.5 * sd:  # well inside: P > 1e-5 (binomial tails at this size)
        return False
    pmf = [math.comb(shown, i) * p ** i * (1 - p) ** (shown - i) for i in range(shown + 1)]
    return 2 * min(sum(pmf[answered:]), sum(pmf[:answered + 1])) < BOUND_P


class Ledger:
    """How often each option text has been shown, and been the answer, in one task.

    A model (or a baseline) that learns "this text is usually right", "this one never
    is", or "the rarest text is the answer" scores without looking at the image
    (RAVEN's lesson; QC's blind heuristics measure it). The paper's roles make that
    easy: the chain's upper concepts are answers of abstraction questions, brothers
    of common-ancestor ones, the depicted concept's own lineage always distractors.
    So the ledger keeps *exposure balance*: a text shown S times should be the answer
    about S/k times (k options). Its cost is the squared gap between the answer count
    and S/k in binomial standard deviations, per text, plus the same per exposure band
    (all texts shown about equally often together: texts shown once that are always
    answers, and texts shown twice that never are, pass one by one but not as a band),
    plus the same for how often a question's rarest and its commonest text is its
    answer (what QC's option-frequency heuristics read). A showing that takes a text
    outside its binomial bound is priced out. :func:`assign` fills every free role so
    that the total stays small.
    """

    def __init__(self, k: int = 4):
        self.p = 1 / k
        self.shown: Counter = Counter()
        self.answered: Counter = Counter()
        self.band_shown: Counter = Counter()
        self.band_answered: Counter = Counter()
        # questions, and those whose rarest / commonest option text (by showings) is the answer
        self.questions = self.rarest = self.commonest = 0

    def _z2(self, shown: int, answered: int) -> float:
        return (answered - shown * self.p) ** 2 / (shown * self.p * (1 - self.p)) if shown else 0.0

    def _cost(self, s: int, a: int) -> float:
        """The part of the total that a text shown s times, a of them as the answer, decides."""
        b = _band(s)
        return self._z2(s, a) + BAND_WEIGHT * self._z2(self.band_shown[b], self.band_answered[b])

    def delta(self, name: str, answer: bool) -> float:
        """How the total cost changes when ``name`` is shown once more.

        A showing that takes the name's answer count further outside its binomial
        bound costs OUT_OF_BOUND: a question that cannot avoid it is left out.
        """
        s, a = self.shown[name], self.answered[name]
        if _outside(s + 1, a + answer, self.p) and abs(a + answer - (s + 1) * self.p) > abs(a - s * self.p):
            return OUT_OF_BOUND
        # the ledger after the showing, read without changing it: the text leaves band b0 (all
        # its s showings and a answers) and joins band b1 with one showing more
        b0, b1 = _band(s), _band(s + 1)
        shown, answered = self.band_shown, self.band_answered
        before = self._cost(s, a)
        if b0 == b1:
            return self._z2(s + 1, a + answer) + BAND_WEIGHT * self._z2(shown[b1] + 1, answered[b1] + answer) - before
        after = self._z2(s + 1, a + answer) + BAND_WEIGHT * self._z2(shown[b1] + s + 1, answered[b1] + a + answer)
        old_band = self._z2(shown[b0] - s, answered[b0] - a)
        new_band = self._z2(shown[b1], answered[b1])
        return after - before + BAND_WEIGHT * (old_band - new_band)

    def rank_delta(self, rarest: int, commonest: int) -> float:
        """How the cost of "pick the rarest / commonest option" changes with one more question."""
        def cost(q: int, r: int, c: int) -> float:
            return self._z2(q, r) + self._z2(q, c)
        return RANK_WEIGHT * (cost(self.questions + 1, self.rarest + rarest, self.commonest + commonest)
                              - cost(self.questions, self.rarest, self.commonest))

    def count(self, ranks: tuple[int, int], times: int = 1) -> None:
        self.questions += times
        self.rarest += times * ranks[0]
        self.commonest += times * ranks[1]

    def add(self, name: str, answer: bool, times: int = 1) -> None:
        s, a = self.shown[name], self.answered[name]
        if s:
            self.band_shown[_band(s)] -= s
            self.band_answered[_band(s)] -= a
        s, a = s + times, a + times * answer
        self.shown[name], self.answered[name] = s, a
        if s:
            self.band_shown[_band(s)] += s
            self.band_answered[_band(s)] += a


def _pick(rng: random.Random, pool: list[str], ok) -> str | None:
    """A random candidate of ``pool`` that passes ``ok``."""
    candidates = sorted(set(p for p in pool if ok(p)))
    return rng.choice(candidates) if candidates else None


@dataclass
class Slot:
    """One multiple-choice question before its free roles are filled.

    ``pools`` lists, per role, every node that may fill it (fixed roles have one);
    each node already passes :func:`judge` against the answer, so a choice is valid
    when the chosen names are distinct. ``chosen`` is filled by :func:`assign`.
    """

    task: str
    chain: int
    level: int
    answer: str  # the answer's role
    pools: dict[str, list[tuple[str, str]]]  # role -> [(node, displayed name)]
    chosen: dict[str, tuple[str, str]] = field(default_factory=dict)
    ranks: tuple[int, int] | None = None  # what it adds to the ledger's rarest / commonest counts


def role_pools(graph: Graph, task: str, chain: tuple[str, ...], i: int) -> tuple[dict[str, list[str]], str] | None:
    """Every node each option role may take in the question at level i, and the answer's role.

    The paper names the roles (current, upper and lower level, and a positive and a
    negative one); which upper or lower concept of the lineage fills a role, and which
    sibling or cousin a negative or brother role takes, is free, and those choices are
    what :func:`assign` uses to balance exposure.
    """
    x = chain[-1]
    parent_of = graph.isa.tree_parent
    up = chain[i - 1] if i > 0 else parent_of.get(chain[0])
    if up is None:
        return None
    if task == "abstraction":
        # Negative upper: a concept at the upper level's depth outside x's lineage: the
        # upper concept's siblings, or upper concepts of other chains at that depth (so
        # that those, answers elsewhere, also appear here as distractors).
        depth = len(graph.isa.tree_path(up))
        negative = graph.pool(("negative upper", up, x), lambda: [
            s for s in graph.children.get(parent_of.get(up, ""), []) + graph.uppers_at.get(depth, [])
            if s != up and not graph.lineage(x, s)])
        # The lower role may also take a second negative upper: x and the kinds of x
        # below it are never the answer here, and shown in every chain they would be a
        # cue (at the last level nothing below x describes the image anyway).
        return {"current": [chain[i]], "lower": list(chain[i + 1:] or graph.children.get(chain[i], [])) + negative,
                "positive upper": [up], "negative upper": negative}, "positive upper"
    if task == "concretization":
        # Negative lower: a concept below the current one outside x's lineage: its
        # children, or other chains' concepts below it (answers elsewhere).
        negative = graph.pool(("negative lower", chain[i], x), lambda: [
            c for c in graph.children.get(chain[i], []) + graph.chain_concepts_under(chain[i])
            if c != chain[i] and not graph.lineage(x, c)])
        # The upper role may also take a second negative lower: the chain's top concepts
        # are never the answer here, and shown in every question they would be a cue.
        return {"current": [chain[i]], "upper": (list(chain[:i]) or [up]) + negative,
                "positive lower": [chain[i + 1]], "negative lower": negative}, "positive lower"

    def brothers() -> list[str]:
        siblings = [s for s in graph.children.get(up, []) if s != chain[i]]
        nephews = [c for s in siblings for c in graph.children.get(s, [])]
        # Other chains' concepts under the same parent share it as a common ancestor
        # too; offering them lets a concept that is a distractor elsewhere be the answer.
        cousins = graph.chain_concepts_under(up)
        return [b for b in siblings + nephews + cousins if not graph.lineage(x, b) and not graph.lineage(chain[i], b)]

    # The distractors are x's own lineage: upper-level concepts above the current one,
    # a lower-level one below it (at the last level, a second upper-level concept).
    # Kinds of x are lineage too, and rarely shown: they balance rare brothers.
    uppers, kinds = list(chain[:i]), graph.children.get(x, [])
    return {"current": [chain[i]], "upper": uppers, "lower": (list(chain[i + 1:]) or uppers) + kinds,
            "brother": graph.pool(("brother", up, chain[i], x), brothers)}, "brother"


def _label(graph: Graph, task: str, chain: tuple[str, ...], i: int, role: str, node: str) -> str:
    """The role an option plays, for ``meta``: a pool that may take a second negative
    concept (or, in common-ancestor's last level, a second upper one) says which it took."""
    x = chain[-1]
    if task == "abstraction" and role == "lower" and not graph.lineage(x, node):
        return "negative upper"
    if task == "concretization" and role == "upper" and not graph.is_a(x, node):
        return "negative lower"
    if task == "common-ancestor" and role == "lower" and graph.is_a(chain[i], node):
        return "upper"
    return role


def question_slot(graph: Graph, task: str, chain: tuple[str, ...], index: int, i: int) -> Slot | None:
    """The question at level i with each role's pool cut to what :func:`judge` accepts, or None."""
    made = role_pools(graph, task, chain, i)
    if made is None:
        return None
    pools, answer = made
    x, top = chain[-1], chain[0]
    named = {role: [(n, graph.name(n)) for n in sorted(set(nodes)) if graph.showable(n)]
             for role, nodes in pools.items()}
    named[answer] = [(n, name) for n, name in named[answer] if answerable(graph, task, x, top, name)]
    if task == "common-ancestor":
        # a distractor's fault does not depend on the answer here (no right sense at all)
        keep = lambda name: not any(_right(graph, x, top, s) for s in graph.senses(name))  # noqa: E731
    else:
        answer_name = named[answer][0][1] if named[answer] else ""
        keep = lambda name: beside(graph, task, x, answer_name, name)  # noqa: E731
    for role in pools:
        if role != answer:
            named[role] = [(n, name) for n, name in named[role] if keep(name)]
    if not all(named.values()):
        return None
    return Slot(task, index, i, answer, named)


def _empty(slot: Slot, ledger: Ledger) -> None:
    for role, (_, name) in slot.chosen.items():
        ledger.add(name, role == slot.answer, -1)
    slot.chosen.clear()
    if slot.ranks is not None:
        ledger.count(slot.ranks, -1)
        slot.ranks = None


def _fill(slot: Slot, ledger: Ledger, rng: random.Random) -> float | None:
    """Fill the slot's roles, each with the name whose showing lowers the ledger's cost most.

    Returns the cost added, or None (slot left empty) when two roles could only share a name.
    The ledger stays as it is while one role's candidates are priced, so a price is computed
    once per (showings, answers) of a candidate and once per pair of frequency ranks.
    """
    added = 0.0
    roles = sorted(slot.pools, key=lambda r: len(slot.pools[r]) > 1)
    for k, role in enumerate(roles):
        answer, last = role == slot.answer, k == len(roles) - 1
        taken = {_key(name) for _, name in slot.chosen.values()}
        # How the question's frequency ranks read with the options chosen so far: exact
        # for the last role (and counted), for an earlier one a guide only (a candidate
        # rarer than the answer already keeps it from being the rarest).
        ranked = answer or slot.answer in slot.chosen
        if ranked:
            others = [(ledger.shown[n], n) for _, n in slot.chosen.values()]
            # the rarest (fewest showings, ties to the later text) and the commonest so far
            rare = max(others, key=lambda t: (-t[0], t[1])) if others else None
            common = max(others) if others else None
            keyed = None if answer else slot.chosen[slot.answer][1]
        prices: dict[tuple[int, int], float] = {}
        guides: dict[tuple[int, int], float] = {}
        scored = []
        shown, answered, draw = ledger.shown.get, ledger.answered.get, rng.random
        for entry in slot.pools[role]:
            name = entry[1]
            if _key(name) in taken:
                continue
            s, a = shown(name, 0), answered(name, 0)
            delta = prices.get((s, a))
            if delta is None:
                delta = prices[s, a] = ledger.delta(name, answer)
            guide, ranks = 0.0, None
            if ranked:
                rarest = name if rare is None or (-s - 1, name) > (-rare[0], rare[1]) else rare[1]
                commonest = name if common is None or (s + 1, name) > common else common[1]
                right = name if answer else keyed
                ranks = (int(rarest == right), int(commonest == right))
                guide = guides.get(ranks)
                if guide is None:
                    guide = guides[ranks] = ledger.rank_delta(*ranks)
            scored.append((delta + guide, draw(), entry, delta, ranks))
        if not scored:
            _empty(slot, ledger)
            return None
        total, _, slot.chosen[role], delta, ranks = min(scored)
        ledger.add(slot.chosen[role][1], answer)
        added += total if last else delta
    slot.ranks = ranks
    ledger.count(ranks)
    return added


@functools.lru_cache(maxsize=None)
def _key(name: str) -> str:
    return wordnet.name_key(name)


def assign(slots: list[Slot], ledger: Ledger, rng: random.Random, sweeps: int = SWEEPS,
           drop_cost: float = DROP_COST) -> list[Slot]:
    """Fill every slot's roles to keep the ledger balanced; the slots kept, in chain order.

    Fixed roles are counted first (every chain's lineage is shown many times, and an
    answer drawn without knowing that would look rarer than its distractors). Each
    sweep then takes every question back and fills it again knowing all the others
    (coordinate descent on the ledger's total cost); a question whose best filling
    still adds more than ``drop_cost`` is left out (its forced names, say a chain's
    top concept that no question of the task can have as its answer, are shown too
    often already), and may come back in a later sweep. Two options of one question
    never share a name. Seeded order and tie-breaks: same seed, same choices.
    """
    for slot in slots:
        for role, pool in slot.pools.items():
            if len(pool) == 1:
                slot.chosen[role] = pool[0]
                ledger.add(pool[0][1], role == slot.answer)
    order = list(slots)
    for _ in range(sweeps):
        rng.shuffle(order)
        for slot in order:
            _empty(slot, ledger)
            added = _fill(slot, ledger, rng)
            if added is not None and added > drop_cost:
                _empty(slot, ledger)
    return sorted((s for s in slots if len(s.chosen) == len(s.pools)), key=lambda s: (s.chain, s.level))


def _fits(graph: Graph, x: str, name: str) -> list[str]:
    """The senses of ``name`` that describe the image: x is it or a kind of it."""
    return [s for s in graph.senses(name) if graph.is_a(x, s)]


def _right(graph: Graph, x: str, top: str, s: str) -> bool:
    """A sense that shares an ancestor with x within the chain (below its top) outside x's lineage."""
    return s != top and top in graph.anc(s) and not graph.lineage(x, s)


def answerable(graph: Graph, task: str, x: str, top: str, answer: str) -> bool:
    """Can the name ``answer`` be the keyed option, whatever sense a reader gives it?"""
    if task in ("abstraction", "concretization"):
        return bool(_fits(graph, x, answer))
    senses = graph.senses(answer)
    return any(_right(graph, x, top, s) for s in senses) and not any(graph.lineage(x, s) for s in senses)


def beside(graph: Graph, task: str, x: str, answer: str, other: str) -> bool:
    """Is ``other`` wrong next to ``answer`` under every reading (abstraction, concretization)?"""
    for o in _fits(graph, x, other):
        for a in _fits(graph, x, answer):
            if (a not in graph.anc(o)) if task == "abstraction" else (o not in graph.anc(a)):
                return False
    return True


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
    if not answerable(graph, task, x, top, answer):
        return False
    if task in ("abstraction", "concretization"):
        return all(beside(graph, task, x, answer, other) for other in others)
    return not any(_right(graph, x, top, s) for name in others for s in graph.senses(name))


def atomic_ok(graph: Graph, shown: str, name: str, yes: bool) -> bool:
    """Yes: some sense of the concept's name is the shown concept or above it; No: none is."""
    return any(graph.is_a(shown, s) for s in graph.senses(name)) == yes


def image_bytes(source: str, key: str) -> bytes:
    """A concept's picture: its emoji drawn (``key``: code points in hex), or a photo file."""
    if source == "emoji":
        return images.render_emoji("".join(chr(int(c, 16)) for c in key.split()))
    return images.load_photo(Path(key))


def shown_names(isa: wordnet.IsA, table: Path = images.EMOJI_MAP) -> dict[str, str]:
    """The names the emoji table gives its concepts where the synset's first lemma would
    mislead a reader ({wnid: lemma}): the trumpet's synset is "cornet, horn, trumpet, trump",
    and a cornet is another instrument to most readers. Each must be a lemma of its synset,
    so that the sense judge reads the same synset under it."""
    by_synset = {data["synset"]: node for node, data in isa.graph.nodes(data=True)}
    names = {}
    for entry in images.load_emoji_map(table):
        if entry.name is None:
            continue
        node = by_synset.get(entry.synset)
        if node is None or node not in isa.senses(entry.name):
            raise ValueError(f"{table}: {entry.codepoints} ({entry.unicode_name}): {entry.name!r} is not "
                             f"a lemma of {entry.synset}; give one of its lemmas, or no name")
        names.setdefault(node, entry.name)
    return names


def image_sources(isa: wordnet.IsA, config: dict) -> dict[str, tuple[str, str]]:
    """Each pictured node's source: {wnid: ("emoji", code points) or ("photo", path)}."""
    by_synset = {data["synset"]: node for node, data in isa.graph.nodes(data=True)}
    sources: dict[str, tuple[str, str]] = {}  # wnid -> (source, key)
    for entry in images.load_emoji_map():
        if entry.synset not in by_synset:
            raise ValueError(f"{images.EMOJI_MAP}: {entry.synset} ({entry.unicode_name}) is not a WordNet noun synset")
        sources.setdefault(by_synset[entry.synset], ("emoji", entry.codepoints))
    for node, photos in images.photo_sources([Path(p) for p in config.get("photo_dirs", [])]).items():
        if node in isa.graph:
            sources[node] = ("photo", str(photos[0]))
    return sources


def make_item(graph: Graph, sources: dict[str, tuple[str, str]], chain: tuple[str, ...], q: dict, item_id: str,
              split: str, split_unit: str, image_path: str) -> Item:
    """The record of one question (``q``: task, level, image, question, options, answer,
    roles and, for multiple choice, labels), as a build and a stream write it."""
    level_of = {n: k for k, n in enumerate(chain)}
    node_meta = lambda n: {"id": n, "synset": graph.isa.graph.nodes[n]["synset"], "name": graph.name(n),  # noqa: E731
                           "level": level_of.get(n)}
    meta = {
        "chain": [node_meta(n) for n in chain],
        "image_concept": node_meta(q["image"]) | {"source": sources[q["image"]][0],
                                                  "key": sources[q["image"]][1]},
        "chain_concept": node_meta(chain[-1]),
        "question_level": q["level"],
        "options": [{"text": t, "role": r, **node_meta(n)}
                    for t, r, n in zip(q["options"], q["labels"], q["roles"].values())] if q["task"] != "atomic"
        else [{"text": "Yes"}, {"text": "No"}],
        "answer_letter": chr(65 + q["options"].index(q["answer"])),
        "split_unit": split_unit,
    }
    if q["task"] == "atomic":
        meta["concept"] = node_meta(q["roles"]["concept"])
    prompt = q["question"] + "\n" + "\n".join(f"{chr(65 + k)}. {o}" for k, o in enumerate(q["options"])) \
        + "\nAnswer with the option's letter."
    return Item(id=item_id, benchmark=NAME, task=q["task"], split=split, question=prompt, images=[image_path],
                options=q["options"], answer=q["answer"], meta=meta)


def build(out_dir: Path | str, seed: int | None = None, config_path: Path | str | None = None,
          progress: bool = True) -> dict:
    """Build CONSTRUCTURE into ``out_dir``; returns the manifest (with timings)."""
    started = time.perf_counter()
    config = load_config(config_path)
    seed = config.get("seed", 0) if seed is None else seed
    isa = wordnet.load(config.get("wordnet_dir"))
    loaded = time.perf_counter()
    graph = Graph(isa, shown_names(isa))
    graph.wordnet_dir = config.get("wordnet_dir")
    visual = set(config["visual_lexnames"])
    sources = image_sources(isa, config)
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
    # Multiple choice: every question's role pools first, then the free roles of each
    # task filled together (exposure balance needs the whole task in view).
    for task, first, last in (("abstraction", 1, 0), ("concretization", 0, 1), ("common-ancestor", 1, 0)):
        slots = []
        for idx, chain in enumerate(chains):
            for i in range(first, len(chain) - last):
                slot = question_slot(graph, task, chain, idx, i)
                if slot is None:
                    dropped[task] += 1
                else:
                    slots.append(slot)
        filled = assign(slots, Ledger(), random.Random(f"constructure:{seed}:{task}"))
        dropped[task] += len(slots) - len(filled)
        for slot in filled:
            chain = chains[slot.chain]
            x = chain[-1]
            roles = [(role, slot.chosen[role][0]) for role in slot.pools]
            random.Random(f"constructure:{seed}:{x}:{task}:{slot.level}").shuffle(roles)
            texts = [graph.name(n) for _, n in roles]
            answer = graph.name(slot.chosen[slot.answer][0])
            key = (QUESTIONS[task], x, tuple(texts), answer)
            if key in seen or not judge(graph, task, x, chain[0], answer, [t for t in texts if t != answer]):
                dropped[task] += 1
                continue
            seen.add(key)
            pending.append({"task": task, "chain": slot.chain, "level": slot.level, "image": x,
                            "question": QUESTIONS[task], "options": texts, "answer": answer, "roles": dict(roles),
                            "labels": [_label(graph, task, chain, slot.level, r, n) for r, n in roles]})
    pending.sort(key=lambda q: (q["chain"], TASKS.index(q["task"]), q["level"]))
    pending = filter_shortcuts(pending, random.Random(f"constructure:{seed}:filter"), dropped, TASKS)
    questioned = time.perf_counter()

    needed = sorted({q["image"] for q in pending})
    with BuildWriter(out_dir) as writer:
        pictures = draw_all([partial(image_bytes, *sources[node]) for node in needed], progress, desc="images")
        path_of = {node: writer.add_image(data) for node, data in zip(needed, pictures)}
        items, counters = [], Counter()
        for q in pending:
            counters[q["task"]] += 1
            items.append(make_item(graph, sources, chains[q["chain"]], q,
                                   item_id=f"constructure-{q['task']}-{counters[q['task']]:05d}",
                                   split=split_of[q["chain"]], split_unit=f"chain-{q['chain']:04d}",
                                   image_path=path_of[q["image"]]))
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


# --------------------------------------------------------------------------- streams
# The hooks of `cogforge.environments`: item ``index`` of a task from (seed, task, index,
# attempt) alone.
#
# Atomic questions are drawn one at a time: a chain (the last ``chain_length`` concepts of
# an imaged concept's tree path), a level, then Yes or No with even odds.
#
# Multiple-choice questions come from a *bank*. The world is finite (every question is
# about one pictured concept and one concept of its lineage), and what keeps a blind
# reader at chance is a balance over a whole task (:class:`Ledger`, :func:`filter_shortcuts`),
# which no per-item draw has: drawn one at a time, common-ancestor distractors are the
# picture's own lineage and never its answers, and a text prior learned from the stream
# answered half of them. So a stream's bank holds every question its draw can ask (one
# per pictured concept and asked concept, the unit a release excludes by), filled by the
# build's own ledger and blind-heuristic filter, once per process; the stream then goes
# through the bank in a fresh seeded order each pass (an *epoch*), so every window of one
# epoch is a sample without repeats of a balanced set, and draws each item's option order
# (so answer positions are uniform per item). Item ``i`` is entry ``perm_e[i mod n]`` of
# the bank, epoch ``e = i // n``: random access in constant time once the bank is filled.

_STREAM_TRIES = 200  # draws of one atomic item before a knob setting is declared to have no valid question
_FIRST_LEVEL = {"atomic": (0, 0), "abstraction": (1, 0), "concretization": (0, 1), "common-ancestor": (1, 0)}
# A bank that the filter cuts below SMALL_TASK questions is judged at this many standard
# errors of chance (as the symbols' small tasks are), not at the task-wide margin.
_BANK_NOISE = 1.5


@dataclass(frozen=True, eq=False)  # hashed by identity: one per process and config
class _StreamWorld:
    graph: Graph
    sources: dict[str, tuple[str, str]]
    by_length: dict[int, list[tuple[str, ...]]]  # chain length -> chains, by image concept
    chains: list[tuple[str, ...]]  # every chain of every length
    longest: list[tuple[str, ...]]  # each image concept's longest chain (every other is a suffix of one)
    unrelated: list[str]  # "No" pictures: the image concepts of the chains


@functools.lru_cache(maxsize=4)
def _stream_world(wordnet_dir: str | None, photo_dirs: tuple[str, ...], visual: tuple[str, ...]) -> _StreamWorld:
    """The graph, the pictures and every chain of every length from 2 (item-independent)."""
    config = {"wordnet_dir": wordnet_dir, "photo_dirs": list(photo_dirs)}
    isa = wordnet.load(wordnet_dir)
    graph = Graph(isa, shown_names(isa))
    graph.wordnet_dir = wordnet_dir
    sources = image_sources(isa, config)
    imaged = sorted(n for n in sources if graph.lexname(n) in set(visual))
    deepest = len(max((isa.tree_path(n) for n in imaged), key=len, default=[]))
    longest = find_chains(graph, imaged, set(visual), 2, deepest)
    by_length = {}
    for length in range(2, deepest + 1):
        found = find_chains(graph, imaged, set(visual), length, length)
        if found:
            by_length[length] = found
    chains = [c for length in sorted(by_length) for c in by_length[length]]
    # what the build's pools read: every chain's upper concepts by depth, every chain concept
    for chain in chains:
        for node in chain[:-1]:
            graph.uppers_at.setdefault(len(isa.tree_path(node)), []).append(node)
    graph.uppers_at = {d: sorted(set(v)) for d, v in graph.uppers_at.items()}
    graph.chain_concepts = sorted({n for chain in chains for n in chain})
    return _StreamWorld(graph, sources, by_length, chains, longest, sorted({c[-1] for c in chains}))


def _world(config: dict) -> _StreamWorld:
    return _stream_world(config.get("wordnet_dir"), tuple(config.get("photo_dirs", [])),
                         tuple(config["visual_lexnames"]))


def _levels(task: str, length: int) -> range:
    first, last = _FIRST_LEVEL[task]
    return range(first, length - last)


@functools.lru_cache(maxsize=1024)
def _stream_image(source: str, key: str) -> tuple[str, bytes]:
    """A concept's picture and its content-addressed name, made once per process."""
    png = image_bytes(source, key)
    return f"images/{hashlib.sha256(png).hexdigest()}.png", png


@functools.lru_cache(maxsize=65536)
def _stream_slot(world: _StreamWorld, task: str, chain: tuple[str, ...], level: int) -> Slot | None:
    return question_slot(world.graph, task, chain, 0, level)


def stream_tasks(config: dict) -> list[str]:
    """The four tasks, in the build's order."""
    return list(TASKS)


def stream_knobs(config: dict) -> dict[str, dict[str, tuple[int, ...]]]:
    """Per task, ``chain_length``: the concepts in the chain the question is drawn from
    (every length from 2 that some imaged concept's visual path reaches; the build uses
    ``min_chain`` to ``max_chain``); ``level``: the asked concept's level in it, 0 the most
    abstract (the paper's Figures 9 and 10), every level some chain length allows."""
    world = _world(config)
    lengths = tuple(sorted(world.by_length))
    return {task: {"chain_length": lengths, "level": _feasible_levels(world, task)} for task in TASKS}


@functools.lru_cache(maxsize=16)
def _feasible_levels(world: _StreamWorld, task: str) -> tuple[int, ...]:
    """The levels at which some chain has a question."""
    levels = sorted({lv for n in world.by_length for lv in _levels(task, n)})
    if task == "atomic":
        return tuple(levels)
    return tuple(lv for lv in levels if any(_stream_slot(world, task, c, lv) is not None
                                            for c in world.chains if lv in _levels(task, len(c))))


def _check_knobs(task: str, difficulty: dict) -> None:
    length, level = difficulty.get("chain_length"), difficulty.get("level")
    if length is not None and level is not None and level not in _levels(task, length):
        levels = _levels(task, length)
        raise UserError(f"constructure {task}: level {level} needs a chain longer than chain_length {length} "
                        f"(levels {levels.start} to {levels.stop - 1})")


def _draw_chain(world: _StreamWorld, task: str, rng: random.Random, difficulty: dict) -> tuple[tuple[str, ...], int]:
    """An atomic question's chain and the level of the concept asked about.

    With no knob: a pictured concept, then how far above it the asked concept is (every
    distance its visual path allows, evenly), then the chain's length (every length that
    holds both, evenly). With ``chain_length``: a chain of that length, then a level; with
    ``level``: a chain long enough for it."""
    if not difficulty:
        path = rng.choice(world.longest)
        distance = rng.randrange(len(path))  # the asked concept's steps above the picture
        length = rng.choice(range(max(2, distance + 1), len(path) + 1))
        return path[-length:], length - 1 - distance
    _check_knobs(task, difficulty)
    if "chain_length" in difficulty:
        pool = world.by_length[difficulty["chain_length"]]
    else:
        pool = [c for c in world.chains if difficulty["level"] < len(c)]
    chain = rng.choice(pool)
    return chain, difficulty["level"] if "level" in difficulty else rng.choice(_levels(task, len(chain)))


def _atomic_draw(world: _StreamWorld, rng: random.Random, difficulty: dict) -> tuple[tuple, dict] | None:
    """One draw of an atomic question, or None when it has none (a name that cannot be
    shown, no picture that answers No)."""
    graph = world.graph
    chain, level = _draw_chain(world, "atomic", rng, difficulty)
    x, top, concept = chain[-1], chain[0], chain[level]
    if not graph.showable(concept):
        return None
    name = graph.name(concept)
    if rng.random() < 0.5:
        shown, answer = (x if atomic_ok(graph, x, name, True) else None), "Yes"
    else:
        shown, answer = _pick(rng, world.unrelated, lambda u: not graph.is_a(u, top)
                              and atomic_ok(graph, u, name, False)), "No"
    if shown is None:
        return None
    return chain, {"task": "atomic", "level": level, "image": shown, "question": _atomic_question(name),
                   "options": ["Yes", "No"], "answer": answer, "roles": {"concept": concept}}


def _bank_questions(world: _StreamWorld, task: str, seed: int, difficulty: tuple,
                    excluded: frozenset) -> list[tuple[tuple[str, ...], Slot]]:
    """Every question of ``task`` that the knobs allow, one per pictured concept and asked
    concept, as a slot with its roles' pools (not yet filled), leaving out the units in
    ``excluded`` (sha256 keys of :func:`stream_unit`). Without a ``chain_length`` the
    question's chain length is drawn per unit (every length that holds both concepts, in
    a seeded order, the first with a question)."""
    knobs = dict(difficulty)
    first, last = _FIRST_LEVEL[task]
    out = []
    for path in world.longest:
        x = path[-1]
        for distance in range(last, len(path) - first):
            asked = path[-1 - distance]
            if hashlib.sha256(_unit(task, x, asked).encode()).hexdigest() in excluded:
                continue
            lengths = [n for n in range(max(2, distance + 1 + first), len(path) + 1)
                       if knobs.get("chain_length", n) == n and knobs.get("level", n - 1 - distance) == n - 1 - distance]
            random.Random(f"constructure:stream:{seed}:{task}:{x}:{asked}").shuffle(lengths)
            for length in lengths:
                slot = _stream_slot(world, task, path[-length:], length - 1 - distance)
                if slot is not None:
                    out.append((path[-length:], Slot(task, len(out), slot.level, slot.answer, slot.pools)))
                    break
    return out


@functools.lru_cache(maxsize=64)
def _bank(world: _StreamWorld, task: str, seed: int, difficulty: tuple, excluded: frozenset) -> list[tuple]:
    """The stream's questions of ``task``: the bank's slots filled together by the build's
    :func:`assign` (exposure balance), each judged again, then :func:`filter_shortcuts`
    (every blind heuristic within the build's margin of chance over the bank). Entries are
    (chain, question) in chain order, the question's roles in the slot's order."""
    graph = world.graph
    units = _bank_questions(world, task, seed, difficulty, excluded)
    chains = [chain for chain, _ in units]
    # A knob setting's bank of a few dozen questions (the deepest levels) is too small for
    # the task-wide thresholds: no question is left out for its cost, and, as QC asks
    # significance of a task under SMALL_TASK items, none is filtered.
    small = len(units) < SMALL_TASK
    filled = assign([slot for _, slot in units], Ledger(), random.Random(f"constructure:stream:{seed}:{task}:{difficulty}"),
                    drop_cost=math.inf if small else DROP_COST)
    pending = []
    for slot in filled:
        chain = chains[slot.chain]
        roles = [(role, slot.chosen[role][0]) for role in slot.pools]
        texts = [graph.name(n) for _, n in roles]
        answer = graph.name(slot.chosen[slot.answer][0])
        if judge(graph, task, chain[-1], chain[0], answer, [t for t in texts if t != answer]):
            pending.append({"task": task, "chain": chain, "level": slot.level, "roles": roles,
                            "question": QUESTIONS[task], "options": texts, "answer": answer})
    if small:
        return pending
    return filter_shortcuts(pending, random.Random(f"constructure:stream:{seed}:{task}:{difficulty}:filter"),
                            Counter(), [task], {task: _BANK_NOISE})


@functools.lru_cache(maxsize=64)
def _epoch(size: int, seed: int, task: str, difficulty: tuple, epoch: int) -> list[int]:
    """The bank's order in one pass."""
    order = list(range(size))
    random.Random(f"constructure:stream:{seed}:{task}:{difficulty}:epoch:{epoch}").shuffle(order)
    return order


def stream_bank(config: dict, seed: int, task: str, difficulty: dict, excluded: frozenset = frozenset()) -> list[dict]:
    """A multiple-choice task's bank (see above): the questions one epoch of the stream
    goes through, each a dict with ``chain``, ``level``, ``roles``, ``options`` and ``answer``."""
    _check_knobs(task, difficulty)
    return _bank(_world(config), task, seed, tuple(sorted(difficulty.items())), excluded)


def stream_item(config: dict, seed: int, task: str, index: int, attempt: int, difficulty: dict,
                excluded: frozenset = frozenset()) -> tuple[Item, dict[str, bytes]]:
    """Item ``index`` of ``task``, written as the build writes its items. Atomic: the first
    valid draw of a generator keyed by (seed, task, index, attempt, try). Multiple choice:
    the bank's entry at ``index`` in its epoch's order (the next one for a later
    ``attempt``), options in an order keyed by (seed, task, index, attempt). ``excluded``:
    unit keys the bank leaves out (see ``stream_excluding``)."""
    world = _world(config)
    if task == "atomic":
        for tries in range(_STREAM_TRIES):
            rng = random.Random(f"constructure:stream:{seed}:{task}:{index}:{attempt}:{tries}")
            drawn = _atomic_draw(world, rng, difficulty)
            if drawn is not None:
                break
        else:
            raise RuntimeError(f"constructure {task} {difficulty}: no valid question in {_STREAM_TRIES} draws")
        chain, q = drawn
    else:
        bank = stream_bank(config, seed, task, difficulty, excluded)
        if not bank:
            raise UserError(f"constructure {task} {difficulty or ''}: no question is left to stream"
                            + (" beside the excluded release" if excluded else ""))
        knobs = tuple(sorted(difficulty.items()))
        epoch, at = divmod(index, len(bank))
        entry = bank[_epoch(len(bank), seed, task, knobs, epoch)[(at + attempt) % len(bank)]]
        chain, roles = entry["chain"], list(entry["roles"])
        random.Random(f"constructure:stream:{seed}:{task}:{index}:{attempt}").shuffle(roles)
        graph = world.graph
        q = {"task": task, "level": entry["level"], "image": chain[-1], "question": QUESTIONS[task],
             "options": [graph.name(n) for _, n in roles], "answer": entry["answer"], "roles": dict(roles),
             "labels": [_label(graph, task, chain, entry["level"], r, n) for r, n in roles]}
    path, png = _stream_image(*world.sources[q["image"]])
    item = make_item(world.graph, world.sources, chain, q, item_id=f"{NAME}-{task}-stream-{index}", split="train",
                     split_unit=f"chain-{chain[0]}-{chain[-1]}", image_path=path)
    return item, {path: png}


# `cogforge.environments` hands stream_item the release's unit keys: the banks leave them
# out before they balance what is left, where re-drawing would repeat other entries.
stream_excluding = True


def stream_unit(item: Item | dict) -> str:
    """The fact a question asks: its task, the concept pictured and the concept asked
    about (atomic) or the question's level concept (multiple choice), so the same
    question with other distractors, another option order or another chain around the
    same two concepts is one unit."""
    meta, task = (item.meta, item.task) if isinstance(item, Item) else (item["meta"], item["task"])
    asked = meta["concept"]["id"] if task == "atomic" else meta["chain"][meta["question_level"]]["id"]
    return _unit(task, meta["image_concept"]["id"], asked)


def _unit(task: str, pictured: str, asked: str) -> str:
    return f"{task}:{pictured}:{asked}"


def load_stream_config() -> dict:
    """The default config (``builders/constructure.toml``)."""
    return load_config()
