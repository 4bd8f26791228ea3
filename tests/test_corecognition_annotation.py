"""CoreCognition's two rounds of cross-validation against a real Label Studio: people
answer each item (without seeing its answer) and judge it; their letters are scored
against the build, agreement is computed, and the families whose items were rejected
show in QC.

The server and its users are the session's (conftest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cogforge.annotation import agreement as agr
from cogforge.annotation import projects
from cogforge.core.decisions import load_decisions
from test_annotation import annotate, tasks_by_key

ANN = ["ann1@cogforge.test", "ann2@cogforge.test", "ann3@cogforge.test"]


@pytest.fixture(scope="module")
def build(root) -> Path:
    """A small CoreCognition build (one pair per concept) inside Label Studio's document root."""
    from cogforge.builders import corecognition
    from cogforge.generators.corecognition import CONCEPTS

    config = root / "corecognition-small.toml"
    config.write_text("seed = 0\ncounts = { " + ", ".join(f"{c} = 2" for c in CONCEPTS) + " }\n")
    out = root / "build" / "corecognition"
    corecognition.build(out, config_path=config, progress=False)
    return out


def items(build: Path) -> list[dict]:
    return [json.loads(line) for line in (build / "items.jsonl").read_text().splitlines()]


def response(letter: str, verdict: str, reasons: list[str] = ()) -> list[dict]:
    out = [{"from_name": "answer", "to_name": "item", "type": "choices", "value": {"choices": [letter]}},
           {"from_name": "verdict", "to_name": "item", "type": "choices", "value": {"choices": [verdict]}}]
    if reasons:
        out.append({"from_name": "reasons", "to_name": "item", "type": "choices",
                    "value": {"choices": list(reasons)}})
    return out


def wrong(letter: str) -> str:
    return "B" if letter == "A" else "A"


@pytest.fixture(scope="module")
def rounds(build, conn, people, root, tmp_path_factory) -> dict:
    """Round 1: ann1 answers everything right and accepts; ann2 gets three items wrong and
    rejects both items of one family as confounded. Round 2 (another group): ann3 rejects
    one item as a text shortcut. Both rounds pulled into one decisions file."""
    rows = items(build)
    flagged_family = rows[0]["meta"]["family"]
    misses = {rows[k]["id"] for k in (3, 8, 13)}
    shortcut = rows[5]["id"]
    folder = tmp_path_factory.mktemp("corecognition-decisions")
    out = {"rows": rows, "flagged_family": flagged_family, "misses": misses, "shortcut": shortcut}
    first = projects.push(build, "corecognition-cross-validation-1", annotators=2, conn=conn, document_root=root)
    ids = tasks_by_key(conn, first["project"])
    for r in rows:
        letter = r["meta"]["answer_letter"]
        annotate(conn, ids[r["id"]], people[ANN[0]], response(letter, "accept"))
        bad = r["meta"]["family"] == flagged_family
        annotate(conn, ids[r["id"]], people[ANN[1]],
                 response(wrong(letter) if r["id"] in misses else letter, "reject" if bad else "accept",
                          ["confounded"] if bad else []))
    out["first"] = projects.pull(first["project"], conn, snapshots=folder / "snapshots", decisions_root=folder)
    second = projects.push(build, "corecognition-cross-validation-2", annotators=1, conn=conn, document_root=root)
    ids2 = tasks_by_key(conn, second["project"])
    for r in rows:
        bad = r["id"] == shortcut
        annotate(conn, ids2[r["id"]], people[ANN[2]], response(r["meta"]["answer_letter"],
                                                                 "reject" if bad else "accept",
                                                                 ["text shortcut"] if bad else []))
    out["second"] = projects.pull(second["project"], conn, snapshots=folder / "snapshots", decisions_root=folder)
    out["push"] = (first, second)
    return out


def test_tasks_hide_the_answer_and_show_every_frame(build, root):
    from cogforge.annotation.stages import get_stage

    tasks = {t["key"]: t for t in get_stage("corecognition-cross-validation-1").tasks(build, root)}
    for r in items(build):
        html = tasks[r["id"]]["html"]
        assert "Answer:" not in html and html.count("<img ") == len(r["images"])
        assert tasks[r["id"]]["state"]["family"] == r["meta"]["family"]


def test_two_rounds_are_two_projects_and_their_decisions_stay_apart(rounds):
    first, second = rounds["push"]
    assert first["project"] != second["project"] and first["added"] == second["added"] == len(rounds["rows"])
    decisions = load_decisions(rounds["second"]["decisions_file"])
    by_stage = {s: {d["key"]: d for d in decisions if d["stage"] == s}
                for s in ("corecognition-cross-validation-1", "corecognition-cross-validation-2")}
    assert all(len(v) == len(rounds["rows"]) for v in by_stage.values())
    flagged = {r["id"] for r in rounds["rows"] if r["meta"]["family"] == rounds["flagged_family"]}
    # round 1: one accept and one reject on the flagged family's items is a tie
    assert {k for k, d in by_stage["corecognition-cross-validation-1"].items() if d["decision"] == "tie"} == flagged
    assert [k for k, d in by_stage["corecognition-cross-validation-2"].items() if d["decision"] == "reject"] == \
        [rounds["shortcut"]]


def test_people_are_scored_against_the_answer_letters_with_agreement(rounds):
    snapshot = json.loads(Path(rounds["first"]["snapshot"]).read_text())
    result = agr.agreement(snapshot)
    acc = result["human_accuracy"]
    n = len(rounds["rows"])
    assert acc["answers"] == 2 * n and acc["accuracy"] == pytest.approx((2 * n - 3) / (2 * n))
    assert acc["per_annotator"][ANN[0]]["accuracy"] == 1.0
    assert acc["per_annotator"][ANN[1]]["accuracy"] == pytest.approx((n - 3) / n)
    missed_families = {r["meta"]["family"] for r in rounds["rows"] if r["id"] in rounds["misses"]}
    assert {f for f, v in acc["by_family"].items() if v["accuracy"] < 1} == missed_families
    report = agr.write_reports(result, Path(rounds["first"]["snapshot"]).parent / "report")
    assert "| family | answers | accuracy |" in report["markdown"].read_text()
    answer = result["questions"]["answer"]
    assert answer["units"] == n and answer["annotators"] == 2
    assert 0 < answer["percent_agreement"] < 1


def test_flagged_families_show_in_qc(rounds, build):
    from cogforge.qc import run_qc

    report = run_qc(build, rounds["second"]["decisions_file"])
    warnings = {f.target: f.message for f in report.findings if f.check == "flagged-families"}
    shortcut_family = next(r["meta"]["family"] for r in rounds["rows"] if r["id"] == rounds["shortcut"])
    assert set(warnings) == {shortcut_family, rounds["flagged_family"]}
    assert "text shortcut 1" in warnings[shortcut_family]
    assert "confounded 2" in warnings[rounds["flagged_family"]] and "2 of 2" in warnings[rounds["flagged_family"]]
    errors = {f.target for f in report.findings if f.check == "decisions" and f.severity == "error"}
    assert rounds["shortcut"] in errors
    stats = report.stats["cross-validation"]
    assert stats["families_reviewed"] == len({r["meta"]["family"] for r in rounds["rows"]})
