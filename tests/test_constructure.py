"""CONSTRUCTURE from WordNet: the emoji mapping, the isA graph, and every item checked
against the full graph with independent nltk queries."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from PIL import Image

from cogforge.builders import constructure
from conftest import read_jsonl
from cogforge.generators import constructure as images
from cogforge.generators import wordnet

VISUAL = {"noun.animal", "noun.plant", "noun.food", "noun.artifact", "noun.object"}


@pytest.fixture(scope="session")
def cbuild(constructure_build) -> Path:
    return constructure_build


@pytest.fixture(scope="session")
def citems(cbuild) -> list[dict]:
    return read_jsonl(cbuild / "items.jsonl")


def test_emoji_mapping_points_at_visual_noun_synsets(wn):
    entries = images.load_emoji_map()
    assert len(entries) >= 300
    for e in entries:
        synset = wn.synset(e.synset)
        assert synset.pos() == "n" and synset.lexname() in VISUAL, (e.codepoints, e.unicode_name)
    # spot checks of senses people would get wrong
    by_name = {e.unicode_name: e.synset for e in entries}
    assert by_name["BANANA"] == "banana.n.02" and by_name["DOG"] == "dog.n.01"
    assert by_name["MOUSE"] == "mouse.n.01" and by_name["TURTLE"] == "turtle.n.02"
    # found by looking at the pictures: the food the emoji draws, not its plant; a sponge
    # cake, not WordNet's biscuit-dough shortcake (a bread); the counting frame, not a slab
    assert by_name["CUCUMBER"] == "cucumber.n.02" and by_name["BROCCOLI"] == "broccoli.n.02"
    assert by_name["SHORTCAKE"] == "cake.n.03" and by_name["ABACUS"] == "abacus.n.02"
    assert by_name["TRAM"] == "streetcar.n.01" and "MONORAIL" not in by_name and "BATH" not in by_name


def test_a_shown_name_is_a_lemma_of_its_synset_and_names_the_concept_everywhere(wn):
    """Where the first lemma reads as another thing (the trumpet's synset is "cornet, horn,
    trumpet, trump"), the table names the lemma to show; it must be the synset's own, so the
    sense judge reads the same synset, and every question shows the concept by it."""
    named = [e for e in images.load_emoji_map() if e.name]
    assert {"trumpet", "police car", "teddy bear"} <= {e.name for e in named}
    for e in named:
        assert e.name.replace(" ", "_").lower() in [lemma.lower() for lemma in wn.synset(e.synset).lemma_names()], e
    isa = wordnet.load()
    graph = constructure.Graph(isa, constructure.shown_names(isa))
    trumpet = next(n for n, d in isa.graph.nodes(data=True) if d["synset"] == "cornet.n.01")
    assert graph.name(trumpet) == "trumpet" and trumpet in graph.senses("trumpet")
    assert constructure.Graph(isa).name(trumpet) == "cornet"  # WordNet's first lemma


def test_a_shown_name_that_is_not_a_lemma_is_refused_naming_the_table(tmp_path):
    table = tmp_path / "emoji.tsv"
    table.write_text("1F3BA\tcornet.n.01\tTRUMPET\ttrombone\n")
    with pytest.raises(ValueError, match=f"{table}: 1F3BA .TRUMPET.: 'trombone' is not a lemma of cornet.n.01"):
        constructure.shown_names(wordnet.load(), table)


def test_every_mapped_emoji_renders(wn):
    for e in images.load_emoji_map()[::7]:
        image = Image.open(__import__("io").BytesIO(images.render_emoji(e.text)))
        assert image.size == (160, 160) and image.mode == "RGB"
        assert len(image.getcolors(maxcolors=1 << 16) or []) > 10, e.unicode_name  # the flattest, LADDER, has 13


def test_isa_graph_is_acyclic_rooted_and_cached():
    isa = wordnet.load()
    assert isa.graph.number_of_nodes() == 82115
    assert [n for n in isa.graph if isa.graph.out_degree(n) == 0] == [wordnet.ROOT_ID]
    cache = list(wordnet.CACHE.glob("wordnet-isa-*.json.gz"))
    assert cache
    again = wordnet.load()
    assert again.tree_parent == isa.tree_parent
    names = [isa.graph.nodes[n]["name"] for n in isa.tree_path("n02084071")]
    assert names[0] == "entity" and names[-3:] == ["carnivore", "canine", "dog"]


def test_a_missing_wordnet_is_a_clear_error(tmp_path):
    with pytest.raises(wordnet.WordNetError, match="wordnet-base"):
        wordnet.load(tmp_path)


def closure(wn, synset) -> set[str]:
    return {s.name() for s in synset.closure(lambda s: s.hypernyms() + s.instance_hypernyms())}


def test_every_item_has_exactly_one_right_option_on_the_full_graph(citems, wn):
    cache: dict[str, set[str]] = {}

    def anc(name):
        if name not in cache:
            cache[name] = closure(wn, wn.synset(name))
        return cache[name]

    def is_a(x, c):
        return x == c or c in anc(x)

    for item in citems:
        m = item["meta"]
        assert item["answer"] in item["options"] and m["answer_letter"] == chr(65 + item["options"].index(item["answer"]))
        x = m["image_concept"]["synset"]
        if item["task"] == "atomic":
            concept = m["concept"]["synset"]
            assert item["answer"] == ("Yes" if is_a(x, concept) else "No"), item["id"]
            continue
        opts = {o["text"]: o["synset"] for o in m["options"]}
        right = []
        for text, syn in opts.items():
            if item["task"] == "abstraction":
                ok = is_a(x, syn) and all(syn in anc(o) for t, o in opts.items() if t != text and is_a(x, o))
            elif item["task"] == "concretization":
                ok = is_a(x, syn) and all(o in anc(syn) for t, o in opts.items() if t != text and is_a(x, o))
            else:
                ok = not (is_a(x, syn) or is_a(syn, x))
            right.append(text) if ok else None
        assert right == [item["answer"]], (item["id"], right)


def test_atomic_questions_are_half_yes(citems):
    answers = Counter(i["answer"] for i in citems if i["task"] == "atomic")
    assert abs(answers["Yes"] - answers["No"]) <= 1


def test_chains_never_cross_splits_and_split_7_1_2(citems, cbuild):
    split_of = defaultdict(set)
    for item in citems:
        split_of[item["meta"]["split_unit"]].add(item["split"])
    assert all(len(s) == 1 for s in split_of.values())
    chains = Counter(next(iter(s)) for s in split_of.values())
    total = sum(chains.values())
    assert abs(chains["train"] / total - 0.7) < 0.03 and abs(chains["test"] / total - 0.2) < 0.03
    stats = json.loads((cbuild / "manifest.json").read_text())["statistics"]
    assert stats["table4"]["total"]["chains"] == total
    for item in citems:
        assert 3 <= len(item["meta"]["chain"]) <= 5


def test_photo_folders_in_imagenet_layout(tmp_path):
    photos = tmp_path / "photos" / "n02084071"  # dog
    photos.mkdir(parents=True)
    rng = random.Random(0)
    for k in range(2):
        Image.new("RGB", (640, 480), (rng.randrange(256), 90, 40)).save(photos / f"dog{k}.jpg")
    (photos / "notes.txt").write_text("not a photo")
    config = tmp_path / "c.toml"
    # animals only: a quarter of the full build, and the dog is among them
    text = (constructure.DEFAULT_CONFIG.read_text()
            .replace("photo_dirs = []", f'photo_dirs = ["{tmp_path / "photos"}"]')
            .replace('visual_lexnames = ["noun.animal", "noun.plant", "noun.food", "noun.artifact", "noun.object"]',
                     'visual_lexnames = ["noun.animal"]'))
    assert 'visual_lexnames = ["noun.animal"]' in text
    config.write_text(text)
    constructure.build(tmp_path / "b", config_path=config, progress=False)
    items = [json.loads(l) for l in (tmp_path / "b" / "items.jsonl").read_text().splitlines()]
    dog = [i for i in items if i["meta"]["image_concept"]["synset"] == "dog.n.01"]
    assert dog and all(i["meta"]["image_concept"]["source"] == "photo" for i in dog)
    assert Image.open(tmp_path / "b" / dog[0]["images"][0]).size == (512, 384)


def test_qc_runs_clean_on_the_build(cbuild, tmp_path):
    from cogforge.qc import run_qc

    report = run_qc(cbuild, tmp_path / "no-decisions.jsonl")
    # option frequency included: it is judged like every blind heuristic (issue 23)
    others = [f for f in report.findings if f.severity != "info"]
    assert report.passed and not others, others[:5]
    baselines = {r["stratum"]: r for r in report.stats["shortcuts"]["baselines"] if r["baseline"] == "choices-only"}
    assert set(baselines) == {"atomic", "abstraction", "concretization", "common-ancestor"}


def test_scores_break_down_by_concept_level(cbuild, tmp_path):
    from cogforge.evaluate.score import score
    from cogforge.exports.release import release

    folder = release(cbuild, "1.0.0", tmp_path / "rel", decisions=tmp_path / "none.jsonl")
    rows = [json.loads(l) for l in (folder / "data" / "test.jsonl").read_text().splitlines()]
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(json.dumps({"id": r["id"], "response": f"Answer: {json.loads(r['meta'])['answer_letter']}"})
                             + "\n" for r in rows))
    result = score(folder, [preds])["models"]["p"]
    assert result["breakdown"]["split"]["test"]["accuracy"] == 1.0
    assert result["breakdown"]["split"]["train"]["accuracy"] == 0.0  # no predictions: counted wrong
    assert {"level 0", "level 1", "level 2"} <= set(result["breakdown"]["concept level"])


def test_qc_rejudges_questions_on_the_full_graph(cbuild, tmp_path):
    import shutil

    from cogforge.qc import run_qc

    copy = tmp_path / "b"
    shutil.copytree(cbuild, copy)
    lines = (copy / "items.jsonl").read_text().splitlines()
    items = [json.loads(l) for l in lines]
    k = next(n for n, i in enumerate(items) if i["task"] == "abstraction")
    wrong = next(o for o in items[k]["options"] if o != items[k]["answer"])
    items[k]["answer"] = wrong
    items[k]["meta"]["answer_letter"] = chr(65 + items[k]["options"].index(wrong))
    a = next(n for n, i in enumerate(items) if i["task"] == "atomic")
    items[a]["answer"] = "No" if items[a]["answer"] == "Yes" else "Yes"
    items[a]["meta"]["answer_letter"] = "A" if items[a]["answer"] == "Yes" else "B"
    (copy / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    found: dict[str, str] = defaultdict(str)
    for f in run_qc(copy, tmp_path / "none.jsonl").findings:
        if f.check == "constructure":
            found[f.target] += f.message + "\n"
    assert "options satisfying the question" in found[items[k]["id"]]
    assert "but the answer is" in found[items[a]["id"]]
