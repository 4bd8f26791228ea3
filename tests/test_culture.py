"""The culture domain: emoji rebuses of English words, English idioms and Chinese idioms.

One small build (a few items a task) is shared by the tests of this module; the full
default build is the session's ``symbols_build``.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import emoji
import pytest
from PIL import Image

from cogforge.generators import wordnet
from cogforge.generators.symbols import _emoji, culture

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "generators" / "data"
SMALL = {"emoji-word": 10, "emoji-idiom": 10, "emoji-chengyu": 6, "emoji-chengyu-long": 4}


def _config(tmp: Path, **culture_keys) -> Path:
    counts = ", ".join(f"{k} = {v}" for k, v in SMALL.items())
    extra = "".join(f"{k} = {json.dumps(str(v))}\n" for k, v in culture_keys.items())
    path = tmp / "symbols.toml"
    path.write_text(f"seed = 3\n[domains.culture]\n{extra}counts = {{ {counts} }}\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def small_build(tmp_path_factory) -> Path:
    from cogforge.builders import symbols

    tmp = tmp_path_factory.mktemp("culture")
    symbols.build(tmp / "build", domains=["culture"], config_path=_config(tmp), progress=False)
    return tmp / "build"


def _items(build: Path) -> list[dict]:
    return [json.loads(line) for line in (build / "items.jsonl").read_text(encoding="utf-8").splitlines()]


def _cldr(e: str) -> str:
    return emoji.EMOJI_DATA[e]["en"].strip(":").replace("_", " ")


def test_every_task_is_filled_to_its_count(small_build):
    tasks = [i["task"] for i in _items(small_build)]
    assert {t: tasks.count(f"culture-{t}") for t in SMALL} == SMALL


def test_every_word_is_its_parts_and_every_part_its_emojis_cldr_name(small_build):
    nouns = {line.split(" ", 1)[0] for line in (wordnet.wordnet_dir() / "index.noun").read_text().splitlines()
             if not line.startswith(" ")}
    words = [i for i in _items(small_build) if i["task"] == "culture-emoji-word"]
    for item in words:
        parts = item["meta"]["parts"]
        assert "".join(p["word"] for p in parts) == item["answer"]
        assert item["answer"] in nouns
        assert all(_cldr(p["emoji"]) == p["name"] for p in parts)
        assert item["meta"]["emoji"] == "".join(p["emoji"] for p in parts)
        assert item["meta"]["answer_format"] == "word-en" and item["answer"] not in item["question"].lower()


def test_every_idiom_item_is_a_line_of_the_idiom_file(small_build):
    lines = (DATA / "symbols_emoji_idioms.tsv").read_text(encoding="utf-8").splitlines()
    for item in (i for i in _items(small_build) if i["task"] == "culture-emoji-idiom"):
        m = item["meta"]
        assert lines[m["data_line"] - 1] == f"{item['answer']}\t{m['emoji']}\t{m['why']}"
        assert m["answer_format"] == "phrase-en"


def test_every_chengyu_rebus_is_recomputed_from_the_pinyin_and_emoji_data(small_build):
    from cogforge.generators.symbols import _rebus

    chengyu = [i for i in _items(small_build) if "chengyu" in i["task"]]
    assert chengyu
    for item in chengyu:
        assert _rebus.check_rebus(item["meta"]) is None
        assert "".join(p["char"] for p in item["meta"]["rebus"]) == item["answer"]


def test_qc_is_clean(small_build):
    from cogforge.qc.core import load_build
    from cogforge.qc.symbols import check_symbols

    result = check_symbols(load_build(small_build))
    assert [f for f in result.findings if f.severity == "error"] == []
    assert result.stats["culture"]["answers_not_rederived"] == 0


def test_qc_finds_a_wrong_answer_and_a_changed_picture(small_build, tmp_path):
    import shutil

    from cogforge.qc.core import load_build
    from cogforge.qc.symbols import culture as qc

    build = tmp_path / "b"
    shutil.copytree(small_build, build)
    items = _items(build)
    word = next(i for i in items if i["task"] == "culture-emoji-word")
    word["answer"] += "s"
    idiom = next(i for i in items if i["task"] == "culture-emoji-idiom")
    (build / idiom["images"][0]).write_bytes(culture.render(["🐟"]))
    (build / "items.jsonl").write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items),
                                       encoding="utf-8")
    loaded = load_build(build)
    found = {(f.check, f.target) for f in qc.check(loaded, loaded.items).findings}
    assert found == {("culture", word["id"]), ("culture-images", idiom["id"])}


def test_pictures_are_the_same_bytes_in_another_process(small_build):
    """Every picture drawn again from meta in a fresh interpreter (another hash seed)."""
    items = _items(small_build)
    script = ("import json, sys, hashlib\nfrom cogforge.generators.symbols import culture\n"
              "for line in sys.stdin:\n"
              "    e = json.loads(line)\n"
              "    print(hashlib.sha256(culture.render(culture.split_emoji(e))).hexdigest())\n")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    run = subprocess.run([sys.executable, "-c", script], input="".join(json.dumps(i["meta"]["emoji"]) + "\n"
                                                                         for i in items),
                         capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    stored = [hashlib.sha256((small_build / i["images"][0]).read_bytes()).hexdigest() for i in items]
    assert run.stdout.split() == stored


def test_a_rebus_is_legible_at_336_px():
    """Four tiles a row: shown 336 px on its long side, every emoji is at least 64 px."""
    longest = max(len(culture.split_emoji(i.emoji)) for i in culture.load_idioms(DATA / "symbols_emoji_idioms.tsv"))
    for n in range(1, max(longest, 12) + 1):
        width, height, _ = _emoji.layout(n, culture.PER_ROW)
        assert _emoji.TILE * 336 / max(width, height) >= 64, n
    png = culture.render(["🍍", "🌈", "🌻", "⭐", "🐟"])
    with Image.open(io.BytesIO(png)) as image:
        assert image.mode == "RGB" and image.size == _emoji.layout(5, 4)[:2] and not image.info
        assert image.getpixel((0, 0)) == (255, 255, 255)
        # every tile has ink
        for x, y in _emoji.layout(5, 4)[2]:
            tile = image.crop((x, y, x + _emoji.TILE, y + _emoji.TILE)).convert("L")
            assert tile.getextrema()[0] < 200


def test_usable_emoji_exclude_text_flags_skin_tones_and_undrawn():
    usable = _emoji.usable()
    for e in ["🍍", "🌧️", "🧑‍🍳", "🪿"]:
        assert e in usable
    for e in ["🆗", "1️⃣", "🔟", "🔛", "🈚", "🀄", "™️", "📅", "🇫🇷", "🏳️‍🌈", "👍🏽", "☁", "🫩"]:
        assert e not in usable, e
    assert usable["🍍"].en == "pineapple" and usable["🍍"].zh == "菠萝"


def test_the_curated_files_hold_enough_reviewed_lines():
    words = culture.load_words(DATA / "symbols_emoji_words.tsv")
    compounds = culture.load_compounds(DATA / "symbols_emoji_compounds.tsv", words)
    idioms = culture.load_idioms(DATA / "symbols_emoji_idioms.tsv")
    assert len(compounds) >= culture.DEFAULT_COUNTS["emoji-word"]
    assert len(idioms) >= culture.DEFAULT_COUNTS["emoji-idiom"]
    nouns = {line.split(" ", 1)[0] for line in (wordnet.wordnet_dir() / "index.noun").read_text().splitlines()
             if not line.startswith(" ")}
    assert [c.word for c in compounds if c.word not in nouns] == []
    # the false split of the plan's notes is reviewed and rejected
    rows = (DATA / "symbols_emoji_compounds.tsv").read_text(encoding="utf-8").splitlines()
    assert any(r.startswith("tearing\ttea+ring\trejected: false split") for r in rows)
    # each word's source says how the emoji data give it
    lines = (DATA / "symbols_emoji_words.tsv").read_text(encoding="utf-8").splitlines()
    for line in [line for line in lines if not line.startswith("#")][1:]:
        word, e, source = line.split("\t")
        name = _cldr(e)
        aliases = [a.strip(":").replace("_", " ") for a in emoji.EMOJI_DATA[e].get("alias", [])]
        assert {"CLDR name": word == name, "CLDR alias": word in aliases,
                "CLDR name head": name.split()[-1] == word, "CLDR name word": word in name.split(),
                "curated": True}[source], line


@pytest.mark.parametrize("kind, line, message", [
    ("idioms", "spill the beans\t🫗🫘\tagain", "again (first on line 2)"),
    ("idioms", "thumbs up\t👍🏽👍🏽\tskin tone", "is not an emoji a rebus may show"),
    ("idioms", "cloud nine\t☁️9️⃣\tkeycap", "is not an emoji a rebus may show"),
    ("idioms", "red carpet\t🟥x\tletter", "is not emoji only"),
    ("idioms", "just one\t🍍\ttoo short", "1 emoji"),
    ("idioms", "two columns\t🍍🍎", "expected 3 tab-separated"),
    ("idioms", "a new picture\t🔨🧊\tsame emoji", "🔨🧊 again"),
    ("words", "apple\t🍏\tcurated", "'apple' again"),
    ("words", "fruit\t🍎\tcurated", "already 'apple'"),
    ("words", "pear\t🍐\tguessed", "source 'guessed'"),
    ("compounds", "applepie\tapple+pie\tok", "pie not in the word table"),
    ("compounds", "apples\tapple+pine\tok", "do not join"),
    ("compounds", "pineapple\tpine+apple\tfine", "status 'fine'"),
])
def test_a_bad_data_line_names_its_file_and_line(tmp_path, kind, line, message):
    heads = {"idioms": "phrase\temoji\twhy\nspill the beans\t🫗🫘\ta jug pours beans\n"
                       "break the ice\t🔨🧊\ta hammer breaks ice\n",
             "words": "word\temoji\tsource\napple\t🍎\tCLDR alias\npine\t🌲\tcurated\n",
             "compounds": "compound\tparts\tstatus\npineapple\tpine+apple\tok\n"}
    path = tmp_path / f"{kind}.tsv"
    path.write_text(heads[kind] + line + "\n", encoding="utf-8")
    bad_line = heads[kind].count("\n") + 1
    with pytest.raises(culture.CultureDataError) as caught:
        if kind == "idioms":
            culture.load_idioms(path)
        elif kind == "words":
            culture.load_words(path)
        else:
            culture.load_compounds(path, {"apple": "🍎", "pine": "🌲"})
    assert str(caught.value).startswith(f"{path}:{bad_line}: ")
    assert message in str(caught.value)


def test_the_command_line_reports_a_bad_idiom_file_in_one_line(tmp_path, capsys):
    from cogforge.cli import main

    bad = tmp_path / "idioms.tsv"
    bad.write_text("phrase\temoji\twhy\ncloud nine\t☁️9️⃣\tcloud + nine\n", encoding="utf-8")
    code = main(["build", "symbols", "--quiet", "--domains", "culture", "--config", str(_config(tmp_path, idioms=bad)),
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1, err
    assert err.startswith(f"cogforge: {bad}:2: ")
    assert not (tmp_path / "out" / "items.jsonl").exists()


def test_imported_items_come_first_and_generated_ones_fill_the_count(tmp_path):
    from cogforge.builders import symbols
    from cogforge.qc.core import load_build
    from cogforge.qc.symbols import check_symbols

    workbook = ROOT / "tests" / "fixtures" / "emoji2idiom" / "emoji2idiom.xlsx"
    symbols.build(tmp_path / "build", domains=["culture"], config_path=_config(tmp_path), progress=False,
                  inputs={"emoji2idiom": [str(workbook)]})
    items = _items(tmp_path / "build")
    for task, count in SMALL.items():
        mine = [i for i in items if i["task"] == f"culture-{task}"]
        flags = [bool(i["meta"].get("imported")) for i in mine]
        assert len(mine) == count and any(flags) and not all(flags), task
        assert flags == sorted(flags, reverse=True), task  # imported first
        answers = [i["answer"].casefold() for i in mine]
        assert len(set(answers)) == len(answers), task
    result = check_symbols(load_build(tmp_path / "build"))
    assert [f for f in result.findings if f.severity == "error"] == []
    assert result.stats["culture"]["imported"] == sum(bool(i["meta"].get("imported")) for i in items)


def test_the_compound_list_reviews_every_split_of_a_wordnet_noun_into_table_words():
    words = culture.load_words(DATA / "symbols_emoji_words.tsv")
    nouns = [line.split(" ", 1)[0] for line in (wordnet.wordnet_dir() / "index.noun").read_text().splitlines()
             if not line.startswith(" ")]
    rows = [line.split("\t") for line in (DATA / "symbols_emoji_compounds.tsv").read_text(encoding="utf-8")
            .splitlines() if line and not line.startswith("#")][1:]
    reviewed = {(word, tuple(parts.split("+"))) for word, parts, _status in rows}
    candidates = culture.compound_candidates(words, nouns)
    assert ("pineapple", ("pine", "apple")) in candidates and ("tearing", ("tea", "ring")) in candidates
    assert [c for c in candidates if c not in reviewed] == []


def test_no_emoji_word_picture_also_spells_another_kept_compound():
    """A picture reads one way: each emoji read as its table word or any word of its CLDR name
    (🌊 "water wave" is sea, water or wave; possessives such as "man's shoe" aside) must not
    spell another kept compound (seabird would also be waterbird, so it is rejected)."""
    words = culture.load_words(DATA / "symbols_emoji_words.tsv")
    compounds = culture.load_compounds(DATA / "symbols_emoji_compounds.tsv", words)
    kept = {c.word for c in compounds}
    usable = _emoji.usable()

    def readings(word: str) -> set[str]:
        names = [usable[words[word]].en, *(usable[words[word]].aliases or [])]
        return {word} | {t for n in names for t in n.strip(":").replace("_", " ").lower().split()
                         if re.fullmatch(r"[a-z]{3,}", t)}

    clashes = {c.word: sorted({"".join(p) for p in itertools.product(*map(readings, c.parts))} & kept - {c.word})
               for c in compounds}
    assert {w: other for w, other in clashes.items() if other} == {}
