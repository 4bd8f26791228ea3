"""Checks that apply to every benchmark's build.

Each returns findings and statistics; none writes anything. Thresholds are module
constants so a reader sees at once what fails a build.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path

import numpy as np

from cogforge.core import shortcuts as stats
from cogforge.core.record import Item
from cogforge.qc.core import Build, CheckResult, Finding, plugin
from cogforge.qc.examples import check_examples
from cogforge.qc.offensive import check_offensive
from cogforge.qc.probe import check_probe

# A blind baseline (no image) on a task of at least SHORTCUT_MIN_ITEMS items fails the
# build when it beats chance by more than SHORTCUT_MARGIN. On smaller tasks sampling
# noise is too large for that, so there it must also be significant (one-sided
# binomial test, SHORTCUT_P): an error at SHORTCUT_SMALL_ERROR_MARGIN, a warning at
# SHORTCUT_MARGIN.
SHORTCUT_MARGIN = 0.05
SHORTCUT_MIN_ITEMS = 100
SHORTCUT_SMALL_ERROR_MARGIN = 0.10
SHORTCUT_P = 0.001
# Balance index below which a stratum family is reported.
BALANCE_WARNING = 0.5
BALANCE_ERROR = 0.1
# Near-duplicate images: a perceptual fingerprint (a 32 x 32 box-averaged colour
# thumbnail) whose cells all lie within this many levels of another image's. JPEG
# re-encoding at quality 50 moves a CARV render by at most 5 levels; the two most
# alike CARV states (a red and a wooden table) are 49 apart. Bit-based perceptual
# hashes (pHash) were tried first: on flat synthetic renders their bits sit at the
# median and JPEG flips more of them than a change of state does.
FINGERPRINT_SIDE = 32
NEAR_DUPLICATE_LEVELS = 16
BLANK_STDDEV = 2.0


def _benchmark_option(build: Build, name: str, default):
    module = plugin(build.benchmark)
    return getattr(module, name, default) if module else default


def strata(build: Build) -> dict[str, dict[str, list]]:
    """Stratum families: ``{family: {value: [items]}}``; ``task`` always, plus the benchmark's."""
    extra = _benchmark_option(build, "strata", None)
    families: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for item in build.items:
        families["task"][item.task].append(item)
        if extra is not None:
            for family, value in extra(item).items():
                families[family][value].append(item)
    return families


# --------------------------------------------------------------------------- schema


def check_schema(build: Build) -> CheckResult:
    out = CheckResult()
    ids = Counter(item.id for item in build.items)
    for item_id, n in ids.items():
        if n > 1:
            out.findings.append(Finding("error", "schema", item_id, f"id used by {n} items"))
    for item in build.items:
        if item.benchmark != build.benchmark:
            out.findings.append(Finding("error", "schema", item.id,
                                        f"benchmark {item.benchmark!r}, build is {build.benchmark!r}"))
        for rel in item.images:
            if not (build.path / rel).is_file():
                out.findings.append(Finding("error", "schema", item.id, f"image {rel} does not exist"))
    listed = build.manifest.get("files", {})
    on_disk = {p.relative_to(build.path).as_posix() for p in build.path.rglob("*")
               if p.is_file() and p.name != "manifest.json"}
    for rel in sorted(set(listed) - on_disk):
        out.findings.append(Finding("error", "schema", rel, "listed in manifest.json but missing"))
    for rel in sorted(on_disk - set(listed)):
        out.findings.append(Finding("error", "schema", rel, "not listed in manifest.json"))
    for rel in sorted(set(listed) & on_disk):
        if _sha256(build.path / rel) != listed[rel]:
            out.findings.append(Finding("error", "schema", rel, "sha256 differs from manifest.json"))
    out.stats = {"items": len(build.items), "files": len(on_disk), "unique_ids": len(ids)}
    return out


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------- media


def _image_files(build: Build) -> list[Path]:
    folder = build.path / "images"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def check_media(build: Build) -> CheckResult:
    from PIL import Image, ImageStat, UnidentifiedImageError

    out = CheckResult()
    expected = build.manifest.get("media", {})
    size = tuple(expected["size"]) if "size" in expected else None
    mode = expected.get("mode")
    seen_sizes: Counter = Counter()
    for path in _image_files(build):
        rel = path.relative_to(build.path).as_posix()
        try:
            with Image.open(path) as image:
                image.load()
                seen_sizes[f"{image.size[0]}x{image.size[1]} {image.mode}"] += 1
                if size and image.size != size:
                    out.findings.append(Finding("error", "media", rel, f"size {image.size}, expected {size}"))
                if mode and image.mode != mode:
                    out.findings.append(Finding("error", "media", rel, f"mode {image.mode}, expected {mode}"))
                rgb = image.convert("RGB")
                if max(ImageStat.Stat(rgb).stddev) < BLANK_STDDEV:
                    out.findings.append(Finding("error", "media", rel, "image is blank (one flat colour)"))
                _PRINTS.setdefault((path, path.stat().st_mtime), _thumbprint(rgb))  # decoded once per QC run
        except (UnidentifiedImageError, OSError, SyntaxError) as err:
            out.findings.append(Finding("error", "media", rel, f"does not decode: {err}"))
    out.stats = {"images": sum(seen_sizes.values()), "size_mode": dict(seen_sizes)}
    return out


# --------------------------------------------------------------------------- duplicates


_PRINTS: dict[tuple[Path, float], np.ndarray] = {}  # (path, mtime) -> fingerprint; check_media fills it as it decodes


def _thumbprint(rgb) -> np.ndarray:
    from PIL import Image

    thumb = rgb.resize((FINGERPRINT_SIDE, FINGERPRINT_SIDE), Image.BOX)
    return np.asarray(thumb, dtype=np.int16).reshape(-1)


def _fingerprint(path: Path, mtime: float) -> np.ndarray:
    """An image's FINGERPRINT_SIDE x FINGERPRINT_SIDE colour thumbnail, decoded once per process."""
    from PIL import Image

    if (path, mtime) not in _PRINTS:
        with Image.open(path) as image:
            _PRINTS[path, mtime] = _thumbprint(image.convert("RGB"))
    return _PRINTS[path, mtime]


def near_duplicate_pairs(paths: list[Path]) -> tuple[list[tuple[Path, Path, int]], int | None]:
    """Pairs of images within NEAR_DUPLICATE_LEVELS, and the smallest distance seen.

    The distance is the largest difference, in 0-255 levels, between the two images'
    32 x 32 colour thumbnails (box-averaged cells of 16 x 16 pixels at 512 px).
    """
    prints, kept = [], []
    for p in paths:
        try:
            prints.append(_fingerprint(p, p.stat().st_mtime))
            kept.append(p)
        except OSError:
            continue  # the media check reports images that do not decode
    if len(prints) < 2:
        return [], None
    matrix = np.stack(prints)
    pairs, closest = [], None
    for a in range(len(kept) - 1):
        dist = np.abs(matrix[a + 1:] - matrix[a]).max(axis=1)
        low = int(dist.min())
        closest = low if closest is None else min(closest, low)
        for offset in np.nonzero(dist <= NEAR_DUPLICATE_LEVELS)[0]:
            pairs.append((kept[a], kept[a + 1 + int(offset)], int(dist[offset])))
    return pairs, closest


def shown_key(build: Build, item) -> str:
    """What a model is shown and scored on: question, image bytes in order, options, answer.

    Ids, tasks, splits and ``meta`` are left out on purpose: two items that differ only
    there look the same to a model.
    """
    return json.dumps([item.question, [_content_hash(build.path / rel) for rel in item.images],
                       item.options, item.answer])


@cache
def _content_hash_cached(path: Path, mtime: float) -> str:
    return _sha256(path)


def _content_hash(path: Path) -> str:
    try:
        return _content_hash_cached(path, path.stat().st_mtime)
    except OSError:
        return f"missing:{path.name}"  # the schema check reports it


def check_duplicates(build: Build) -> CheckResult:
    out = CheckResult()
    content: dict[str, list] = defaultdict(list)
    for item in build.items:
        content[shown_key(build, item)].append(item)
    for group in content.values():
        if len(group) > 1:
            splits = sorted({i.split for i in group})
            where = f" (across splits {', '.join(splits)})" if len(splits) > 1 else ""
            out.findings.append(Finding("error", "duplicates", group[0].id,
                                        f"shows a model the same question, images, options and answer as "
                                        f"{', '.join(i.id for i in group[1:])}{where}"))
    severity = _benchmark_option(build, "NEAR_DUPLICATE_SEVERITY", "warning")
    pairs, closest = near_duplicate_pairs(_image_files(build))
    for a, b, dist in pairs:
        out.findings.append(Finding(severity, "duplicates", a.relative_to(build.path).as_posix(),
                                    f"near-duplicate of {b.name} (fingerprints within {dist} levels)"))
    out.stats = {"identical_item_groups": sum(len(v) > 1 for v in content.values()),
                 "cross_split_groups": sum(len({i.split for i in v}) > 1 for v in content.values()),
                 "near_duplicate_image_pairs": len(pairs), "closest_image_pair_levels": closest}
    return out


# --------------------------------------------------------------------------- answers


def _na_strings() -> frozenset[str]:
    """pandas' default missing-value strings, exactly as its CSV/TSV readers use them."""
    from pandas._libs.parsers import STR_NA_VALUES

    return frozenset(STR_NA_VALUES) | {""}


def check_answers(build: Build) -> CheckResult:
    from scipy.stats import chisquare

    out = CheckResult()
    positions: dict[int, Counter] = defaultdict(Counter)
    na = _na_strings()
    for item in build.items:
        for text in sorted({item.answer, *(item.options or [])}):
            if text.strip() in na:
                out.findings.append(Finding("error", "answers", item.id,
                                            f"option or answer {text!r} is a missing-value marker for table "
                                            "readers (pandas reads it as NaN): use another name"))
        if item.options is None:
            continue
        if len(set(item.options)) != len(item.options):
            out.findings.append(Finding("error", "answers", item.id, f"options repeat: {item.options}"))
        if item.answer not in item.options:
            out.findings.append(Finding("error", "answers", item.id,
                                        f"answer {item.answer!r} is not one of the options"))
            continue
        positions[len(item.options)][item.options.index(item.answer)] += 1
    spread = {}
    for k, counts in sorted(positions.items()):
        observed = [counts.get(i, 0) for i in range(k)]
        p = float(chisquare(observed).pvalue) if sum(observed) >= k else 1.0
        spread[f"{k} options"] = {"answer_position_counts": observed, "chi2_p": p}
        letters = ", ".join(f"{chr(65 + i)}={n}" for i, n in enumerate(observed))
        if p < 1e-6:
            out.findings.append(Finding("error", "answers", "build",
                                        f"answer position gives the answer away ({k} options: {letters}; p={p:.1e})"))
        elif p < 0.01:
            out.findings.append(Finding("warning", "answers", "build",
                                        f"answer positions are uneven ({k} options: {letters}; p={p:.1e})"))
    out.stats = {"multiple_choice_items": sum(sum(c.values()) for c in positions.values()),
                 "positions": spread}
    return out


# --------------------------------------------------------------------------- balance


def check_balance(build: Build) -> CheckResult:
    out = CheckResult()
    report = {}
    # families a benchmark sizes unequally on purpose (CogEvolve: one item per sentence,
    # image or path) are reported, not judged
    by_design = _benchmark_option(build, "UNBALANCED_BY_DESIGN", frozenset())
    for family, groups in strata(build).items():
        counts = {value: len(items) for value, items in sorted(groups.items())}
        bi, g = stats.balance_index(list(counts.values())), stats.gini(list(counts.values()))
        report[family] = {"strata": len(counts), "balance_index": bi, "gini": g,
                          "min": min(counts.values()), "max": max(counts.values())}
        if len(counts) > 1 and bi < BALANCE_WARNING and family not in by_design:
            severity = "error" if bi < BALANCE_ERROR else "warning"
            rare = min(counts, key=counts.get)
            common = max(counts, key=counts.get)
            out.findings.append(Finding(severity, "balance", family,
                                        f"balance index {bi:.2f} (Gini {g:.2f}): {rare!r} has "
                                        f"{counts[rare]} items, {common!r} has {counts[common]}"))
    mcq = [i for i in build.items if i.options is not None]
    if mcq:
        answers = Counter(i.answer for i in mcq)
        report["answers"] = {"distinct": len(answers),
                             "balance_index": stats.balance_index(list(answers.values())),
                             "gini": stats.gini(list(answers.values()))}
    out.stats = report
    return out


# --------------------------------------------------------------------------- shortcuts


def _judge(out: CheckResult, baseline: str, stratum: str, acc: float, n: int, chance: float) -> dict:
    hits = round(acc * n)
    p = stats.binomial_sf(hits, n, chance)
    row = {"baseline": baseline, "stratum": stratum, "n": n, "accuracy": acc,
           "ci95": stats.wilson(hits, n), "chance": chance, "p_vs_chance": p}
    if n >= SHORTCUT_MIN_ITEMS:
        severity = "error" if acc > chance + SHORTCUT_MARGIN else None
    elif p < SHORTCUT_P:
        severity = ("error" if acc > chance + SHORTCUT_SMALL_ERROR_MARGIN
                    else "warning" if acc > chance + SHORTCUT_MARGIN else None)
    else:
        severity = None
    if severity:
        out.findings.append(Finding(severity, "shortcuts", stratum,
                                    f"{baseline} baseline scores {acc:.1%} against chance {chance:.1%} "
                                    f"without the image (n={n}, p={p:.1e}): the answer leaks"))
    return row


def check_shortcuts(build: Build) -> CheckResult:
    """Baselines that never look at the image, per task, next to chance.

    Multiple choice: majority position, the learned choices-only baseline, and every
    heuristic of :data:`cogforge.core.shortcuts.HEURISTICS` (option length, words shared with the
    question or the other options, answer priors by option text and by question, how
    often an option's text appears across the task), each also *avoided*. Free text: the majority
    answer, overall and per question text.
    """
    out = CheckResult()
    rows = []
    # chance of a free answer: one of the answers its part of the build gives (a benchmark of
    # domains, discrete symbols, draws each domain's from its own: a Chinese idiom is no
    # guess for a mathematics question, and counting them made a repeat in 30 look like a leak)
    vocabularies = Counter(d for d, _ in {(i.meta.get("domain"), i.answer) for i in build.items if i.options is None})
    chance_of = getattr(plugin(build.benchmark), "chance", None)
    # tasks whose question text is the evidence (word-sense disambiguation from a sentence):
    # overlap between the question and the answer is what a reader uses, not a leak
    evidence = _benchmark_option(build, "QUESTION_IS_EVIDENCE", frozenset())
    for task, items in sorted(strata(build)["task"].items()):
        answers = [i.answer for i in items]
        mcq = [i for i in items if i.options is not None]
        if mcq:
            n = len(mcq)
            chance = float(np.mean([1 / len(i.options) for i in mcq]))
            letters = [chr(65 + i.options.index(i.answer)) if i.answer in i.options else "?" for i in mcq]
            _, hits = stats.majority_baseline(letters)
            rows.append(_judge(out, "majority-position", task, hits / n, n, chance))
            options, truth = [i.options for i in mcq], [i.answer for i in mcq]
            picks = stats.choices_only_predictions(options, truth)
            rows.append(_judge(out, "choices-only", task, sum(p == a for p, a in zip(picks, truth)) / n, n, chance))
            stems = [stats.question_stem(i.question, i.options) for i in mcq]
            for name, (acc, _) in stats.heuristic_accuracies(options, truth, stems).items():
                if task in evidence and "question-words" in name:
                    continue  # the words of the sentence are the evidence, not a cue
                rows.append(_judge(out, name, task, acc, n, chance))
        else:
            # a benchmark whose free answers are not drawn from one vocabulary (an ordering
            # of N IDs: 1/N!) says what chance is in its QC hooks (Benchmark.qc)
            chance = (float(np.mean([chance_of(i) for i in items])) if chance_of
                      else float(np.mean([1 / (vocabularies[i.meta.get("domain")] or 1) for i in items])))
            _, hits = stats.majority_baseline(answers)
            rows.append(_judge(out, "majority-answer", task, hits / len(items), len(items), chance))
            by_question: dict[str, Counter] = defaultdict(Counter)
            for i in items:
                by_question[i.question][i.answer] += 1

            def others_majority(i: Item) -> str | None:
                """The most common answer of the *other* items with this question (leave one out)."""
                counts = {a: c - (a == i.answer) for a, c in by_question[i.question].items()}
                counts = {a: c for a, c in counts.items() if c > 0}
                return max(counts.items(), key=lambda kv: (kv[1], kv[0]))[0] if counts else None

            hits = sum(others_majority(i) == i.answer for i in items)
            rows.append(_judge(out, "question-majority", task, hits / len(items), len(items), chance))
    out.stats = {"baselines": rows}
    return out


# --------------------------------------------------------------------------- splits


def problem_key(build: Build, item) -> str:
    """The problem a model is asked, without its style. A benchmark whose items show one
    problem in several styles (a force diagram's colours, a mirrored drawing, a state the
    picture hides) defines ``problem_key(item)`` in its QC hooks (None: this default);
    the default is the question, the options and the images' bytes (the question alone
    repeats over every picture of an image task)."""
    own = _benchmark_option(build, "problem_key", None)
    key = own(item) if own else None
    if key is not None:
        return key
    return json.dumps([item.question, item.options, [_content_hash(build.path / rel) for rel in item.images]])


def check_splits(build: Build) -> CheckResult:
    """No image bytes, no shown item content and no problem (:func:`problem_key`) in two
    splits (a leak from train to test)."""
    out = CheckResult()
    splits = sorted({i.split for i in build.items})
    if len(splits) < 2:
        out.stats = {"splits": splits}
        return out
    image_splits: dict[str, set] = defaultdict(set)
    image_path: dict[str, str] = {}
    content_splits: dict[str, dict[str, str]] = defaultdict(dict)
    problem_splits: dict[str, dict[str, str]] = defaultdict(dict)
    for item in build.items:
        problem_splits[problem_key(build, item)].setdefault(item.split, item.id)
        for rel in item.images:
            digest = _content_hash(build.path / rel)
            image_splits[digest].add(item.split)
            image_path.setdefault(digest, rel)
        content_splits[shown_key(build, item)].setdefault(item.split, item.id)
    shared_images = {d: s for d, s in image_splits.items() if len(s) > 1}
    for digest, in_splits in sorted(shared_images.items(), key=lambda kv: image_path[kv[0]]):
        out.findings.append(Finding("error", "splits", image_path[digest],
                                    f"image shown in splits {', '.join(sorted(in_splits))}"))
    shared_items = [ids for ids in content_splits.values() if len(ids) > 1]
    for ids in shared_items:
        out.findings.append(Finding("error", "splits", next(iter(ids.values())),
                                    "the same item content is in " + ", ".join(f"{s} ({i})" for s, i in sorted(ids.items()))))
    shared_problems = [ids for ids in problem_splits.values() if len(ids) > 1]
    for ids in shared_problems:
        out.findings.append(Finding("error", "splits", next(iter(ids.values())),
                                    "the same problem (in another style) is in "
                                    + ", ".join(f"{s} ({i})" for s, i in sorted(ids.items()))))
    out.stats = {"splits": splits, "images_in_several_splits": len(shared_images),
                 "items_in_several_splits": len(shared_items), "problems_in_several_splits": len(shared_problems)}
    return out


# --------------------------------------------------------------------------- human decisions


def check_decisions(build: Build) -> CheckResult:
    """Items or images people rejected in annotation must not ship."""
    out = CheckResult()
    rejected_images = {d["key"]: d for d in build.decisions if d.get("unit") == "image" and d["decision"] == "reject"}
    tied_images = {d["key"] for d in build.decisions if d.get("unit") == "image" and d["decision"] == "tie"}
    item_decisions = {d["key"]: d for d in build.decisions if d.get("unit") == "item"}
    flagged = 0
    for item in build.items:
        stems = {Path(p).stem for p in item.images}
        bad = stems & set(rejected_images)
        if bad:
            flagged += 1
            reasons = sorted({r for k in bad for r in rejected_images[k].get("reasons", [])})
            out.findings.append(Finding("error", "decisions", item.id,
                                        f"uses {len(bad)} image(s) rejected in annotation "
                                        f"({', '.join(reasons) or 'no reason given'}); rebuild excluding them"))
        if stems & tied_images:
            out.findings.append(Finding("warning", "decisions", item.id,
                                        "uses an image whose annotators tied; needs an expert decision"))
        decision = item_decisions.get(item.id)
        if decision and decision["decision"] == "reject":
            flagged += 1
            out.findings.append(Finding("error", "decisions", item.id,
                                        f"rejected in annotation: {', '.join(decision.get('reasons', [])) or 'no reason given'}"))
        elif decision and decision["decision"] == "tie":
            out.findings.append(Finding("warning", "decisions", item.id, "annotators tied; needs an expert decision"))
    out.stats = {"decisions": len(build.decisions), "rejected_images": len(rejected_images),
                 "items_flagged": flagged}
    return out


CHECKS = [("schema", check_schema), ("media", check_media), ("duplicates", check_duplicates),
          ("answers", check_answers), ("balance", check_balance), ("shortcuts", check_shortcuts),
          ("splits", check_splits), ("examples", check_examples), ("decisions", check_decisions),
          ("offensive", check_offensive), ("probe", check_probe)]
