"""The symbols-guessability stage against a real Label Studio: can a person read the emoji
rebus? A small culture build is pushed, three scripted people guess and judge every
picture, the pull turns their votes into picture decisions, agreement and human accuracy
come from the shared agreement code (guesses scored by the symbols judge), and the next
build leaves the rejected pictures out. In Debian's chromium, the answer stays folded
until the annotator has guessed and opens it.

The server and its users are the session's (conftest); the agreement cross-checks are
those of ``test_annotation``.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from cogforge.annotation import agreement as agr
from cogforge.annotation import projects
from cogforge.annotation.stages import get_stage
from cogforge.cli import main
from cogforge.core.decisions import load_decisions
from test_annotation import annotate, independent_alpha_nominal, independent_kappa, tasks_by_key

ANN = ["ann1@cogforge.test", "ann2@cogforge.test", "ann3@cogforge.test"]
STAGE = "symbols-guessability"
COUNTS = {"emoji-word": 4, "emoji-idiom": 3, "emoji-chengyu": 3, "emoji-chengyu-long": 2}
REASONS = ["too obscure", "an emoji is read differently", "several answers fit", "not legible"]


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def config(root) -> Path:
    path = root / "culture-small.toml"
    counts = ", ".join(f"{task} = {n}" for task, n in COUNTS.items())
    path.write_text(f"seed = 0\n[domains.culture]\ncounts = {{ {counts} }}\n")
    return path


@pytest.fixture(scope="module")
def build(root, config) -> Path:
    """A small culture build (every task), inside Label Studio's document root."""
    from cogforge.core import registry

    out = root / "build" / "symbols-culture"
    registry.get("symbols").build(out, config_path=config, domains=["culture"], progress=False)
    return out


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def wrong(answer: str) -> str:
    """A guess that is not the answer in any spelling: another word, or the idiom reversed."""
    return answer[::-1] if not answer.isascii() else f"{answer} pie"


def script(keys: list[str]) -> dict[str, dict[str, tuple[str, list[str], bool]]]:
    """picture key -> {annotator: (verdict, reasons, guessed right)} for the scripted people:
    a clear rejection, two 2-1 splits each way, a tie (two people only), agreement elsewhere.
    ``keys`` in item id order: the first two pictures rejected are the first items of a task."""
    out = {}
    for n, key in enumerate(keys):
        by = {who: ("accept", [], True) for who in ANN}
        if n == 0:  # nobody reads it
            by = {who: ("reject", ["too obscure"], False) for who in ANN}
        elif n == 1:  # two read one emoji otherwise
            by[ANN[0]] = ("reject", ["an emoji is read differently", "several answers fit"], False)
            by[ANN[1]] = ("reject", ["an emoji is read differently"], False)
        elif n == 2:  # one person stricter than the others
            by[ANN[2]] = ("reject", ["not legible"], True)
        elif n == 3:  # two people only, who disagree: left for an expert
            by = {ANN[0]: ("accept", [], True), ANN[1]: ("reject", ["too obscure"], False)}
        elif n % 3 == 1:
            by[ANN[1]] = ("accept", [], False)  # accepted, though this person guessed wrong
        out[key] = by
    return out


def result(item: dict, verdict: str, reasons: list[str], right: bool) -> list[dict]:
    guess = item["answer"] if right else wrong(item["answer"])
    out = [{"from_name": "guess", "to_name": "image", "type": "textarea", "value": {"text": [guess]}},
           {"from_name": "verdict", "to_name": "image", "type": "choices", "value": {"choices": [verdict]}}]
    if reasons:
        out.append({"from_name": "reasons", "to_name": "image", "type": "choices", "value": {"choices": reasons}})
    return out


@pytest.fixture(scope="module")
def audit(conn, build, root, people, tmp_path_factory) -> dict:
    """The stage pushed with three annotators a picture, judged by the script, pulled."""
    pushed = projects.push(build, STAGE, annotators=3, conn=conn, document_root=root)
    ids = tasks_by_key(conn, pushed["project"])
    items = {Path(i["images"][0]).stem: i for i in read_jsonl(build / "items.jsonl")}
    labels = script([key for key, _ in sorted(items.items(), key=lambda kv: kv[1]["id"])])
    for key, by in labels.items():
        for who, (verdict, reasons, right) in by.items():
            annotate(conn, ids[key], people[who], result(items[key], verdict, reasons, right))
    folder = tmp_path_factory.mktemp("guessability")
    pulled = projects.pull(pushed["project"], conn, snapshots=folder / "snapshots", decisions_root=folder)
    return {"push": pushed, "ids": ids, "labels": labels, "pull": pulled, "items": items}


def test_one_task_per_culture_picture_keyed_by_its_sha256(audit, build, root, conn, server):
    import httpx

    items = [i for i in read_jsonl(build / "items.jsonl") if i["meta"]["domain"] == "culture"]
    assert {i["task"] for i in items} == {f"culture-{t}" for t in COUNTS}
    pictures = {sha256((build / i["images"][0]).read_bytes()): i for i in items}
    assert sorted(audit["ids"]) == sorted(pictures) and audit["push"]["added"] == len(pictures)
    tasks = get_stage(STAGE, "symbols").tasks(build, root)
    for task in tasks:
        item = pictures[task["key"]]
        served = root / parse_qs(urlparse(task["image"]).query)["d"][0]
        assert served.resolve() == (build / item["images"][0]).resolve()
        assert task["question"] == item["question"] and task["answer"] == item["answer"]
        assert task["tasks"] == [item["task"]] and "state" not in task  # a state would go to the builder
        shown = [p["emoji"] for p in item["meta"].get("parts") or item["meta"].get("rebus") or []]
        assert all(e in task["reading"] for e in shown)
    served = httpx.get(server.url + tasks[0]["image"], headers={"Authorization": f"Token {server.creds.token}"})
    assert served.status_code == 200 and sha256(served.content) == tasks[0]["key"]
    # the labelling config Label Studio holds: guess, then the answer behind a panel, then the verdict
    config = conn.client.projects.get(audit["push"]["project"]).label_config
    assert config.index('name="guess"') < config.index("<Collapse") < config.index("$answer") \
        < config.index('name="verdict"')
    assert all(f'"{r}"' in config for r in REASONS)
    again = projects.push(build, STAGE, annotators=3, conn=conn, document_root=root)
    assert again["added"] == 0 and again["present"] == len(pictures) and not again["disappeared"]
    # the Data Manager's table shows every data field unless told: its tab hides the answer (made once)
    views = [v for v in conn.client.views.list(project=audit["push"]["project"])
             if (v.data or {}).get("title") == projects.HIDDEN_VIEW]
    assert len(views) == 1
    assert views[0].data["hiddenColumns"]["explore"] == ["tasks:data.answer", "tasks:data.reading"]


def test_decisions_are_the_majority_per_picture(audit):
    rows = {d["key"]: d for d in load_decisions(audit["pull"]["decisions_file"])}
    assert set(rows) == set(audit["labels"])
    for key, by in audit["labels"].items():
        votes = Counter(v for v, _, _ in by.values())
        expected = "tie" if votes["accept"] == votes["reject"] else votes.most_common(1)[0][0]
        assert rows[key] == {**rows[key], "unit": "image", "decision": expected, "stage": STAGE,
                             "votes": dict(sorted(votes.items())), "state": None}, key
    first, second = list(audit["labels"])[:2]  # in the script's order
    assert rows[first]["reasons"] == ["too obscure"]
    assert rows[second]["reasons"] == ["an emoji is read differently", "several answers fit"]


def test_agreement_and_human_accuracy_from_the_shared_code(audit, tmp_path):
    snapshot = json.loads(Path(audit["pull"]["snapshot"]).read_text())
    out = agr.agreement(snapshot)
    q = out["questions"]["verdict"]
    labels = {k: {who: v for who, (v, _, _) in by.items()} for k, by in audit["labels"].items()}
    assert q["units"] == len(labels) and q["annotators"] == 3 and q["ties"] == 1
    for x, y in [(ANN[0], ANN[1]), (ANN[0], ANN[2]), (ANN[1], ANN[2])]:
        shared = sorted(k for k in labels if x in labels[k] and y in labels[k])
        expected = independent_kappa([labels[k][x] for k in shared], [labels[k][y] for k in shared])
        assert q["cohen_kappa"][f"{x} ~ {y}"]["kappa"] == pytest.approx(expected)
    units = [list(by.values()) for by in labels.values()]
    assert q["krippendorff_alpha"]["nominal"] == pytest.approx(independent_alpha_nominal(units))
    pairs = [sum(a == b for n, a in enumerate(u) for b in u[n + 1:]) / (len(u) * (len(u) - 1) / 2) for u in units]
    assert q["percent_agreement"] == pytest.approx(sum(pairs) / len(pairs))
    cats = ("accept", "reject")
    p_i = [(sum(u.count(c) ** 2 for c in cats) - len(u)) / (len(u) * (len(u) - 1)) for u in units]
    p_j = [sum(u.count(c) for u in units) / sum(map(len, units)) for c in cats]
    p_e = sum(p * p for p in p_j)
    assert q["fleiss_kappa"] == pytest.approx((sum(p_i) / len(p_i) - p_e) / (1 - p_e))
    assert set(out["questions"]["reasons"]["categories"]) >= {"(none)", "too obscure"}
    # the guesses, scored by the symbols judge: an exact answer is right, another word or a
    # reversed idiom is wrong (Chinese answers too: they must not all read as equal)
    h = out["human_accuracy"]
    right = [r for by in audit["labels"].values() for _, _, r in by.values()]
    assert h["answers"] == len(right) and h["accuracy"] == pytest.approx(sum(right) / len(right))
    by_task = Counter()
    for key, by in audit["labels"].items():
        by_task[audit["items"][key]["task"]] += sum(r for _, _, r in by.values())
    assert {t: round(v["accuracy"] * v["answers"]) for t, v in h["by_task"].items()} == \
        {t: by_task[t] for t in h["by_task"]}
    assert set(h["by_task"]) == {f"culture-{t}" for t in COUNTS}
    paths = agr.write_reports(out, tmp_path / "report")
    assert "scored by the same judge as models" in paths["markdown"].read_text()


@pytest.fixture(scope="module")
def rebuilt(audit, root, config) -> Path:
    """The same config built again through the command line, which reads the decisions."""
    out = root / "build" / "symbols-culture-2"
    assert main(["build", "symbols", "--domains", "culture", "--config", str(config), "--out", str(out),
                 "--quiet", "--decisions", str(audit["pull"]["decisions_file"])]) == 0
    return out


def rejected(audit) -> set[str]:
    return {d["key"] for d in load_decisions(audit["pull"]["decisions_file"]) if d["decision"] == "reject"}


def what_is_shown(items: list[dict]) -> list[tuple]:
    return [(i["task"], i["images"], i["answer"]) for i in items]


def test_the_next_build_leaves_the_rejected_pictures_out(audit, build, rebuilt):
    gone = rejected(audit)
    assert len(gone) == 2
    before, after = read_jsonl(build / "items.jsonl"), read_jsonl(rebuilt / "items.jsonl")
    kept = [i for i in before if Path(i["images"][0]).stem not in gone]
    # the same pictures as before, less the rejected ones; nothing else moves
    assert what_is_shown(after) == what_is_shown(kept)
    lost = Counter(i["task"] for i in before if Path(i["images"][0]).stem in gone)
    dropped = json.loads((rebuilt / "manifest.json").read_text())["counts"]["dropped_questions"]
    assert {k: v for k, v in dropped.items() if "rejected" in k} == \
        {f"{task} (rejected in {STAGE})": n for task, n in lost.items()}
    # ...and QC of the old build flags the items whose picture was rejected
    from cogforge.qc.checks import check_decisions
    from cogforge.qc.core import load_build

    decisions = load_decisions(audit["pull"]["decisions_file"])
    flagged = {f.target for f in check_decisions(load_build(build, decisions)).findings if f.severity == "error"}
    assert flagged == {i["id"] for i in before if Path(i["images"][0]).stem in gone}


def test_after_a_rebuild_the_guesses_are_scored_against_the_same_pictures(audit, build, rebuilt, conn, root,
                                                                         tmp_path):
    """Item ids move when a rejected item leaves; the guesses follow the picture's hash."""
    before = {i["id"]: i["images"] for i in read_jsonl(build / "items.jsonl")}
    assert any(before.get(i["id"]) != i["images"] for i in read_jsonl(rebuilt / "items.jsonl"))
    again = projects.push(rebuilt, STAGE, annotators=3, conn=conn, document_root=root)
    assert again["added"] == 0 and sorted(again["disappeared"]) == sorted(rejected(audit))
    pulled = projects.pull(again["project"], conn, snapshots=tmp_path / "s", decisions_root=tmp_path)
    h = agr.agreement(json.loads(Path(pulled["snapshot"]).read_text()))["human_accuracy"]
    right = [r for key, by in audit["labels"].items() if key not in rejected(audit) for _, _, r in by.values()]
    assert h["answers"] == len(right) and h["accuracy"] == pytest.approx(sum(right) / len(right))


def test_browser_the_answer_stays_folded_until_the_annotator_opens_it(server, conn, build, root, audit,
                                                                      tmp_path):
    """Debian's chromium through the real labeling interface, as an annotator works ("Label
    All Tasks"): the guess is typed with no answer in sight; opening the panel shows it; the
    submitted annotation holds the guess and the verdict."""
    from playwright.sync_api import sync_playwright

    pushed = projects.push(build, STAGE, conn=conn, document_root=root, title="symbols: guessability (browser)")
    answers = {i["answer"]: key for key, i in audit["items"].items()}

    def visible(page) -> list[str]:
        return [a for a in answers if any(page.get_by_text(a, exact=True).nth(n).is_visible()
                                          for n in range(page.get_by_text(a, exact=True).count()))]

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", "--disable-quic"])
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(f"{server.url}/user/login")
        page.fill("input[name=email]", server.creds.username)
        page.fill("input[name=password]", server.creds.password)
        page.click("button[type=submit]")
        page.wait_for_url(lambda url: "/user/login" not in url, timeout=60_000)
        page.goto(f"{server.url}/projects/{pushed['project']}/data?labeling=1")
        page.get_by_text("What word or idiom do the emoji spell?").wait_for(timeout=60_000)
        shown = """() => [...document.querySelectorAll("img")]
            .filter(i => i.src.includes('local-files') || i.src.startsWith('blob:'))
            .map(i => [i.complete, i.naturalWidth, Math.round(i.getBoundingClientRect().width)])"""
        page.wait_for_function(f"() => ({shown})().some(([ok, w, px]) => ok && w > 0 && px > 200)", timeout=60_000)
        assert visible(page) == []
        box = page.get_by_placeholder("the word, phrase or idiom you read in the picture")
        box.fill("my guess")
        box.press("Enter")  # a TextArea keeps what Enter adds
        page.screenshot(path=str(tmp_path / "folded.png"))
        page.get_by_text("Show the intended answer (after guessing)").click()
        page.wait_for_function("() => !document.querySelector('.ant-collapse-content-inactive')", timeout=10_000)
        (answer,) = visible(page)
        page.locator("label:has-text('reject')").first.click()
        page.locator("label:has-text('several answers fit')").first.click()
        page.screenshot(path=str(tmp_path / "opened.png"))
        with page.expect_response(lambda r: "/annotations" in r.url and r.request.method == "POST",
                                  timeout=30_000) as response:
            page.get_by_test_id("bottombar-submit-button").click()
        assert response.value.status == 201
        browser.close()
    pulled = projects.pull(pushed["project"], conn, snapshots=tmp_path / "s", decisions_root=tmp_path)
    (task,) = [t for t in json.loads(Path(pulled["snapshot"]).read_text())["tasks"] if t["annotations"]]
    assert task["data"]["key"] == answers[answer] and task["data"]["answer"] == answer
    (mine,) = task["annotations"]
    assert mine["annotator"] == server.creds.username
    assert projects.choices(mine, "guess") == ["my guess"]
    assert projects.choices(mine, "verdict") == ["reject"]
    assert projects.choices(mine, "reasons") == ["several answers fit"]
