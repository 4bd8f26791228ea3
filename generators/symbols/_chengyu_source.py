"""How ``generators/data/symbols_chengyu.tsv`` was made (run again to re-derive it).

Source: the data files of the ``emoji-chengyu`` 0.0.6 wheel (PyPI, MIT licence,
(c) 2020 alingse, github.com/alingse/emoji-chengyu; wheel sha256
``77f3a0d1328a2cda203ca0d8ccc3c2d0dceb1c8aa413605aba54d5652861187b``), which copies the
idiom list of pwxcoo/chinese-xinhua (MIT). Only each idiom and its pinyin are taken;
the package is not a dependency of cogforge and no dictionary prose is shipped.

* ``emoji_chengyu/data/chengyu.json``: JSON Lines ``{"word", "pinyin"}``, 30,895 idioms
  (the ``source`` column cites its line);
* ``emoji_chengyu/data/chengyu.count.json``: ``{idiom: n}`` for 1,285 idioms the
  package marks as common (it does not say where the mark comes from).

Kept:

* every four-character idiom of the common list, except those in :data:`EXCLUDED`
  (obscene, disparaging, violent beyond the ordinary, or a variant spelling of another
  line);
* the longer sayings of :data:`LONG`, chosen by hand among the 1,267 longer entries as
  well-known; their commas are dropped (the answer is written without punctuation);
* only where the source's pinyin agrees, syllable for syllable and tone for tone, with
  :func:`generators.symbols._rebus.readings` (pypinyin 0.55.0, phrase-aware, 一 and 不 in
  citation tones). They disagree on 31 of the common four-character idioms and 7 of the
  longer sayings: typing slips of the source (梨花带雨 "lí hu ài yǔ"), readings where
  pypinyin is right (一模一样 mú, 乍暖还寒 huán) and some where it is wrong (才子佳人
  zi5): an idiom whose reading is in doubt is left out (the script lists them on stderr).

The result: 1,231 four-character idioms and 119 longer sayings. The pinyin column is the
source's, tone marks as written, commas dropped.

    pip download --no-deps emoji-chengyu==0.0.6 && unzip emoji_chengyu-0.0.6-py2.py3-none-any.whl
    python -m cogforge.generators.symbols._chengyu_source emoji_chengyu/data > generators/data/symbols_chengyu.tsv
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cogforge.generators.symbols._rebus import CITATION, readings, tone3

SOURCE = "emoji-chengyu 0.0.6 data/chengyu.json"
PUNCTUATION = "，、。；：！？,"
EXCLUDED = set("""
狗屁不通 衣冠禽兽 行同狗彘 水性杨花 红颜薄命 朝云暮雨 血流成河 血雨腥风 骨肉相残 生灵涂炭 杀一儆百 杀鸡儆猴
寻死觅活 漆身吞炭 冰壸秋月 冬温夏凊 秋豪之末
""".split())
LONG = """
百闻不如一见 八仙过海，各显神通 百尺竿头，更进一步 一日不见，如隔三秋 不入虎穴，焉得虎子 八九不离十
百花齐放，百家争鸣 冰冻三尺，非一日之寒 不到黄河心不死 不费吹灰之力 不管三七二十一 不识庐山真面目
不知天高地厚 长江后浪推前浪 吃一堑，长一智 初生牛犊不怕虎 出淤泥而不染 此地无银三百两 打破砂锅问到底
当局者迷，旁观者清 读书破万卷 独木不成林 更上一层楼 工欲善其事，必先利其器 公说公有理，婆说婆有理
恭敬不如从命 后来者居上 化干戈为玉帛 画虎不成反类犬 换汤不换药 皇天不负有心人 机不可失，时不再来
己所不欲，勿施于人 既来之，则安之 家丑不可外扬 江山易改，本性难移 解铃还须系铃人 金无足赤，人无完人
近水楼台先得月 近朱者赤，近墨者黑 井水不犯河水 九牛二虎之力 久旱逢甘雨 酒逢知己千杯少 君子之交淡如水
快刀斩乱麻 浪子回头金不换 礼轻情意重 鲤鱼跳龙门 临时抱佛脚 留得青山在，不怕没柴烧 柳暗花明又一村
路遥知马力，日久见人心 麻雀虽小，五脏俱全 民以食为天 磨刀不误砍柴工 谋事在人，成事在天 泥菩萨过江
牛头不对马嘴 千里之行，始于足下 千里送鹅毛 前人栽树，后人乘凉 巧妇难为无米之炊 青出于蓝而胜于蓝
情人眼里出西施 人不可貌相 三个臭皮匠，赛过诸葛亮 三人行，必有我师 三思而后行 三天打鱼，两天晒网
塞翁失马，焉知非福 上梁不正下梁歪 少壮不努力，老大徒伤悲 伸手不见五指 生米煮成熟饭 失败为成功之母
十年树木，百年树人 世上无难事，只怕有心人 事实胜于雄辩 水至清则无鱼 天有不测风云 铁杵磨成针
万事俱备，只欠东风 物以稀为贵 心有灵犀一点通 心有余而力不足 行行出状元 小巫见大巫 眼不见为净
羊毛出在羊身上 一寸光阴一寸金 一年之计在于春 一山不藏二虎 一言既出，驷马难追 一叶障目，不见泰山
有志者事竟成 有眼不识泰山 远亲不如近邻 远水解不了近渴 欲速则不达 宰相肚里好撑船 只见树木，不见森林
众人拾柴火焰高 种瓜得瓜，种豆得豆 醉翁之意不在酒 坐山观虎斗 天下乌鸦一般黑 不打不相识 人逢喜事精神爽
瑞雪兆丰年 天时地利人和 一个巴掌拍不响 一个萝卜一个坑 依样画葫芦 英雄所见略同 知人知面不知心
只可意会，不可言传 真金不怕火炼 鹬蚌相争，渔翁得利 螳螂捕蝉，黄雀在后 桃李满天下 他山之石，可以攻玉
水可载舟，亦可覆舟 千里之堤，溃于蚁穴 说到曹操，曹操就到 一分耕耘，一分收获
""".split()


def plain(text: str) -> str:
    return "".join(c for c in text if c not in PUNCTUATION and not c.isspace())


def agrees(idiom: str, marked: str) -> bool:
    """Whether the source's pinyin is pypinyin's reading of the idiom."""
    try:
        mine = readings(idiom)
    except ValueError:
        return False
    theirs = [CITATION.get(c, r) for c, r in zip(idiom, tone3(marked))]
    return len(marked.split()) == len(idiom) and theirs == mine


def main(folder: str) -> None:
    data = Path(folder)
    lines = {}
    for number, line in enumerate((data / "chengyu.json").read_text(encoding="utf-8").splitlines(), 1):
        record = json.loads(line)
        lines.setdefault(record["word"], (number, record["pinyin"]))
    common = json.loads((data / "chengyu.count.json").read_text(encoding="utf-8"))
    four = [w for w in common if len(w) == 4 and w not in EXCLUDED]
    missing = [w for w in LONG if w not in lines]
    if missing:
        sys.exit(f"not in chengyu.json: {' '.join(missing)}")
    print("# idiom\tpinyin\tsource (emoji-chengyu 0.0.6 wheel, MIT; see generators/symbols/_chengyu_source.py)")
    kept, left = set(), []
    for word in four + LONG:
        number, marked = lines[word]
        idiom = plain(word)
        marked = " ".join(filter(None, (plain(s) for s in marked.replace("，", " ").split())))
        if idiom in kept:
            continue
        if not agrees(idiom, marked):
            left.append(word)
            continue
        kept.add(idiom)
        print(f"{idiom}\t{marked}\t{SOURCE}:{number}")
    print(f"left out, pinyin in doubt ({len(left)}): {' '.join(left)}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
