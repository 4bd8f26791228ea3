"""The Emoji2Idiom importer on a fixture in the published layout (three sheets, no header
row; A picture file, B emoji string or category, C target text): rows become items of
their tasks, pictures come back as clean RGB PNGs, and bad rows are named
FILE:SHEET:row N:column X."""

from __future__ import annotations

import importlib.util
import io
import shutil
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from cogforge.core.errors import UserError
from cogforge.generators.symbols._emoji2idiom import Emoji2IdiomError, load
from cogforge.generators.symbols._molecules import png_text_chunks

FIXTURES = Path(__file__).parent / "fixtures" / "emoji2idiom"
WORKBOOK = FIXTURES / "emoji2idiom.xlsx"
_spec = importlib.util.spec_from_file_location("make_fixture", FIXTURES / "make_fixture.py")
make_fixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixture)


def chunk_kinds(png: bytes) -> list[bytes]:
    kinds, pos = [], 8
    while pos + 8 <= len(png):
        length = int.from_bytes(png[pos:pos + 4], "big")
        kinds.append(png[pos + 4:pos + 8])
        pos += 12 + length
    return kinds


def write(folder: Path, sheets: dict[str, list[tuple]], pictures: dict[str, list[str]] | None = None) -> Path:
    """A workbook in the published layout, with the named pictures beside it (sheet -> files)."""
    path = folder / "bad.xlsx"
    path.write_bytes(make_fixture.workbook(sheets))
    for sheet, names in (pictures or {}).items():
        (folder / sheet).mkdir(exist_ok=True)
        for name in names:
            (folder / sheet / name).write_bytes(make_fixture.picture(name, (10, 20, 30)))
    return path


def test_each_sheet_becomes_its_task_with_answer_source_and_unit():
    items = load(WORKBOOK)
    answers = {task: [d.answer for d in drafts] for task, drafts in items.items()}
    assert answers == {"emoji-word": ["pineapple", "rainbow"],  # lower case, as the generated words
                       "emoji-idiom": ["Not the brightest bulb", "break the ice"],
                       "emoji-chengyu": ["同舟共济"],
                       "emoji-chengyu-long": ["百闻不如一见", "八仙过海各显神通"]}  # comma dropped
    formats = {"emoji-word": "word-en", "emoji-idiom": "phrase-en", "emoji-chengyu": "zh-idiom",
               "emoji-chengyu-long": "zh-idiom"}
    for task, drafts in items.items():
        for d in drafts:
            assert d.meta["imported"] is True and d.meta["answer_format"] == formats[task]
            assert d.options is None and d.answer not in d.question and "'Answer: ...'" in d.question
    word, idiom = items["emoji-word"][0], items["emoji-idiom"][0]
    assert word.meta["source"] == "emoji2idiom.xlsx:English_word:row 1" and word.meta["category"] == "food"
    assert word.unit == "emoji2idiom:English_word:1"
    assert idiom.meta["emoji"] == "😊💡🚫" and idiom.meta["source"] == "emoji2idiom.xlsx:English_idiom:row 1"
    long = items["emoji-chengyu-long"][1]
    assert long.meta["source"] == "emoji2idiom.xlsx:Chinese_idiom_multi:row 3"
    assert long.unit == "emoji2idiom:Chinese_idiom_multi:3"


def test_pictures_are_rgb_pngs_without_metadata_upright_and_on_white():
    items = load(WORKBOOK)
    for drafts in items.values():
        for d in drafts:
            png = d.images[0]
            assert png.startswith(b"\x89PNG\r\n\x1a\n") and not png_text_chunks(png)
            assert not {b"iCCP", b"tIME", b"pHYs"} & set(chunk_kinds(png))
            assert Image.open(io.BytesIO(png)).mode == "RGB"
    # the JPEG is stored 32 x 48 with EXIF orientation 6: it comes back turned, 48 x 32
    jpeg = Image.open(io.BytesIO(items["emoji-word"][0].images[0]))
    assert jpeg.size == (48, 32)
    # the PNG with transparency (and a tEXt chunk in the source) comes back on white
    png = Image.open(io.BytesIO(items["emoji-idiom"][1].images[0]))
    assert png.getpixel((0, 0)) == (255, 255, 255) and png.getpixel((12, 12)) == (40, 160, 40)


def test_pictures_are_found_in_a_named_folder_by_sheet_or_all_together(tmp_path):
    by_sheet, flat = tmp_path / "by_sheet", tmp_path / "flat"
    for sheet in make_fixture.ROWS:
        shutil.copytree(FIXTURES / sheet, by_sheet / sheet)
    flat.mkdir()
    shutil.copy(FIXTURES / "Chinese_idiom_multi" / "2.png", flat / "2.png")
    assert [d.images for d in load(WORKBOOK, by_sheet)["emoji-chengyu"]] == \
        [d.images for d in load(WORKBOOK)["emoji-chengyu"]]
    path = write(tmp_path, {"Chinese_idiom": [("2.png", "💯👂", "百闻不如一见")]})
    (got,) = load(path, flat)["emoji-chengyu-long"]
    assert got.meta["source"] == "bad.xlsx:Chinese_idiom:row 1"


def test_a_pseudo_header_row_is_skipped_and_counted(tmp_path):
    path = write(tmp_path, {"english word": [("image", "category", "word"), ("1.jpg", "food", "pineapple")]},
                 {"english word": ["1.jpg"]})
    dropped = Counter()
    (only,) = load(path, dropped=dropped)["emoji-word"]
    assert only.meta["source"] == "bad.xlsx:english word:row 2"
    assert dropped == {"emoji2idiom english word (header row)": 1}


@pytest.mark.parametrize("rows, message", [
    ([("1.jpg", "😊", "a"), ("1.jpg", "😊", "b"), ("1.jpg", "😊💡", None)],
     "bad.xlsx:English_idiom:row 3:column C: empty target text"),
    ([("1.jpg", "😊", "a"), ("7.jpg", "😊", "b")], "bad.xlsx:English_idiom:row 2:column A: image 7.jpg not found in"),
    ([("1.jpg", "😊", "a"), ("../1.jpg", "😊", "b")], "bad.xlsx:English_idiom:row 2:column A: '../1.jpg' is not an "
                                                       "image file name"),
    ([("1.jpg", "😊", "a"), ("1.jpg", 5, "b")], "bad.xlsx:English_idiom:row 2:column B: 5 is not text"),
    ([("1.jpg", " ", "a")], "bad.xlsx:English_idiom:row 1:column B: empty emoji string"),
])
def test_a_bad_row_is_named_by_file_sheet_row_and_column(tmp_path, rows, message):
    path = write(tmp_path, {"English_idiom": rows}, {"English_idiom": ["1.jpg"]})
    with pytest.raises(Emoji2IdiomError) as caught:
        load(path)
    assert str(caught.value).startswith(str(tmp_path / message.split(":")[0]) + ":" + message.split(":", 1)[1])
    assert isinstance(caught.value, UserError)


def test_a_target_that_is_no_chinese_idiom_is_named(tmp_path):
    path = write(tmp_path, {"Chinese_idiom_multi": [("1.jpg", "🪣", "同舟")]}, {"Chinese_idiom_multi": ["1.jpg"]})
    with pytest.raises(Emoji2IdiomError, match=r"bad.xlsx:Chinese_idiom_multi:row 1:column C: '同舟' is not a Chinese "
                                               r"idiom of 4 or more characters"):
        load(path)


def test_a_picture_pillow_cannot_read_is_named(tmp_path):
    path = write(tmp_path, {"English_word": [("1.jpg", "food", "apple")]})
    (tmp_path / "1.jpg").write_bytes(b"not a picture")
    with pytest.raises(Emoji2IdiomError, match=r"bad.xlsx:English_word:row 1:column A: .*1.jpg is not a picture"):
        load(path)


def test_a_workbook_of_another_layout_is_named(tmp_path):
    path = write(tmp_path, {"English_word": [("1.jpg", "food", "apple")], "Sheet1": [("x",)]})
    with pytest.raises(Emoji2IdiomError, match=r"bad.xlsx:Sheet1: unknown sheet; an Emoji2Idiom workbook has "
                                               r"English_word, English_idiom and Chinese_idiom"):
        load(path)
    (tmp_path / "notes.xlsx").write_text("just text")
    with pytest.raises(Emoji2IdiomError, match=r"notes.xlsx: not an .xlsx workbook"):
        load(tmp_path / "notes.xlsx")
    with pytest.raises(Emoji2IdiomError, match=r"missing.xlsx: no such"):
        load(tmp_path / "missing.xlsx")


def test_a_sheet_whose_xml_is_cut_short_is_named_on_one_line(tmp_path):
    source = zipfile.ZipFile(io.BytesIO(make_fixture.workbook(make_fixture.ROWS)))
    cut = io.BytesIO()
    with zipfile.ZipFile(cut, "w") as out:
        for name in source.namelist():
            data = source.read(name)
            out.writestr(name, data[:len(data) // 2] if name == "xl/worksheets/sheet2.xml" else data)
    path = tmp_path / "cut.xlsx"
    path.write_bytes(cut.getvalue())
    with pytest.raises(Emoji2IdiomError, match=r"cut.xlsx:English_idiom: the sheet cannot be read") as caught:
        load(path, FIXTURES)
    assert "\n" not in str(caught.value)
