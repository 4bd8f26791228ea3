"""The learned shortcut probe (qc/probe.py): it catches a picture template and passes random answers.

``fixtures/probe/cogevolve-2026-11-24`` holds CogEvolve's Tier 3b and 1b-t2i items from the
build of 24 November 2026 (commit 27cbce8), their pictures box-averaged to 32 x 32 and
``meta`` cut to the split unit. In that build the first image of every 3b ordering is the
plain "emoji on grass" scene.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image

from cogforge.qc.checks import CHECKS
from cogforge.qc.core import load_build
from cogforge.qc.probe import check_probe

FIXTURE = Path(__file__).parent / "fixtures" / "probe" / "cogevolve-2026-11-24"
LETTERS = "ABCDEFGH"


def _row(result, task: str) -> dict:
    return next(r for r in result.stats["tasks"] if r["task"] == task)


def test_probe_is_a_shared_check():
    assert ("probe", check_probe) in CHECKS


def test_probe_fails_the_cogevolve_3b_template_of_todays_build():
    result = check_probe(load_build(FIXTURE))
    row = _row(result, "3b")
    assert row["accuracy"] > 0.9 and row["chance"] < 0.5
    assert row["by_probe"]["image"] > 0.9  # the pictures carry it, not position or text
    assert row["by_probe"]["position"] < 0.6
    errors = [f for f in result.findings if f.severity == "error"]
    assert [f.target for f in errors] == ["3b"]
    assert "image 9" in errors[0].message
    # 1b-t2i shows each word's pictures once per sense, each the answer once: nothing to learn
    assert abs(_row(result, "1b-t2i")["accuracy"] - _row(result, "1b-t2i")["chance"]) < 0.01


def _picture(rng: np.random.Generator, path: Path, red: bool = False) -> str:
    pixels = rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)
    if red:
        pixels[..., 0] = np.maximum(pixels[..., 0], 200)
        pixels[..., 1:] //= 3
    Image.fromarray(pixels).save(path)
    return f"images/{path.name}"


def _synthetic_build(folder: Path, seed: int, answer_is_red: bool = False) -> Path:
    """Three tasks whose answers are random (an order of 3 pictures, 4 words, 3 pictures as options).

    Answer positions are balanced, as every builder balances them (the answers check
    judges positions on their own); everything else is drawn at random.

    With ``answer_is_red`` the right picture of the ``pictures`` task is drawn reddish.
    """
    rng = np.random.default_rng(seed)
    (folder / "images").mkdir(parents=True)
    items = []
    vocabulary = [f"word{k}" for k in range(12)]

    def add(task: str, n: int, question: str, images: list[str], options: list[str] | None, answer: str):
        items.append({"id": f"syn-{task}-{n:04d}", "benchmark": "synthetic", "task": task, "split": "test",
                      "question": question, "images": images, "options": options, "answer": answer,
                      "meta": {"split_unit": f"unit-{n // 2}"}})

    first = rng.permutation(np.arange(120) % 3)
    for n in range(120):
        images = [_picture(rng, folder / "images" / f"order-{n}-{k}.png") for k in range(3)]
        rest = [int(k) for k in rng.permutation(3) if k != first[n]]
        order = [int(first[n]), *rest]
        add("order", n, "Order the images, given as Image A, Image B, Image C.", images, None,
            " -> ".join(LETTERS[k] for k in order))
    word_right = rng.permutation(np.arange(120) % 4)
    for n in range(120):
        options = [str(o) for o in rng.choice(vocabulary, 4, replace=False)]
        add("words", n, "Which word?", [], options, options[word_right[n]])
    picture_right = rng.permutation(np.arange(120) % 3)
    for n in range(120):
        right = int(picture_right[n])
        images = [_picture(rng, folder / "images" / f"pick-{n}-{k}.png", red=answer_is_red and k == right)
                  for k in range(3)]
        add("pictures", n, "Which image?", images, ["Image 1", "Image 2", "Image 3"], f"Image {right + 1}")
    for n in range(30):
        add("captions", n, "Describe the image.", [], None, f"caption {n}")
    (folder / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    (folder / "manifest.json").write_text(json.dumps({"benchmark": "synthetic"}))
    return folder


def test_probe_passes_a_build_whose_answers_are_random(tmp_path):
    result = check_probe(load_build(_synthetic_build(tmp_path / "random", seed=7)))
    assert [f for f in result.findings if f.severity != "info"] == []
    for task in ("order", "words", "pictures"):
        assert _row(result, task)["p_vs_chance"] > 0.01  # the best of its probes, corrected for the choice
    assert "free answers" in _row(result, "captions")["skipped"]


def test_probe_fails_a_task_whose_right_picture_looks_different(tmp_path):
    result = check_probe(load_build(_synthetic_build(tmp_path / "red", seed=7, answer_is_red=True)))
    errors = [f for f in result.findings if f.severity == "error"]
    assert [f.target for f in errors] == ["pictures"]
    assert _row(result, "pictures")["by_probe"]["image"] > 0.9


def test_probe_is_deterministic():
    build = load_build(FIXTURE)
    build.items = [i for i in build.items if i.task == "3b"]
    assert check_probe(build).stats == check_probe(build).stats


def _definition_orders(folder: Path, cue: str) -> Path:
    """120 orders of three listed definitions; the first (the prototype) carries ``cue``.

    ``cue="word"``: the first definition is the only one that mentions "creature" (meaning,
    which a reader must understand); ``cue="length"``: the first is always the shortest.
    """
    rng = np.random.default_rng(3)
    folder.mkdir(parents=True)
    words = [f"w{k}" for k in range(40)]
    items = []
    for n in range(120):
        defs = []
        for role in range(3):
            size = 6 if cue == "length" and role == 0 else 12 if cue == "length" else int(rng.integers(6, 12))
            text = " ".join(str(w) for w in rng.choice(words, size))
            # "creature" and "fixtures": as long as each other, so only the word tells
            defs.append(("a creature " if role == 0 else "a fixtures ") + text if cue == "word" else text)
        listing = [int(k) for k in rng.permutation(3)]  # listed position -> role
        ids = {role: LETTERS[pos] for pos, role in enumerate(listing)}
        question = "Order the meanings.\n" + "\n".join(f"[{LETTERS[pos]}] {defs[role]}"
                                                       for pos, role in enumerate(listing))
        items.append({"id": f"def-{n:04d}", "benchmark": "synthetic", "task": "3a", "split": "test",
                      "question": question, "images": [], "options": None,
                      "answer": " -> ".join(ids[r] for r in range(3)), "meta": {"split_unit": f"u{n // 2}"}})
    (folder / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    (folder / "manifest.json").write_text(json.dumps({"benchmark": "synthetic"}))
    return folder


def test_definition_words_are_reported_but_a_length_template_fails(tmp_path):
    meaning = check_probe(load_build(_definition_orders(tmp_path / "word", "word")))
    assert _row(meaning, "3a")["by_probe"]["definition words"] > 0.9
    assert [(f.severity, f.target) for f in meaning.findings] == [("info", "3a")]
    template = check_probe(load_build(_definition_orders(tmp_path / "length", "length")))
    assert [(f.severity, f.target) for f in template.findings if f.severity == "error"] == [("error", "3a")]
    assert _row(template, "3a")["by_probe"]["length"] > 0.9
