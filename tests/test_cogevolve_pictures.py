"""CogEvolve's pictures: every core shows its word, and neither the setting nor the frame tells the role.

The full default build is shared with tests/test_cogevolve.py (``cogevolve_build``).
"""

from __future__ import annotations

import json
import random
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from cogforge.builders import cogevolve as C
from cogforge.generators.cogevolve import schemas


@pytest.fixture(scope="module")
def pictures(items) -> dict[str, tuple[dict, dict]]:
    """PNG path -> (its record, the item meta of its word)."""
    out = {}
    for item in items:
        for record in item["meta"].get("image_records", []):
            out[record["png"]] = (record, item["meta"])
    return out


def _role(meta: dict, sense: str) -> str:
    return "prototype" if sense == meta["graph"]["prototype"] else "extension"


# --------------------------------------------------------------------------- cores


def _shows(proto, shown, wn) -> bool:
    """The drawing of ``shown`` depicts ``proto``: the same synset, another sense of one of
    its names (the banana plant as its fruit), a kind at most two steps up (a nag as a
    horse), or a typical kind of it (a building as an office building)."""
    near = {proto} | set(proto.hypernyms()) | {h2 for h in proto.hypernyms() for h2 in h.hypernyms()} \
        | set(proto.hyponyms())
    return shown in near or any(shown in wn.synsets(name, "n") for name in proto.lemma_names())


def test_every_curated_core_shows_the_prototype(wn):
    lines = [line.split("\t") for line in schemas.CORES.read_text().splitlines() if line and not line.startswith("#")]
    assert lines
    for synset, points, depicted, why in lines:
        assert why.strip()
        if points != "-":
            assert _shows(wn.synset(synset), wn.synset(depicted), wn), (synset, depicted)
            assert depicted != "herb.n.01", synset  # the sprig every plant used to fall back on


def test_a_word_is_drawn_only_with_its_curated_core_and_shared_cores_show_both(pictures, wn):
    cores = schemas.load_cores()
    words_of: dict[str, set] = defaultdict(set)
    for record, meta in pictures.values():
        proto = next(s for s in meta["graph"]["senses"] if s["key"] == meta["graph"]["prototype"])
        assert cores.get(proto["synset"]) == (record["core"]["emoji"], record["core"]["synset"]), meta["word"]
        words_of[record["core"]["emoji"]].add((meta["word"], proto["synset"]))
    for emoji, words in words_of.items():
        if len({synset for _word, synset in words}) > 1:  # one drawing, two things: it must show each
            for _word, synset in words:
                assert _shows(wn.synset(synset), wn.synset(cores[synset][1]), wn), (emoji, words)
    drawn = {meta["word"] for _r, meta in pictures.values()}
    assert not drawn & {"asparagus", "basil", "thyme", "roulette", "killer", "coyote"}
    by_word = {meta["word"]: r["core"]["emoji"] for r, meta in pictures.values()}
    for word, emoji in (("aubergine", "1F346"), ("banana", "1F34C"), ("tomato", "1F345")):
        assert by_word.get(word, emoji) == emoji


def test_a_prototype_without_a_curated_drawing_gets_none():
    graph = {"prototype": "a", "senses": {"a": {"synset": "asparagus.n.01"}},
             "lexical": {"prototype_hypernyms": ["herb.n.01"]}}
    assert schemas.core_for(graph, schemas.load_cores()) is None
    graph["senses"]["a"]["synset"] = "banana.n.01"
    assert schemas.core_for(graph, schemas.load_cores()) == ("1F34C", "banana.n.02")


def test_a_broken_core_line_is_named(tmp_path):
    from cogforge.core.errors import UserError

    bad = tmp_path / "cores.tsv"
    bad.write_text("# header\nbanana.n.01\t1F34C\tbanana.n.02\n")
    with pytest.raises(UserError, match="cores.tsv:2"):
        schemas.load_cores(bad)


# --------------------------------------------------------------------------- scenes


def _frame(record: dict) -> str:
    return record["depiction"].split("/")[0]


@pytest.mark.parametrize("layer, kinds", [("scene", schemas.SETTINGS), ("frame", tuple(schemas.FRAMES))])
def test_each_setting_and_frame_draws_prototypes_and_extensions_alike(pictures, layer, kinds):
    """Every backdrop and every frame (field, table, sheet, shelf, people) shows prototypes
    and extensions, and about as many of each as the build does."""
    roles: dict[str, Counter] = defaultdict(Counter)
    for record, meta in pictures.values():
        roles[record["scene"] if layer == "scene" else _frame(record)][_role(meta, record["sense"])] += 1
    assert set(roles) == set(kinds)
    total = sum((c for c in roles.values()), Counter())
    share = total["prototype"] / sum(total.values())
    for kind, counts in roles.items():
        assert counts["prototype"] and counts["extension"], (kind, counts)
        slack = max(C.FRAME_SLACK, C.FRAME_BALANCE * sum(counts.values())) if layer == "frame" else 0
        assert abs(counts["prototype"] - counts["extension"]) <= slack or \
            abs(counts["prototype"] / sum(counts.values()) - share) <= 0.1, (kind, counts, share)


def test_the_senses_of_a_word_are_drawn_apart(items):
    for item in items:
        if item["task"] != "1b-t2i":
            continue
        records = item["meta"]["image_records"]
        assert len({r["png"] for r in records}) == len(records)
        if len(records) <= len(schemas.SETTINGS):
            assert len({r["scene"] for r in records}) == len(records), item["id"]
        assert len({r["depiction"] for r in records}) == len(records), item["id"]


def test_a_sense_is_drawn_by_what_it_is_whatever_its_role(pictures):
    """The same kind of thing gets the same depiction as a prototype and as an extension:
    a plant grows in the field (the aubergine plant, the banana tree), food is served (the
    banana, the chicken's meat)."""
    by_lexname: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for record, meta in pictures.values():
        sense = next(s for s in meta["graph"]["senses"] if s["key"] == record["sense"])
        assert sense["lexname"] in schemas.FITS[record["depiction"]], (meta["word"], record["depiction"])
        by_lexname[sense["lexname"]][record["depiction"]].add(_role(meta, record["sense"]))
    assert by_lexname["noun.plant"]["field/grows"] == {"prototype", "extension"}
    assert by_lexname["noun.food"]["table/served"] == {"prototype", "extension"}
    assert set(by_lexname["noun.animal"]) == {"field/lives"}


def _graph(word: str, senses: dict[str, str], edges: list[tuple[str, str, str]], patterns=None) -> dict:
    return {"id": word, "word": word, "prototype": edges[0][0], "edges": [list(e) for e in edges],
            "senses": {k: {"lexname": lex, "synset": f"{word}.n.0{n}"} for n, (k, lex) in enumerate(senses.items(), 1)},
            "patterns": patterns or {}}


def test_depictions_follow_meaning_and_skip_what_no_frame_shows():
    patterns = {p.name: p for p in C.sense_graphs.load_patterns(C.sense_graphs.PATTERNS)[0]}
    fruit = _graph("plum", {"f": "noun.food", "t": "noun.plant"}, [("f", "t", "metonymy")], {"f>t": "food-plant"})
    herb = _graph("sage", {"p": "noun.plant", "l": "noun.food"}, [("p", "l", "metonymy")], {"p>l": "plant-food"})
    assert C.depictions_for(fruit, patterns, {}) == {"f": "table/served", "t": "field/grows"}
    assert C.depictions_for(herb, patterns, {}) == {"p": "field/grows", "l": "table/served"}
    can = _graph("can", {"c": "noun.artifact", "q": "noun.quantity", "b": "noun.artifact"},
                 [("c", "q", "metonymy"), ("c", "b", "metaphor")], {"c>q": "container-contents", "c>b": "resemblance"})
    assert C.depictions_for(can, patterns, {}) == {"c": "measure/vessel", "q": "measure/contents"}
    plume = _graph("plume", {"a": "noun.animal", "o": "noun.artifact"}, [("a", "o", "metonymy")], {"a>o": "animal-fur"})
    assert C.depictions_for(plume, patterns, {}) == {"a": "field/lives"}  # an ornament is not a fur
    colour = _graph("teal", {"d": "noun.animal", "c": "noun.attribute"}, [("d", "c", "metonymy")], {"d>c": "food-colour"})
    assert C.depictions_for(colour, patterns, {}) == {"d": "field/lives"}  # no paint named: no swatch
    assert C.depictions_for(colour, patterns, {"c": "#008080"}) == {"d": "field/lives", "c": "material/paint"}


def test_the_sampler_keeps_every_frame_balanced():
    """Animals are always prototypes and fruit trees always extensions: words are taken
    only while each frame stays near as many of one as of the other."""
    words, kinds = [], {}
    for n in range(40):  # animal words (field P, table E) outnumber fruit words (table P, field E) 3 to 1
        if n % 4:
            g = _graph(f"a{n}", {"a": "noun.animal", "m": "noun.food"}, [("a", "m", "metonymy")])
            kinds[g["id"]] = {"a": "field/lives", "m": "table/served"}
        else:
            g = _graph(f"f{n}", {"f": "noun.food", "t": "noun.plant"}, [("f", "t", "metonymy")])
            kinds[g["id"]] = {"f": "table/served", "t": "field/grows"}
        words.append(g)
    chosen = C.balanced_frames(words, kinds, random.Random(0))
    assert {w for w in chosen if w.startswith("f")} == {g["id"] for g in words if g["id"].startswith("f")}
    counts = Counter((kind.split("/")[0], key == g["prototype"]) for g in words if g["id"] in chosen
                     for key, kind in kinds[g["id"]].items())
    for frame in ("field", "table"):
        n = counts[(frame, True)] + counts[(frame, False)]
        assert abs(counts[(frame, True)] - counts[(frame, False)]) <= max(C.FRAME_SLACK, C.FRAME_BALANCE * n), counts
    assert len(chosen) < len(words)  # not every animal fits


@pytest.mark.parametrize("layer, kinds", [("scene", schemas.SETTINGS), ("frame", tuple(schemas.FRAMES))])
def test_the_prototype_is_not_told_by_its_setting_or_frame(items, cogevolve_build, layer, kinds):
    """Guess the prototype (the first image of a 3b ordering) as the image whose setting
    (frame) is most often a prototype's in the build: chance, on every word's pictures.
    (Rates from the other words only would be unfair the other way: with the ledger's
    exact balance, leaving a word out makes its prototype's setting the least prototypical.)"""
    from cogforge.qc.cogevolve import picture_checks
    from cogforge.qc.core import CheckResult, load_build

    kind_of = (lambda r: r["scene"]) if layer == "scene" else _frame
    words = {i["meta"]["word"]: i["meta"] for i in items if i["task"] == "1b-t2i"}
    counts = {w: Counter((kind_of(r), _role(m, r["sense"])) for r in m["image_records"]) for w, m in words.items()}
    total = sum(counts.values(), Counter())
    hits = chance = 0.0
    rate = {k: (total[(k, "prototype")] + 1) / (total[(k, "prototype")] + total[(k, "extension")] + 2)
            for k in kinds}
    for meta in words.values():
        records = meta["image_records"]
        best = max(rate[kind_of(r)] for r in records)
        tied = [r for r in records if rate[kind_of(r)] == best]
        hits += sum(r["sense"] == meta["graph"]["prototype"] for r in tied) / len(tied)
        chance += 1 / len(records)
    assert len(words) >= 30
    assert abs(hits - chance) / len(words) <= 0.1, (hits / len(words), chance / len(words))

    out = CheckResult()
    rows, balance = _picture_checks(load_build(cogevolve_build), out, picture_checks)
    name = "setting" if layer == "scene" else "frame"
    assert [r for r in rows if r["baseline"] == f"first image by {name}"]
    for row in rows:
        if row["n"] >= 30:
            assert abs(row["accuracy"] - row["chance"]) <= 0.05, row
    assert not [f for f in out.findings if f.severity == "error"], out.findings[:5]
    assert {b["target"] for b in balance if b["baseline"] == f"{name}'s prototype share"} == set(kinds)


def _picture_checks(build, out, picture_checks):
    graphs, records = {}, {}
    for item in build.items:
        m = item.meta
        graphs[m["graph_id"]] = {"prototype": m["graph"]["prototype"],
                                 "senses": {s["key"]: s for s in m["graph"]["senses"]}}
        for r in m.get("image_records", []):
            records[r["svg"]] = (m["word"], m["graph_id"], r)
    return picture_checks(build, graphs, records, out)


def test_qc_catches_a_scene_template_and_a_miscoloured_swatch(cogevolve_build, tmp_path):
    """Today's template (every prototype in one plain scene) and a swatch in the core's
    colour, written into a copy of the build, are both errors."""
    from cogforge.qc.cogevolve import picture_checks
    from cogforge.qc.core import CheckResult, load_build

    copy = tmp_path / "copy"
    shutil.copytree(cogevolve_build, copy)
    swatch = None
    lines = []
    for line in (copy / "items.jsonl").read_text().splitlines():
        item = json.loads(line)
        for r in item["meta"].get("image_records", []):
            if r["sense"] == item["meta"]["graph"]["prototype"]:
                r["scene"] = "plain"
                r["depiction"] = "field/lives"  # and every prototype an animal in the field
            elif swatch in (None, r["png"]):  # one extension's picture stands in for teal's swatch
                swatch = r["png"]
                r["depiction"], r["sense"] = "material/paint", "teal%1:07:00::"
        lines.append(json.dumps(item))
    (copy / "items.jsonl").write_text("\n".join(lines) + "\n")
    assert swatch
    core_yellow = schemas.render(schemas.compose('<g id="k1"><circle cx="18" cy="18" r="16" fill="#FFCC4D"/></g>',
                                                 "k1", "#FFCC4D", "material/paint", "studio", random.Random(0)))
    (copy / swatch).write_bytes(core_yellow)
    out = CheckResult()
    rows, _ = _picture_checks(load_build(copy), out, picture_checks)
    errors = [f for f in out.findings if f.severity == "error"]
    assert any("setting 'plain'" in f.message for f in errors)
    assert any("frame 'field'" in f.message for f in errors)
    assert any("not the named" in f.message for f in errors)
    assert any(r["baseline"] == "first image by setting" and r["accuracy"] > 0.9 for r in rows)


# --------------------------------------------------------------------------- colours


def test_every_swatch_is_painted_in_the_colour_its_sense_names(pictures, cogevolve_build):
    colours = schemas.load_colours()
    core = '<g id="k1"><circle cx="18" cy="18" r="16" fill="#FFCC4D"/></g>'  # a yellow duck's teal
    teal = schemas.render(schemas.compose(core, "k1", colours["teal%1:07:00::"], "material/paint", "night",
                                          random.Random(1)))
    assert schemas.same_colour(schemas.swatch_colour(teal), colours["teal%1:07:00::"])
    for record, _meta in [(r, m) for r, m in pictures.values() if r["depiction"] == "material/paint"]:
        png = (cogevolve_build / record["png"]).read_bytes()
        assert schemas.same_colour(schemas.swatch_colour(png), colours[record["sense"]]), record["sense"]


def test_the_hue_check_tells_teal_from_a_yellow_duck():
    teal = schemas.load_colours()["teal%1:07:00::"]
    assert schemas.same_colour((0, 128, 128), teal)
    assert not schemas.same_colour((255, 204, 77), teal)  # the duck drawing's yellow
    assert not schemas.same_colour((0, 60, 160), teal)  # blue, not blue-green
    assert schemas.same_colour((255, 255, 240), schemas.load_colours()["ivory%1:07:00::"])


def test_a_broken_colour_line_is_named(tmp_path):
    bad = tmp_path / "colours.tsv"
    bad.write_text("teal%1:07:00::\tteal\tCSS\n")
    with pytest.raises(schemas.SchemaError, match="colours.tsv:1"):
        schemas.load_colours(bad)
