"""CogEvolve: graphs, importers, schemas and every answer, checked against WordNet and the files.

The full default build is made once per session (``cogevolve_build``); one more build
takes the ChainNet and WSD fixtures and human decisions, one re-runs the default to
prove that the same seed gives the same bytes.
"""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path

import pytest
from PIL import Image

from cogforge.generators.cogevolve import graphs as G
from cogforge.generators.cogevolve import sentences as S

FIXTURES = Path(__file__).parent / "fixtures" / "cogevolve"


@pytest.fixture(scope="module")
def built_graphs(cogevolve_build) -> list[dict]:
    return [json.loads(line) for line in (cogevolve_build / "graphs.jsonl").read_text().splitlines()]


# --------------------------------------------------------------------------- graphs


def test_the_patterns_explain_every_mined_edge_and_each_graph_is_valid(built_graphs, wn):
    patterns, concrete = G.load_patterns()
    by_name = {p.name: p for p in patterns}
    assert len(built_graphs) > 400
    for graph in built_graphs:
        G.validate(graph, wn)
        assert graph["senses"][graph["prototype"]]["lexname"] in concrete
        for s, t, label in graph["edges"]:
            pattern = by_name[graph["patterns"][f"{s}>{t}"]]
            assert label == pattern.label
            assert graph["senses"][s]["lexname"] in pattern.source
            assert graph["senses"][t]["lexname"] in pattern.target
    chicken = next(g for g in built_graphs if g["word"] == "chicken")
    assert ["chicken%1:05:01::", "chicken%1:13:00::", "metonymy"] in chicken["edges"]  # bird -> its meat


def test_validation_names_each_broken_rule(wn):
    good = {"word": "can", "source": "test", "prototype": "can%1:06:00::",
            "senses": {k: {} for k in ("can%1:06:00::", "can%1:23:00::", "can%1:06:03::")},
            "edges": [["can%1:06:00::", "can%1:23:00::", "metonymy"], ["can%1:06:00::", "can%1:06:03::", "metaphor"]]}
    G.validate(good, wn)
    cases = {
        "cycle": {**good, "edges": good["edges"] + [["can%1:06:03::", "can%1:06:00::", "metaphor"]]},
        "roots": {**good, "edges": good["edges"][:1]},
        "label": {**good, "edges": [good["edges"][0], ["can%1:06:00::", "can%1:06:03::", "synecdoche"]]},
        "not WordNet 3.0 noun senses": {**good, "senses": {**good["senses"], "can%1:99:00::": {}}},
        "not the root": {**good, "prototype": "can%1:23:00::"},
    }
    for words, graph in cases.items():
        with pytest.raises(G.GraphError, match=words):
            G.validate(graph, wn)


def test_a_broken_pattern_file_is_named_with_its_pattern_and_key(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text('[[pattern]]\nname = "x"\nlabel = "simile"\nsource = ["noun.animal"]\ntarget = ["noun.food"]\n')
    with pytest.raises(G.GraphError, match=r"p.toml: pattern 1 \(x\): label must be one of"):
        G.load_patterns(path)
    path.write_text('[[pattern]]\nname = "x"\nlabel = "metaphor"\nsource = ["noun.animal"]\ntarget = ["noun.food"]\n'
                    'cue = "("\n')
    with pytest.raises(G.GraphError, match="bad regular expression"):
        G.load_patterns(path)


def test_chainnet_import_gives_the_papers_can_graph(wn, tmp_path):
    graphs, info = G.import_chainnet(FIXTURES / "chainnet_edges.tsv", wn)
    assert info["skipped_edges"] == {"virtual sense": 1}
    can = next(g for g in graphs if g["word"] == "can")
    # the paper's Figure 3: 1 -> (2, 3, 5 -> (4, 6)) in WordNet sense numbers
    number = {k: v["number"] for k, v in can["senses"].items()}
    assert can["senses"][can["prototype"]]["number"] == 1
    assert sorted((number[s], number[t]) for s, t, _ in can["edges"]) == [(1, 2), (1, 3), (1, 5), (5, 4), (5, 6)]
    assert sorted(len(p) for p in G.paths(can)) == [2, 2, 2, 3, 3]
    almanac = next(g for g in graphs if g["word"] == "almanac")  # general publication (2) -> farmer's (1)
    assert almanac["senses"][almanac["prototype"]]["number"] == 2
    bad = tmp_path / "bad.tsv"
    bad.write_text("wordform\tfrom_sense_id\tto_sense_id\tlabel\ncan\tcan%1:06:00::\tcan%1:23:00::\tmetonymy\n"
                   "can\tcan%1:23:00::\tcan%1:06:00::\tmetonymy\n")
    with pytest.raises(G.GraphError, match=r"bad.tsv:2,3 \(can\): .*(cycle|roots)"):
        G.import_chainnet(bad, wn)
    bad.write_text("wordform\tfrom_sense_id\tto_sense_id\tlabel\ncan\tcan%1:06:00::\tcat%1:05:00::\tmetonymy\n")
    with pytest.raises(G.GraphError, match=r"bad.tsv:2: cat%1:05:00:: is not a WordNet 3.0 noun sense of 'can'"):
        G.import_chainnet(bad, wn)
    bad.write_text("word\tsource\ttarget\tlabel\n")
    with pytest.raises(G.GraphError, match="bad.tsv:1: expected the header"):
        G.import_chainnet(bad, wn)


def test_wsd_xml_import_keeps_graph_senses_and_their_forms(wn, tmp_path):
    graphs, _ = G.import_chainnet(FIXTURES / "chainnet_edges.tsv", wn)
    found, counts = S.import_wsd_xml(FIXTURES / "mini.data.xml", graphs)
    assert [(s["word"], s["sense"], s["form"]) for s in found] == [
        ("can", "can%1:06:00::", "can"), ("mouse", "mouse%1:05:00::", "mice"), ("mouse", "mouse%1:06:00::", "mouse")]
    assert found[0]["text"] == "He opened a can of beans."
    assert found[1]["text"] == "The mice ran under the table, didn't they?"
    hostile = tmp_path / "x.data.xml"
    hostile.write_text('<?xml version="1.0"?><!DOCTYPE c [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
                       '<corpus><text><sentence><instance id="a" lemma="can" pos="NOUN">&e;</instance>'
                       '</sentence></text></corpus>')
    (tmp_path / "x.gold.key.txt").write_text("a can%1:06:00::\n")
    with pytest.raises(S.SentenceError, match=r"x.data.xml:1: a DOCTYPE or entity declaration"):
        S.import_wsd_xml(hostile, graphs)  # refused outright, so the entity is never resolved
    broken = tmp_path / "y.data.xml"
    broken.write_text("<corpus>\n<text>\n</corpus>\n")
    (tmp_path / "y.gold.key.txt").write_text("")
    with pytest.raises(S.SentenceError, match=r"y.data.xml:3: not well-formed"):
        S.import_wsd_xml(broken, graphs)


def test_wordnet_examples_name_the_word_or_an_inflection(items, wn):
    assert "feet" in S.inflections(wn, "foot") and "mice" in S.inflections(wn, "mouse")
    for item in (i for i in items if i["task"] in ("1a", "2")):
        sentence = item["meta"]["sentence"]
        assert re.search(rf"(?<![\w-]){re.escape(sentence['form'])}(?![\w-])", sentence["text"])
        assert sentence["form"].lower() in S.inflections(wn, item["meta"]["word"])


# --------------------------------------------------------------------------- items


def _graph(meta):
    g = meta["graph"]
    return {s["key"]: s for s in g["senses"]}, g["edges"], g["prototype"]


def test_every_answer_follows_from_the_graph(items):
    """Recomputed here from meta's graph and what the model is shown, not from the builder's code."""
    for item in items:
        m = item["meta"]
        senses, edges, proto = _graph(m)
        task = item["task"]
        if task in ("1a", "1b-i2t"):
            assert item["answer"] == senses[m["sense"]]["gloss"]
            assert sorted(item["options"]) == sorted(s["gloss"] for s in senses.values())
        elif task == "1b-t2i":
            shown = [r["sense"] for r in m["image_records"]]
            assert item["images"] == [r["png"] for r in m["image_records"]]
            assert item["answer"] == f"Image {shown.index(m['sense']) + 1}"
        elif task == "2":
            incoming = {label for _s, t, label in edges if t == m["sense"]}
            expected = "Prototype" if m["sense"] == proto else incoming.pop().capitalize()
            assert item["answer"] == expected
        else:
            path = m["path"]
            assert path[0] == proto and all([a, b] in [e[:2] for e in edges] for a, b in zip(path, path[1:]))
            shown = {v: k for k, v in m["id_map"].items()}
            assert item["answer"] == " -> ".join(shown[k] for k in path)
            if task == "3a":
                listed = dict(re.findall(r"^\[([A-Z])\] (.*)$", item["question"], re.M))
                assert listed == {i: senses[k]["gloss"] for i, k in m["id_map"].items()}
            if task == "3a-masked":
                assert not re.search(rf"\b{re.escape(m['word'])}\b", item["question"].replace("[TARGET]", ""), re.I)
                assert f'"{m["word"]}"' not in item["question"]
            if task == "3b":
                by_sense = {r["sense"]: r["png"] for r in m["image_records"]}
                assert item["images"] == [by_sense[m["id_map"][chr(65 + k)]] for k in range(len(path))]


def test_option_ids_do_not_follow_wordnet_sense_numbers(items):
    """Listing order (A, B, ...) must not be sense-number order, or ordering by ID would solve pairs."""
    pairs = [i for i in items if i["task"] == "3a" and i["meta"]["n"] == 2]
    numbers = []
    for item in pairs:
        senses, _, _ = _graph(item["meta"])
        a, b = item["meta"]["id_map"]["A"], item["meta"]["id_map"]["B"]
        numbers.append(senses[a]["number"] < senses[b]["number"])
    assert abs(sum(numbers) / len(numbers) - 0.5) < 0.1
    gold_first = [i["answer"] == "A -> B" for i in pairs]
    assert abs(sum(gold_first) / len(gold_first) - 0.5) < 0.05


def test_tier2_is_balanced_and_every_task_is_present(items):
    from collections import Counter

    roles = Counter(i["answer"] for i in items if i["task"] == "2")
    assert len(set(roles.values())) == 1 and set(roles) == {"Prototype", "Metaphor", "Metonymy"}
    assert {i["task"] for i in items} == {"1a", "1b-i2t", "1b-t2i", "2", "3a", "3a-masked", "3b", "3b-svg"}
    words = {}
    for item in items:
        assert words.setdefault(item["meta"]["word"], item["split"]) == item["split"]  # one split per word


def test_qc_passes_and_blind_baselines_sit_near_chance(cogevolve_build):
    from cogforge.qc import run_qc

    report = run_qc(cogevolve_build, decisions=cogevolve_build / "none.jsonl")
    assert report.passed, [f for f in report.findings if f.severity == "error"][:5]
    audits = report.stats["cogevolve"]["audits"]
    assert {a["baseline"] for a in audits} >= {"order by sense number", "order by SemCor count",
                                               "order by fewest elements first", "order by smallest PNG first",
                                               "first option", "majority role"}
    for audit in audits:
        if audit["n"] >= 30:
            assert abs(audit["accuracy"] - audit["chance"]) <= 0.05, audit
    for row in report.stats["shortcuts"]["baselines"]:
        if row["n"] >= 30:
            assert row["accuracy"] <= row["chance"] + 0.05, row


# --------------------------------------------------------------------------- schemas


def test_every_schema_reuses_one_core_and_renders_clean(items, cogevolve_build):
    from cogforge.core import svgcheck

    by_word: dict[str, set] = {}
    records = {r["svg"]: (i["meta"]["word"], r) for i in items for r in i["meta"].get("image_records", [])}
    assert records
    for rel, (word, record) in records.items():
        data = (cogevolve_build / rel).read_bytes()
        checked = svgcheck.ensure(data, rel, banned_words=[word])
        assert checked.core_sha256 == record["core_sha256"]
        by_word.setdefault(word, set()).add(checked.core_sha256)
        text = data.decode()
        assert "<!--" not in text and "<text" not in text and word not in re.findall(r'id="([^"]+)"', text)
        png = (cogevolve_build / record["png"]).read_bytes()
        image = Image.open(io.BytesIO(png))
        assert image.size == (512, 512) and image.mode == "RGB"
        assert not image.info.get("text") and b"tEXt" not in png and b"iTXt" not in png and b"zTXt" not in png
        assert image.getpixel((2, 2)) == (255, 255, 255)
    assert all(len(cores) == 1 for cores in by_word.values())


def test_svg_check_command_rejects_a_redrawn_core(tmp_path, capsys):
    from cogforge.cli import main

    core = '<path fill="#F00" d="M1 1h10v10z"/>'
    head = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            'viewBox="0 0 64 64" width="64" height="64">')
    good = f'{head}<defs><g id="k1">{core}</g></defs><use xlink:href="#k1"/></svg>'
    redrawn = f'{head}<defs><g id="k1">{core}</g></defs><use xlink:href="#k1"/>{core}</svg>'
    (tmp_path / "a.svg").write_text(good)
    (tmp_path / "b.svg").write_text(redrawn)
    assert main(["svg", "check", str(tmp_path / "a.svg")]) == 0
    assert main(["svg", "check", str(tmp_path / "a.svg"), str(tmp_path / "b.svg")]) == 1
    err = capsys.readouterr().err
    assert "b.svg: redrawn" in err


# --------------------------------------------------------------------------- builds


def test_same_seed_same_bytes(cogevolve_build, tmp_path):
    from cogforge.core import registry

    again = registry.get("cogevolve").build(tmp_path / "again", progress=False)
    first = json.loads((cogevolve_build / "manifest.json").read_text())
    assert again["files"] == first["files"]


def test_user_graphs_sentences_and_decisions_flow_into_a_build(tmp_path, wn, items, capsys):
    """ChainNet-format graphs and a WSD corpus from the command line; an annotator's
    relabelling and a rejected picture applied from the decisions file."""
    from cogforge.cli import main

    # a picture of the first word drawn: its backdrops come first from the settings ledger, so
    # the imported graphs (can, mouse) drawn after it cannot change its bytes
    first = min(i["meta"]["graph_id"] for i in items if i["task"] == "1b-i2t")
    picture = next(Path(i["images"][0]).stem for i in items if i["task"] == "1b-i2t" and i["meta"]["graph_id"] == first)
    decisions = tmp_path / "decisions.jsonl"
    decisions.write_text(json.dumps({"unit": "edge", "key": G.edge_key("chicken", "chicken%1:05:01::",
                                                                       "chicken%1:13:00::"),
                                     "decision": "reject", "fix": "relabel", "stage": "sense-graph-audit"}) + "\n"
                         + json.dumps({"unit": "image", "key": picture, "decision": "reject",
                                       "stage": "cogevolve-schema-audit"}) + "\n")
    out = tmp_path / "b"
    assert main(["build", "cogevolve", "--quiet", "--out", str(out), "--decisions", str(decisions),
                 "--input", f"chainnet={FIXTURES / 'chainnet_edges.tsv'}",
                 "--input", f"chainnet={FIXTURES / 'chainnet_split.tsv'}",
                 "--input", f"wsd_xml={FIXTURES / 'mini.data.xml'}"]) == 0
    graphs = {g["id"]: g for g in map(json.loads, (out / "graphs.jsonl").read_text().splitlines())}
    assert graphs["can"]["source"] == "chainnet:chainnet_edges.tsv"
    assert ["chicken%1:05:01::", "chicken%1:13:00::", "metaphor"] in graphs["chicken"]["edges"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["sources"]["graphs"]["chainnet:chainnet_split.tsv"]["mapped_edges"] == {"split sense": 3}
    assert manifest["sources"]["decisions"] == {"edges relabelled": 1}
    # can, the two mice and the beans (the mined bean plant -> its seeds)
    assert manifest["sources"]["corpora"]["mini.data.xml"]["sentences"] == 4
    built = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert first < "can" and not [i for i in built if i["meta"]["graph_id"] == first
                                  and i["task"] in ("1b-i2t", "1b-t2i", "3b")]
    assert {i["meta"]["word"] for i in built if i["task"] == "1b-i2t"}  # other words keep theirs
    can_paths = [i for i in built if i["task"] == "3a" and i["meta"]["word"] == "can"]
    assert {i["meta"]["n"] for i in can_paths} <= {2, 3}
    assert any(i["meta"]["sentence"]["source"] == "wsd-xml:mini.data.xml" for i in built if i["task"] in ("1a", "2"))
    capsys.readouterr()
    assert main(["build", "cogevolve", "--quiet", "--out", str(tmp_path / "c"), "--input", "nothing=x"]) == 2
    assert "cogevolve takes chainnet=FILE or wsd_xml=FILE" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()


def test_tier3_chance_is_one_over_n_factorial():
    from cogforge.qc.cogevolve import chance

    class Item:
        task, options, meta = "3a", None, {"n": 3}

    assert chance(Item()) == 1 / math.factorial(3)
