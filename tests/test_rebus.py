"""Chinese idiom rebuses: every rebus re-derived from the pinyin and emoji data, the
reading rules (sandhi undone, a character read in its emoji name, never through a rare
heteronym), the choice between clue kinds, and the idiom list."""

from __future__ import annotations

import io
import random
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import emoji
import pytest
from PIL import Image
from pypinyin import Style, pinyin

from cogforge.generators.symbols import _chengyu_source, _rebus
from cogforge.generators.symbols._molecules import png_text_chunks

ROOT = Path(__file__).resolve().parent.parent
TSV = ROOT / "generators" / "data" / "symbols_chengyu.tsv"


@pytest.fixture(scope="module")
def ctx():
    ctx = SimpleNamespace(dropped=Counter())
    _rebus.prepare(ctx, {})
    return ctx


@pytest.fixture(scope="module")
def drafts(ctx):
    return (_rebus.make_drafts(ctx, 300, random.Random("four"), long=False)
            + _rebus.make_drafts(ctx, 40, random.Random("long"), long=True))


def cldr_zh(e: str) -> str:
    """The Chinese name straight from the emoji package's data."""
    emoji.config.load_language("zh")
    return emoji.EMOJI_DATA[e]["zh"].strip(":")


def pypinyin_reading(text: str) -> list[str]:
    """pypinyin's own phrase-aware reading, with only 一 and 不 put back in citation tone."""
    raw = [p[0] for p in pinyin(text, style=Style.TONE3, neutral_tone_with_five=True)]
    return ["yi1" if c == "一" else "bu4" if c == "不" else r for c, r in zip(text, raw)]


def test_every_rebus_of_a_sample_is_rederived_from_the_pinyin_and_emoji_data(drafts):
    assert len([d for d in drafts if len(d.answer) == 4]) == 300
    assert len([d for d in drafts if len(d.answer) > 4]) == 40
    kinds = Counter()
    for d in drafts:
        parts = d.meta["rebus"]
        assert "".join(p["char"] for p in parts) == d.answer == d.unit
        assert d.meta["emoji"] == "".join(p["emoji"] for p in parts)
        assert d.meta["answer_format"] == "zh-idiom" and d.options is None
        assert [p["pinyin"] for p in parts] == pypinyin_reading(d.answer)
        for p in parts:
            name = cldr_zh(p["emoji"])
            assert p["emoji_zh"] == name
            name_reading = pypinyin_reading(name)
            if p["char"] in name:
                expected = "same character"
            elif p["pinyin"] in name_reading:
                expected = "same pinyin with tone"
            else:
                assert p["pinyin"].rstrip("12345") in [r.rstrip("12345") for r in name_reading], (d.answer, p)
                expected = "same pinyin without tone"
            assert p["match"] == expected, (d.answer, p)
            kinds[expected] += 1
        assert _rebus.check_rebus(d.meta) is None
    assert set(kinds) == set(_rebus.MATCHES)
    assert kinds["same character"] > kinds["same pinyin with tone"] > kinds["same pinyin without tone"]


def test_check_rebus_names_each_kind_of_tampering(drafts):
    meta = drafts[0].meta
    def tampered(**change):
        parts = [dict(p) for p in meta["rebus"]]
        parts[0] |= change
        return _rebus.check_rebus(meta | {"rebus": parts, "emoji": "".join(p["emoji"] for p in parts)})
    assert "pinyin" in tampered(pinyin="zzz9")
    assert "emoji_zh" in tampered(emoji_zh="菠萝")
    assert "not an emoji" in tampered(emoji="X")
    wrong = next(m for m in _rebus.MATCHES if m != meta["rebus"][0]["match"])
    assert "re-derived" in tampered(match=wrong)
    first = meta["rebus"][0]
    stranger = next(e for e, name in _rebus.default_names().items()
                    if _rebus.match_of(first["char"], first["pinyin"], name) is None)
    assert "neither has" in tampered(emoji=stranger, emoji_zh=_rebus.default_names()[stranger])
    assert "in order" in _rebus.check_rebus(meta | {"emoji": meta["emoji"][::-1]})


def test_the_reading_undoes_the_sandhi_of_yi_and_bu():
    # pypinyin's phrase dictionary writes the spoken tones
    assert [p[0] for p in pinyin("一心一意", style=Style.TONE3)] == ["yi4", "xin1", "yi2", "yi4"]
    assert [p[0] for p in pinyin("不见不散", style=Style.TONE3)] == ["bu2", "jian4", "bu2", "san4"]
    assert _rebus.readings("一心一意") == ["yi1", "xin1", "yi1", "yi4"]
    assert _rebus.readings("不见不散") == ["bu4", "jian4", "bu4", "san4"]
    assert _rebus.readings("一路平安")[0] == "yi1"


def test_tong_is_matched_through_a_name_read_tong2_and_through_tong3_only_without_tone():
    parts = _rebus.build_rebus("同舟共济", _rebus.default_index(), random.Random(0))
    tong = parts[0]
    assert tong["pinyin"] == "tong2" and "同" not in tong["emoji_zh"]
    assert tong["match"] == "same pinyin with tone" and "tong2" in _rebus.readings(tong["emoji_zh"])
    # with only 🪣 桶 (tong3) to draw from, the match is toneless
    only_bucket = _rebus.build_index({"🪣": "桶"})
    assert _rebus.build_rebus("同", only_bucket) == [
        {"char": "同", "pinyin": "tong2", "emoji": "🪣", "emoji_zh": "桶", "match": "same pinyin without tone"}]
    # same character beats same pinyin, which beats toneless
    index = _rebus.build_index({"🪣": "桶", "🥉": "铜牌", "🤝": "同意"})
    assert _rebus.build_rebus("同", index)[0]["emoji"] == "🤝"
    assert _rebus.build_rebus("同", _rebus.build_index({"🪣": "桶", "🥉": "铜牌"}))[0]["emoji"] == "🥉"


def test_a_rare_heteronym_of_a_name_character_is_never_a_clue():
    # 虹 can be read gong4 (and jiang4), but in 彩虹 it is hong2: 🌈 is no clue for 共 gong4
    assert "gòng" in pinyin("虹", heteronym=True)[0]
    assert _rebus.readings("彩虹") == ["cai3", "hong2"]
    rainbow = _rebus.build_index({"🌈": "彩虹"})
    assert "gong4" not in rainbow.by_reading and "gong" not in rainbow.by_syllable
    assert _rebus.build_rebus("共", rainbow) is None
    assert _rebus.match_of("共", "gong4", "彩虹") is None
    index = _rebus.default_index()
    for clue in index.by_reading.get("gong4", ()) + index.by_syllable.get("gong", ()):
        assert clue.emoji != "🌈"


def test_a_character_is_read_in_its_name_by_context():
    index = _rebus.build_index({"🏦": "银行", "🚶": "行人"})
    assert [(c.emoji, c.reading) for c in index.by_char["行"]] == [("🏦", "hang2"), ("🚶", "xing2")]
    # same character first, and among those the one read as in the word: 行 alone is xing2,
    # in 行业 hang2
    assert _rebus.build_rebus("行", index)[0]["emoji"] == "🚶"
    index = _rebus.build_index({"🏦": "银行", "🚶": "行人", "🌃": "夜晚"})
    assert [(p["emoji"], p["match"]) for p in _rebus.build_rebus("行业", index)] == [
        ("🏦", "same character"), ("🌃", "same pinyin with tone")]


def test_clues_are_clear_pictures_with_short_names():
    names = _rebus.default_names()
    assert names and all(1 <= len(n) <= _rebus.MAX_NAME and _rebus.HAN.fullmatch(n) for n in names.values())
    for unclear in ("🕚", "⛎", "♈", "⬆️", "🔴", "🟥", "▶️", "⚜️", "🖕"):
        assert unclear not in names
    for char, e in _rebus.PREFERRED.items():
        assert e in names, (char, e)
        assert _rebus.match_of(char, _rebus.readings(char)[0], names[e]) is not None, (char, e, names[e])


def test_a_rebus_uses_one_emoji_for_one_character(drafts):
    for d in drafts:
        seen = {}
        for p in d.meta["rebus"]:
            assert seen.setdefault(p["emoji"], p["char"]) == p["char"], d.meta["rebus"]


def test_items_ask_without_giving_the_answer_and_draw_the_same_bytes(drafts):
    for d in drafts:
        assert d.answer not in d.question and "Answer:" in d.question
        assert not any(c in d.question for c in d.answer)
    d = drafts[-1]  # a long one: two rows of emoji
    png = d.images[0]()
    assert png == d.images[0]()
    image = Image.open(io.BytesIO(png))
    assert image.mode == "RGB" and image.height > 200 and not png_text_chunks(png)


def test_idioms_without_a_rebus_are_counted_and_the_rest_kept_in_a_stable_order(ctx):
    small = SimpleNamespace(chengyu=ctx.chengyu, rebus_index=ctx.rebus_index, dropped=Counter())
    few = _rebus.make_drafts(small, 10, random.Random(3), long=False)
    many = _rebus.make_drafts(small, 10_000, random.Random(3), long=False)
    assert [d.answer for d in few] == [d.answer for d in many[:10]]
    four = [i for i in ctx.chengyu if len(i.text) == 4]
    assert small.dropped["culture-emoji-chengyu (no emoji for a character)"] == 2 * (len(four) - len(many))
    assert 300 <= len(many) < len(four)  # 然 and 若 have no emoji


def test_the_idiom_list_has_enough_idioms_each_once_with_its_reading_and_source():
    idioms = _rebus.load_idioms(TSV)
    texts = [i.text for i in idioms]
    assert len(texts) == len(set(texts))
    assert sum(len(t) == 4 for t in texts) >= 300
    assert sum(len(t) > 4 for t in texts) >= 40
    assert not set(texts) & _chengyu_source.EXCLUDED
    for i in idioms:
        assert [("yi1" if c == "一" else "bu4" if c == "不" else r) for c, r in zip(i.text, _rebus.tone3(i.pinyin))] \
            == _rebus.readings(i.text), i
        assert i.source.startswith(_chengyu_source.SOURCE + ":") and int(i.source.rsplit(":", 1)[1]) > 0


def test_a_bad_idiom_line_is_named_by_file_and_line(tmp_path):
    cases = {"同舟共济\ttong zhou gong ji": "columns", "同舟，共济\ttóng zhōu gòng jì\tx": "Han characters",
             "同舟共济\ttóng zhōu gòng\tx": "syllables", "同舟共济\ttóng zhōu gòng jì\tx\n同舟共济\ttóng zhōu gòng jì\tx":
             "first on line 2"}
    for line, what in cases.items():
        path = tmp_path / "idioms.tsv"
        path.write_text("# header\n" + line + "\n", encoding="utf-8")
        with pytest.raises(_rebus.ChengyuError, match=rf"idioms.tsv:\d: .*{what}"):
            _rebus.load_idioms(path)


def test_an_idiom_imported_for_the_task_is_not_generated_again(ctx):
    first = _rebus.make_drafts(SimpleNamespace(**vars(ctx) | {"dropped": Counter()}), 5, random.Random(3), False)
    imported = SimpleNamespace(answer=first[0].answer)
    again = SimpleNamespace(**vars(ctx) | {"dropped": Counter(), "imported": {"emoji-chengyu": [imported]}})
    assert [d.answer for d in _rebus.make_drafts(again, 4, random.Random(3), False)] == \
        [d.answer for d in first[1:]]
