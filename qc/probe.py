"""A learned shortcut probe: can a linear model that never understands an item find its answer?

QC's blind baselines (``check_shortcuts`` in ``qc/checks.py``) apply fixed rules to option
texts. A template can hide where no rule looks: in the pictures (a scene kept for the
first meaning of every path), their file sizes, or a mix of weak cues. The probe learns
instead. Per task, every item becomes a set of *candidates* of which exactly one is
right, each a vector of features a model gets without understanding the item; a
logistic regression (scikit-learn) scores candidates and the item's prediction is its
highest-scoring one. It is trained and judged by grouped k-fold cross-validation: the
folds are the items' split units (``meta["split_unit"]``: a word, a chain, a pair; the
item itself when there is none), so the probe is always scored on units it never saw
and cannot pass by memorising one.

Candidates, by the kind of answer:

* multiple choice: the options. Features: the option text (hashed words and character
  3-grams), its length, how often that text is shown across the task, its position (and
  whether it is last); when the option names one of the item's images ("Image 2"), that
  image's 8 x 8 colour thumbnail, 64-bin colour histogram and file size.
* orderings (a free answer ``B -> A -> C`` over listed definitions ``[A] ...``, SVG sources
  ``Image A: ...`` or the item's images in order): the listed elements, with the same
  features; the probe predicts which comes first (chance 1/n).
* other free answers (CARV's captions, a chemical equation's coefficients): skipped, with
  the reason in the report's statistics. Nothing a model is shown is a candidate there;
  the shortcuts check's majority baselines cover an answer prior.

When the listed elements of an order are definitions (CogEvolve's 3a: ``[A] the flesh
of ...``), their words are what a reader must understand, not a template beside it:
regular polysemy fixes a direction per kind of extension (an animal before its flesh),
so a bag of definition words orders many paths, as a person who knows the kinds would.
That family is reported (``definition words``) but not judged; the judged probes there
see each definition's length, how often it is shown, and its position.

The question and an item's own pictures (those that are not candidates) are never
features: they are the evidence, and a probe that reads them with the options would be
solving the task (a picture of a shark, so the option "fish"), not finding a template.
For the same reason scene kinds are not read from ``meta``: a candidate's thumbnail
shows a model what its scene is, and ``meta`` also holds ground truth.

Only differences between an item's candidates can change which one a linear scorer
picks, so features are centred within each item before fitting. Thumbnails come from
the duplicates check's cached fingerprint, so the pictures are decoded once per QC run.
Several probes run per task: all feature families together and each family alone (a
single strong cue can drown among two thousand text columns); the best counts, its
p-value corrected for the choice. A task of at least ``PROBE_MIN_ITEMS`` items whose
probe beats chance by more than ``PROBE_MARGIN`` (and not by sampling luck, p <
``PROBE_P``) fails the build; a smaller task fails when it is more than
``SMALL_ERROR_MARGIN`` above chance, as the shortcuts check judges its small tasks,
and is warned about otherwise. The message gives every probe's score,
so it says which features carry the answer.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from scipy import sparse

from cogforge.core.record import Item
from cogforge.core import shortcuts as stats
from cogforge.qc.core import Build, CheckResult, Finding

PROBE_MARGIN = 0.05
PROBE_MIN_ITEMS = 100
# A probe above the margin by luck does not fail a build: the excess must also be
# significant (one-sided binomial test against chance, corrected for the choice among
# probes). On random answers a cross-validated probe's accuracy spreads wider than a
# binomial (up to +15 points on 120 items in 2 of 20 synthetic builds), hence 0.001.
PROBE_P = 0.001
# a smaller task fails only when the probe is this far above chance (the shortcuts
# check's rule for its small tasks); otherwise it warns
SMALL_ERROR_MARGIN = 0.10
FOLDS = 5
SEED = 0
C = 0.5  # inverse L2 strength of the logistic regression
MAX_POSITIONS = 10
TEXT_FEATURES = 2 ** 10
THUMB_SIDE = 8
HIST_LEVELS = 4
MIN_ITEMS = 10  # fewer scored items than this: nothing to learn from
# reported, never judged: the words of definitions a reader must understand (see above)
DEFINITION_WORDS = "definition words"

_IMAGE_OPTION = re.compile(r"^(?:image|picture|figure|photo)\s*(\d+)$", re.I)
_ORDER = re.compile(r"^\s*([A-Z0-9]{1,3})(?:\s*->\s*([A-Z0-9]{1,3}))+\s*$")
_LISTED = re.compile(r"^\[([A-Z0-9]{1,3})\] (.*)$", re.M)
_IMAGE_BLOCK = re.compile(r"^Image ([A-Z0-9]{1,3}):\n", re.M)


# --------------------------------------------------------------------------- pictures


@dataclass(frozen=True)
class Picture:
    thumb: np.ndarray  # THUMB_SIDE x THUMB_SIDE x 3, in [0, 1]
    hist: np.ndarray  # HIST_LEVELS ** 3 colour fractions
    log_size: float


@cache
def _picture_cached(path: Path, mtime: float, size: int) -> Picture:
    from cogforge.qc.checks import FINGERPRINT_SIDE, _fingerprint

    pixels = _fingerprint(path, mtime).reshape(FINGERPRINT_SIDE, FINGERPRINT_SIDE, 3).astype(np.float32) / 255

    def pooled(side: int) -> np.ndarray:
        step = FINGERPRINT_SIDE // side
        return pixels.reshape(side, step, side, step, 3).mean(axis=(1, 3)).reshape(-1)

    levels = np.minimum((pixels * HIST_LEVELS).astype(int), HIST_LEVELS - 1).reshape(-1, 3)
    codes = (levels[:, 0] * HIST_LEVELS + levels[:, 1]) * HIST_LEVELS + levels[:, 2]
    hist = np.bincount(codes, minlength=HIST_LEVELS ** 3).astype(np.float32) / len(codes)
    return Picture(pooled(THUMB_SIDE), hist, math.log1p(size))


def _picture(path: Path) -> Picture | None:
    try:
        st = path.stat()
        return _picture_cached(path, st.st_mtime, st.st_size)
    except OSError:
        return None  # the schema and media checks report missing or broken images


# --------------------------------------------------------------------------- candidates


@dataclass
class Candidate:
    text: str
    position: int
    image: Path | None = None


@dataclass
class Case:
    """One item as the probe sees it: its candidates and which one is right."""

    item: Item
    candidates: list[Candidate]
    right: int
    definitions: bool = False  # the candidates are definitions to be read (an order of meanings)


def _choice_case(build: Build, item: Item) -> Case | None:
    if item.answer not in item.options:
        return None  # the answers check reports it
    candidates = []
    for k, text in enumerate(item.options):
        m = _IMAGE_OPTION.match(text.strip())
        image = None
        if m and 1 <= int(m.group(1)) <= len(item.images):
            image = build.path / item.images[int(m.group(1)) - 1]
        candidates.append(Candidate(text, k, image))
    return Case(item, candidates, item.options.index(item.answer))


def _order_case(build: Build, item: Item) -> Case | None:
    ids = [s.strip() for s in item.answer.split("->")]
    shown = sorted(ids)
    if len(set(ids)) != len(ids):
        return None
    listed = dict(_LISTED.findall(item.question))
    defined = set(listed)
    blocks = _IMAGE_BLOCK.split(item.question)
    listed |= {blocks[k]: blocks[k + 1] for k in range(1, len(blocks) - 1, 2)}
    images = item.images if len(item.images) == len(ids) else []
    candidates = [Candidate(listed.get(i, ""), k, build.path / images[k] if images else None)
                  for k, i in enumerate(shown)]
    definitions = not images and all(i in defined for i in shown)
    return Case(item, candidates, shown.index(ids[0]), definitions)


def cases(build: Build, items: list[Item]) -> tuple[str, list[Case], float, str | None]:
    """The task's framing, its cases, chance, and why it is skipped (None when it is not)."""
    if all(i.options is not None for i in items):
        found = [c for c in (_choice_case(build, i) for i in items) if c]
        chance = float(np.mean([1 / len(c.candidates) for c in found])) if found else 0.0
        return "options", found, chance, None
    if all(i.options is None and _ORDER.match(i.answer) for i in items):
        found = [c for c in (_order_case(build, i) for i in items) if c]
        chance = float(np.mean([1 / len(c.candidates) for c in found])) if found else 0.0
        return "first of the order", found, chance, None
    return "free answer", [], 0.0, ("free answers that are not an order: nothing a model is shown is a "
                                    "candidate answer (the shortcuts check's majority baselines cover them)")


# --------------------------------------------------------------------------- features


def _hashers():
    from sklearn.feature_extraction.text import HashingVectorizer

    words = HashingVectorizer(n_features=TEXT_FEATURES, alternate_sign=False, binary=True, norm="l2")
    chars = HashingVectorizer(n_features=TEXT_FEATURES, analyzer="char_wb", ngram_range=(3, 3),
                              alternate_sign=False, binary=True, norm="l2")
    return words, chars


def features(framing: str, found: list[Case]) -> tuple[dict[str, sparse.csr_matrix], np.ndarray, np.ndarray]:
    """Feature families (rows: every candidate of every case, in order), labels and case index."""
    words, chars = _hashers()
    rows = [(n, c) for n, case in enumerate(found) for c in case.candidates]
    texts = [c.text for _, c in rows]
    shown = Counter(t for case in found for t in {c.text for c in case.candidates})
    label = np.array([case.right == k for case in found for k in range(len(case.candidates))], dtype=np.int8)
    owner = np.array([n for n, _ in rows])
    fam: dict[str, sparse.csr_matrix] = {}
    position = np.zeros((len(rows), MAX_POSITIONS + 1), np.float32)
    for r, (n, c) in enumerate(rows):
        position[r, min(c.position, MAX_POSITIONS - 1)] = 1
        position[r, MAX_POSITIONS] = c.position == len(found[n].candidates) - 1
    fam["position"] = sparse.csr_matrix(position)
    lengths = sparse.csr_matrix(np.array([[math.log1p(len(t)), math.log1p(len(t.split()))] for t in texts],
                                         np.float32))
    if all(case.definitions for case in found):
        fam["length"] = lengths
        fam[DEFINITION_WORDS] = sparse.hstack([words.transform(texts), chars.transform(texts)], format="csr")
    else:
        fam["text"] = sparse.hstack([words.transform(texts), chars.transform(texts), lengths], format="csr")
    fam["frequency"] = sparse.csr_matrix(np.array([[math.log(shown[t] / len(found))] for t in texts], np.float32))
    dims = THUMB_SIDE * THUMB_SIDE * 3 + HIST_LEVELS ** 3 + 2
    image = np.zeros((len(rows), dims), np.float32)
    for r, (_, c) in enumerate(rows):
        picture = _picture(c.image) if c.image else None
        if picture is not None:
            image[r] = np.concatenate([picture.thumb, picture.hist, [picture.log_size, 1.0]])
    if image.any():
        fam["image"] = sparse.csr_matrix(image)
    return fam, label, owner


def _centred(x: sparse.csr_matrix, owner: np.ndarray) -> sparse.csr_matrix:
    """Each row minus the mean of its case's rows: only differences between candidates count."""
    counts = np.bincount(owner)
    mean = sparse.csr_matrix((1 / counts[owner], (owner, np.arange(len(owner)))),
                             shape=(len(counts), len(owner))) @ x
    return (x - mean[owner]).tocsr()


# --------------------------------------------------------------------------- the probe


def probe_accuracy(x: sparse.csr_matrix, label: np.ndarray, owner: np.ndarray, groups: list[str]) -> np.ndarray:
    """Out-of-fold hit per case (1, 0, or a share when candidates tie); folds never split a split unit."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    x = _centred(x, owner)
    units = np.array(groups)[owner]
    folds = min(FOLDS, len(set(groups)))
    scores = np.zeros(len(owner))
    for train, test in GroupKFold(n_splits=folds, shuffle=True, random_state=SEED).split(x, label, units):
        if len(set(label[train])) < 2:
            continue
        # liblinear: five times faster than lbfgs here, same accuracies (seeded, so deterministic)
        model = LogisticRegression(C=C, solver="liblinear", max_iter=500, random_state=SEED)
        model.fit(x[train], label[train])
        scores[test] = model.decision_function(x[test])
    hits = []
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    for score, right in zip(np.split(scores, starts[1:]), np.split(label, starts[1:])):
        # a tie is a guess among the tied candidates, not a pick of the first
        top = np.isclose(score, score.max(), rtol=0, atol=1e-9)
        hits.append(right[top].mean())
    return np.array(hits)


def _unit(item: Item) -> str:
    unit = item.meta.get("split_unit")
    return str(unit) if unit is not None else item.id


def _judge(n: int, acc: float, chance: float, p: float) -> str | None:
    """As the shortcuts check judges its baselines, with significance required at every size."""
    if acc <= chance + PROBE_MARGIN or p >= PROBE_P:
        return None
    return "error" if n >= PROBE_MIN_ITEMS or acc > chance + SMALL_ERROR_MARGIN else "warning"


def check_probe(build: Build) -> CheckResult:
    """Per task, the best of the probes (all feature families together, and each alone) next to chance."""
    out = CheckResult()
    rows = []
    by_task: dict[str, list[Item]] = {}
    for item in build.items:
        by_task.setdefault(item.task, []).append(item)
    for task, items in sorted(by_task.items()):
        framing, found, chance, skipped = cases(build, items)
        if skipped is None and len(found) < MIN_ITEMS:
            skipped = f"{len(found)} items to score: too few to learn from"
        groups = [_unit(c.item) for c in found]
        if skipped is None and len(set(groups)) < 2:
            skipped = "one split unit: no fold to hold out"
        if skipped:
            rows.append({"task": task, "framing": framing, "skipped": skipped})
            continue
        fam, label, owner = features(framing, found)
        judged = {name: x for name, x in fam.items() if name != DEFINITION_WORDS}
        probes = {"all": sparse.hstack(list(judged.values()), format="csr")} | (judged if len(judged) > 1 else {})
        by_probe = {name: float(probe_accuracy(x, label, owner, groups).mean()) for name, x in probes.items()}
        best = max(by_probe, key=by_probe.get)
        if DEFINITION_WORDS in fam:
            by_probe[DEFINITION_WORDS] = float(probe_accuracy(fam[DEFINITION_WORDS], label, owner, groups).mean())
        n, acc = len(found), by_probe[best]
        hits = round(acc * n)
        # the best of several probes: its p-value is corrected for the choice (Bonferroni)
        p = min(1.0, stats.binomial_sf(hits, n, chance) * len(probes))
        rows.append({"task": task, "framing": framing, "n": n, "units": len(set(groups)), "accuracy": acc,
                     "best": best, "ci95": stats.wilson(hits, n), "chance": chance, "p_vs_chance": p,
                     "by_probe": by_probe})
        severity = _judge(n, acc, chance, p)
        words = by_probe.get(DEFINITION_WORDS)
        if words is not None and words > chance + PROBE_MARGIN:
            out.findings.append(Finding(
                "info", "probe", task,
                f"the definitions' words order {words:.1%} of paths against chance {chance:.1%} (n={n}): the kinds "
                f"of extension fix a direction; reported, not judged (reading definitions is the task)"))
        if severity:
            carried = ", ".join(f"{name} {a:.0%}" for name, a in sorted(by_probe.items(), key=lambda kv: -kv[1]))
            out.findings.append(Finding(
                severity, "probe", task,
                f"a linear probe on surface features ({framing}, never the question) scores {acc:.1%} "
                f"against chance {chance:.1%} (n={n}, cross-validated by split unit, p={p:.1e}); "
                f"by feature family: {carried}"))
    out.stats = {"tasks": rows}
    return out
