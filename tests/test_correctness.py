"""Items judged as a model sees them: names under every sense, shown content, splits, blind
heuristics, reproducible bytes across processes, clear config errors."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cogforge.builders import constructure
from cogforge.cli import main
from conftest import ROOT, balanced_mcq, make_toy_build, read_jsonl, write_small_config
from cogforge.generators import wordnet
from cogforge.core import shortcuts as stats
from cogforge.qc import run_qc


def errors(report, check):
    return [f for f in report.findings if f.check == check and f.severity == "error"]


@pytest.fixture(scope="module")
def graph():
    return constructure.Graph(wordnet.load())


def node(wn, name: str) -> str:
    return wordnet.wnid(wn.synset(name))


# --------------------------------------------------------------------------- names, not synsets


def test_leopard_with_cat_as_common_ancestor_answer_is_rejected(graph, wn):
    leopard = node(wn, "leopard.n.02")
    chain = graph.isa.tree_path(leopard)[-5:]
    names = [graph.name(n) for n in chain]
    assert names[-2:] == ["big cat", "leopard"]
    # level 3: current "big cat", upper "feline", lower "leopard"; cat.n.01 is a brother
    # synset, but "cat" also names big_cat.n.01, an ancestor of the leopard.
    assert node(wn, "big_cat.n.01") in graph.senses("cat")
    assert not constructure.judge(graph, "common-ancestor", leopard, chain[0], "cat", names[2:])
    # a name with no such second sense is a right answer there
    assert constructure.judge(graph, "common-ancestor", leopard, chain[0], "house cat", names[2:])


def test_a_distractor_whose_name_has_a_fitting_sense_is_rejected(graph, wn):
    dog = node(wn, "dog.n.01")
    top = graph.isa.tree_path(dog)[-5]
    # abstraction: "canine" is right; "carnivore" is more general, so it cannot be a distractor
    assert constructure.judge(graph, "abstraction", dog, top, "canine", ["dog", "puppy", "feline"])
    assert not constructure.judge(graph, "abstraction", dog, top, "canine", ["dog", "carnivore", "feline"])
    # concretization: "dog" also names frump.n.01 etc., none of which fits a dog image, so fine;
    # but "domestic dog" is a lemma of dog.n.01 itself: as specific as "dog"
    assert constructure.judge(graph, "concretization", dog, top, "dog", ["canine", "carnivore", "wolf"])
    assert not constructure.judge(graph, "concretization", dog, top, "dog", ["canine", "domestic dog", "wolf"])


def test_atomic_no_is_judged_under_every_sense(graph, wn):
    leopard = node(wn, "leopard.n.02")
    house_cat = node(wn, "cat.n.01")
    # "Is it a cat?" for a leopard image: by the name (big cat) the answer is Yes
    assert constructure.atomic_ok(graph, leopard, "cat", True)
    assert not constructure.atomic_ok(graph, leopard, "cat", False)
    assert constructure.atomic_ok(graph, house_cat, "big cat", False)


def test_no_built_question_is_ambiguous_by_name(citems, graph):
    for item in citems:
        m = item["meta"]
        x, top = m["image_concept"]["id"], m["chain"][0]["id"]
        if item["task"] == "atomic":
            assert constructure.atomic_ok(graph, x, m["concept"]["name"], item["answer"] == "Yes"), item["id"]
            continue
        others = [o for o in item["options"] if o != item["answer"]]
        assert constructure.judge(graph, item["task"], x, top, item["answer"], others), item["id"]
        assert not re.search(r"\(.*\)", " ".join(item["options"])), "no parenthesised hints"


def test_qc_flags_the_leopard_case_in_a_tampered_build(cbuild, citems, wn, tmp_path):
    copy = tmp_path / "b"
    shutil.copytree(cbuild, copy)
    items = [dict(i) for i in citems]
    k = next(n for n, i in enumerate(items) if i["task"] == "common-ancestor"
             and i["meta"]["image_concept"]["synset"] == "leopard.n.02"
             and any(o["name"] == "big cat" for o in i["meta"]["options"]))
    item = items[k]
    old = item["answer"]
    item["options"] = ["cat" if o == old else o for o in item["options"]]
    item["question"] = item["question"].replace(f". {old}\n", ". cat\n")
    item["answer"] = "cat"
    for o in item["meta"]["options"]:
        if o["text"] == old:
            o.update(text="cat", id=node(wn, "cat.n.01"), synset="cat.n.01", name="cat")
    (copy / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    found = [f.message for f in run_qc(copy, tmp_path / "none.jsonl").findings
             if f.check == "constructure" and f.target == item["id"]]
    assert any("'cat' read as " + node(wn, "big_cat.n.01") in m for m in found), found


def test_display_names_avoid_missing_value_strings(wn, citems):
    assert wordnet.readable(wn.synset("nan.n.04")) == "naan"  # the bread; nan.n.01 has no other lemma
    na = {s.lower() for s in wordnet.na_strings()}
    shown = {o for i in citems for o in i["options"]} | {i["answer"] for i in citems}
    assert not {s for s in shown if s.lower() in na}


# --------------------------------------------------------------------------- shown content and splits


@pytest.fixture(scope="module")
def cbuild(constructure_build) -> Path:
    return constructure_build


@pytest.fixture(scope="module")
def citems(cbuild) -> list[dict]:
    return read_jsonl(cbuild / "items.jsonl")


def test_constructure_build_has_no_duplicate_and_no_image_in_two_splits(cbuild, citems):
    images = {}
    for item in citems:
        for path in item["images"]:
            images.setdefault((cbuild / path).read_bytes(), set()).add(item["split"])
    assert all(len(s) == 1 for s in images.values())
    shown = [json.dumps([i["question"], [hashlib.sha256((cbuild / p).read_bytes()).hexdigest() for p in i["images"]],
                         i["options"], i["answer"]]) for i in citems]
    assert len(set(shown)) == len(shown)


def test_duplicates_are_found_by_what_a_model_sees(tmp_path):
    items = balanced_mcq(8)
    twin = dict(items[0], id="toy-twin", task="other", split="train", meta={"note": "different meta"}, images=[0])
    items.append(twin)
    report = run_qc(make_toy_build(tmp_path / "b", items), tmp_path / "none.jsonl")
    found = errors(report, "duplicates")
    assert len(found) == 1 and "toy-twin" in found[0].message and "across splits" in found[0].message


def test_no_image_or_item_content_is_shared_across_splits(tmp_path):
    items = balanced_mcq(8)
    items[1]["images"] = [0]  # the first item's image, in another split
    items[1]["split"] = "train"
    items[2]["split"] = "validation"
    report = run_qc(make_toy_build(tmp_path / "b", items), tmp_path / "none.jsonl")
    found = errors(report, "splits")
    assert len(found) == 1 and "test, train" in found[0].message
    fair = balanced_mcq(8)
    fair[1]["split"] = "train"
    assert not errors(run_qc(make_toy_build(tmp_path / "c", fair), tmp_path / "none.jsonl"), "splits")


def test_missing_value_strings_in_options_are_errors(tmp_path):
    items = balanced_mcq(8)
    items[3]["options"] = ["nan", "bread", "roll", "bun"]
    items[3]["answer"] = "bread"
    found = errors(run_qc(make_toy_build(tmp_path / "b", items), tmp_path / "none.jsonl"), "answers")
    assert len(found) == 1 and "'nan'" in found[0].message


# --------------------------------------------------------------------------- blind heuristics


def _leaky(n: int, rule) -> list[dict]:
    """Multiple-choice items whose answer ``rule(options, i)`` picks; positions rotate."""
    vocab = ["ox", "cat", "lion", "horse", "beagle", "gorilla", "anteater", "armadillo", "yak", "emu", "wolf",
             "tiger", "zebra", "camel", "donkey", "giraffe"]
    out = []
    for i in range(n):
        opts = [vocab[(i * 3 + k * 5) % len(vocab)] for k in range(4)]
        opts = opts[i % 4:] + opts[:i % 4]
        out.append({"options": opts, "answer": rule(opts, i), "question": f"Which animal is shown? ({i})"})
    return out


@pytest.mark.parametrize("name,rule", [
    ("longest", lambda o, i: max(o, key=lambda t: (len(t), t)) if i % 3 else o[0]),
    ("most-question-words", None),
    ("answer-count", None),
])
def test_each_blind_heuristic_fails_a_build_that_leaks_it(tmp_path, name, rule):
    if name == "most-question-words":
        items = _leaky(160, lambda o, i: o[i % 4])
        for k, item in enumerate(items):
            if k % 3:
                item["question"] = f"Which one is a {item['answer']}?"
    elif name == "answer-count":
        items = _leaky(160, lambda o, i: "zebra" if "zebra" in o and i % 2 else o[(i // 4) % 4])
    else:
        items = _leaky(160, rule)
    report = run_qc(make_toy_build(tmp_path / "b", items), tmp_path / "none.jsonl")
    assert any(f.message.startswith(f"{name} baseline") for f in errors(report, "shortcuts")), \
        [f.message for f in errors(report, "shortcuts")]


def test_a_heuristic_that_points_away_from_the_answer_is_a_leak(tmp_path):
    # the answer is never the longest option: avoiding the longest beats chance
    items = _leaky(200, lambda o, i: sorted(o, key=lambda t: (len(t), t))[i % 3])
    report = run_qc(make_toy_build(tmp_path / "b", items), tmp_path / "none.jsonl")
    assert any(f.message.startswith("avoid-longest baseline") for f in errors(report, "shortcuts"))


def test_blind_heuristics_stay_near_chance_on_a_fair_build_and_constructure(tmp_path, cbuild):
    report = run_qc(make_toy_build(tmp_path / "b", balanced_mcq(160)), tmp_path / "none.jsonl")
    assert not errors(report, "shortcuts")
    rows = run_qc(cbuild, tmp_path / "none.jsonl").stats["shortcuts"]["baselines"]
    for row in rows:
        if row["baseline"] in stats.HEURISTICS or row["baseline"].removeprefix("avoid-") in stats.HEURISTICS:
            assert row["accuracy"] <= row["chance"] + 0.05, row


def test_question_stem_drops_the_lettered_options():
    q = "Which is it?\nA. dog\nB. cat\nAnswer with the option's letter."
    assert stats.question_stem(q, ["dog", "cat"]) == "Which is it?"


# --------------------------------------------------------------------------- same seed, same bytes


def _build_in_process(benchmark: str, out: Path, cache: Path, hash_seed: str, config: Path | None = None):
    env = dict(os.environ, PYTHONHASHSEED=hash_seed, COGFORGE_CACHE=str(cache))
    cmd = [sys.executable, "-m", "cogforge.cli", "build", benchmark, "--out", str(out), "--quiet"]
    if config:
        cmd += ["--config", str(config)]
    return subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_constructure_is_byte_identical_across_processes_hash_seeds_and_cold_caches(tmp_path):
    from cogforge.builders import constructure

    # animals only (a quarter of the full build): the same code paths, the WordNet cache built cold in full
    config = tmp_path / "animals.toml"
    config.write_text(constructure.DEFAULT_CONFIG.read_text().replace(
        'visual_lexnames = ["noun.animal", "noun.plant", "noun.food", "noun.artifact", "noun.object"]',
        'visual_lexnames = ["noun.animal"]'))
    assert 'visual_lexnames = ["noun.animal"]' in config.read_text()
    runs = [_build_in_process("constructure", tmp_path / f"b{k}", tmp_path / f"cache{k}", seed, config)
            for k, seed in enumerate(["1", "4242"])]
    for run in runs:
        output, _ = run.communicate(timeout=600)
        assert run.returncode == 0, output
    assert list(tmp_path.glob("cache0/wordnet-isa-*.json.gz")), "the cache was built cold"
    assert (tmp_path / "cache0").glob("*") and _tree(tmp_path / "b0") == _tree(tmp_path / "b1")
    a = next((tmp_path / "cache0").glob("wordnet-isa-*")).read_bytes()
    assert a == next((tmp_path / "cache1").glob("wordnet-isa-*")).read_bytes()


def test_carv_is_byte_identical_across_hash_seeds(tmp_path):
    config = write_small_config(tmp_path / "c.toml", [
        ("single", "single", "single", 2, 40), ("ds-difference-2", "different", "difference", 2, 40),
        ("ss-intersection-3", "shared", "intersection", 3, 40)])
    runs = [_build_in_process("carv", tmp_path / f"b{k}", tmp_path / "cache", seed, config)
            for k, seed in enumerate(["7", "99"])]
    for run in runs:
        output, _ = run.communicate(timeout=300)
        assert run.returncode == 0, output
    assert _tree(tmp_path / "b0") == _tree(tmp_path / "b1")


# --------------------------------------------------------------------------- statistics


def _readme_block(name: str) -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(rf"<!-- stats:{name} -->\n(.*?)<!-- /stats:{name} -->", text, re.S)
    assert match, f"README.md has no <!-- stats:{name} --> block"
    return match.group(1)


def test_readme_statistics_match_a_fresh_build(cbuild, carv_build, cogevolve_build, symbols_build,
                                               corecognition_build):
    assert _readme_block("corecognition") == (corecognition_build / "stats.md").read_text()
    assert _readme_block("cogevolve") == (cogevolve_build / "stats.md").read_text()
    assert _readme_block("symbols") == (symbols_build / "stats.md").read_text()
    assert _readme_block("constructure") == (cbuild / "stats.md").read_text()
    assert _readme_block("carv") == (carv_build / "stats.md").read_text()
    manifest = json.loads((cbuild / "manifest.json").read_text())
    total_row = next(line for line in (cbuild / "stats.md").read_text().splitlines() if line.startswith("| total"))
    assert total_row.endswith(f"| {manifest['counts']['items']:,} |")


def test_release_card_carries_the_build_statistics(cbuild, tmp_path):
    from cogforge.exports.release import release

    folder = release(cbuild, "1.0.0", tmp_path / "rel", decisions=tmp_path / "none.jsonl")
    assert (cbuild / "stats.md").read_text().strip() in (folder / "README.md").read_text()


# --------------------------------------------------------------------------- config errors


@pytest.fixture(scope="module")
def previous_build(tmp_path_factory) -> Path:
    """One small good build that every bad-config test must leave untouched."""
    root = tmp_path_factory.mktemp("previous")
    config = write_small_config(root / "good.toml", [("single", "single", "single", 2, 5)])
    out = root / "build"
    assert main(["build", "carv", "--config", str(config), "--out", str(out), "--quiet"]) == 0
    return out


BAD_CARV = {
    "broken TOML": ("seed = 0\n[[cells]\nid = 1\n", r"bad\.toml:2: not valid TOML: .*line 2"),
    "unknown key": ("[[cells]]\nid = 'a'\nsetting = 'single'\noperation = 'single'\natomic = 2\ncount = 5\n"
                    "column = 'x'\ncolour = 'red'\n",
                    r"bad\.toml:8: key cells\[0\]\.colour: unknown key \(allowed here: atomic, column, count"),
    "wrong type": ("seed = 0\n[[cells]]\nid = 'a'\nsetting = 'single'\noperation = 'single'\natomic = 2\n"
                   "count = 'five'\ncolumn = 'x'\n",
                   r"bad\.toml:7: key cells\[0\]\.count: Input should be a valid integer, got 'five'"),
    "bad choice": ("[[cells]]\nid = 'a'\nsetting = 'shared'\noperation = 'merge'\natomic = 2\ncount = 5\n"
                   "column = 'x'\n", r"bad\.toml:4: key cells\[0\]\.operation: Input should be 'single', 'union'"),
    "impossible count": ("[[cells]]\nid = 'a'\nsetting = 'single'\noperation = 'single'\natomic = 9\ncount = 0\n"
                         "column = 'x'\n", r"key cells\[0\]\.atomic: Input should be less than or equal to 5"),
    "infeasible cell": ("[[cells]]\nid = 'a'\nsetting = 'different'\noperation = 'union'\natomic = 5\ncount = 5\n"
                        "column = 'x'\n", r"key cells\[0\] \(a\): no combination of 5 changed properties"),
    "missing key": ("seed = 0\n", r"bad\.toml: key cells: Field required"),
    "repeated ids": ("[[cells]]\nid = 'a'\nsetting = 'single'\noperation = 'single'\natomic = 2\ncount = 5\n"
                     "column = 'x'\n" * 2, r"cell ids must be unique; repeated: \['a'\]"),
}


BAD_CONSTRUCTURE = {
    "chain bounds": ("visual_lexnames = ['noun.animal']\nmin_chain = 6\n", r"min_chain \(6\) is above max_chain \(5\)"),
    "unknown lexname": ("visual_lexnames = ['noun.animal', 'noun.cake']\n", r"\['noun\.cake'\] are not WordNet"),
    "negative split": ("visual_lexnames = ['noun.animal']\nsplits = { train = -1 }\n",
                       r"bad\.toml:2: key splits\.train: Input should be greater than or equal to 0"),
    "wrong type": ("visual_lexnames = 'noun.animal'\n", r"bad\.toml:1: key visual_lexnames: Input should be a valid list"),
}


@pytest.mark.parametrize("benchmark,mistake", [("carv", m) for m in sorted(BAD_CARV)]
                         + [("constructure", m) for m in sorted(BAD_CONSTRUCTURE)])
def test_a_bad_config_is_a_clear_error_and_leaves_the_build(benchmark, mistake, previous_build, tmp_path, capsys):
    text, expected = (BAD_CARV if benchmark == "carv" else BAD_CONSTRUCTURE)[mistake]
    (tmp_path / "bad.toml").write_text(text)
    before = _tree(previous_build)
    assert main(["build", benchmark, "--config", str(tmp_path / "bad.toml"), "--out", str(previous_build),
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert re.search(expected, err), err
    assert "Traceback" not in err and _tree(previous_build) == before
    assert not list(previous_build.parent.glob(".build.tmp-*"))


def test_the_shipped_configs_validate():
    from cogforge.builders import carv

    assert len(carv.load_config()["cells"]) == 11
    assert constructure.load_config()["splits"] == {"train": 7, "validation": 1, "test": 2}


# --------------------------------------------------------------------------- predictions files


def test_predictions_with_a_byte_order_mark_and_crlf_are_read(tmp_path):
    from cogforge.evaluate.predictions import read_predictions

    path = tmp_path / "p.jsonl"
    rows = [json.dumps({"id": f"x-{k}", "response": "A"}) for k in range(3)]
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(rows).encode() + b"\r\n")
    preds, problems = read_predictions(path, {"x-0", "x-1", "x-2"})
    assert sorted(preds) == ["x-0", "x-1", "x-2"] and not problems.malformed
