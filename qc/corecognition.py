"""QC for CoreCognition: every answer re-derived, every picture redrawn, every twin pair
checked as a model sees it.

* Answers: each item's answer is recomputed by its family's independent check from
  ``meta.params`` (shapely predicates, simulations, other formulas; never the stored
  answer) and must be the option ``meta.answer_letter`` names; the item must sit
  outside its family's margin.
* Pictures: the family's renderer in ``generators/corecognition`` (never the builder's
  code) drawing ``meta.params`` again gives the stored frames byte for byte, and their
  strip gives the combined image of a multi-frame item.
* Twins: each ``pair_id`` has one control and one manipulated item, with the same
  question text and options (bytes), different answers, parameters that differ in the
  causal parameter only, and pixels that differ only inside the regions the family
  declares for the two (``causal_box``).
* Resolution: the smallest feature an answer depends on stays at least 1% of the short
  side when the image is scaled to 336 px (what common vision encoders see).

Twins look alike by design, so near-duplicate thumbnails are reported as information
(identical items and images are still errors); concepts, stages and families are sized
by the paper, not evenly.
"""

from __future__ import annotations

from collections import defaultdict
from functools import partial

import numpy as np

from cogforge.qc.core import Build, CheckResult, Finding

UNBALANCED_BY_DESIGN = frozenset({"task", "stage", "family", "type"})
NEAR_DUPLICATE_SEVERITY = "info"
ENCODER_PX = 336  # the short side a vision encoder sees
MIN_FEATURE = 0.01  # of that short side


def strata(item) -> dict[str, str]:
    return {"stage": item.meta["stage"], "family": item.meta["family"], "type": item.meta["type"],
            "role": item.meta["role"]}


def _redraw(family_name: str, params: dict) -> tuple[list[bytes], bytes | None]:
    """The frames the family's own ``render`` draws from the parameters, as PNG bytes, and
    their strip when there are several: the generator alone, never the builder's code."""
    from cogforge.generators import corecognition as cc

    frames = cc.families()[family_name].render(params)
    return [cc.png(f) for f in frames], cc.strip(frames) if len(frames) > 1 else None


def _picture_problem(build: Build, item, frames: list[bytes], strip: bytes | None) -> str | None:
    """What differs between an item's stored pictures and the ones drawn again, or None."""
    def stored(rel: str) -> bytes | None:
        path = build.path / rel
        return path.read_bytes() if path.is_file() else None

    if len(item.images) != len(frames):
        return f"{len(item.images)} images listed, drawing meta.params again gives {len(frames)} frames"
    for number, (rel, png) in enumerate(zip(item.images, frames), 1):
        if stored(rel) != png:
            return f"frame {number} ({rel}) is not what drawing meta.params again gives"
    combined = item.meta.get("combined_image")
    if (combined is None) != (strip is None):
        return "meta.combined_image must name the frames' strip exactly when there is more than one frame"
    if combined is not None and stored(combined) != strip:
        return f"the strip {combined} is not the frames drawn again side by side"
    return None


def _changed_box(a: bytes, b: bytes):
    import io

    from PIL import Image

    with Image.open(io.BytesIO(a)) as x, Image.open(io.BytesIO(b)) as y:
        diff = np.any(np.asarray(x.convert("RGB"), dtype=np.int16) != np.asarray(y.convert("RGB"), dtype=np.int16),
                      axis=2)
    ys, xs = np.nonzero(diff)
    return None if not len(xs) else (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)


def check_corecognition(build: Build) -> CheckResult:
    from cogforge.core.parallel import draw_all
    from cogforge.generators.corecognition import SIZE, families

    out = CheckResult()
    known = families()
    wrong = redrawn = small = 0
    jobs, drawable = [], []
    for item in build.items:
        m = item.meta
        family = known.get(m["family"])
        if family is None:
            out.findings.append(Finding("error", "corecognition", item.id,
                                        f"family {m['family']!r} is not in generators/corecognition/"))
            continue
        try:
            derived = family.check(m["params"])
        except (KeyError, ValueError, TypeError) as err:
            derived = f"<cannot be re-derived: {err}>"
        letter = chr(65 + item.options.index(item.answer)) if item.answer in item.options else None
        if derived != item.answer or letter != m["answer_letter"]:
            wrong += 1
            out.findings.append(Finding("error", "corecognition", item.id,
                                        f"answer {item.answer!r} (letter {m['answer_letter']}), "
                                        f"re-derived {derived!r}"))
        margin = family.margin(m["params"])
        if margin is not None and margin < family.min_margin:
            out.findings.append(Finding("error", "corecognition-margin", item.id,
                                        f"margin {margin} below the family's {family.min_margin}"))
        if family.feature_px(m["params"]) * ENCODER_PX / min(SIZE) < MIN_FEATURE * ENCODER_PX:
            small += 1
            out.findings.append(Finding("error", "corecognition-resolution", item.id,
                                        f"the deciding feature ({family.feature_px(m['params']):.1f} px) is under "
                                        f"{MIN_FEATURE:.0%} of the short side at {ENCODER_PX} px"))
        jobs.append(partial(_redraw, family.name, m["params"]))
        drawable.append(item)
    for item, (frames, strip) in zip(drawable, draw_all(jobs, progress=False)):
        problem = _picture_problem(build, item, frames, strip)
        if problem:
            redrawn += 1
            out.findings.append(Finding("error", "corecognition-images", item.id, problem))
    pairs_ok, pair_problems = _check_pairs(build, known, out)
    out.stats = {"items": len(build.items), "answers_not_rederived": wrong, "images_not_reproduced": redrawn,
                 "features_too_small": small, "pairs": pairs_ok + pair_problems, "pairs_with_problems": pair_problems}
    return out


def _check_pairs(build: Build, known: dict, out: CheckResult) -> tuple[int, int]:
    by_pair = defaultdict(list)
    for item in build.items:
        by_pair[item.meta["pair_id"]].append(item)
    good = bad = 0
    for pair_id, members in sorted(by_pair.items()):
        problem = _pair_problem(build, known, members)
        if problem:
            bad += 1
            out.findings.append(Finding("error", "twins", pair_id, problem))
        else:
            good += 1
    return good, bad


def _pair_problem(build: Build, known: dict, members: list) -> str | None:
    roles = sorted(i.meta["role"] for i in members)
    if roles != ["control", "manipulated"]:
        return f"a pair needs one control and one manipulated item, has {roles}"
    control, twin = sorted(members, key=lambda i: i.meta["role"])
    if control.question != twin.question or control.options != twin.options:
        return "the question or the options differ between the twins"
    if control.answer == twin.answer:
        return "the twins have the same answer"
    if control.split != twin.split:
        return "the twins are in different splits"
    family = known.get(control.meta["family"])
    if family is None:
        return None  # reported per item
    a, b = control.meta["params"], twin.meta["params"]
    changed = {k for k in set(a) | set(b) if a.get(k) != b.get(k)}
    if changed != {family.causal_param}:
        return f"the twins' parameters differ in {sorted(changed)}, not only in {family.causal_param!r}"
    boxes = [family.causal_box(a), family.causal_box(b)]
    box = (min(x[0] for x in boxes), min(x[1] for x in boxes), max(x[2] for x in boxes), max(x[3] for x in boxes))
    moved = False
    for pa, pb in zip(control.images, twin.images):
        changed_at = _changed_box((build.path / pa).read_bytes(), (build.path / pb).read_bytes())
        if changed_at is None:
            continue
        moved = True
        if not (box[0] <= changed_at[0] and box[1] <= changed_at[1] and changed_at[2] <= box[2]
                and changed_at[3] <= box[3]):
            return f"pixels change at {changed_at}, outside the declared causal region {box}"
    return None if moved else "the twins' images are identical"


def check_cross_validation(build: Build) -> CheckResult:
    """Families whose items people rejected (or tied on) in either round of cross-validation
    (``annotation/decisions/corecognition.jsonl``), with the reasons they gave: the
    family, not only the item, is what to look at (a confound in a prototype repeats in
    every item drawn from it). A rejected item is an error in the shared decisions
    check; here each flagged family is a warning."""
    out = CheckResult()
    family_of = {item.id: item.meta["family"] for item in build.items}
    size = defaultdict(int)
    for item in build.items:
        size[item.meta["family"]] += 1
    flagged, reasons, rounds = defaultdict(set), defaultdict(lambda: defaultdict(int)), defaultdict(set)
    for d in build.decisions:
        if d.get("unit") != "item" or not str(d.get("stage", "")).startswith("corecognition-cross-validation"):
            continue
        family = family_of.get(d["key"])
        if family is None:
            continue
        rounds[family].add(d["stage"])
        if d["decision"] in ("reject", "tie"):  # rejected by the majority, or by half the people
            flagged[family].add(d["key"])
            for reason in d.get("reasons") or ["no reason given"]:
                reasons[family][reason] += 1
    for family in sorted(flagged):
        why = ", ".join(f"{r} {n}" for r, n in sorted(reasons[family].items()))
        out.findings.append(Finding("warning", "flagged-families", family,
                                    f"{len(flagged[family])} of {size[family]} items rejected or tied in "
                                    f"cross-validation ({why}); look at the family's prototype before release"))
    out.stats = {"families_reviewed": len(rounds), "families_flagged": len(flagged),
                 "flagged": {f: {"items": len(k), "of": size[f], "reasons": dict(reasons[f])}
                             for f, k in sorted(flagged.items())}}
    return out


CHECKS = [("corecognition", check_corecognition), ("cross-validation", check_cross_validation)]
