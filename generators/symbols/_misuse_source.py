r"""How ``generators/data/symbols_misuse_sites.tsv`` was made (run again to re-derive it).

The places in ``symbols_sentences.tsv`` where writing the confusion partner ``wrong`` for
``right`` is unambiguously wrong, each with a one-line reason. Every rule was applied by
reading its contexts, not by blind search:

* fixed words (已经, 自己, 作业, 锻炼, ...) are unambiguous wherever they occur
  (:data:`FIXED`, with the one occurrence left out in :data:`FIXED_EXCLUDE`);
* 像 (resemble) and 带 (carry, bring) were read at every occurrence (:data:`EVERY`);
* 在/再, 地/得/的 and 戴 are context rules: the sentence ids where they apply are listed,
  and so are the occurrences left out, each with its reason.

Written for cogforge with the sentences (no outside source). ``tests/test_language.py``
checks that deriving from the shipped sentences gives the shipped file, so a new sentence
or a changed rule goes through here:

    python -m cogforge.generators.symbols._misuse_source generators/data/symbols_sentences.tsv \
        > generators/data/symbols_misuse_sites.tsv
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

WHY = {
    ("已", "以"): "已经 'already' is written 已; 以经 is not a word",
    ("已", "己"): "已经 'already' is written 已; 己 means 'self', 己经 is not a word",
    ("己", "已"): "自己 'oneself' is written 己; 自已 is a miswriting",
    ("以", "已"): "{w} is a fixed word written with 以; {x} is not a word",
    ("作", "做"): "{w} is a fixed word written with 作; {x} is not a word",
    ("做", "作"): "making food or a concrete object is 做; 作 is not used for making things",
    ("即", "既"): "{w} is written with 即; {x} is not a word",
    ("既", "即"): "{w} is written with 既; {x} is wrong",
    ("须", "需"): "{why_xu}",
    ("需", "须"): "必需品 'necessities' is written 需; 必须品 is not a word",
    ("坐", "座"): "坐 is the verb 'sit / travel by'; 座 is a noun or measure word and cannot be the verb",
    ("座", "坐"): "座 is the measure word for mountains, bridges, buildings, cities; 坐 is a verb",
    ("副", "幅"): "{why_fu}",
    ("幅", "副"): "幅 is the measure word for pictures and maps; 副 counts sets and pairs",
    ("练", "炼"): "{w} 'practise, train' is written 练; {x} is not a word",
    ("炼", "练"): "锻炼 'exercise, temper' is written 炼; 锻练 is a miswriting",
    ("辩", "辨"): "{w} means arguing (言, speech): 辩; {x} is not a word",
    ("辩", "辫"): "{w} means arguing (言, speech): 辩; 辫 means a braid, {x} is not a word",
    ("辨", "辩"): "{w} means telling apart: 辨; {x} is not a word",
    ("辨", "辫"): "{w} means telling apart: 辨; 辫 means a braid, {x} is not a word",
    ("辫", "辩"): "辫子 'braid' is written 辫 (纟, silk); 辩子 is not a word",
    ("辫", "辨"): "辫子 'braid' is written 辫 (纟, silk); 辨子 is not a word",
    ("象", "像"): "{w} is written with 象; {x} is wrong",
    ("像", "象"): "像 'resemble, be like' is written 像 since the 1986 character list; 象 is wrong for this",
    ("带", "戴"): "{why_dai}",
    ("戴", "带"): "the sentence names where it is worn ({ctx}): wearing is 戴; 带 means carry",
    ("在", "再"): ("在 introduces a place or time here ({ctx}); 再 'again' is an adverb and cannot introduce "
                 "a place"),
    ("再", "在"): "再 means 'again / then' here ({ctx}); 在 cannot have that meaning",
    ("地", "得"): ("{ctx}: a reduplicated adverbial before the verb takes 地; 得 only follows a verb, and with an "
                 "inanimate subject it cannot be read as the modal děi 'must'"),
    ("得", "地"): "{ctx}: 得 links the verb to its complement; 地 never follows the verb",
    ("的", "地"): "{ctx}: 的 links an adjective to the noun it modifies; 地 is wrong before a noun",
}

# (word, offset of the character in the word, right, wrong, extra fields)
FIXED = [
    ("已经", 0, "已", "以"), ("已经", 0, "已", "己"),
    ("自己", 1, "己", "已"),
    ("以后", 0, "以", "已"), ("以前", 0, "以", "已"), ("可以", 1, "以", "已"), ("所以", 1, "以", "已"),
    ("作业", 0, "作", "做"), ("作文", 0, "作", "做"), ("工作", 1, "作", "做"), ("作家", 0, "作", "做"),
    ("作者", 0, "作", "做"), ("作品", 0, "作", "做"), ("动作", 1, "作", "做"), ("合作", 1, "作", "做"),
    ("作用", 0, "作", "做"),
    ("做饭", 0, "做", "作"), ("做晚饭", 0, "做", "作"), ("做菜", 0, "做", "作"), ("做蛋糕", 0, "做", "作"),
    ("做面包", 0, "做", "作"), ("做的鱼", 0, "做", "作"), ("做的菜", 0, "做", "作"),
    ("做了一个纸灯笼", 0, "做", "作"), ("做了一件新衣服", 0, "做", "作"), ("蛋糕是我自己做", 6, "做", "作"),
    ("即使", 0, "即", "既"), ("立即", 1, "即", "既"), ("即将", 0, "即", "既"),
    ("既然", 0, "既", "即"),
    ("胡须", 1, "须", "需"), ("必须", 1, "须", "需"), ("必需品", 1, "需", "须"),
    ("坐端正", 0, "坐", "座"), ("坐下", 0, "坐", "座"), ("请坐", 1, "坐", "座"), ("坐在", 0, "坐", "座"),
    ("坐地铁", 0, "坐", "座"), ("坐飞机", 0, "坐", "座"), ("坐火车", 0, "坐", "座"), ("坐船", 0, "坐", "座"),
    ("坐公交车", 0, "坐", "座"), ("围坐", 1, "坐", "座"), ("能坐", 1, "坐", "座"),
    ("一座", 1, "座", "坐"), ("这座", 1, "座", "坐"),
    ("副校长", 0, "副", "幅"), ("一副", 1, "副", "幅"),
    ("一幅", 1, "幅", "副"), ("这幅", 1, "幅", "副"),
    ("练习", 0, "练", "炼"), ("训练", 1, "练", "炼"), ("教练", 1, "练", "炼"), ("熟练", 1, "练", "炼"),
    ("锻炼", 1, "炼", "练"),
    ("辩论", 0, "辩", "辨"), ("辩论", 0, "辩", "辫"), ("争辩", 1, "辩", "辨"), ("争辩", 1, "辩", "辫"),
    ("辨认", 0, "辨", "辩"), ("辨认", 0, "辨", "辫"), ("辨别", 0, "辨", "辩"), ("辨别", 0, "辨", "辫"),
    ("辫子", 0, "辫", "辩"), ("辫子", 0, "辫", "辨"),
    ("大象", 1, "象", "像"), ("象棋", 0, "象", "像"), ("印象", 1, "象", "像"), ("现象", 1, "象", "像"),
    ("对象", 1, "象", "像"),
]
# Occurrences of the fixed words left out (sentence id, position, wrong):
FIXED_EXCLUDE = {
    ("s267", 9, "座"),  # 就坐下来 -> 就座下来: 就座 'take a seat' is a word
}
# 像 (verb 'resemble / be like') and 带 (carry, bring, lead; 领带): every occurrence in the
# sentences was read and is of that kind, so every occurrence is a site.
EVERY = [("像", "象"), ("带", "戴")]

# Context rules: sentence id -> the substring that locates the character (first char of
# the substring is the site unless an offset is given).
ZAI = "all"  # every 在 except the ids/contexts in ZAI_EXCLUDE
ZAI_EXCLUDE = {
    "s010": "都在看书 is progressive; 再看书 'read again' would be valid",
    "s047": "都在复习 is progressive; 再复习 would be valid",
    # and in s064 the second 在 (爸爸在洗碗, progressive; 再洗碗 would be valid), skipped below
    "s177": "正在 (progressive word) is not a place use",
    "s245": "在排队 is progressive; 再排队 would be valid",
    "s325": "在比赛中 -> 再比赛 'compete again' gives a misleading local reading",
}
ZAI_AGAIN_EXCLUDE = {"s276": "明天再讨论 -> 明天在讨论 could be read as a future progressive"}
DI_ADVERBIAL = {  # 地 after a reduplicated adverbial, before the verb; inanimate subject or a
    # inanimate subject, so that 得 cannot be read as the modal děi 'must' (一个一个得进 = 'must go in
    # one by one' would be a valid reading, see DI_ADVERBIAL_EXCLUDE)
    "s139": "哗哗地响", "s140": "暖暖地照", "s141": "轻轻地落", "s143": "悄悄地长",
    "s145": "慢慢地变", "s150": "哗啦啦地下", "s210": "慢慢地飞",
}
DI_ADVERBIAL_EXCLUDE = {  # reduplicated adverbial + 地 with an agent that could be obliged:
    # ADV + 得(děi) + V 'must V ...' is a possible reading, so 得 is not unambiguously wrong
    "s003": "认认真真地听", "s059": "一个字一个字地读", "s088": "静静地趴", "s108": "开开心心地去",
    "s158": "慢慢地走", "s187": "认认真真地工作", "s215": "一步一步地往", "s252": "一个一个地进",
    "s340": "一声一声地叫", "s357": "慢慢地吃",
    # not reduplicated, outside the rule: s044 安静地写, s247 高兴地笑 (高兴得笑 is valid), s361 仔细地检查
}
DE_COMPLEMENT = {  # 得 after a verb, before its complement
    "s007": "写得又快又好", "s022": "跑得很快", "s078": "长得很像", "s079": "收拾得干干净净",
    "s090": "开得很稳", "s101": "走得还不太稳", "s149": "下降得很快", "s157": "开得很慢",
    "s165": "吹得人很舒服", "s173": "开得又快又稳", "s211": "开得很快", "s221": "跳得很高",
    "s223": "滑得又快又稳", "s228": "跑得比谁都快", "s233": "配合得非常好", "s240": "骑得很稳",
    "s248": "叫得很响", "s308": "游得更快", "s315": "说得很精彩", "s365": "吃得太快",
    "s387": "拉得很好听", "s388": "唱得像小鸟",
}
DE_ATTRIBUTIVE = {  # 的 between an adjective and a noun
    "s034": "有趣的故事", "s043": "新的汉字", "s091": "有趣的故事", "s126": "红红的苹果",
    "s137": "新鲜的蔬菜", "s160": "厚厚的冰", "s193": "美丽的日出", "s196": "美丽的小岛",
    "s201": "漂亮的贝壳", "s216": "美丽的小山村", "s278": "受伤的小鸟", "s283": "美丽的山水画",
    "s286": "新的羽毛球拍", "s301": "长长的胡须", "s318": "很好的印象", "s341": "可爱的小动物",
    "s385": "漂亮的邮票", "s408": "黄色的杯子", "s409": "白色的裙子", "s410": "灰色的鸽子",
    "s113": "受欢迎的水果", "s125": "太辣的菜", "s250": "不同的垃圾桶", "s255": "各种各样的书",
}
# Adjective + 的 + noun occurrences deliberately left out, because 地 would form a real word
# with a neighbour and give a misleading local reading:
DE_ATTRIBUTIVE_EXCLUDE = {
    "s151": "常见的自然现象: 见地 'insight' is a word",
    "s322": "很少见的天文现象: 见地 'insight' is a word",
    "s177": "新的大桥: 地大 (地大物博) would appear",
    "s326": "很大的作用: 大地 'the earth' is a word",
    "s343": "嫩绿的新芽: 绿地 'green space' is a word",
}
# Verb + 得 + complement occurrences deliberately left out:
DE_COMPLEMENT_EXCLUDE = {
    "s262": "飞得多高: 飞地 'exclave' is a word",
    "s309": "打得很熟练: 打地 (打地铺) would appear",
    # s144 热得, s236 高兴得 follow adjectives, outside the rule (高兴地跳 is valid)
}
DAI_WEAR = {  # 戴 where the body part is named
    "s072": "鼻梁上戴着", "s073": "戴在头上", "s074": "戴在头发上", "s281": "头上戴着",
    "s282": "手腕上戴着",
}
# Not used on purpose (see README): 地->的 and 得->的 (的 for 地/得 occurs in older and informal
# writing, and V的 can be a valid nominal: 他说的对), 的->得, adjective+得 (高兴得跳 -> 高兴地跳
# is valid), 戴->带 without a named body part (带帽子 'bring a hat' is valid), 座位/坐位,
# 分辨/分辩, 需要/须要, 想象/想像, 做/作 outside the listed words.


XU_MUST = ("必须 'must' is the adverb before a verb phrase; 必需 is a verb taking a noun object (必需的物品), "
           "so 必需 + verb phrase is wrong")
XU_BEARD = "胡须 'beard' is written 须; 胡需 is not a word"
FU_DEPUTY = "副校长 'deputy head': 副 means deputy; 幅校长 is not a word"
FU_PAIR = "副 is the measure word for sets and pairs (glasses, gloves, cards, rackets); 幅 counts pictures"
PUNCTUATION = "[。，？！]"


def _dai_why(sentence: str, i: int) -> str:
    if i > 0 and sentence[i - 1] == "领":
        return "领带 'necktie' is written 带; 戴 is a verb 'wear', 领戴 is not a word"
    return f"{sentence[i:i + 3]}: 带 means carry / bring / lead here; 戴 only means wearing on the body"


def _clause(sentence: str, start: int, end: int) -> str:
    """``sentence[start:end]`` up to the first punctuation mark (the context a reason quotes)."""
    return re.split(PUNCTUATION, sentence[start:end])[0]


def derive(sentences: dict[str, str]) -> list[tuple[str, int, str, str, str]]:
    """The misuse sites of ``sentences`` (``{id: sentence}``), sorted by sentence, position
    and wrong character: ``(sentence_id, position, right, wrong, why)``; the first reason
    found for a site is kept."""
    sites: dict[tuple[str, int, str], tuple[str, int, str, str, str]] = {}

    def add(sid: str, pos: int, right: str, wrong: str, why: str) -> None:
        if sentences[sid][pos] != right:
            raise ValueError(f"{sid}[{pos}] is {sentences[sid][pos]}, not {right}: a rule table is out of date")
        sites.setdefault((sid, pos, wrong), (sid, pos, right, wrong, why))

    for sid, s in sentences.items():
        for word, offset, right, wrong in FIXED:
            for m in re.finditer(re.escape(word), s):
                pos = m.start() + offset
                if (sid, pos, wrong) in FIXED_EXCLUDE:
                    continue
                why = WHY[right, wrong].format(w=word, x=word[:offset] + wrong + word[offset + 1:],
                                               why_xu=XU_MUST if word == "必须" else XU_BEARD,
                                               why_fu=FU_DEPUTY if word == "副校长" else FU_PAIR)
                add(sid, pos, right, wrong, why)
        for m in re.finditer("既(.{1,3})又", s):
            add(sid, m.start(), "既", "即", "既……又…… 'both … and …' is written 既; 即 is wrong here")
        for right, wrong in EVERY:
            for m in re.finditer(right, s):
                why = WHY[right, wrong] if right == "像" else _dai_why(s, m.start())
                add(sid, m.start(), right, wrong, why)
        for m in re.finditer("在", s):  # 在 'at / in' (place or time) -> 再
            if sid in ZAI_EXCLUDE or (sid == "s064" and s[m.start():m.start() + 3] == "在洗碗"):
                continue
            add(sid, m.start(), "在", "再", WHY["在", "再"].format(ctx=_clause(s, m.start(), m.start() + 4)))
        for m in re.finditer("再", s):  # 再 'again / then' -> 在
            if sid in ZAI_AGAIN_EXCLUDE:
                continue
            p = m.start()
            ctx = s[max(0, p - 1):p + 3] if s[p - 1:p] in ("先", "请") else _clause(s, p, p + 4)
            add(sid, p, "再", "在", WHY["再", "在"].format(ctx=ctx))
    for table, right, wrong in ((DI_ADVERBIAL, "地", "得"), (DE_COMPLEMENT, "得", "地"),
                                (DE_ATTRIBUTIVE, "的", "地"), (DAI_WEAR, "戴", "带")):
        for sid, ctx in table.items():
            s = sentences[sid]
            if s.count(ctx) != 1:
                raise ValueError(f"{sid}: the context {ctx} must occur once in {s}")
            add(sid, s.index(ctx) + ctx.index(right), right, wrong, WHY[right, wrong].format(ctx=ctx))
    return [sites[key] for key in sorted(sites)]


def main(sentences: str) -> None:
    """Print the sites file of a sentence file (``id<TAB>sentence`` lines after a header)."""
    rows = Path(sentences).read_text(encoding="utf-8").splitlines()
    if rows[0] != "id\tsentence":
        sys.exit(f"{sentences}:1: expected the header 'id<TAB>sentence'")
    print("sentence_id\tposition\tright\twrong\twhy")
    for sid, pos, right, wrong, why in derive(dict(row.split("\t") for row in rows[1:])):
        print(f"{sid}\t{pos}\t{right}\t{wrong}\t{why}")


if __name__ == "__main__":
    main(sys.argv[1])
