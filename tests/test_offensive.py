"""No WordNet-derived benchmark shows, keys or orders an offensive sense (issue 23, part 1).

The six words of the issue (coon, pouf, fag, faggot, fagot, chink) each have a slur
sense that CogEvolve's miner put in a graph; their harmless senses (the raccoon, the
cushion, the cigarette, the bundle of sticks, the narrow opening) must stay usable,
and so must a CONSTRUCTURE option name whose shown sense is harmless although the same
word also names a slur ("taco", "oriental cockroach").
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cogforge.generators import wordnet
from cogforge.generators.cogevolve import graphs as G

SLURS = {"coon": "coon%1:18:00::", "pouf": "pouf%1:18:00::", "fag": "fag%1:18:00::",
         "faggot": "faggot%1:18:00::", "fagot": "fagot%1:18:00::", "chink": "chink%1:18:00::"}
HARMLESS = {"coon": ["coon%1:05:00::"], "pouf": ["pouf%1:06:00::"], "fag": ["fag%1:06:00::"],
            "faggot": ["faggot%1:06:00::"], "fagot": ["fagot%1:06:00::"],
            "chink": ["chink%1:17:00::", "chink%1:11:00::"]}


@pytest.fixture(scope="module")
def table(wn) -> wordnet.Offensive:
    return wordnet.offensive(wn)


# --------------------------------------------------------------------------- the exclusion


def test_the_issues_slur_senses_are_offensive_and_their_other_senses_are_not(table):
    for word, key in SLURS.items():
        assert table.sense(key), f"{word}: the slur sense {key} is not excluded"
        for harmless in HARMLESS[word]:
            assert table.sense(harmless) is None, f"{word}: the harmless sense {harmless} is excluded"
    assert "usage domain" in table.synset("nigger.n.01") and "usage domain" in table.synset("fagot.n.01")
    # coon's other person sense is the minstrel caricature: curated, with its reason
    assert "caricature" in table.sense("coon%1:18:01::")


def test_a_displayed_name_is_judged_by_the_sense_it_shows(table):
    assert table.shown("taco.n.02", "taco") is None  # the food
    assert table.shown("greaser.n.01", "taco")  # the ethnic slur under the same name
    assert table.shown("oriental_cockroach.n.01", "oriental cockroach") is None
    assert table.shown("oriental.n.01", "Oriental")
    assert table.shown("kaffir_cat.n.01", "kaffir cat")  # a harmless cat under a slur
    assert table.shown("kaffir_cat.n.01", "Felis ocreata") is None


def test_gloss_rules_mark_slurs_not_words_about_offence(wn, table):
    assert "gloss" in table.synset("colored_person.n.01")  # "now considered offensive"
    assert "gloss" in table.synset("hillbilly.n.01")  # "a disparaging term for"
    for harmless in ("obscenity.n.02", "attack.n.01", "euphemism.n.01", "offensiveness.n.01"):
        assert wordnet.offensive_reason(wn.synset(harmless)) is None, harmless


def test_the_curated_list_rejects_a_bad_line_with_its_file_and_line(wn, tmp_path):
    good = "# comment\n\nfrog.n.02\tethnic slur\ncoon%1:18:01::\tcaricature\n"
    path = tmp_path / "list.tsv"
    path.write_text(good)
    assert wordnet.load_offensive_list(wn, path) == {"frog.n.02": "ethnic slur", "coon%1:18:01::": "caricature"}
    for bad, message in (("nosuch.n.01\tx\n", "is not a WordNet 3.0 synset"),
                         ("coon%1:99:00::\tx\n", "is not a WordNet 3.0 synset"),
                         ("retard.n.01\tx\n", "did you mean idiot.n.01"),
                         ("frog.n.02\n", "expected 'SYNSET-OR-SENSE-KEY<TAB>REASON'"),
                         ("frog.n.02\t \n", "expected"),
                         ("frog.n.02\tagain\n", "listed twice")):
        path.write_text(good + bad)
        with pytest.raises(wordnet.OffensiveListError, match=message) as err:
            wordnet.load_offensive_list(wn, path)
        assert str(err.value).startswith(f"{path}:5: ")


def test_the_shipped_curated_list_is_valid(wn):
    curated = wordnet.load_offensive_list(wn)
    assert "coon%1:18:01::" in curated and all(reason for reason in curated.values())


# --------------------------------------------------------------------------- CogEvolve


def test_the_miner_never_sees_an_offensive_sense_and_keeps_the_harmless_ones(wn, table):
    patterns, concrete = G.load_patterns()
    for word in SLURS:
        kept = [lemma.key() for lemma in G._lemma_senses(wn, word)]
        assert SLURS[word] not in kept
        assert set(HARMLESS[word]) <= set(kept), word
        graph = G.explain(wn, word, patterns, concrete)
        assert graph is None or not any(table.sense(k) for k in graph["senses"]), word
    # words whose graph today keys an obscene sense (tool -> penis, ass -> intercourse)
    for word in ("ass", "tool", "prick", "dick", "putz", "asshole", "twat", "cunt", "queen", "pansy", "spade"):
        graph = G.explain(wn, word, patterns, concrete)
        assert graph is None or not any(table.sense(k) for k in graph["senses"]), word


def test_imported_graphs_and_sentences_lose_their_offensive_senses(wn, table):
    from cogforge.builders.cogevolve import drop_offensive

    def graph(word, senses, edges):
        real = G.word_senses(wn, word)
        return G.lexical(wn, {"word": word, "id": word, "source": "chainnet:test",
                              "senses": {k: real[k] for k in senses}, "prototype": senses[0],
                              "edges": [[s, t, "metaphor"] for s, t in edges], "patterns": {}})

    fagot = graph("fagot", ["fagot%1:06:00::", "fagot%1:18:00::"], [("fagot%1:06:00::", "fagot%1:18:00::")])
    queen_slur = next(lemma.key() for lemma in wn.synset("fagot.n.01").lemmas() if lemma.name() == "queen")
    queen = graph("queen", ["queen%1:18:00::", "queen%1:18:01::", queen_slur],
                  [("queen%1:18:00::", "queen%1:18:01::"), ("queen%1:18:00::", queen_slur)])
    sents = [{"word": "fagot", "sense": "fagot%1:18:00::", "text": "x"},
             {"word": "queen", "sense": queen_slur, "text": "y"},
             {"word": "queen", "sense": "queen%1:18:01::", "text": "z"}]
    kept, clean, counts = drop_offensive([fagot, queen], sents, table, lambda: wn)
    assert [g["word"] for g in kept] == ["queen"]
    assert set(kept[0]["senses"]) == {"queen%1:18:00::", "queen%1:18:01::"}
    assert kept[0]["edges"] == [["queen%1:18:00::", "queen%1:18:01::", "metaphor"]]
    G.validate(kept[0], wn)
    assert [s["text"] for s in clean] == ["z"]
    assert counts == {"graphs dropped": 1, "graphs pruned": 1, "senses (offensive)": 2, "sentences": 2}


def test_the_cogevolve_build_has_no_offensive_sense(cogevolve_build, table):
    manifest = json.loads((cogevolve_build / "manifest.json").read_text())
    assert "offensive" in manifest["sources"]
    for line in (cogevolve_build / "graphs.jsonl").read_text().splitlines():
        graph = json.loads(line)
        assert not [k for k in graph["senses"] if table.sense(k)], graph["word"]
        assert graph["word"] not in SLURS or not any(k == SLURS[graph["word"]] for k in graph["senses"])


# --------------------------------------------------------------------------- CONSTRUCTURE


def test_constructure_never_shows_a_name_in_its_offensive_sense():
    from cogforge.builders import constructure

    graph = constructure.Graph(wordnet.load())
    node = {data["synset"]: n for n, data in graph.isa.graph.nodes(data=True)}
    for harmless in ("taco.n.02", "oriental_cockroach.n.01", "chink.n.02", "fagot.n.02", "common_raccoon.n.01",
                     "cigarette.n.01", "ottoman.n.03"):
        assert graph.showable(node[harmless]), harmless
    for slur in ("greaser.n.01", "nigger.n.01", "fagot.n.01", "chink.n.01", "kaffir_cat.n.01"):
        assert not graph.showable(node[slur]), slur
    # a chain never holds an offensive concept: the kaffir cat gets none, the taco keeps its own
    chains = constructure.find_chains(graph, [node["kaffir_cat.n.01"], node["taco.n.02"]],
                                      {"noun.animal", "noun.food"}, 3, 5)
    assert [c[-1] for c in chains] == [node["taco.n.02"]]
    # every lemma of the six words' slur senses leads a reader only to harmless senses when shown
    for word in SLURS:
        for sense in graph.senses(word):
            synset = graph.isa.graph.nodes[sense]["synset"]
            assert graph.showable(sense) == (synset not in ("nigger.n.01", "fagot.n.01", "chink.n.01",
                                                             "coon.n.01")), synset


def test_the_constructure_build_shows_no_offensive_sense_and_keeps_taco(constructure_build, table):
    shown = set()
    for line in (constructure_build / "items.jsonl").read_text().splitlines():
        meta = json.loads(line)["meta"]
        for record in meta["chain"] + [meta["image_concept"]] + [o for o in meta["options"] if "synset" in o]:
            assert table.shown(record["synset"], record.get("text") or record["name"]) is None, record
            shown.add(record["synset"])
    assert "taco.n.02" in shown  # a name that also names a slur, shown in its harmless sense


# --------------------------------------------------------------------------- QC


def _copy(build: Path, out: Path) -> Path:
    """What the check reads: the items, manifest and graphs (no images)."""
    out.mkdir()
    for name in ("items.jsonl", "manifest.json", "graphs.jsonl"):
        if (build / name).is_file():
            shutil.copyfile(build / name, out / name)
    return out


def _rewrite(path: Path, change) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    change(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_qc_fails_a_cogevolve_build_with_an_injected_slur_and_passes_the_real_one(cogevolve_build, tmp_path):
    from cogforge.qc.core import load_build
    from cogforge.qc.offensive import check_offensive

    real = check_offensive(load_build(cogevolve_build))
    assert real.findings == [] and real.stats["items_with_wordnet_senses"] > 0
    copy = _copy(cogevolve_build, tmp_path / "copy")

    def inject(rows):  # the slur sense of coon in the first item's graph, as today's miner made it
        sense = rows[0]["meta"]["graph"]["senses"][-1]
        sense.update(key="coon%1:18:00::", synset="nigger.n.01")

    _rewrite(copy / "items.jsonl", inject)
    findings = check_offensive(load_build(copy)).findings
    assert findings and all(f.severity == "error" and f.check == "offensive" for f in findings)
    first = json.loads((copy / "items.jsonl").read_text().splitlines()[0])["id"]
    assert {f.target for f in findings} == {first}
    assert any("coon%1:18:00::" in f.message for f in findings) and any("nigger.n.01" in f.message for f in findings)


def test_qc_reads_constructure_names_and_shown_definitions(constructure_build, tmp_path):
    from cogforge.qc.core import load_build
    from cogforge.qc.offensive import check_offensive

    assert check_offensive(load_build(constructure_build)).findings == []
    copy = _copy(constructure_build, tmp_path / "copy")
    rows = [json.loads(line) for line in (copy / "items.jsonl").read_text().splitlines()]
    mcq = next(k for k, r in enumerate(rows) if r["task"] != "atomic")

    def as_slur(rows):  # "taco" stays "taco", but now shown as the ethnic slur
        option = rows[mcq]["meta"]["options"][0]
        option.update(synset="greaser.n.01", text="taco", name="taco")

    _rewrite(copy / "items.jsonl", as_slur)
    findings = check_offensive(load_build(copy)).findings
    assert [f.target for f in findings] == [rows[mcq]["id"]] and "greaser.n.01" in findings[0].message

    def as_definition(rows):  # a slur's definition shown as an option text, whatever meta says
        rows[mcq]["meta"]["options"][0].update(synset="taco.n.02")
        rows[mcq]["options"][0] = wordnet.offensive().definitions["fagot.n.01"]

    _rewrite(copy / "items.jsonl", as_definition)
    messages = [f.message for f in check_offensive(load_build(copy)).findings]
    assert any("definition of the offensive sense fagot.n.01" in m for m in messages)


def test_qc_passes_a_build_without_wordnet_senses_at_once(tmp_path):
    from conftest import make_toy_build
    from cogforge.qc.core import load_build
    from cogforge.qc.offensive import check_offensive

    build = make_toy_build(tmp_path / "toy", [{"answer": "a", "options": ["a", "b"],
                                               "question": "offensive term for an openly homosexual man"}])
    result = check_offensive(load_build(build))
    assert result.findings == [] and result.stats == {"items_with_wordnet_senses": 0}
