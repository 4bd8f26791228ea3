"""lmms-eval 0.7.3's own command line on every release, against a real server on loopback.

An OpenAI-compatible server (``http.server`` in a thread, ``POST /v1/chat/completions``)
finds the item each request asks about by its prompt text and the pixels of its images,
and answers with the item's key (model ``gold``) or with cogforge's random baseline
(model ``random``). Two ``python -m lmms_eval --config <server>.yaml`` processes (its own
command line; a config file is how it takes several include paths), one per server, at
once, evaluate every release's test split through ``--model openai`` with ``--log_samples``, ``--limit``
items per task. Then:

* gold: accuracy 1 in every task and in the split's group, whose accuracy is the mean
  over items (weighted by task size);
* random: the group's accuracy within three standard errors of chance;
* both: ``cogforge eval score`` reads lmms-eval's output folder itself and gives every
  answered item the verdict lmms-eval logged.

lmms-eval and ``cogforge eval score`` run in one environment, .venv-lmms with the session's
wheel of cogforge (the ``field_python`` fixture).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import math
import subprocess
import threading
from pathlib import Path

import pytest
import yaml
from PIL import Image

from chat_server import ChatServer
from conftest import FIELD_VENV, field_env
from cogforge.core.releases import load_release, read_rows
from cogforge.evaluate.baselines import baseline
from cogforge.evaluate.score import Scorer
from cogforge.exports.lmms_eval import group_name, task_name

BENCHMARKS = ["carv", "constructure", "cogevolve", "symbols", "corecognition"]
SPLIT = "test"
LIMIT = 3  # items per task (--limit): every task of every release is asked
MODES = ("gold", "random")


def _pixels(image: Image.Image) -> str:
    return hashlib.sha256(image.convert("RGB").tobytes()).hexdigest()


def _target(row: dict) -> str:
    return chr(65 + row["options"].index(row["answer"])) if row["options"] else row["answer"]


class KeyServer(ChatServer):
    """Answers each chat completion with the key (or a random answer) of the item it shows.

    Items are found by the prompt's text, then by the pixels of its images (lmms-eval
    decodes the release's images and sends them re-encoded as PNG, so their bytes differ):
    a release image is decoded when a request's text first names an item that shows it.
    The text index and the random answers are made in a thread while lmms-eval starts; a
    request waits for them.
    """

    def __init__(self, releases: dict[str, Path]):
        super().__init__()
        self.releases = releases
        self.by_text: dict[str, list[tuple[Path, dict]]] = {}
        self.by_pixels: dict[str, dict[tuple[str, ...], list[dict]]] = {}  # text -> image pixels -> items
        self.file_pixels: dict[Path, str] = {}
        self.random: dict[str, str] = {}
        self.ready = threading.Event()
        self.asked: dict[str, list[str]] = {mode: [] for mode in MODES}
        self.unmatched: list[str] = []
        self.lock = threading.Lock()
        self.decoding = threading.Lock()

    def _build(self):
        try:
            for release in self.releases.values():
                for row in read_rows(release):
                    if row["split"] == SPLIT:
                        self.by_text.setdefault(row["question"], []).append((release, row))
                self.random |= {p["id"]: p["response"] for p in baseline(release, "random")}
        finally:
            self.ready.set()

    def _items(self, text: str) -> dict[tuple[str, ...], list[dict]]:
        """The items of a prompt text, by the pixels of their images."""
        with self.decoding:  # one thread decodes a text's images; the others wait for them
            if text not in self.by_pixels:
                table: dict[tuple[str, ...], list[dict]] = {}
                for release, row in self.by_text.get(text, []):
                    for path in (release / "data" / n for n in row["file_names"]):
                        if path not in self.file_pixels:
                            with Image.open(path) as image:
                                self.file_pixels[path] = _pixels(image)
                    key = tuple(self.file_pixels[release / "data" / n] for n in row["file_names"])
                    table.setdefault(key, []).append(row)
                self.by_pixels[text] = table
            return self.by_pixels[text]

    def answer(self, body: dict) -> str:
        content = body["messages"][-1]["content"]
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
        text = "".join(p["text"] for p in parts if p["type"] == "text")
        shown = tuple(_pixels(Image.open(io.BytesIO(base64.b64decode(p["image_url"]["url"].split(",", 1)[1]))))
                      for p in parts if p["type"] == "image_url")
        self.ready.wait()
        found = self._items(text).get(shown, [])
        with self.lock:
            if not found or len({_target(r) for r in found}) > 1:  # none, or items alike with different keys
                self.unmatched.append(f"{len(found)} items match {text[:80]!r} with {len(shown)} images")
                return "no item matches"
            self.asked[body["model"]].append(found[0]["id"])
        return _target(found[0]) if body["model"] == "gold" else self.random[found[0]["id"]]

    def __enter__(self):
        threading.Thread(target=self._build, daemon=True).start()
        return super().__enter__()


@pytest.fixture(scope="module")
def lmms_runs(carv_release, constructure_release, cogevolve_release, symbols_release, corecognition_release,
              field_python, tmp_path_factory):
    """Two lmms-eval processes at once, one per server, each over every release's test split."""
    releases = dict(zip(BENCHMARKS, [carv_release, constructure_release, cogevolve_release, symbols_release,
                                     corecognition_release]))
    tmp = tmp_path_factory.mktemp("lmms-real")
    with KeyServer(releases) as server:
        # a process per server, each over every release (a list of include paths needs a
        # config file): lmms-eval indexes its own ~1,900 task files once per run, which costs
        # more than the items do, and the two processes share the machine's cores
        procs = {}
        for mode in MODES:
            run = {"model": "openai", "tasks": ",".join(group_name(b, SPLIT) for b in releases),
                   "include_path": [str(release / "exports" / "lmms_eval") for release in releases.values()],
                   "model_args": f"model={mode},base_url={server.url},api_key=cogforge-test,max_retries=1,"
                                 "num_concurrent=16,timeout=120",
                   "limit": LIMIT, "log_samples": True, "output_path": str(tmp / mode)}
            (tmp / f"{mode}.yaml").write_text(yaml.safe_dump([run]))
            env = field_env(HF_DATASETS_CACHE=str(tmp / f"hf-{mode}"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
                            NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
            with open(tmp / f"{mode}.log", "w") as log:  # a file: a full pipe would stall one process
                procs[mode] = subprocess.Popen([str(field_python), "-m", "lmms_eval", "--config", str(tmp / f"{mode}.yaml")],
                                               stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tmp)
        for proc in procs.values():
            proc.wait()
    logs = {mode: (tmp / f"{mode}.log").read_text() for mode in MODES}
    for mode, proc in procs.items():
        assert proc.returncode == 0, logs[mode][-4000:]
    assert not server.unmatched, server.unmatched[:5]
    for mode, ids in server.asked.items():
        assert len(ids) == len(set(ids)), f"{mode}: an item asked twice"
    return {"releases": releases, "out": tmp, "server": server, "logs": logs}


def _results(folder: Path) -> dict:
    found = sorted(folder.glob("*/*_results.json"))
    assert len(found) == 1, f"lmms-eval wrote no results under {folder} (it exits 0 on errors)"
    return json.loads(found[0].read_text())


def _logged(folder: Path, tasks) -> dict[str, float]:
    """lmms-eval's verdict on each item of some tasks, from its sample logs."""
    out = {}
    for path in sorted(p for t in tasks for p in folder.glob(f"*/*_samples_{t}.jsonl")):
        for line in path.read_text().splitlines():
            sample = json.loads(line)
            assert sample["id"] not in out
            out[sample["id"]] = sample["accuracy"]
    return out


def _expected_tasks(release: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in read_rows(release):
        if row["split"] == SPLIT:
            name = task_name(json.loads((release / "release.json").read_text())["benchmark"], row["task"], SPLIT)
            counts[name] = counts.get(name, 0) + 1
    return {name: min(n, LIMIT) for name, n in counts.items()}


@pytest.fixture(scope="module", params=BENCHMARKS)
def scored(request, lmms_runs, tmp_path_factory) -> dict:
    """One release's runs, scored from the folders lmms-eval wrote by the wheel's `cogforge eval
    score`, in lmms-eval's environment."""
    benchmark = request.param
    release, out = lmms_runs["releases"][benchmark], tmp_path_factory.mktemp(f"scores-{benchmark}")
    proc = subprocess.run([str(FIELD_VENV / "bin" / "cogforge"), "eval", "score", "--release", str(release),
                           "--predictions", *(str(lmms_runs["out"] / mode) for mode in MODES), "--out", str(out)],
                          capture_output=True, text=True, cwd=out, env=field_env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = [json.loads(line) for line in (out / "per_item.jsonl").read_text().splitlines()]
    return {"benchmark": benchmark, "release": release, "report": json.loads((out / "scores.json").read_text()),
            # the model of each run, read from lmms-eval's results file
            "verdicts": {mode: {r["id"]: r["correct"] for r in records
                                if r["model"] == mode and r["response"] is not None} for mode in MODES}}


def test_lmms_eval_scores_the_key_100_percent_per_task_and_split_group(lmms_runs, scored):
    benchmark, release = scored["benchmark"], scored["release"]
    folder = lmms_runs["out"] / "gold"
    results, group = _results(folder), group_name(benchmark, SPLIT)
    expected = _expected_tasks(release)
    assert sorted(results["group_subtasks"][group]) == sorted(expected)
    assert {t: results["n-samples"][t]["effective"] for t in expected} == expected
    for task in expected:
        assert results["results"][task]["accuracy,none"] == 1.0, task
        assert results["results"][task]["id,none"] == expected[task]  # the "id" metric counts the items
    assert results["groups"][group]["accuracy,none"] == 1.0
    logged = _logged(folder, expected)
    assert len(logged) == sum(expected.values()) and set(logged.values()) == {1.0}
    assert set(logged) <= set(lmms_runs["server"].asked["gold"])  # the server saw the items lmms-eval logged
    assert scored["verdicts"]["gold"] == {i: True for i in logged}
    result = scored["report"]["models"]["gold"]
    assert result["split"] == SPLIT and result["overall"]["correct"] == len(logged)
    assert len(result["problems"]["missing_ids"]) == result["overall"]["n"] - len(logged)  # past --limit


def test_lmms_eval_random_answers_land_near_chance_with_cogforge_verdicts(lmms_runs, scored):
    benchmark, release = scored["benchmark"], scored["release"]
    folder = lmms_runs["out"] / "random"
    results, group = _results(folder), group_name(benchmark, SPLIT)
    logged = _logged(folder, results["group_subtasks"][group])
    assert scored["verdicts"]["random"] == {i: bool(v) for i, v in logged.items()}
    # the group's accuracy is the mean over items: each task weighted by its size
    accuracy = results["groups"][group]["accuracy,none"]
    assert accuracy == pytest.approx(sum(logged.values()) / len(logged))
    rows, info = load_release(release)
    scorer = Scorer(rows, info["benchmark"])
    chance = [scorer.chance(r) for r in rows if r["id"] in logged]
    expected = sum(chance) / len(chance)
    stderr = math.sqrt(sum(p * (1 - p) for p in chance)) / len(chance)
    assert abs(accuracy - expected) <= 3 * stderr, (accuracy, expected, stderr)


def test_lmms_eval_logs_without_item_ids_or_with_bad_lines_are_reported(lmms_runs, tmp_path, capsys):
    from cogforge.cli import main

    release = lmms_runs["releases"]["cogevolve"]
    log = next((lmms_runs["out"] / "gold").glob("*/*_samples_cogevolve_2_test.jsonl"))
    samples = [json.loads(line) for line in log.read_text().splitlines()]
    # a log written by a task folder that does not log item ids: one line, exit 2
    old = tmp_path / "old" / log.name
    old.parent.mkdir()
    old.write_text("".join(json.dumps({k: v for k, v in s.items() if k != "id"}) + "\n" for s in samples))
    assert main(["eval", "score", "--release", str(release), "--predictions", str(old),
                 "--out", str(tmp_path / "r0")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"cogforge: {old}:1: ") and "no item 'id'" in err[0], err
    # a cut line and another release's item are listed; the other lines are scored
    mixed = tmp_path / "mixed" / log.name
    mixed.parent.mkdir()
    lines = log.read_text().splitlines()
    foreign = json.dumps({**samples[2], "id": "carv-0"})
    mixed.write_text("\n".join([lines[0], lines[1][:40], foreign, *lines[3:]]) + "\n")
    assert main(["eval", "score", "--release", str(release), "--predictions", str(mixed),
                 "--out", str(tmp_path / "r1")]) == 0
    result = next(iter(json.loads((tmp_path / "r1" / "scores.json").read_text())["models"].values()))
    assert result["problems"]["malformed"] == ["line 2: not valid JSON"]
    assert result["problems"]["unknown_ids"] == ["line 3: carv-0"]
    assert result["overall"]["correct"] == len(samples) - 2
    # a predictions file of cogforge's own format is read as such, whatever its name
    own = tmp_path / "20260101_000000_samples_cogevolve_2_test.jsonl"
    own.write_text("".join(json.dumps({"id": s["id"], "response": s["filtered_resps"]}) + "\n" for s in samples))
    assert main(["eval", "score", "--release", str(release), "--predictions", str(own),
                 "--out", str(tmp_path / "r2")]) == 0
    result = next(iter(json.loads((tmp_path / "r2" / "scores.json").read_text())["models"].values()))
    assert result["overall"]["correct"] == len(samples) and not result["problems"]["malformed"]
    capsys.readouterr()
