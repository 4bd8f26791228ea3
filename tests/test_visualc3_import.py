"""The Visual-C3 importer on a fixture in the published layout (imgs/, label/ src and tgt,
char_label/): each line serves the tasks its errors call for, with the answers of the
contract, PNG pictures without metadata, and every bad folder named with its file and line."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from cogforge.core.errors import UserError
from cogforge.generators.symbols import _visualc3, language
from cogforge.generators.symbols._molecules import png_text_chunks
from cogforge.generators.symbols._visualc3 import VisualC3Error

FIXTURE = Path(__file__).parent / "fixtures" / "visualc3"
SPLIT = FIXTURE / "Test"


def load(folder: Path = SPLIT):
    return _visualc3.load(folder, language.prompt)


def copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(SPLIT, tmp_path / "Test"))


def test_each_line_serves_the_tasks_of_its_errors_with_the_contracts_answers():
    tasks, dropped = load()
    assert [(d.unit, d.answer) for d in tasks["faked-characters"]] == [
        ("visualc3:0001.jpg", "我们X论了这个问题。"),
        ("visualc3:0003.jpg", "下课以后我们再操场上X球。")]
    assert [(d.unit, d.answer) for d in tasks["misused-characters"]] == [
        ("visualc3:0002.jpg", "他认真[的]学习。"),
        ("visualc3:0003.jpg", "下课以后我们[再]操场上X球。")]
    assert [(d.unit, d.answer) for d in tasks["correction"]] == [
        ("visualc3:0001.jpg", "我们讨论了这个问题。"), ("visualc3:0002.jpg", "他认真地学习。"),
        ("visualc3:0003.jpg", "下课以后我们在操场上打球。")]
    assert dropped == {"visualc3 (line with no error)": 1}  # 0004: source = target


def test_meta_records_the_source_line_fakes_substitutions_and_boxes():
    tasks, _ = load()
    meta = tasks["correction"][2].meta
    assert meta["imported"] is True and meta["source"] == "src.txt:line 3"
    assert meta["fakes"] == [{"index": 10, "char": "打", "op": "imported"}]
    assert meta["substitutions"] == [{"index": 6, "correct": "在", "wrong": "再", "rule": "imported"}]
    boxes = json.loads((SPLIT / "char_label" / "0003.txt").read_text(encoding="utf-8"))
    assert meta["char_boxes"] == boxes and len(boxes) == len("下课以后我们在操场上打球。")


def test_prompts_never_show_the_sentence_and_ask_for_x_only_where_the_line_has_fakes():
    tasks, _ = load()
    for task, drafts in tasks.items():
        for d in drafts:
            assert "Answer: SENTENCE" in d.question
            assert not any(ch in d.question for ch in d.answer if "\u4e00" <= ch <= "\u9fff")
    misused = tasks["misused-characters"]
    assert "write the capital letter X" not in misused[0].question  # 0002: no fakes
    assert "write the capital letter X" in misused[1].question  # 0003: a fake too


def test_pictures_are_rgb_png_without_text_chunks_of_the_source_size():
    tasks, _ = load()
    d = tasks["faked-characters"][0]
    png = d.images[0]()
    assert png.startswith(b"\x89PNG") and png_text_chunks(png) == []
    with Image.open(io.BytesIO(png)) as shown, Image.open(SPLIT / "imgs" / "0001.jpg") as source:
        assert shown.mode == "RGB" and shown.size == source.size


def test_the_one_space_line_of_the_broken_fixture_is_named_with_its_line():
    with pytest.raises(VisualC3Error, match=r"bad/label/src\.txt:2: expected '<image file name><two spaces>"):
        load(FIXTURE / "bad")


def _edit(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


@pytest.mark.parametrize(("change", "message"), [
    (lambda f: _edit(f / "label" / "tgt.txt", "他认真地学习。", "他认真地学习了。"),
     r"src\.txt:2: source has 7 characters, the target \(tgt\.txt:2\) 8"),
    (lambda f: _edit(f / "label" / "tgt.txt", "0002.jpg  他认真地学习。\n", ""),
     r"src\.txt:2: 0002\.jpg has no target line in tgt\.txt"),
    (lambda f: (f / "imgs" / "0003.jpg").unlink(), r"src\.txt:3: image 0003\.jpg not found"),
    (lambda f: (f / "imgs" / "0001.jpg").write_bytes(b"not a picture"), r"src\.txt:1: image 0001\.jpg cannot be read"),
    (lambda f: _edit(f / "label" / "src.txt", "0002.jpg", "0001.jpg"),
     r"src\.txt:2: 0001\.jpg already labelled on line 1"),
    (lambda f: (f / "char_label" / "0002.txt").write_text("[[1, 2, 3, 4]]", encoding="utf-8"),
     r"0002\.txt: 1 boxes for 0002\.jpg, whose sentence \(.*src\.txt:2\) has 7 characters"),
    (lambda f: (f / "label" / "src.txt").rename(f / "label" / "source.txt"),
     r"label: expected one source file .*found source\.txt, tgt\.txt"),
])
def test_a_broken_folder_names_the_file_and_line(tmp_path, change, message):
    folder = copy(tmp_path)
    change(folder)
    with pytest.raises(VisualC3Error, match=message):
        load(folder)
    assert issubclass(VisualC3Error, UserError)


def test_boxes_may_also_come_as_one_file_of_named_lines(tmp_path):
    folder = copy(tmp_path)
    lines = []
    for path in sorted((folder / "char_label").iterdir()):
        lines.append(f"{path.stem}.jpg  {path.read_text(encoding='utf-8').strip()}")
        path.unlink()
    (folder / "char_label" / "boxes.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    tasks, _ = load(folder)
    assert tasks["correction"][0].meta["char_boxes"] == json.loads(
        (SPLIT / "char_label" / "0001.txt").read_text(encoding="utf-8"))
