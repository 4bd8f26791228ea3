"""Every benchmark's release, loaded by the tools the field evaluates with, through their own code.

* `datasets` 5.x (our environment, and .venv-lmms beside lmms-eval) and 3.6 (< 4.0, which
  lmms-eval allows, alone in .venv-datasets3): `load_dataset(<release>)` on the parquet files
  alone; features as the card declares them.
* lmms-eval, in .venv-lmms with cogforge's wheel: its TaskManager loads `exports/lmms_eval`,
  gold targets score 100%, shuffled ones near chance, and its verdict on each response equals
  `cogforge eval score`'s.
* mlcroissant: records with PIL images, `citeAs` from the config.
* VLMEvalKit is not published on PyPI: `_vlmevalkit_*` below replay its documented loading
  of a custom TSV (vlmeval/smp/file.py `load`: `pd.read_csv(f, sep='\\t')`; ImageBaseDataset:
  index to str, image references of <= 64 characters, `toliststr`; build_dataset: A and B
  columns make a CustomMCQDataset; ImageMCQDataset.build_prompt: options from the letter
  columns that are not NaN) and its prediction files (every data column but `image`, plus
  `prediction`, written with `to_excel`).
* The CARV paper's scripts (github YongkDu/CARV, not installable): the test replays what
  they read: `{DATA_ROOT}/{operation}/{difficulty}_{N}.json`, `{IMAGE_ROOT}/{stem}.jpeg`,
  stems split on "_" after removing "_of", and index-aligned label files.
"""

from __future__ import annotations

import ast
import io
import json
import math
import random
import string
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image

from conftest import ROOT, field_env
from cogforge.core import registry
from cogforge.core.releases import load_release, read_rows
from cogforge.core.shortcuts import question_stem
from cogforge.evaluate.score import Scorer
from cogforge.exports.interop import ExportError, write_vlmevalkit

# shapecount: the example benchmark of examples/shapecount, a package of its own (conftest.py)
BENCHMARKS = ["carv", "constructure", "cogevolve", "symbols", "corecognition", "shapecount"]
DATASETS3_PY = ROOT / ".venv-datasets3" / "bin" / "python"


@pytest.fixture(params=BENCHMARKS)
def released(request) -> Path:
    return request.getfixturevalue(f"{request.param}_release")


def _rows(folder: Path) -> list[dict]:
    return read_rows(folder)


def _card_features(folder: Path) -> dict[str, str]:
    import yaml

    header = (folder / "README.md").read_text().split("---\n")[1]
    return {f["name"]: f.get("dtype") or f"sequence:{f['sequence']}"
            for f in yaml.safe_load(header)["dataset_info"]["features"]}


# --------------------------------------------------------------------------- datasets, parquet


def test_loads_with_datasets_from_parquet_alone(released, tmp_path):
    import datasets

    rows = _rows(released)
    ds = datasets.load_dataset(str(released), cache_dir=str(tmp_path / "hf"))
    assert set(ds) == {r["split"] for r in rows}
    declared = _card_features(released)
    kinds = {"string": datasets.Value("string"), "sequence:image": datasets.List(datasets.Image()),
             "sequence:string": datasets.List(datasets.Value("string"))}
    for split, part in ds.items():
        assert dict(part.features) == {k: kinds[v] for k, v in declared.items()}
        expected = [r for r in rows if r["split"] == split]
        assert part["id"] == [r["id"] for r in expected]
        for k in (0, len(part) // 2, len(part) - 1):
            got, row = part[k], expected[k]
            assert got["options"] == row["options"]  # a list, or None for free text
            assert got["question"] == row["question"] and got["answer"] == row["answer"]
            assert [im.size for im in got["images"]] == [Image.open(released / "data" / n).size
                                                         for n in row["file_names"]]
    # the parquet holds the image bytes: it is the dataset without data/images/
    import pyarrow.parquet as pq

    table = pq.read_table(released / "data" / f"{rows[0]['split']}.parquet")
    first = table.column("images")[0].as_py()
    assert [i["bytes"] for i in first] == [(released / "data" / n).read_bytes() for n in rows[0]["file_names"]]


def test_croissant_records_carry_images_and_citation(released):
    import mlcroissant as mlc

    metadata = json.loads((released / "croissant.json").read_text())
    benchmark = json.loads((released / "release.json").read_text())["benchmark"]
    config = registry.get(benchmark).default_config.read_text()
    assert metadata["citeAs"] and metadata["citeAs"].split("\n")[0] in config
    dataset = mlc.Dataset(jsonld=released / "croissant.json")
    rows = _rows(released)
    split = rows[0]["split"]
    records = dataset.records(split)
    for k, record in enumerate(records):
        row = rows[k]
        assert record[f"{split}/id"].decode() == row["id"]
        images = record[f"{split}/images"]
        assert [im.size for im in images] == [Image.open(released / "data" / n).size for n in row["file_names"]]
        options = record[f"{split}/options"]
        assert (None if options is None else [o.decode() for o in options]) == row["options"]
        if k == 20:
            break


def test_loads_with_datasets_3_6(released, tmp_path):
    """datasets 3.6 reads the parquet's features (Sequence, which 4.x renamed List) as declared."""
    import datasets

    assert DATASETS3_PY.is_file(), "run `make test` (it installs .venv-datasets3)"
    env = field_env(HF_DATASETS_CACHE=str(tmp_path / "hf"), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    proc = subprocess.run([str(DATASETS3_PY), str(ROOT / "tests" / "datasets_check.py"), str(released)],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["datasets_version"] == "3.6.0"
    rows, ours = _rows(released), datasets.load_dataset(str(released), cache_dir=str(tmp_path / "hf5"))
    assert set(got["splits"]) == set(ours)
    for split, part in got["splits"].items():
        expected = [r for r in rows if r["split"] == split]
        assert part["n"] == len(expected) and part["first_id"] == expected[0]["id"]
        assert part["first_sizes"] == [list(Image.open(released / "data" / n).size) for n in expected[0]["file_names"]]
        assert list(part["features"]) == list(ours[split].features)
        assert "Sequence(feature=Image(" in part["features"]["images"]
        assert "Sequence(feature=Value(dtype='string'" in part["features"]["options"]


# --------------------------------------------------------------------------- lmms-eval


def _responses(rows: list[dict]) -> dict[str, str]:
    """Responses of every kind cogforge's extraction meets: gold, wrong, letters, JSON, prose."""
    rng = random.Random(7)
    out = {}
    for k, row in enumerate(rows):
        options = row["options"]
        wrong = rng.choice([r["answer"] for r in rows[:200] if r["answer"] != row["answer"]])
        if options:
            letter = chr(65 + options.index(row["answer"]))
            other = chr(65 + (options.index(row["answer"]) + 1) % len(options))
            pool = [letter, f"The answer is {other}.", f'{{"answer": "{letter}"}}', row["answer"],
                    f"{other}. {options[ord(other) - 65]}", "I cannot tell."]
        else:
            pool = [row["answer"], wrong, f'{{"caption": "{row["answer"]}"}}', f"Final answer: {wrong}",
                    row["answer"].replace("one ", "a "), "I cannot tell."]
        out[row["id"]] = pool[k % len(pool)]
    return out


@pytest.fixture(scope="module")
def lmms_checked(request, field_python, tmp_path_factory) -> dict:
    """lmms-eval's view of every benchmark's release, checked in one process (importing
    lmms-eval costs a fifth of a minute, once instead of once a benchmark)."""
    work = tmp_path_factory.mktemp("lmms-check")
    argv, responses = [], {}
    for name in BENCHMARKS:  # shapecount's release folder: the subprocess imports no example package
        release = request.getfixturevalue(f"{name}_release" if name != "shapecount" else "shapecount_release_folder")
        responses[name] = _responses(_rows(release))
        (work / f"{name}.json").write_text(json.dumps(responses[name]))
        argv += [str(release), str(work / f"{name}.json")]
    env = field_env(HF_DATASETS_CACHE=str(work / "hf"), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    proc = subprocess.run([str(field_python), str(ROOT / "tests" / "lmms_eval_check.py"), *argv],
                          capture_output=True, text=True, env=env, cwd=work)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    return {name: (result, responses[name]) for name, result in zip(BENCHMARKS, got)}


@pytest.mark.parametrize("name", BENCHMARKS)
def test_lmms_eval_loads_every_task_and_scores_like_cogforge(name, lmms_checked, request):
    import datasets

    released = request.getfixturevalue(f"{name}_release")
    rows = _rows(released)
    got, responses = lmms_checked[name]
    assert got["datasets_version"] == datasets.__version__  # cogforge's pin, beside lmms-eval too
    assert {s: v["n"] for s, v in got["splits"].items()} == {
        s: sum(r["split"] == s for r in rows) for s in {r["split"] for r in rows}}
    pairs = {(r["task"], r["split"]) for r in rows}
    assert len(got["tasks"]) == len(pairs)
    by_id = {r["id"]: r for r in rows}
    release_rows, info = load_release(released)
    scorer = Scorer(release_rows, info["benchmark"])
    release_by_id = {r["id"]: r for r in release_rows}
    for name, task in got["tasks"].items():
        first = by_id[task["ids"][0]]
        assert sorted(task["ids"]) == sorted(r["id"] for r in rows if (r["task"], r["split"]) == (first["task"], first["split"]))
        assert task["gold"] == 1.0, name
        # a task may mix multiple choice and free answers (symbols' mathematics-analysis)
        members = [release_by_id[i] for i in task["ids"]]
        chance = sum(1 / len(r["options"]) if r["options"] else scorer.chance(r) for r in members) / len(members)
        if task["n"] >= 20:  # a handful of items can keep their order when shuffled
            # three standard errors of a shuffle's hit rate, at least 0.15 (a task of 40 items
            # with 3 options can match half its shuffled letters by chance)
            slack = max(0.15, 3 * math.sqrt(chance * (1 - chance) / task["n"]))
            assert task["shuffled"] < chance + slack + (0.05 if not first["options"] else 0), (name, task["shuffled"])
        assert task["text"] == first["question"] and task["images"] == len(first["file_names"])
        assert task["target"] == (chr(65 + first["options"].index(first["answer"])) if first["options"]
                                  else first["answer"])
        for item_id, verdict in task["verdicts"].items():
            row = release_by_id[item_id]
            ours = scorer.one(row, {"response": responses[item_id]}, row["options"])["correct"]
            assert bool(verdict) == ours, (item_id, responses[item_id])


# --------------------------------------------------------------------------- VLMEvalKit


def toliststr(s):
    """VLMEvalKit's toliststr for a cell."""
    return [str(x) for x in ast.literal_eval(s)] if s[0] == "[" and s[-1] == "]" else [s]


def _vlmevalkit_load(path: Path) -> pd.DataFrame:
    """VLMEvalKit's `load` of a TSV and ImageBaseDataset's preparation of the columns."""
    data = pd.read_csv(path, sep="\t")
    data["index"] = [str(x) for x in data["index"]]
    if "image" not in data:  # meta-only mode: the images are the image_path list (none here)
        data["image_path"] = [toliststr(x) for x in data["image_path"]]
        data["image"] = [[] for _ in data["index"]]
        return data
    data["image"] = [str(x) for x in data["image"]]
    image_map = dict(zip(data["index"], data["image"]))
    for k in image_map:
        if len(image_map[k]) <= 64:
            assert image_map[k] in image_map and len(image_map[image_map[k]]) > 64
            image_map[k] = image_map[image_map[k]]

    data["image"] = [toliststr(image_map[k]) for k in data["index"]]
    data["image_path"] = [toliststr(x) for x in data["image_path"]]
    return data


def _vlmevalkit_mcq_prompt(line) -> str:
    options = {c: line[c] for c in string.ascii_uppercase if c in line and not pd.isna(line[c])}
    prompt = f"Question: {line['question']}\n"
    if options:
        prompt += "Options:\n" + "".join(f"{k}. {v}\n" for k, v in options.items())
        prompt += "Please select the correct answer from the options above. \n"
    return prompt


def test_vlmevalkit_reads_each_split_as_its_type(released):
    import base64

    from cogforge.exports.release import _plugin

    rows = _rows(released)
    drop = getattr(_plugin(json.loads((released / "release.json").read_text())["benchmark"]), "VLMEVALKIT_DROP", ())
    folder = released / "exports" / "vlmevalkit"
    files = sorted(folder.glob("*.tsv"))
    seen: set[str] = set()
    index_of = {r["id"]: k for k, r in enumerate(rows)}
    for path in files:
        data = _vlmevalkit_load(path)
        mcq = "A" in data and "B" in data  # build_dataset's rule
        assert mcq == ("openended" not in path.stem)  # DATASET_TYPE's rule agrees
        assert data["split"].nunique() == 1 and path.stem.endswith("_" + data["split"][0])
        assert data["index"].is_unique and all(i.isdigit() for i in data["index"])
        for _, line in data.iterrows():
            row = rows[index_of[line["id"]]]
            assert int(line["index"]) == index_of[line["id"]] and line["category"] == row["task"]
            seen.add(line["id"])
            assert [base64.b64decode(b) for b in line["image"]] == [
                (released / "data" / n).read_bytes() for n in row["file_names"]]
            if mcq:
                prompt = _vlmevalkit_mcq_prompt(line)
                for k, option in enumerate(row["options"]):
                    assert prompt.count(f"{chr(65 + k)}. {option}\n") == 1  # listed once, by VLMEvalKit
                assert line["answer"] == chr(65 + row["options"].index(row["answer"]))
                # the stem, line breaks kept, without the instructions that ask for more than the letter
                assert line["question"] == "\n".join(
                    x for x in question_stem(row["question"], row["options"]).split("\n") if x.strip() not in drop)
                assert "Answer with the option" not in line["question"] and "<letter>" not in line["question"]
                shown = [line[c] for c in string.ascii_uppercase if c in line and not pd.isna(line[c])]
                assert shown == row["options"]  # no option lost to pandas' NA strings
            else:
                # pandas reads a column of whole numbers (shapecount's counts) as int64, printed as written
                assert line["question"] == row["question"] and str(line["answer"]) == row["answer"]
    assert seen == {r["id"] for r in rows}


def test_vlmevalkit_prediction_files_are_scored_by_cogforge(released, tmp_path, capsys):
    from cogforge.cli import main

    rows = _rows(released)
    path = sorted((released / "exports" / "vlmevalkit").glob("*_test.tsv"))[0]
    data = _vlmevalkit_load(path).drop(columns=["image"])  # what infer_data_job dumps
    truth = {r["id"]: r for r in rows}
    right = []
    predictions = []
    for k, item_id in enumerate(data["id"]):
        row = truth[item_id]
        good = k % 3 != 0
        right.append(good)
        if row["options"]:
            letter = row["options"].index(row["answer"])
            predictions.append(chr(65 + (letter if good else (letter + 1) % len(row["options"]))))
        else:
            predictions.append(row["answer"] if good else "None")
    data["prediction"] = predictions
    xlsx = tmp_path / f"MyModel_{path.stem}.xlsx"
    data.to_excel(xlsx, index=False)
    assert main(["eval", "score", "--release", str(released), "--predictions", str(xlsx), "--out", str(tmp_path / "r")]) == 0
    report = json.loads((tmp_path / "r" / "scores.json").read_text())
    result = next(iter(report["models"].values()))
    assert result["split"] == "test" and result["overall"]["n"] == len(data)
    assert result["overall"]["correct"] == sum(right) and not result["problems"]["missing_ids"]
    # a TSV without the id column joins by index
    data.drop(columns=["id"]).to_csv(tmp_path / "p.tsv", sep="\t", index=False)
    assert main(["eval", "score", "--release", str(released), "--predictions", str(tmp_path / "p.tsv"),
                 "--split", "test", "--out", str(tmp_path / "r2")]) == 0
    again = next(iter(json.loads((tmp_path / "r2" / "scores.json").read_text())["models"].values()))
    assert again["overall"]["correct"] == sum(right)
    capsys.readouterr()


def test_vlmevalkit_export_refuses_what_pandas_would_change(tmp_path):
    data = tmp_path / "data"
    (data / "images").mkdir(parents=True)
    buf = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buf, "PNG")
    (data / "images" / "a.png").write_bytes(buf.getvalue())

    def row(k, options, answer, split="test"):
        return {"id": f"t-{k}", "task": "t", "split": split, "question": "Which?", "file_names": ["images/a.png"],
                "options": options, "answer": answer}

    with pytest.raises(ExportError, match=r"t-0: option A 'None'"):
        write_vlmevalkit([row(0, ["None", "Some"], "Some")], "toy", data, tmp_path / "out")
    with pytest.raises(ExportError, match="option column C holds numbers"):
        write_vlmevalkit([row(0, ["1", "2", "3"], "3"), row(1, ["1", "2"], "2")], "toy", data, tmp_path / "out")
    with pytest.raises(ExportError, match="circular"):
        write_vlmevalkit([row(0, ["x", "y"], "x", split="circular")], "toy", data, tmp_path / "out")
    names = write_vlmevalkit([row(0, ["1", "2"], "2"), row(1, None, "two", split="validation")], "toy", data,
                             tmp_path / "ok")
    assert names == ["toy_openended_validation", "toy_test"]
    loaded = _vlmevalkit_load(tmp_path / "ok" / "toy_test.tsv")
    assert _vlmevalkit_mcq_prompt(loaded.iloc[0]).endswith("A. 1\nB. 2\nPlease select the correct answer "
                                                           "from the options above. \n")


# --------------------------------------------------------------------------- the CARV paper's code

PAPER = {"number": ["one", "two"], "position": ["left_of", "right_of", "on", "under"],
         "color": ["red", "blue", "wood"], "object": ["chair", "table"]}
ORDER = ["number", "subject", "position", "color", "object"]


def _parse(stem: str) -> dict:
    """What the paper's analysis scripts do with a stem, and its generator's field order."""
    parts = stem.replace("_of", "").split("_")  # analysis_bn.extract_transformation
    assert len(parts) == 5, stem
    state = dict(zip(ORDER, parts))
    state["position"] += "_of" if state["position"] in ("left", "right") else ""
    return state


def test_carv_paper_layout_loads_and_labels_recompute(carv_release):
    root = carv_release / "exports" / "carv_paper"
    rows = {r["id"]: r for r in _rows(carv_release)}
    covered = set()
    for task_file in sorted((root / "data_path_all").glob("*/*/*.json")):
        track, operation = task_file.parent.parent.name, task_file.parent.name
        difficulty, number = task_file.stem.split("_")
        assert track in ("mix", "large", "single") and operation in ("union", "intersection", "difference")
        assert difficulty in ("easy", "hard")
        sampled = json.loads(task_file.read_text())
        assert isinstance(sampled, list) and len(sampled) == int(number)
        labels = json.loads((root / "data_labels_all" / track / operation / task_file.name).read_text())
        image_root = root / "data" / ("mix" if track == "single" else track)
        for d, label in zip(sampled, labels, strict=True):
            assert len(d["context_image"]) == (3 if track == "single" else 5)
            for stem in d["context_image"] + [d["label"]]:
                with Image.open(image_root / f"{stem}.jpeg") as im:
                    assert im.format == "JPEG"
                state = _parse(stem)
                assert all(state[p] in PAPER[p] for p in PAPER)
            states = [_parse(s) for s in d["context_image"]]
            # an atomic change is (property, from, to), as the paper's set operations use them
            t1 = {p: (states[0][p], states[1][p]) for p in ORDER if states[0][p] != states[1][p]}
            t2 = {} if track == "single" else \
                {p: (states[2][p], states[3][p]) for p in ORDER if states[2][p] != states[3][p]}
            if track == "single" or operation == "union":
                change = {**t1, **t2}
            elif operation == "intersection":
                change = {p: v for p, v in t1.items() if t2.get(p) == v}
            else:
                change = {p: v for p, v in t1.items() if t2.get(p) != v}
            assert {**states[-1], **{p: to for p, (_, to) in change.items()}} == _parse(d["label"]), d["id"]
            assert sorted(set(label["changed_properties1"])) == sorted(t1) and label["id"] == d["id"]
            assert rows[d["id"]]["file_names"] and d["id"] not in covered
            covered.add(d["id"])
    assert covered == set(rows)
