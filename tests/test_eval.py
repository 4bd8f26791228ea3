"""Scoring and running models: perfect, random and shuffled predictions, broken files,
circular evaluation, the LLM judge, and a real chat-completions server on loopback."""

from __future__ import annotations

import http.server
import json
import random
import re
import threading
import time
from collections import defaultdict
from pathlib import Path

import pytest

from cogforge.cli import main
from conftest import balanced_mcq, make_toy_build
from cogforge.evaluate import report
from cogforge.evaluate.baselines import write_baseline
from cogforge.evaluate.client import Endpoint
from cogforge.evaluate.extract import extract
from cogforge.evaluate.judge import Judges
from cogforge.evaluate.run import run
from cogforge.evaluate.score import score
from cogforge.exports.release import ReleaseError, release


def rows_of(folder: Path) -> list[dict]:
    return [json.loads(l) for l in (folder / "data" / "test.jsonl").read_text().splitlines()]


def write(path: Path, lines: list) -> Path:
    path.write_text("".join((l if isinstance(l, str) else json.dumps(l)) + "\n" for l in lines))
    return path


@pytest.fixture(scope="module")
def mcq_release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mcq")
    make_toy_build(root / "build", balanced_mcq(40))
    return release(root / "build", "1.0.0", root / "releases", decisions=root / "none")


def test_perfect_predictions_score_100(carv_release, tmp_path):
    preds = write(tmp_path / "perfect.jsonl", [
        {"id": r["id"], "response": json.dumps({"caption": r["answer"]})} for r in rows_of(carv_release)])
    result = score(carv_release, [preds])["models"]["perfect"]
    assert result["overall"]["accuracy"] == 1.0 and result["overall"]["n"] == 5500
    assert result["answer_extraction"]["methods"] == {"json": 5500}
    assert result["tables"]["Table 2"] == {c: 1.0 for c in result["tables"]["Table 2"]}
    assert len(result["tables"]["Table 2"]) == 7 and len(result["tables"]["atomic changes"]) == 6


def test_random_baseline_lands_on_chance_and_shuffled_answers_near_it(carv_release, tmp_path):
    rnd = write_baseline(carv_release, "random", tmp_path / "random.jsonl", seed=3)
    rows = rows_of(carv_release)
    answers = [r["answer"] for r in rows]
    random.Random(5).shuffle(answers)
    shuffled = write(tmp_path / "shuffled.jsonl", [{"id": r["id"], "response": a} for r, a in zip(rows, answers)])
    result = score(carv_release, [rnd, shuffled])["models"]
    o = result["random"]["overall"]
    assert o["ci95"][0] <= o["chance"] <= o["ci95"][1]
    assert result["shuffled"]["overall"]["accuracy"] < 0.03  # a caption of another item is rarely right


def test_a_broken_predictions_file_is_reported_by_line(carv_release, tmp_path, capsys):
    rows = rows_of(carv_release)
    preds = write(tmp_path / "broken.jsonl", [
        {"id": rows[0]["id"], "response": rows[0]["answer"]},
        "{not json",
        {"id": rows[1]["id"]},
        {"id": "carv-nosuch-0001", "response": "x"},
        {"id": rows[0]["id"], "response": "two cups"},
        ["a", "list"],
        {"id": rows[2]["id"], "response": "I think the picture shows something, but I am not sure what. " * 3},
    ])
    result = score(carv_release, [preds])["models"]["broken"]
    p = result["problems"]
    assert p["malformed"][0].startswith("line 2: not valid JSON")
    assert p["malformed"][1] == "line 3: id carv-single-0002: 'response' must be a string" or \
        p["malformed"][1].startswith("line 3:")
    assert p["malformed"][2] == "line 6: needs a string 'id'"
    assert p["unknown_ids"] == ["line 4: carv-nosuch-0001"]
    assert p["duplicate_ids"] == [f"line 5: {rows[0]['id']} (first kept)"]
    assert len(p["missing_ids"]) == 5500 - 2
    assert result["overall"]["n"] == 5500 and result["overall"]["correct"] == 1
    assert result["answer_extraction"]["methods"]["unparsed"] == 1
    assert main(["eval", "score", "--release", str(carv_release), "--predictions", str(preds),
                 "--out", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "malformed: line 2: not valid JSON" in out and "missing: 5498 items count as wrong" in out


def test_an_unverified_release_is_refused_unless_overridden(tmp_path, mcq_release):
    import shutil

    copy = tmp_path / "rel"
    shutil.copytree(mcq_release, copy)
    (copy / "data" / "test.jsonl").write_text((copy / "data" / "test.jsonl").read_text() + "\n")
    preds = write_baseline(mcq_release, "majority", tmp_path / "m.jsonl")
    with pytest.raises(ReleaseError, match="does not verify"):
        score(copy, [preds])
    result = score(copy, [preds], allow_unverified=True)
    assert result["release"]["verified"] is False and result["release"]["allow_unverified"] is True
    paths = report.write(result, tmp_path / "rep")
    assert "did not verify" in paths["markdown"].read_text()


def test_circular_evaluation(mcq_release, tmp_path):
    rows = rows_of(mcq_release)
    perfect, always_a = [], []
    for r in rows:
        k = len(r["options"])
        for rot in range(k):
            options = r["options"][rot:] + r["options"][:rot]
            rid = r["id"] if rot == 0 else f"{r['id']}::rot{rot}"
            perfect.append({"id": rid, "response": f"Answer: {chr(65 + options.index(r['answer']))}"})
            always_a.append({"id": rid, "response": "A"})
    result = score(mcq_release, [write(tmp_path / "perfect.jsonl", perfect),
                                 write(tmp_path / "always_a.jsonl", always_a)])["models"]
    assert result["perfect"]["circular"] == {"items": 40, "proportion_correct": 1.0, "strict_all_rotations": 1.0}
    assert result["always_a"]["circular"]["proportion_correct"] == pytest.approx(0.25)
    assert result["always_a"]["circular"]["strict_all_rotations"] == 0.0


def test_baselines_for_multiple_choice(mcq_release, tmp_path):
    paths = [write_baseline(mcq_release, k, tmp_path / f"{k}.jsonl") for k in ("random", "majority", "choices-only")]
    result = score(mcq_release, paths)["models"]
    for name in ("random", "majority", "choices-only"):
        o = result[name]["overall"]
        assert o["chance"] == 0.25 and o["n"] == 40
    assert result["choices-only"]["overall"]["accuracy"] <= 0.5  # the balanced toy items leak nothing


@pytest.mark.parametrize("response, options, expected", [
    ('{"caption": "two cups on a red table"}', None, ("two cups on a red table", "json")),
    ("Reasoning...\nFinal answer: one bowl under a blue chair.", None, ("one bowl under a blue chair", "final")),
    ("one bowl under a blue chair", None, ("one bowl under a blue chair", "text")),
    ("B", ["x", "y", "z"], ("y", "letter")),
    ("(C)", ["x", "y", "z"], ("z", "letter")),
    ("The answer is A.", ["x", "y", "z"], ("x", "letter")),
    ('{"answer": "B"}', ["x", "y", "z"], ("y", "json")),
    ("I would pick z here", ["x", "y", "z"], ("z", "option")),
    ("maybe x or y", ["x", "y", "z"], (None, "unparsed")),
    ("", None, (None, "empty")),
])
def test_deterministic_extraction(response, options, expected):
    assert extract(response, options) == expected


# --------------------------------------------------------------------------- a chat server on loopback


class ChatServer:
    """Speaks chat completions; answers from a script keyed by the question text.

    ``answer_for(text, images)`` gets the number of images, or with ``urls`` their data URLs.
    """

    def __init__(self, answer_for, misbehave=None, urls=False):
        self.answer_for, self.misbehave = answer_for, misbehave or (lambda text, n: None)
        self.calls = defaultdict(int)
        self.auth = set()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.auth.add(self.headers.get("Authorization"))
                content = body["messages"][0]["content"]
                text = content if isinstance(content, str) else next(c["text"] for c in content if c["type"] == "text")
                images = [] if isinstance(content, str) else [c["image_url"]["url"] for c in content
                                                               if c["type"] == "image_url"]
                server.calls[text] += 1
                action = server.misbehave(text, server.calls[text])
                if action == "slow":
                    time.sleep(1.5)
                if action == "500":
                    return self._send(500, b'{"error": "overloaded"}')
                if action == "garbage":
                    return self._send(200, b"<html>not json</html>")
                reply = server.answer_for(text, images if urls else len(images))
                payload = {"id": "x", "object": "chat.completion", "model": body["model"],
                           "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                                        "finish_reason": "stop"}]}
                self._send(200, json.dumps(payload).encode())

            def _send(self, status, data):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up on a slow answer

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


def truthful(rows):
    truth = {r["question"]: r["answer"] for r in rows}

    def answer_for(text, images):
        question = text.split("\nOptions:")[0]
        options = re.findall(r"^([A-Z])\. (.*)$", text, re.M)
        letter = next(l for l, o in options if o == truth[question])
        return f"The answer is {letter}."
    return answer_for


def test_run_retries_errors_slowness_and_garbage_then_scores(mcq_release, tmp_path, monkeypatch):
    rows = rows_of(mcq_release)
    bad = {r["question"]: kind for r, kind in zip(rows[:9], ["500", "slow", "garbage"] * 3)}

    def misbehave(text, n):
        return bad.get(text.split("\nOptions:")[0]) if n == 1 else None

    server = ChatServer(truthful(rows), misbehave)
    monkeypatch.setenv("TEST_SECRET_KEY", "sk-test-do-not-leak-123")
    try:
        endpoint = Endpoint(server.url, "toy-model", api_key_env="TEST_SECRET_KEY", timeout=0.8,
                            retries=3, backoff=0.05)
        out = tmp_path / "preds.jsonl"
        result = run(mcq_release, endpoint, out, concurrency=4, circular=True, progress=False)
    finally:
        server.close()
    assert result["failed"] == 0 and result["requests"] == 160
    first_questions = [r["question"] for r in rows[:9]]
    # the nine misbehaving questions were asked again (each rotation counts)
    assert all(server.calls[max(t for t in server.calls if t.startswith(q + "\n"))] >= 2
               for q in first_questions)
    assert server.auth == {"Bearer sk-test-do-not-leak-123"}
    for path in tmp_path.iterdir():
        assert "sk-test-do-not-leak" not in path.read_text()
    meta = json.loads((tmp_path / "preds.jsonl.meta.json").read_text())
    assert meta["model"] == "toy-model" and meta["temperature"] == 0.0 and meta["max_tokens"] == 512
    scored = score(mcq_release, [out])["models"]["toy-model"]
    assert scored["overall"]["accuracy"] == 1.0
    assert scored["circular"]["strict_all_rotations"] == 1.0


def test_an_interrupted_run_resumes_without_asking_again(mcq_release, tmp_path):
    rows = rows_of(mcq_release)
    down = {r["question"] for r in rows[20:]}

    def outage(text, n):
        return "500" if text.split("\nOptions:")[0] in down else None

    server = ChatServer(truthful(rows), outage)
    out = tmp_path / "preds.jsonl"
    try:
        endpoint = Endpoint(server.url, "toy", timeout=5, retries=1, backoff=0.01)
        first = run(mcq_release, endpoint, out, concurrency=4, progress=False)
        assert first["failed"] == 20 and first["asked"] == 40
        partial = score(mcq_release, [out])["models"]["toy"]
        assert partial["overall"]["accuracy"] == 0.5 and partial["answer_extraction"]["methods"]["empty"] == 20
        down.clear()
        before = sum(server.calls.values())
        second = run(mcq_release, endpoint, out, concurrency=4, progress=False)
        assert second["from_cache"] == 20 and second["asked"] == 20 and second["failed"] == 0
        assert sum(server.calls.values()) - before == 20
    finally:
        server.close()
    assert score(mcq_release, [out])["models"]["toy"]["overall"]["accuracy"] == 1.0


def test_cli_run_reports_failures_with_a_nonzero_exit(mcq_release, tmp_path, capsys):
    server = ChatServer(lambda text, images: "A", lambda text, n: "500")
    try:
        code = main(["eval", "run", "--release", str(mcq_release), "--model", "m", "--base-url", server.url,
                     "--retries", "0", "--limit", "3", "--out", str(tmp_path / "p.jsonl")])
    finally:
        server.close()
    assert code == 1 and "3 failed" in capsys.readouterr().out


def test_llm_judge_ensemble_only_when_the_parser_fails(mcq_release, tmp_path):
    rows = rows_of(mcq_release)
    vague = [{"id": r["id"], "response": "Hmm, looking at it carefully, I'd go with the second one."}
             for r in rows[:10]]
    vague += [{"id": r["id"], "response": "B"} for r in rows[10:]]
    preds = write(tmp_path / "vague.jsonl", vague)
    truth = {r["question"]: r for r in rows}

    def judge_answer(text, images):  # reads the response it was given: "the second one" means B
        return "B"

    def dissent(text, images):
        return "NONE"

    agree_a, agree_b, no = ChatServer(judge_answer), ChatServer(judge_answer), ChatServer(dissent)
    try:
        two_of_three = Judges((Endpoint(agree_a.url, "j1"), Endpoint(agree_b.url, "j2"), Endpoint(no.url, "j3")), 2)
        result = score(mcq_release, [preds], judges=two_of_three)["models"]["vague"]
        assert result["answer_extraction"]["methods"]["judge"] == 10
        assert sum(agree_a.calls.values()) == 10  # never asked about the 30 parseable answers
        unanimous = Judges(two_of_three.endpoints, 3)
        strict = score(mcq_release, [preds], judges=unanimous)["models"]["vague"]
        assert strict["answer_extraction"]["methods"]["unparsed"] == 10
    finally:
        for s in (agree_a, agree_b, no):
            s.close()
    expected = sum(truth[r["question"]]["options"][1] == r["answer"] for r in rows) / 40
    assert result["overall"]["accuracy"] == pytest.approx(expected)


def test_report_has_tables_plots_and_a_comparison(carv_release, tmp_path):
    rows = rows_of(carv_release)
    a = write(tmp_path / "a.jsonl", [{"id": r["id"], "response": r["answer"]} for r in rows])
    b = write_baseline(carv_release, "majority", tmp_path / "b.jsonl")
    paths = report.write(score(carv_release, [a, b]), tmp_path / "report")
    text = paths["markdown"].read_text()
    assert "| a | 5500 | 100.0" in text and "Table 2" in text and "Union DS" in text
    assert paths["plot-Table 2"].stat().st_size > 5000
    records = [json.loads(l) for l in paths["items"].read_text().splitlines()]
    assert len(records) == 11000 and {"model", "id", "answer", "method", "correct"} <= set(records[0])


# --------------------------------------------------------------------------- the prompt sent, every benchmark

BENCHMARKS = ["carv", "constructure", "cogevolve", "symbols", "corecognition"]
LETTERED = re.compile(r"^([A-Z])\. (.*)$", re.M)
# test-split items asked over HTTP (all when absent): CARV's 5,500 captions are all alike
ASKED = {"carv": 40, "constructure": 120}


def lettered(options: list[str]) -> str:
    return "\n".join(f"{chr(65 + k)}. {o}" for k, o in enumerate(options))


def expected_prompt(row: dict, k: int) -> str:
    """The one text an item may be sent as under rotation k: its question, with the option
    list it already holds lettered A, B, ... in the rotated order."""
    if not row["options"]:
        return row["question"]
    listed = lettered(row["options"])
    assert row["question"].count(listed) == 1, row["id"]
    return row["question"].replace(listed, lettered(row["options"][k:] + row["options"][:k]))


def _stem(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not LETTERED.match(line))


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(data).hexdigest()


class KeyServer:
    """A model that knows every key: it finds the item of a request by its text (option
    lines aside), the options it was shown and its images, and replies as the prompt asks:
    "Answer: <the letter shown for the key>" (then the corrected SMILES or the force when
    asked), or the reference answer for free text. ``asked`` records (id, rotation, text)."""

    def __init__(self, release: Path, rows: list[dict]):
        self.items: dict[tuple, list[dict]] = defaultdict(list)
        for row in rows:
            images = tuple(_digest((release / "data" / n).read_bytes()) for n in row["file_names"])
            self.items[(_stem(row["question"]), frozenset(row["options"] or ()), images)].append(row)
        self.asked: list[tuple[str | None, int | None, str]] = []
        self.chat = ChatServer(self.answer, urls=True)
        self.url = self.chat.url

    def answer(self, text: str, urls: list[str]) -> str:
        import base64

        shown = [o for _, o in LETTERED.findall(text)]
        images = tuple(_digest(base64.b64decode(u.split(",", 1)[1])) for u in urls)
        found = self.items.get((_stem(text), frozenset(shown), images), [])
        if len({r["answer"] for r in found}) != 1:  # unknown, or two items alike with different keys
            self.asked.append((None, None, text))
            return "I cannot tell."
        row = found[0]
        if not row["options"]:
            self.asked.append((row["id"], 0, text))
            return row["answer"]
        turns = [k for k in range(len(shown)) if row["options"][k:] + row["options"][:k] == shown]
        self.asked.append((row["id"], turns[0] if turns else None, text))
        reply = f"Answer: {chr(65 + shown.index(row['answer']))}"
        if "'Corrected SMILES: <SMILES>'" in text:
            reply += f"\nCorrected SMILES: {row['meta']['reference_smiles']}"
        if "'Force: <symbol>'" in text:
            reply += f"\nForce: {row['meta']['force_concerned']}"
        return reply


@pytest.fixture(params=BENCHMARKS)
def released(request) -> tuple[str, Path]:
    return request.param, request.getfixturevalue(f"{request.param}_release")


def test_run_shows_the_options_once_lettered_as_the_scorer_keys_them(released, tmp_path):
    from cogforge.evaluate.extract import rotate
    from cogforge.evaluate.run import prompt_text
    from cogforge.core.releases import load_release
    from cogforge.evaluate.score import Scorer

    benchmark, release = released
    rows, _ = load_release(release)
    scorer = Scorer(rows, benchmark)
    for row in rows:  # every item, every rotation, of every split
        for k in range(len(row["options"] or [None])):
            assert prompt_text(row, rotate(row["options"], k) if row["options"] else None) == \
                expected_prompt(row, k), (row["id"], k)
    test = [r for r in rows if r["split"] == "test"]
    limit = ASKED.get(benchmark)
    asked = test[:limit] if limit else test
    by_id = {r["id"]: r for r in asked}
    key = KeyServer(release, asked)
    try:
        for circular in (False, True):
            key.asked.clear()
            out = tmp_path / f"{'circular' if circular else 'plain'}.jsonl"
            result = run(release, Endpoint(key.url, "key", retries=0), out, concurrency=8, circular=circular,
                         limit=limit, progress=False, split="test")
            assert result["failed"] == 0
            sent = defaultdict(set)
            for item_id, k, text in key.asked:  # the exact text sent
                assert item_id in by_id and text == expected_prompt(by_id[item_id], k), (item_id, text)
                sent[item_id].add(k)
            assert sent == {r["id"]: set(range(len(r["options"]) if circular and r["options"] else 1))
                            for r in asked}
            result = scorer.score(out)  # the test split, from the run's meta
            assert result["split"] == "test"
            records = [r for r in result["records"] if r["id"] in by_id]
            assert len(records) == len(asked) and all(r["correct"] for r in records)
            if circular:
                assert all(all(r["rotations_correct"]) for r in records if by_id[r["id"]]["options"])
            if limit is None:
                assert result["overall"]["accuracy"] == 1.0 and not result["problems"]["missing_ids"]
                if circular and any(r["options"] for r in asked):
                    assert result["circular"]["strict_all_rotations"] == 1.0
    finally:
        key.chat.close()


def test_a_question_that_lists_some_of_its_options_is_refused_before_asking(tmp_path, capsys):
    items = [{"question": "Which colour?\nA. red\nB. green", "options": ["red", "green", "blue"], "answer": "red"}]
    folder = release(make_toy_build(tmp_path / "build", items), "1.0.0", tmp_path / "releases",
                     decisions=tmp_path / "none")
    server = ChatServer(lambda text, images: "A")
    try:
        code = main(["eval", "run", "--release", str(folder), "--model", "m", "--base-url", server.url,
                     "--out", str(tmp_path / "p.jsonl")])
    finally:
        server.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "lists some of its options" in err[0]
    assert err[0].startswith(f"cogforge: {folder / 'data' / 'test.jsonl'}:1: item toy-0000: ")
    assert not server.calls  # nothing was asked
