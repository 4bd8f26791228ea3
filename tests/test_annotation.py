"""Label Studio end to end: a real server on loopback, real annotations, real agreement.

One server is started for the module (SQLite, a temporary data folder, a free port).
Annotations from several people are created through the API as those users; the
browser test drives Debian's chromium through the real labeling interface.
"""

from __future__ import annotations

import http.server
import itertools
import json
import os
import threading
from collections import Counter
from pathlib import Path

import pytest

from cogforge.annotation import agreement as agr
from cogforge.annotation import projects
from cogforge.annotation.server import free_port
from cogforge.builders import carv
from cogforge.cli import main
from conftest import write_small_config


@pytest.fixture(scope="module")
def build(root) -> Path:
    config = write_small_config(root / "c.toml", [("single", "single", "single", 2, 12),
                                                  ("ss-union-2", "shared", "union", 2, 12)])
    carv.build(root / "build" / "carv", config_path=config, progress=False)
    return root / "build" / "carv"


def annotate(conn, task_id: int, user: int, result: list[dict]) -> None:
    conn.client.annotations.create(task_id, result=result, completed_by=user)


def verdict(value: str, reasons: list[str] = ()) -> list[dict]:
    out = [{"from_name": "verdict", "to_name": "image", "type": "choices", "value": {"choices": [value]}}]
    if reasons:
        out.append({"from_name": "reasons", "to_name": "image", "type": "choices",
                    "value": {"choices": list(reasons)}})
    return out


def tasks_by_key(conn, project_id: int) -> dict[str, int]:
    return {t.data["key"]: t.id for t in conn.client.tasks.list(project=project_id, fields="all")}


# Scripted labels for the first 30 images: everyone accepts, except where a pattern says.
def scripted(i: int) -> dict[str, str]:
    labels = {"ann1@cogforge.test": "accept", "ann2@cogforge.test": "accept", "ann3@cogforge.test": "accept"}
    if i % 5 == 0:
        labels = {k: "reject" for k in labels}            # clear rejections
    if i % 7 == 3:
        labels["ann2@cogforge.test"] = "reject"           # ann2 is stricter
    if i % 11 == 4:
        labels["ann3@cogforge.test"] = "reject"
    return labels


@pytest.fixture(scope="module")
def audit(conn, build, root, people, tmp_path_factory):
    """The image-audit project: pushed with 3 annotators, 30 images labelled by 3 people."""
    result = projects.push(build, "carv-image-audit", annotators=3, conn=conn, document_root=root)
    keys = tasks_by_key(conn, result["project"])
    ordered = sorted(keys)
    labels = {}
    for i, key in enumerate(ordered[:30]):
        labels[key] = scripted(i)
        for email, value in labels[key].items():
            annotate(conn, keys[key], people[email],
                     verdict(value, ["wrong count"] if value == "reject" else []))
    snapshots = tmp_path_factory.mktemp("snapshots")
    pulled = projects.pull(result["project"], conn, snapshots=snapshots, decisions_root=root)
    return {"push": result, "labels": labels, "pull": pulled, "snapshots": snapshots}


def test_push_creates_tasks_with_predictions_and_is_idempotent(conn, build, root, audit):
    first = audit["push"]
    assert first["created"] and first["added"] == 432
    project = conn.client.projects.get(first["project"])
    assert project.maximum_annotations == 3 and project.task_number == 432
    again = projects.push(build, "carv-image-audit", annotators=3, conn=conn, document_root=root)
    assert again["added"] == 0 and again["present"] == 432 and not again["created"]
    assert conn.client.projects.get(first["project"]).task_number == 432
    task = next(iter(conn.client.tasks.list(project=first["project"], fields="all")))
    assert task.predictions and task.predictions[0].model_version == "cogforge-qc"
    assert all(a["completed_by"] for a in (task.annotations or []))  # predictions are not annotations


def test_pull_pages_through_every_task_and_writes_an_append_only_snapshot(conn, audit):
    pulled = audit["pull"]
    snapshot = json.loads(Path(pulled["snapshot"]).read_text())
    assert len(snapshot["tasks"]) == 432  # more than one page of 200
    assert pulled["annotations"] == 90
    first_bytes = Path(pulled["snapshot"]).read_bytes()
    second = projects.pull(audit["push"]["project"], conn, snapshots=audit["snapshots"],
                           decisions_root=Path(pulled["decisions_file"]).parent.parent.parent)
    assert Path(second["snapshot"]).name == "0002.json"
    assert Path(pulled["snapshot"]).read_bytes() == first_bytes


def test_decisions_are_the_majority_with_ties_flagged(audit):
    decisions = [json.loads(l) for l in Path(audit["pull"]["decisions_file"]).read_text().splitlines()]
    by_key = {d["key"]: d for d in decisions}
    assert len(by_key) == 30
    for key, labels in audit["labels"].items():
        votes = Counter(labels.values())
        expected = "reject" if votes["reject"] >= 2 else "accept"
        assert by_key[key]["decision"] == expected, key
        assert by_key[key]["votes"] == dict(sorted(votes.items()))
        if expected == "reject":
            assert by_key[key]["reasons"] == ["wrong count"] and by_key[key]["state"]


def independent_kappa(a, b):
    cats = sorted(set(a) | set(b))
    n = len(a)
    confusion = {(x, y): 0 for x in cats for y in cats}
    for x, y in zip(a, b):
        confusion[(x, y)] += 1
    po = sum(confusion[(c, c)] for c in cats) / n
    pe = sum((sum(confusion[(c, y)] for y in cats) / n) * (sum(confusion[(x, c)] for x in cats) / n) for c in cats)
    return (po - pe) / (1 - pe)


def independent_alpha_nominal(units: list[list[str]]) -> float:
    """Krippendorff's alpha from the coincidence matrix, written out longhand."""
    cats = sorted({v for u in units for v in u})
    o = {(c, k): 0.0 for c in cats for k in cats}
    for u in units:
        m = len(u)
        if m < 2:
            continue
        for i, j in itertools.permutations(range(m), 2):
            o[(u[i], u[j])] += 1 / (m - 1)
    n_c = {c: sum(o[(c, k)] for k in cats) for c in cats}
    n = sum(n_c.values())
    disagree_obs = sum(o[(c, k)] for c in cats for k in cats if c != k)
    disagree_exp = sum(n_c[c] * n_c[k] for c in cats for k in cats if c != k) / (n - 1)
    return 1 - disagree_obs / disagree_exp


def test_agreement_matches_an_independent_computation(audit, tmp_path):
    snapshot = json.loads(Path(audit["pull"]["snapshot"]).read_text())
    result = agr.agreement(snapshot)
    q = result["questions"]["verdict"]
    labels = audit["labels"]
    keys = sorted(labels)
    names = ["ann1@cogforge.test", "ann2@cogforge.test", "ann3@cogforge.test"]
    assert q["units"] == 30 and q["annotators"] == 3
    for x, y in itertools.combinations(names, 2):
        expected = independent_kappa([labels[k][x] for k in keys], [labels[k][y] for k in keys])
        assert q["cohen_kappa"][f"{x} ~ {y}"]["kappa"] == pytest.approx(expected)
    units = [[labels[k][n] for n in names] for k in keys]
    assert q["krippendorff_alpha"]["nominal"] == pytest.approx(independent_alpha_nominal(units))
    agree_pairs = [sum(a == b for a, b in itertools.combinations(u, 2)) / 3 for u in units]
    assert q["percent_agreement"] == pytest.approx(sum(agree_pairs) / 30)
    # Fleiss with equal raters: P_bar and P_e from the definition.
    p_bar = sum((sum(u.count(c) ** 2 for c in ("accept", "reject")) - 3) / 6 for u in units) / 30
    p_j = [sum(u.count(c) for u in units) / 90 for c in ("accept", "reject")]
    p_e = sum(p * p for p in p_j)
    assert q["fleiss_kappa"] == pytest.approx((p_bar - p_e) / (1 - p_e))
    majority = {k: Counter(labels[k].values()).most_common(1)[0][0] for k in keys}
    ann2 = sum(labels[k]["ann2@cogforge.test"] == majority[k] for k in keys) / 30
    assert q["per_annotator"]["ann2@cogforge.test"]["agreement_with_adjudicated"] == pytest.approx(ann2)
    paths = agr.write_reports(result, tmp_path / "report")
    assert paths["heatmap-verdict"].stat().st_size > 1000
    assert "Cohen's kappa" in paths["markdown"].read_text()


def test_cli_agreement_on_a_snapshot(audit, tmp_path, capsys):
    assert main(["annotate", "agreement", str(audit["pull"]["snapshot"]), "--out", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "Fleiss kappa" in out and (tmp_path / "r" / "agreement.md").is_file()


def test_rebuild_excludes_rejected_states_and_keeps_table1_counts(audit, build, root, tmp_path, capsys):
    decisions_file = audit["pull"]["decisions_file"]
    rejected = [json.loads(l) for l in Path(decisions_file).read_text().splitlines()]
    rejected = [d for d in rejected if d["decision"] == "reject"]
    assert rejected
    out = tmp_path / "rebuilt"
    assert main(["build", "carv", "--config", str(root / "c.toml"), "--out", str(out), "--quiet",
                 "--decisions", str(decisions_file)]) == 0
    assert f"left out {len(rejected)} states" in capsys.readouterr().out
    bad = {tuple(d["state"].values()) for d in rejected}
    items = [json.loads(l) for l in (out / "items.jsonl").read_text().splitlines()]
    assert Counter(i["task"] for i in items) == {"single": 12, "ss-union-2": 12}
    for item in items:
        assert not any(tuple(s.values()) in bad for s in item["meta"]["states"].values())
    # ...and QC of the old build flags the items that use rejected images.
    from cogforge.qc import run_qc

    report = run_qc(build, decisions_file)
    assert any(f.check == "decisions" and f.severity == "error" for f in report.findings)


def test_repush_after_a_rebuild_reports_what_disappeared(conn, root, audit, tmp_path):
    config = write_small_config(root / "c2.toml", [("single", "single", "single", 2, 12)])
    excluded = [{"subject": "cup", "subject_number": "one", "object": "table", "object_color": c,
                 "spatial_relation": "on"} for c in ("wood", "red", "blue")]
    rebuilt = root / "build" / "carv-v2"
    carv.build(rebuilt, config_path=config, excluded=excluded, progress=False)
    result = projects.push(rebuilt, "carv-image-audit", annotators=3, conn=conn, document_root=root)
    assert result["project"] == audit["push"]["project"]
    assert result["added"] == 0 and len(result["disappeared"]) == 3


def test_human_baseline_accuracy_uses_the_model_judge(conn, build, root, people, tmp_path):
    result = projects.push(build, "carv-human-baseline", annotators=2, conn=conn, document_root=root)
    items = {json.loads(l)["id"]: json.loads(l) for l in (build / "items.jsonl").read_text().splitlines()}
    keys = tasks_by_key(conn, result["project"])
    task = conn.client.tasks.get(keys[sorted(keys)[0]])
    assert "<b>Answer:</b>" not in task.data["html"] and "local-files" in task.data["html"]
    expected = []
    for n, item_id in enumerate(sorted(keys)[:10]):
        answer = items[item_id]["answer"]
        wrong = answer.replace("two ", "one ", 1) if answer.startswith("two") else answer.replace("one ", "two ", 1)
        for email, text in (("ann1@cogforge.test", answer), ("ann2@cogforge.test", answer if n % 2 else wrong)):
            annotate(conn, keys[item_id], people[email],
                     [{"from_name": "caption", "to_name": "item", "type": "textarea", "value": {"text": [text]}}])
            expected.append(text == answer)
    pulled = projects.pull(result["project"], conn, snapshots=tmp_path / "snaps", decisions_root=tmp_path)
    assert pulled["decisions_file"] is None  # this stage decides nothing
    acc = agr.agreement(json.loads(Path(pulled["snapshot"]).read_text()))["human_accuracy"]
    assert acc["answers"] == 20 and acc["accuracy"] == pytest.approx(sum(expected) / 20)
    assert acc["per_annotator"]["ann1@cogforge.test"]["accuracy"] == 1.0
    assert acc["per_annotator"]["ann2@cogforge.test"]["accuracy"] == 0.5


def test_item_validation_works_for_any_benchmark(conn, root, tmp_path):
    from conftest import balanced_mcq, make_toy_build

    toy = make_toy_build(root / "build" / "toy", balanced_mcq(8))
    result = projects.push(toy, "item-validation", conn=conn, document_root=root)
    keys = tasks_by_key(conn, result["project"])
    annotate(conn, keys["toy-0000"], 1, [
        {"from_name": "verdict", "to_name": "item", "type": "choices", "value": {"choices": ["reject"]}},
        {"from_name": "reasons", "to_name": "item", "type": "choices", "value": {"choices": ["text shortcut"]}}])
    pulled = projects.pull(result["project"], conn, snapshots=tmp_path / "s", decisions_root=tmp_path)
    rows = [json.loads(l) for l in Path(pulled["decisions_file"]).read_text().splitlines()]
    assert rows == [{**rows[0], "unit": "item", "key": "toy-0000", "decision": "reject",
                     "reasons": ["text shortcut"]}]


def test_an_unreachable_server_is_a_clear_error_and_writes_nothing(tmp_path, capsys, monkeypatch):
    port = free_port()
    monkeypatch.setenv("LABEL_STUDIO_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "x" * 40)
    with pytest.raises(projects.AnnotationError, match="unreachable"):
        projects.pull(1, snapshots=tmp_path / "snaps", decisions_root=tmp_path)
    assert main(["annotate", "pull", "1"]) == 2
    assert "unreachable" in capsys.readouterr().err
    assert not (tmp_path / "snaps").exists() and not (tmp_path / "annotation").exists()


class _Broken(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # healthy, but every API call fails
        status = 200 if self.path == "/health" else 500
        body = b'{"status": "UP"}' if status == 200 else b'{"detail": "database is locked"}'
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_server_that_returns_errors_is_a_clear_error_and_writes_nothing(tmp_path):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Broken)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        conn = projects.connect(f"http://127.0.0.1:{httpd.server_address[1]}", "t" * 40, timeout=5)
        with pytest.raises(projects.AnnotationError, match="HTTP 500"):
            projects.pull(7, conn, snapshots=tmp_path / "snaps", decisions_root=tmp_path)
    finally:
        httpd.shutdown()
    assert not (tmp_path / "snaps").exists() and not (tmp_path / "annotation").exists()


def test_browser_annotator_sees_the_image_and_submits(server, conn, build, root, tmp_path):
    """Debian's chromium, driven by Playwright, through the real labeling interface."""
    from playwright.sync_api import sync_playwright

    result = projects.push(build, "carv-image-audit", annotators=3, conn=conn, document_root=root)
    keys = tasks_by_key(conn, result["project"])
    key = sorted(keys)[-1]  # not one of the scripted 30
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", "--disable-quic"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server.url}/user/login")
        page.fill("input[name=email]", server.creds.username)
        page.fill("input[name=password]", server.creds.password)
        page.click("button[type=submit]")
        page.wait_for_url(lambda url: "/user/login" not in url, timeout=60_000)
        page.goto(f"{server.url}/projects/{result['project']}/data?task={keys[key]}")
        page.get_by_text("Does the picture show exactly this?").wait_for(timeout=60_000)
        # The labeling interface loads the served file and shows it through a blob: URL.
        shown = """() => [...document.querySelectorAll("img")]
            .filter(i => i.src.includes('local-files') || i.src.startsWith('blob:'))
            .map(i => [i.complete, i.naturalWidth, i.naturalHeight, Math.round(i.getBoundingClientRect().width)])"""
        page.wait_for_function(f"() => ({shown})().some(([ok, w, h, px]) => ok && w > 0 && px > 200)",
                               timeout=60_000)
        assert any(ok and w == 512 and h == 512 and px > 200 for ok, w, h, px in page.evaluate(shown))
        # A choice is a label holding the value and its hotkey ("reject[2]").
        page.locator("label:has-text('reject')").first.click()
        page.locator("label:has-text('wrong colour')").first.click()
        page.screenshot(path=str(tmp_path / "labeling.png"))
        with page.expect_response(lambda r: "/annotations" in r.url and r.request.method == "POST",
                                  timeout=30_000) as response:
            page.get_by_role("button", name="Submit").click()
        assert response.value.status == 201
        browser.close()
    pulled = projects.pull(result["project"], conn, snapshots=tmp_path / "snaps", decisions_root=tmp_path)
    snapshot = json.loads(Path(pulled["snapshot"]).read_text())
    task = next(t for t in snapshot["tasks"] if t["data"]["key"] == key)
    mine = [a for a in task["annotations"] if a["annotator"] == server.creds.username]
    assert len(mine) == 1
    assert projects.choices(mine[0], "verdict") == ["reject"]
    assert projects.choices(mine[0], "reasons") == ["wrong colour"]
