"""CogEvolve's annotation stages against a real Label Studio: sense-graph edges judged by
three people become decisions that turn edges round, relabel or remove them; schema
images are served to annotators and decided by their hash.

The server and its users are the session's (conftest); the agreement cross-checks are
those of ``test_annotation``.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from cogforge.annotation import agreement as agr
from cogforge.annotation import projects
from cogforge.annotation.stages import get_stage
from cogforge.core.decisions import load_decisions
from cogforge.generators.cogevolve.graphs import apply_decisions, edge_key
from test_annotation import annotate, independent_alpha_nominal, independent_kappa, tasks_by_key, verdict

ANN = ["ann1@cogforge.test", "ann2@cogforge.test", "ann3@cogforge.test"]


@pytest.fixture(scope="module")
def build(root) -> Path:
    """The default CogEvolve build, inside Label Studio's document root."""
    from cogforge.core import registry

    out = root / "build" / "cogevolve"
    registry.get("cogevolve").build(out, progress=False)
    return out


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def small(build, root) -> dict:
    """A copy of the build whose graphs.jsonl keeps eight two-sense graphs and one larger
    one; names the edges the scripted annotators will judge."""
    graphs = read_jsonl(build / "graphs.jsonl")
    pairs = [g for g in graphs if len(g["senses"]) == 2][:8]
    big = next(g for g in graphs if len(g["senses"]) >= 3)
    # A leaf edge of the larger graph: removing it keeps the rest of the graph.
    sources = {s for s, _, _ in big["edges"]}
    leaf = next(e for e in big["edges"] if e[1] not in sources)
    out = root / "build" / "cogevolve-small"
    shutil.copytree(build, out)
    kept = pairs + [big]
    (out / "graphs.jsonl").write_text("".join(json.dumps(g, sort_keys=True) + "\n" for g in kept))
    key = lambda g, e: edge_key(g["word"], e[0], e[1])  # noqa: E731
    return {"build": out, "graphs": kept, "reverse": (pairs[0], pairs[0]["edges"][0]),
            "relabel": (pairs[1], pairs[1]["edges"][0]), "split": (pairs[2], pairs[2]["edges"][0]),
            "tie": (pairs[3], pairs[3]["edges"][0]), "unrelated": (big, leaf),
            "keys": [key(g, e) for g in kept for e in g["edges"]], "key": key}


def vote(value: str, reasons: list[str] = ()) -> list[dict]:
    out = [{"from_name": "verdict", "to_name": "relation", "type": "choices", "value": {"choices": [value]}}]
    if reasons:
        out.append({"from_name": "reasons", "to_name": "relation", "type": "choices",
                    "value": {"choices": list(reasons)}})
    return out


def script(small: dict) -> dict[str, dict[str, tuple[str, list[str]]]]:
    """edge key -> {annotator: (verdict, reasons)}; everyone accepts what is not named here."""
    k = lambda name: small["key"](*small[name])  # noqa: E731
    rev, rel, unrelated = ["direction reversed"], ["wrong label"], ["not related"]
    named = {
        k("reverse"): {ANN[0]: ("reject", rev), ANN[1]: ("reject", rev + rel), ANN[2]: ("accept", [])},
        k("relabel"): {ANN[0]: ("reject", rel), ANN[1]: ("reject", rel), ANN[2]: ("reject", rev)},
        # two reject votes, one reason each: neither reason has a strict majority
        k("split"): {ANN[0]: ("reject", rev), ANN[1]: ("reject", rel), ANN[2]: ("accept", [])},
        k("tie"): {ANN[0]: ("accept", []), ANN[1]: ("reject", rev)},
        k("unrelated"): {ANN[0]: ("reject", unrelated), ANN[1]: ("reject", unrelated),
                         ANN[2]: ("reject", unrelated)},
    }
    out = {}
    for n, key in enumerate(small["keys"]):
        dissent = ("reject", unrelated) if n % 3 == 0 else ("accept", [])
        out[key] = named.get(key, {ANN[0]: ("accept", []), ANN[1]: ("accept", []), ANN[2]: dissent})
    return out


@pytest.fixture(scope="module")
def audit(conn, small, people, root, tmp_path_factory) -> dict:
    """The sense-graph audit of the small build, judged by three people and pulled."""
    pushed = projects.push(small["build"], "sense-graph-audit", annotators=3, conn=conn, document_root=root)
    ids = tasks_by_key(conn, pushed["project"])
    labels = script(small)
    for key, by in labels.items():
        for email, (value, reasons) in by.items():
            annotate(conn, ids[key], people[email], vote(value, reasons))
    folder = tmp_path_factory.mktemp("cogevolve-decisions")
    pulled = projects.pull(pushed["project"], conn, snapshots=folder / "snapshots", decisions_root=folder)
    return {"push": pushed, "ids": ids, "labels": labels, "pull": pulled}


def test_one_task_per_edge_keyed_like_the_decisions(audit, small, conn):
    assert audit["push"]["added"] == len(small["keys"]) and sorted(audit["ids"]) == sorted(small["keys"])
    graph, (s, t, label) = small["unrelated"]
    task = conn.client.tasks.get(audit["ids"][small["key"](graph, (s, t))])
    assert task.data["from"] == f"From: {graph['senses'][s]['gloss']}"
    assert task.data["to"] == f"To: {graph['senses'][t]['gloss']}"
    assert task.data["relation"] == f"Proposed relation: {label}"
    third = next(k for k in graph["senses"] if k not in (s, t))
    assert f"- {graph['senses'][third]['gloss']}" in task.data["others"].splitlines()
    assert task.data["state"] == {"graph": graph["id"], "word": graph["word"], "source": s, "target": t,
                                  "label": label}


def test_edge_decisions_carry_the_majority_fix(audit, small):
    rows = {d["key"]: d for d in load_decisions(audit["pull"]["decisions_file"])}
    assert set(rows) == set(small["keys"]) and {d["unit"] for d in rows.values()} == {"edge"}
    k = lambda name: small["key"](*small[name])  # noqa: E731
    assert rows[k("reverse")]["decision"] == "reject" and rows[k("reverse")]["fix"] == "reverse"
    assert rows[k("relabel")]["decision"] == "reject" and rows[k("relabel")]["fix"] == "relabel"
    assert rows[k("split")]["decision"] == "reject" and rows[k("split")]["fix"] is None
    assert rows[k("unrelated")]["fix"] is None and rows[k("unrelated")]["reasons"] == ["not related"]
    assert rows[k("tie")]["decision"] == "tie" and "fix" not in rows[k("tie")]
    for key, by in audit["labels"].items():
        votes = Counter(v for v, _ in by.values())
        assert rows[key]["votes"] == dict(sorted(votes.items())), key
        if rows[key]["decision"] == "accept":
            assert "fix" not in rows[key]


def test_agreement_on_edges_matches_an_independent_computation(audit):
    snapshot = json.loads(Path(audit["pull"]["snapshot"]).read_text())
    result = agr.agreement(snapshot)
    q = result["questions"]["verdict"]
    labels = {k: {who: v for who, (v, _) in by.items()} for k, by in audit["labels"].items()}
    assert q["units"] == len(labels) and q["annotators"] == 3
    for x, y in [(ANN[0], ANN[1]), (ANN[0], ANN[2]), (ANN[1], ANN[2])]:
        shared = sorted(k for k in labels if x in labels[k] and y in labels[k])
        expected = independent_kappa([labels[k][x] for k in shared], [labels[k][y] for k in shared])
        assert q["cohen_kappa"][f"{x} ~ {y}"]["kappa"] == pytest.approx(expected)
    units = [list(by.values()) for by in labels.values()]
    assert q["krippendorff_alpha"]["nominal"] == pytest.approx(independent_alpha_nominal(units))
    # Fleiss with a different number of raters per unit, from the definition.
    cats = ("accept", "reject")
    p_i = [(sum(u.count(c) ** 2 for c in cats) - len(u)) / (len(u) * (len(u) - 1)) for u in units]
    p_j = [sum(u.count(c) for u in units) / sum(map(len, units)) for c in cats]
    p_e = sum(p * p for p in p_j)
    assert q["fleiss_kappa"] == pytest.approx((sum(p_i) / len(p_i) - p_e) / (1 - p_e))
    assert "direction reversed" in result["questions"]["reasons"]["categories"]


def test_applied_decisions_reverse_relabel_and_remove_edges(audit, small, wn):
    decisions = load_decisions(audit["pull"]["decisions_file"])
    graphs, counts = apply_decisions([dict(g) for g in small["graphs"]], decisions, wn)
    assert counts == {"edges reversed": 1, "edges relabelled": 1, "edges removed": 2, "graphs dropped": 1}
    by_id = {g["id"]: g for g in graphs}
    graph, (s, t, label) = small["reverse"]
    assert by_id[graph["id"]]["edges"] == [[t, s, label]] and by_id[graph["id"]]["prototype"] == t
    graph, (s, t, label) = small["relabel"]
    other = "metonymy" if label == "metaphor" else "metaphor"
    assert by_id[graph["id"]]["edges"] == [[s, t, other]]
    graph, (s, t, label) = small["unrelated"]
    kept = by_id[graph["id"]]
    assert [s, t, label] not in kept["edges"] and t not in kept["senses"]
    assert kept["edges"] == [e for e in graph["edges"] if e != [s, t, label]]
    assert small["split"][0]["id"] not in by_id  # its only edge is gone, so is the graph
    assert by_id[small["tie"][0]["id"]] == small["tie"][0]  # a tie waits for an expert


def test_schema_audit_serves_each_schema_png_once_and_decides_by_hash(conn, server, build, root, people,
                                                                     tmp_path):
    import httpx

    shown: dict[str, set] = {}  # PNG stem -> the (word, sense) pairs items use it for
    for item in read_jsonl(build / "items.jsonl"):
        for r in item["meta"].get("image_records", []):
            shown.setdefault(Path(r["png"]).stem, set()).add((item["meta"]["word"], r["sense"]))
    tasks = get_stage("cogevolve-schema-audit").tasks(build, root)
    assert sorted(t["key"] for t in tasks) == sorted(shown)
    for task in tasks:
        served = root / parse_qs(urlparse(task["image"]).query)["d"][0]
        assert served.resolve() == (build / "images" / f"{task['key']}.png").resolve() and served.is_file()
        assert "state" not in task  # an image state would go to the builder as an exclusion
        assert task["senses"] == sorted(s for _, s in shown[task["key"]])
        assert len(task["meaning"].splitlines()) == len(shown[task["key"]])
    pushed = projects.push(build, "cogevolve-schema-audit", annotators=2, conn=conn, document_root=root)
    assert pushed["added"] == len(shown)
    shared = max(tasks, key=lambda t: (len(t["senses"]), t["key"]))  # several meanings, if a drawing has them
    response = httpx.get(server.url + shared["image"], headers={"Authorization": f"Token {server.creds.token}"})
    assert response.status_code == 200 and response.content[:8] == b"\x89PNG\r\n\x1a\n"
    ids = tasks_by_key(conn, pushed["project"])
    for email in ANN[:2]:
        annotate(conn, ids[shared["key"]], people[email], verdict("reject", ["shows another meaning"]))
    pulled = projects.pull(pushed["project"], conn, snapshots=tmp_path / "s", decisions_root=tmp_path)
    rows = load_decisions(pulled["decisions_file"])
    assert rows == [{**rows[0], "unit": "image", "key": shared["key"], "decision": "reject",
                     "reasons": ["shows another meaning"], "state": None}]
    assert "fix" not in rows[0]
    from cogforge.qc.checks import check_decisions
    from cogforge.qc.core import load_build

    flagged = {f.target for f in check_decisions(load_build(build, rows)).findings}
    assert flagged and flagged == {i["id"] for i in read_jsonl(build / "items.jsonl")
                                   if any(Path(p).stem == shared["key"] for p in i["images"])}
