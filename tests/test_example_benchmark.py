"""ShapeCount (``examples/shapecount``), a benchmark from outside the repository.

A package of its own, installed with pip beside cogforge (``shapecount_site`` in
conftest.py), taken through its whole life cycle by the ``cogforge`` command line: listed
with the package that registers it, built, checked (each of its own QC checks fails on a
build corrupted for it), released, pushed to and pulled from a real Label Studio, and
scored. Its release also runs through the export tests of every built-in benchmark
(``tests/test_interop.py``: datasets, Croissant, VLMEvalKit, lmms-eval) and
``mlcroissant validate`` (``tests/test_release.py``).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tomllib
from collections import Counter
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from cogforge.annotation import projects
from conftest import COGFORGE, EXAMPLE, read_jsonl, shapecount_cli

VOCABULARY = tomllib.loads((EXAMPLE / "shapecount" / "vocabulary.toml").read_text())
CONFIG = tomllib.loads((EXAMPLE / "shapecount" / "shapecount.toml").read_text())
COUNTS = range(CONFIG["min_count"], CONFIG["max_count"] + 1)
MOST_SHAPES = CONFIG["max_count"] + CONFIG["max_distractors"]


def test_list_names_the_package_that_registers_it(shapecount_site, tmp_path):
    result = shapecount_cli(shapecount_site, "list", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()[1:]]
    assert ["shapecount", "cogforge-shapecount", "0.1.0", "shapecount.benchmark:BENCHMARK"] in rows
    # without the package cogforge knows nothing of it
    alone = subprocess.run([str(COGFORGE), "list"], capture_output=True, text=True, cwd=tmp_path,
                           env={**os.environ, "PYTHONPATH": ""})
    assert alone.returncode == 0 and "carv" in alone.stdout and "shapecount" not in alone.stdout
    refused = subprocess.run([str(COGFORGE), "build", "shapecount"], capture_output=True, text=True, cwd=tmp_path,
                             env={**os.environ, "PYTHONPATH": ""})
    assert refused.returncode == 2 and not (tmp_path / "build").exists()


def test_the_build_holds_what_the_config_asks_and_leaks_nothing(shapecount_build):
    items = read_jsonl(shapecount_build / "items.jsonl")
    manifest = json.loads((shapecount_build / "manifest.json").read_text())
    assert manifest["benchmark"] == "shapecount" and manifest["package"] == "shapecount 0.1.0"
    assert {k: manifest["config"][k] for k in CONFIG} == CONFIG  # the default config, shipped as package data
    assert len(items) == CONFIG["items"] and {i["split"] for i in items} == {"train", "validation", "test"}
    # answers, colours and shapes spread as evenly as the items allow
    assert Counter(i["answer"] for i in items) == {str(n): CONFIG["items"] // len(COUNTS) for n in COUNTS}
    asked = Counter((i["meta"]["colour"], i["meta"]["shape"]) for i in items)
    assert len(asked) == len(VOCABULARY["colours"]) * len(VOCABULARY["shapes"]) and len(set(asked.values())) == 1
    for item in items:
        scene = item["meta"]["scene"]
        target = [s for s in scene if (s["colour"], s["shape"]) == (item["meta"]["colour"], item["meta"]["shape"])]
        assert str(len(target)) == item["answer"] and len(scene) <= MOST_SHAPES
        assert item["options"] is None and not re.search(r"\d", item["question"])
        # the image's name is its bytes' hash, and the PNG carries no text chunk
        data = (shapecount_build / item["images"][0]).read_bytes()
        assert item["images"][0] == f"images/{hashlib.sha256(data).hexdigest()}.png"
        assert not {b"tEXt", b"iTXt", b"zTXt", b"tIME", b"eXIf"} & _chunks(data)


def _chunks(png: bytes) -> set[bytes]:
    """The chunk types of a PNG file."""
    types, k = set(), 8
    while k < len(png):
        length = int.from_bytes(png[k:k + 4], "big")
        types.add(png[k + 4:k + 8])
        k += 12 + length
    return types


def test_a_rebuild_gives_the_same_bytes_and_a_bad_config_one_line(shapecount_site, shapecount_build, tmp_path):
    again = shapecount_cli(shapecount_site, "build", "shapecount", "--out", tmp_path / "again", "--quiet",
                           cwd=tmp_path, env={"PYTHONHASHSEED": "7"})
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again" / "manifest.json").read_bytes() == (shapecount_build / "manifest.json").read_bytes()
    # the package's own schema checks its config, with cogforge's file:line messages
    bad = tmp_path / "bad.toml"
    text = (EXAMPLE / "shapecount" / "shapecount.toml").read_text()
    bad.write_text(text.replace('colours = ["red", "green", "blue", "yellow"]', 'colours = ["red", "purple"]'))
    line = next(n for n, x in enumerate(text.splitlines(), 1) if x.startswith("colours"))
    result = shapecount_cli(shapecount_site, "build", "shapecount", "--config", bad, "--out", tmp_path / "again",
                            cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [f"cogforge: {bad}:{line}: key colours: ['purple'] not in "
                                          "shapecount/vocabulary.toml (known: red, green, blue, yellow)"]


# --------------------------------------------------------------------------- QC


def _free_spot(pixels: np.ndarray, side: int = 64) -> tuple[int, int]:
    """The centre of a ``side`` x ``side`` square of plain background, away from the border."""
    plain = np.all(pixels == pixels[0, 0], axis=2)
    for y in range(12, pixels.shape[0] - side - 12, 8):
        for x in range(12, pixels.shape[1] - side - 12, 8):
            if plain[y:y + side, x:x + side].all():
                return x + side // 2, y + side // 2
    raise AssertionError("no free spot in the picture")


def _paint(path: Path, colour: str, shape: str) -> bytes:
    """The picture with one more shape in a free spot, painted here with Pillow (not the generator)."""
    with Image.open(path) as image:
        image = image.convert("RGB")
    x, y = _free_spot(np.asarray(image))
    fill, pen = tuple(VOCABULARY["colours"][colour]), ImageDraw.Draw(image)
    if shape == "circle":
        pen.ellipse([x - 20, y - 20, x + 20, y + 20], fill=fill)
    elif shape == "square":
        pen.rectangle([x - 18, y - 18, x + 18, y + 18], fill=fill)
    elif shape == "triangle":
        pen.polygon([(x, y - 24), (x + 21, y + 12), (x - 21, y + 12)], fill=fill)
    else:  # a smudge: a bar twice as wide as it is tall
        pen.rectangle([x - 24, y - 12, x + 24, y + 12], fill=fill)
    out = Path(path).with_suffix(".tmp")
    image.save(out, format="PNG")
    data = out.read_bytes()
    out.unlink()
    return data


def _rewrite(build: Path, items: list[dict], pictures: dict[str, bytes]) -> None:
    """Save changed items and pictures (new pictures under their own hash) and update the
    manifest's hashes, so that only what a check reads is wrong, not the files' integrity."""
    manifest = json.loads((build / "manifest.json").read_text())
    for item in items:
        old = item["images"][0]
        if old in pictures:
            data = pictures[old]
            new = f"images/{hashlib.sha256(data).hexdigest()}.png"
            (build / old).unlink()
            (build / new).write_bytes(data)
            del manifest["files"][old]
            manifest["files"][new] = hashlib.sha256(data).hexdigest()
            item["images"] = [new]
    text = "".join(json.dumps(i, ensure_ascii=False, separators=(",", ":")) + "\n" for i in items)
    (build / "items.jsonl").write_text(text)
    manifest["files"]["items.jsonl"] = hashlib.sha256(text.encode()).hexdigest()
    (build / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def test_qc_passes_and_each_own_check_fails_on_a_build_corrupted_for_it(shapecount_site, shapecount_build,
                                                                         shapecount_release_folder, tmp_path):
    own = ["shapecount-answers", "shapecount-pictures", "shapecount-range"]
    passed = json.loads((shapecount_release_folder / "qc_report.json").read_text())["summary"]
    assert passed["passed"] and passed["warnings"] == 0
    assert all(passed["by_check"][name] == {"error": 0, "warning": 0, "info": 0} for name in own)

    bad = tmp_path / "build" / "shapecount"
    shutil.copytree(shapecount_build, bad)
    items = read_jsonl(bad / "items.jsonl")
    fits = [i for i in items if len(i["meta"]["scene"]) < MOST_SHAPES]
    # a wrong answer: one more than the picture holds, still within the configured counts
    wrong = next(i for i in fits if int(i["answer"]) < max(COUNTS))
    wrong["answer"] = str(int(wrong["answer"]) + 1)
    # a changed picture: a smudge of a colour the question does not ask about
    smudged = next(i for i in fits if i is not wrong)
    other = next(c for c in VOCABULARY["colours"] if c != smudged["meta"]["colour"])
    # a count outside the config: one more target shape painted in, and the answer to match
    beyond = next(i for i in fits if i["answer"] == str(max(COUNTS)) and i not in (wrong, smudged))
    beyond["answer"] = str(max(COUNTS) + 1)
    _rewrite(bad, items, {
        smudged["images"][0]: _paint(bad / smudged["images"][0], other, "smudge"),
        beyond["images"][0]: _paint(bad / beyond["images"][0], beyond["meta"]["colour"], beyond["meta"]["shape"]),
    })

    result = shapecount_cli(shapecount_site, "qc", bad, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    report = json.loads((tmp_path / "build" / "shapecount.qc" / "qc_report.json").read_text())
    errors = {(f["check"], f["target"]): f["message"] for f in report["findings"] if f["severity"] == "error"}
    assert {key for key in errors if key[0] in own} == {
        ("shapecount-answers", wrong["id"]), ("shapecount-pictures", smudged["id"]),
        ("shapecount-range", beyond["id"])}
    assert "the answer says" in errors["shapecount-answers", wrong["id"]]
    assert "is no circle, square or triangle" in errors["shapecount-pictures", smudged["id"]]
    assert f"answer '{max(COUNTS) + 1}' is not a whole number from" in errors["shapecount-range", beyond["id"]]
    assert not any(key[0] == "schema" for key in errors)  # the files are whole: the checks read the content
    assert ("shapecount-range" in result.stdout) and report["summary"]["passed"] is False


# --------------------------------------------------------------------------- Label Studio


def test_pushed_to_label_studio_and_decisions_pulled_back(shapecount_site, shapecount_build, server, conn, people,
                                                         root, tmp_path):
    build = root / "build" / "shapecount"  # Label Studio serves the images from its document root
    shutil.copytree(shapecount_build, build)
    env = {"LABEL_STUDIO_URL": server.url, "LABEL_STUDIO_API_KEY": server.creds.token,
           "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT": str(root)}
    pushed = shapecount_cli(shapecount_site, "annotate", "push", build, "--stage", "item-validation",
                            "--annotators", "2", cwd=tmp_path, env=env)
    assert pushed.returncode == 0, pushed.stderr
    project = int(re.search(r"^project (\d+) ", pushed.stdout).group(1))
    assert f"{CONFIG['items']} tasks added" in pushed.stdout
    tasks = {t.data["key"]: t for t in conn.client.tasks.list(project=project, fields="all")}
    items = read_jsonl(build / "items.jsonl")
    assert set(tasks) == {i["id"] for i in items}
    first = items[0]
    assert Path(first["images"][0]).name in tasks[first["id"]].data["html"]
    rejected, accepted = items[1]["id"], items[2]["id"]
    for email in ("ann1@cogforge.test", "ann2@cogforge.test"):
        for key, verdict in ((rejected, "reject"), (accepted, "accept")):
            result = [{"from_name": "verdict", "to_name": "item", "type": "choices", "value": {"choices": [verdict]}}]
            if verdict == "reject":
                result.append({"from_name": "reasons", "to_name": "item", "type": "choices",
                               "value": {"choices": ["confounded"]}})
            conn.client.annotations.create(tasks[key].id, result=result, completed_by=people[email])
    # pulled in process: `cogforge annotate pull` writes its snapshot and decisions into the
    # repository's annotation/ folder, which a test must leave alone
    pulled = projects.pull(project, conn, snapshots=tmp_path / "snapshots", decisions_root=tmp_path)
    decisions = {d["key"]: d for d in read_jsonl(Path(pulled["decisions_file"]))}
    assert Path(pulled["decisions_file"]) == tmp_path / "annotation" / "decisions" / "shapecount.jsonl"
    assert decisions[rejected]["decision"] == "reject" and decisions[rejected]["reasons"] == ["confounded"]
    assert decisions[accepted]["decision"] == "accept" and set(decisions) == {rejected, accepted}
    # a rejected item stops the release: QC's decisions check names it
    checked = shapecount_cli(shapecount_site, "qc", build, "--decisions", pulled["decisions_file"],
                             "--out", tmp_path / "qc", cwd=tmp_path)
    assert checked.returncode == 1, checked.stderr
    findings = json.loads((tmp_path / "qc" / "qc_report.json").read_text())["findings"]
    assert [(f["check"], f["target"]) for f in findings if f["severity"] == "error"] == [("decisions", rejected)]


# --------------------------------------------------------------------------- scoring


def _responses(rows: list[dict]) -> tuple[dict[str, str], int]:
    """Replies in the forms models give, and how many of them are right."""
    forms = [
        (lambda n: str(n), True),
        (lambda n: f"There are {['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven'][n]} of them.", True),
        (lambda n: f'{{"answer": {n + 1}}}', False),
        (lambda n: f"Answer: {n}", True),
        (lambda n: f"{n} or {n + 1}", False),  # two numbers: not an answer
        (lambda n: f"I count {n}.0", True),
    ]
    out, right = {}, 0
    for k, row in enumerate(rows):
        form, ok = forms[k % len(forms)]
        out[row["id"]] = form(int(row["answer"]))
        right += ok
    return out, right


def test_eval_scores_exact_counts_with_chance_and_strata(shapecount_site, shapecount_release_folder, tmp_path):
    rows = [r for split in ("train", "validation", "test")
            for r in read_jsonl(shapecount_release_folder / "data" / f"{split}.jsonl")]
    test_rows = [r for r in rows if r["split"] == "test"]
    responses, right = _responses(test_rows)
    predictions = tmp_path / "model.jsonl"
    predictions.write_text("".join(json.dumps({"id": i, "response": r}) + "\n" for i, r in responses.items()))
    result = shapecount_cli(shapecount_site, "eval", "score", "--release", shapecount_release_folder,
                            "--predictions", predictions, "--split", "test", "--out", tmp_path / "scores", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    scored = next(iter(json.loads((tmp_path / "scores" / "scores.json").read_text())["models"].values()))
    assert scored["overall"]["n"] == len(test_rows) and scored["overall"]["correct"] == right
    assert abs(scored["overall"]["chance"] - 1 / len(COUNTS)) < 1e-9
    # the scorer's strata: accuracy per colour, shape and count
    assert set(scored["breakdown"]["count"]) == {r["answer"] for r in test_rows}
    assert set(scored["breakdown"]["shape"]) == {json.loads(r["meta"])["shape"] for r in test_rows}
    # the random baseline answers a count from the item's range, and scores near chance
    baseline = tmp_path / "random.jsonl"
    made = shapecount_cli(shapecount_site, "eval", "baseline", "--release", shapecount_release_folder,
                          "--kind", "random", "--out", baseline, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    answers = [json.loads(line)["response"] for line in baseline.read_text().splitlines()]
    assert len(answers) == len(rows) and {int(a) for a in answers} <= set(COUNTS)


def test_the_package_streams_as_a_training_environment(shapecount_release):
    """Its own stream hooks (``Benchmark.stream``): cogforge.environments draws, scores,
    sets its knobs and keeps its stream out of its release as for a built-in benchmark."""
    from cogforge import environments as env
    from cogforge.core.registry import get

    assert "shapecount" in env.streaming()
    stream = env.open("shapecount", seed=4)
    assert stream.tasks == ["count"]
    first = [stream[i] for i in (0, 5, 10**9)]
    again = [env.open("shapecount", seed=4)[i] for i in (10**9, 5, 0)][::-1]
    assert [(i["question"], i["images"], i["answer"]) for i in first] == \
        [(i["question"], i["images"], i["answer"]) for i in again]
    for i in range(40):
        item = stream[i]
        assert env.score(item, item["answer"]) == 1.0 and env.score(item, f"There are {item['answer']}.") == 1.0
        assert env.score(item, str(int(item["answer"]) + 1)) == 0.0
        shown = Image.open(io.BytesIO(item["images"][0]))
        assert shown.size == (CONFIG["size"], CONFIG["size"])
    assert env.knobs("shapecount") == {"count": {"count": tuple(COUNTS), "distractors": tuple(
        range(CONFIG["min_distractors"], CONFIG["max_distractors"] + 1))}}
    hard = env.open("shapecount", difficulty={"count": 6, "distractors": 8}, seed=4)
    for i in range(5):
        assert hard[i]["answer"] == "6" and len(hard[i]["meta"]["scene"]) == 6 + 8
    hooks = get("shapecount").stream
    held = env.Exclusion.of(shapecount_release, hooks)
    kept = env.open("shapecount", seed=0, exclude=shapecount_release)
    for i in range(300):
        item = kept[i]
        names = [f"images/{hashlib.sha256(png).hexdigest()}.png" for png in item["images"]]
        assert env.content_key(item["question"], names, item["options"]) not in held.content
        assert hashlib.sha256(hooks.stream_unit(item).encode()).hexdigest() not in held.units
