"""The language domain on a small build (with the Visual-C3 fixture imported): answers
recomputed from meta and the data files, substitutions only at curated sites of the
confusion rules, fakes that are no real character, one split per sentence, the same bytes
twice, QC clean; the curated data files hold what their headers promise, and a bad line
is named."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from cogforge.builders import symbols
from cogforge.core.errors import UserError
from cogforge.generators.symbols import _fakes, _hanzi, _misuse_source, language
from cogforge.qc.core import load_build
from cogforge.qc.symbols import language as language_qc

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "generators" / "data"
FIXTURE = Path(__file__).parent / "fixtures" / "visualc3" / "Test"
COUNTS = {"faked-characters": 8, "misused-characters": 8, "correction": 9}
PUNCT = set("。，？！")


def tsv(name: str) -> list[list[str]]:
    return [line.split("\t") for line in (DATA / name).read_text(encoding="utf-8").splitlines()[1:]]


SENTENCES = dict(tsv("symbols_sentences.tsv"))
CONFUSIONS = {(r, w) for r, w, _rule, _example in tsv("symbols_confusions.tsv")}
SITES = {(sid, int(p), r, w) for sid, p, r, w, _why in tsv("symbols_misuse_sites.tsv")}


def write_config(folder: Path, **language_table: str) -> Path:
    table = {"counts": "{ " + ", ".join(f"{k} = {v}" for k, v in COUNTS.items()) + " }",
             "visualc3": f'["{FIXTURE}"]', **language_table}
    path = folder / "symbols.toml"
    path.write_text("seed = 3\n[domains.language]\n" + "".join(f"{k} = {v}\n" for k, v in table.items()),
                    encoding="utf-8")
    return path


def build(folder: Path, config: Path) -> Path:
    symbols.build(folder, config_path=config, progress=False, domains=["language"])
    return folder


def items_of(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "items.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("language")
    return build(folder / "build", write_config(folder))


@pytest.fixture(scope="module")
def items(built) -> list[dict]:
    return items_of(built)


def generated(items: list[dict]) -> list[dict]:
    return [i for i in items if not i["meta"].get("imported")]


def test_each_task_has_its_count_imported_items_first(items):
    by_task = defaultdict(list)
    for item in items:
        by_task[item["task"].removeprefix("language-")].append(item)
    assert {t: len(v) for t, v in by_task.items()} == COUNTS
    imported = {"faked-characters": 2, "misused-characters": 2, "correction": 3}  # the fixture's lines
    for task, made in by_task.items():
        assert [i["meta"].get("imported", False) for i in made] == \
            [True] * imported[task] + [False] * (COUNTS[task] - imported[task])


def test_answers_recomputed_from_meta_and_the_sentence_file(items):
    for item in generated(items):
        m, task = item["meta"], item["task"].removeprefix("language-")
        chars = list(SENTENCES[m["sentence_id"]])
        if task == "correction":
            want = "".join(chars)
        else:
            for s in m["substitutions"]:
                chars[s["index"]] = f"[{s['wrong']}]"
            for f in m["fakes"]:
                chars[f["index"]] = "X"
            want = "".join(chars)
        assert item["answer"] == want, item["id"]
        assert m["answer_format"] == {"faked-characters": "x-transcription",
                                      "misused-characters": "marked-transcription",
                                      "correction": "zh-sentence"}[task]
        assert len(m["fakes"]) <= 2 and len(m["substitutions"]) <= 2
        assert task != "faked-characters" or (m["fakes"] and not m["substitutions"])
        assert task != "misused-characters" or (1 <= len(m["substitutions"]) <= 2 and not m["fakes"])
        assert len(m["char_boxes"]) == len(chars)


def test_no_line_of_a_picture_begins_with_a_punctuation_mark(items):
    """A mark is squeezed into the line before, as on essay paper: a line holds one
    character more rather than start with 。"""
    assert language.no_line_starts_with_punctuation("请座，我去给你倒杯水。", 10) == 11
    assert language.no_line_starts_with_punctuation("我们去学校。", 8) == 8
    for item in generated(items):
        sentence, per_line = SENTENCES[item["meta"]["sentence_id"]], item["meta"]["style"]["per_line"]
        assert all(sentence[k] not in language.PUNCTUATION for k in range(per_line, len(sentence), per_line))


def test_misuse_substitutions_are_curated_sites_of_the_confusion_rules(items):
    substitutions = [(i["meta"]["sentence_id"], s) for i in generated(items) for s in i["meta"]["substitutions"]]
    assert substitutions
    for sid, s in substitutions:
        assert SENTENCES[sid][s["index"]] == s["correct"]
        assert (s["correct"], s["wrong"]) in CONFUSIONS
        assert s["rule"] == f"{s['correct']}→{s['wrong']}"
        assert (sid, s["index"], s["correct"], s["wrong"]) in SITES


def test_every_fake_made_again_from_its_recipe_is_no_real_character(items):
    fakes = [f for i in generated(items) for f in i["meta"]["fakes"]]
    assert len(fakes) >= COUNTS["faked-characters"] - 2
    for f in fakes:
        glyph = _fakes.apply(language.recipe(f))
        assert glyph.strokes != _hanzi.glyph(f["char"]).strokes
        assert not _fakes.is_real(glyph), f


def test_no_sentence_is_in_two_splits(items):
    splits = defaultdict(set)
    for item in items:
        splits[item["meta"]["sentence_id"]].add(item["split"])
        assert item["meta"]["split_unit"] == (item["meta"]["sentence_id"] if not item["meta"].get("imported")
                                              else f"visualc3:{item['meta']['image_file']}")
    assert all(len(s) == 1 for s in splits.values())


def test_sentences_are_shared_out_so_that_none_serves_two_tasks_while_others_are_unused(items):
    tasks_of = defaultdict(set)
    for item in generated(items):
        tasks_of[item["meta"]["sentence_id"]].add(item["task"])
    assert all(len(t) == 1 for t in tasks_of.values())


def test_prompts_never_show_a_chinese_character(items):
    for item in items:
        assert not re.search(r"[\u4e00-\u9fff]", item["question"])
        assert item["question"].rstrip().endswith("'Answer: SENTENCE'.")


def test_the_same_config_gives_the_same_bytes(built, items, tmp_path):
    again = build(tmp_path / "again", write_config(tmp_path))
    assert items_of(again) == items
    for item in items:
        for rel in item["images"]:
            assert (again / rel).read_bytes() == (built / rel).read_bytes()


def test_qc_redraws_every_picture_and_finds_nothing(built):
    build_ = load_build(built)
    result = language_qc.check(build_, build_.items)
    assert result.findings == []
    assert result.stats["images_not_reproduced"] == 0 and result.stats["imported"] == 7


def test_qc_catches_a_wrong_answer_and_a_substitution_off_the_sites(built):
    build_ = load_build(built)
    item = next(i for i in build_.items if i.task == "language-misused-characters" and not i.meta.get("imported"))
    item = dataclasses.replace(item, answer=item.answer.replace("[", "").replace("]", ""))
    other = next(i for i in build_.items if i.task == "language-correction" and i.meta["substitutions"]
                 and not i.meta.get("imported"))
    other.meta["substitutions"][0]["wrong"] = "的"
    found = defaultdict(list)
    for f in language_qc.check(build_, [item, other]).findings:
        found[f.target].append(f.message)
    assert any("meta gives" in m for m in found[item.id])
    assert any("no curated misuse site" in m for m in found[other.id])
    assert any("image bytes" in m for m in found[other.id])  # 的 drawn where the picture has another


# --------------------------------------------------------------------------- the data files

# Two-character words a substituted character could form with a neighbour (from the draft's
# check_zh.py): a substitution that makes one could be read as valid.
WORDS = set("""
高地 大地 天地 土地 草地 场地 本地 当地 外地 各地 园地 陆地 田地 空地 工地 基地 山地 平地 绿地 湿地 盆地 遍地 落地 此地 原地 见地 心地 质地 余地 产地 营地 林地 耕地 低地 就地 猛地
忽地 暗地 飞地 扫地 种地 洗地 下地 打地 拖地 满地 实地 特地 重地 境地 墓地 圣地 腹地 内地 异地 属地 驻地 地上 地下 地方 地图 地球 地铁 地点 地区 地面 地板 地址 地理 地震 地道 地位
地带 地形 地大 地瓜 地主 地毯 地步 地里 地名 地势 地域 地基 地狱 地摊 地层 地表 觉得 记得 值得 懂得 获得 取得 难得 舍得 显得 使得 免得 晓得 省得 只得 不得 心得 得到 得分 得意 得奖
得病 得手 得知 得体 得失 得力 得罪 得逞 再三 再四 再次 再见 再说 再也 再来 再会 再生 再现 再度 再者 再版 再婚 再造 再则 在于 在乎 在场 在家 在内 在座 在意 在理 在外 在职 在校 现在
正在 实在 存在 自在 所在 好在 作客 作主 作声 作为 作战 作息 作对 作假 作怪 作法 作物 作曲 做客 做主 做声 做法 当做 当作 看作 看做 叫做 叫作 写作 创作 制作 操作 已经 已然 即是 即便
既是 既往 需要 须要 必需 必须 需知 须知 无需 无须 座位 坐位 座谈 就座 入座 上座 座下 副本 幅度 篇幅 画幅 练习 训练 熟练 锻炼 冶炼 提炼 修炼 炼钢 分辨 分辩 辩解 辨析 想象 想像 形象
形像 录像 录象 图像 好象 好像 带领 戴帽 穿戴 拥戴 爱戴
""".split())


def gb2312_level(ch: str) -> int:
    try:
        return 1 if 0xB0 <= ch.encode("gb2312")[0] <= 0xD7 else 2
    except UnicodeEncodeError:
        return 0


def test_sentences_are_short_modern_gb2312_level_1_and_enough():
    rows = tsv("symbols_sentences.tsv")
    assert len(rows) >= 300 and [sid for sid, _ in rows] == [f"s{k:03d}" for k in range(1, len(rows) + 1)]
    assert len({s for _, s in rows}) == len(rows)
    for sid, s in rows:
        assert 8 <= len(s) <= 20 and s[-1] in "。？！", sid
        assert all(ch in PUNCT or gb2312_level(ch) == 1 for ch in s), sid
    assert len({ch for _, s in rows for ch in s if ch not in PUNCT}) >= 600


def test_confusion_examples_are_correct_sentences_with_the_right_character():
    for right, wrong, _rule, example in tsv("symbols_confusions.tsv"):
        assert right in example and example[-1] in "。？！" and 8 <= len(example) <= 20


def test_no_substitution_makes_a_word_with_a_neighbour():
    for sid, p, right, wrong, _why in tsv("symbols_misuse_sites.tsv"):
        s, p = SENTENCES[sid], int(p)
        t = s[:p] + wrong + s[p + 1:]
        for a in (p - 1, p):
            if 0 <= a and a + 2 <= len(t):
                assert not (t[a:a + 2] in WORDS and s[a:a + 2] not in WORDS), (sid, p, t)


def test_the_sites_file_is_what_its_rules_derive_from_the_sentences():
    derived = _misuse_source.derive(SENTENCES)
    assert [[sid, str(p), r, w, why] for sid, p, r, w, why in derived] == tsv("symbols_misuse_sites.tsv")


def test_every_sentence_with_sites_can_be_misused_and_every_rule_is_used():
    assert {(r, w) for _sid, _p, r, w in SITES} == CONFUSIONS
    assert len({sid for sid, *_ in SITES}) >= COUNTS["misused-characters"]


def _bad_copy(tmp_path: Path, name: str, line: int, text: str) -> Path:
    rows = (DATA / name).read_text(encoding="utf-8").split("\n")
    rows[line - 1] = text
    path = tmp_path / name
    path.write_text("\n".join(rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(("key", "name", "line", "text", "message"), [
    ("sentences", "symbols_sentences.tsv", 5, "s003\t今天的作业有点多。",
     r"symbols_sentences\.tsv:5: id s003 already on line 4"),
    ("sentences", "symbols_sentences.tsv", 7, "s006\t今天我们去公园玩abc。",
     r"symbols_sentences\.tsv:7: s006: 'a' is neither"),
    ("confusions", "symbols_confusions.tsv", 3, "得\t地\tno rule\t我很高兴。",
     r"symbols_confusions\.tsv:3: the example does not contain 得"),
    ("misuse_sites", "symbols_misuse_sites.tsv", 2, "s002\t3\t在\t再\twhy",
     r"symbols_misuse_sites\.tsv:2: s002\[3\] is 黑, not 在"),
    ("misuse_sites", "symbols_misuse_sites.tsv", 2, "s002\t2\t在\t的\twhy",
     r"symbols_misuse_sites\.tsv:2: the pair 在→的 is no rule"),
])
def test_a_bad_data_line_is_named_by_the_build(tmp_path, key, name, line, text, message):
    config = write_config(tmp_path, **{key: f'"{_bad_copy(tmp_path, name, line, text)}"'})
    with pytest.raises(UserError, match=message):
        symbols.build(tmp_path / "out", config_path=config, progress=False, domains=["language"])
    assert not (tmp_path / "out").exists()
