"""Read eWe-bench / Emoji2Idiom workbooks into culture items (``--input emoji2idiom=FILE.xlsx``).

The published format, as the issue describes it (GitHub ``Eternity-gaga/Emoji2Idiom``,
``emoji2idiom_data/raw_data/*.zip``; the zips could not be opened here, so the layout
below is the issue's, and every departure from it is an error that says what was found):

* one ``.xlsx`` workbook whose sheets are ``English_word``, ``English_idiom`` and the
  Chinese idioms (``Chinese_idiom`` or ``Chinese_idiom_multi``); sheet names are matched
  without regard to case, spaces, hyphens and underscores;
* no real header row: every row is a question; column A is the picture's file name
  (``1.jpg``), column B the emoji string (in ``English_word``, a category), column C the
  target text. A first row whose column A is no image file name is taken for a header
  and skipped (counted in ``dropped``); empty rows are skipped;
* the pictures: in ``images_dir / <sheet name>``, else ``images_dir`` itself, where
  ``images_dir`` defaults to the workbook's folder.

Sheets become tasks: ``English_word`` -> ``emoji-word`` (answer in lower case),
``English_idiom`` -> ``emoji-idiom`` (answer as written), the Chinese sheet ->
``emoji-chengyu`` (four characters) or ``emoji-chengyu-long`` (more; punctuation
dropped). Each picture is re-encoded as an RGB PNG without metadata (transparency on
white, the EXIF orientation applied). Items carry ``meta.imported = True``, ``meta.source``
(``FILE:SHEET:row N``, the file's name only) and the task's ``answer_format``; the split
unit is ``emoji2idiom:<sheet>:<row>``.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections import Counter
from pathlib import Path

from cogforge.core.errors import UserError, read_bytes
from cogforge.generators.symbols import Draft

MAX_BYTES = 200 * 1024 * 1024
MAX_IMAGE_BYTES = 50 * 1024 * 1024
IMAGE_NAME = re.compile(r"[^/\\]+\.(jpe?g|png|gif|bmp|webp)", re.IGNORECASE)
HAN = re.compile(r"[\u4e00-\u9fff]+")
PUNCTUATION = re.compile(r"[\s，、。；：！？,.;:!?·…“”\"'‘’「」《》()（）-]+")
SHEETS = {"englishword": "English_word", "englishidiom": "English_idiom",
          "chineseidiom": "Chinese_idiom", "chineseidiommulti": "Chinese_idiom"}
TASK = {"English_word": "emoji-word", "English_idiom": "emoji-idiom"}
FORMAT = {"emoji-word": "word-en", "emoji-idiom": "phrase-en", "emoji-chengyu": "zh-idiom",
          "emoji-chengyu-long": "zh-idiom"}
QUESTIONS = {
    "emoji-word": "The emoji in the picture spell an English word. Which word is it? "
                  "Write the word on the last line as 'Answer: ...'.",
    "emoji-idiom": "The emoji in the picture stand for an English idiom or phrase. Which one is it? "
                   "Write it on the last line as 'Answer: ...'.",
    "emoji-chengyu": "What is the Chinese idiom represented by the emojis in this image? Write the idiom in "
                     "Chinese characters on the last line as 'Answer: ...'.",
    "emoji-chengyu-long": "What is the Chinese idiom represented by the emojis in this image? Write the idiom in "
                          "Chinese characters, without punctuation, on the last line as 'Answer: ...'.",
}
KNOWN = "English_word, English_idiom and Chinese_idiom (or Chinese_idiom_multi)"


class Emoji2IdiomError(UserError):
    """An Emoji2Idiom workbook, row or picture that cannot be read as published."""


def load(path: Path, images_dir: Path | None = None, dropped: Counter | None = None) -> dict[str, list[Draft]]:
    """Every question of an Emoji2Idiom workbook, by task name.

    Args:
        path: the ``.xlsx`` workbook.
        images_dir: where the pictures are (``<images_dir>/<sheet name>/`` first, then
            ``<images_dir>/``); default the workbook's folder.
        dropped: counts the rows skipped as a header row.

    Raises:
        Emoji2IdiomError: naming ``FILE:SHEET:row N:column X`` for a bad row, a missing or
            unreadable picture, and ``FILE`` or ``FILE:SHEET`` for a workbook that is not one.
    """
    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    path = Path(path)
    base = Path(images_dir) if images_dir is not None else path.parent
    data = read_bytes(path, "spreadsheet (an Emoji2Idiom .xlsx)", MAX_BYTES, Emoji2IdiomError)
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError, ValueError) as error:
        raise Emoji2IdiomError(f"not an .xlsx workbook openpyxl can read ({_one_line(error)}); pass the "
                               "Emoji2Idiom workbook itself", path) from None
    out: dict[str, list[Draft]] = {task: [] for task in FORMAT}
    try:
        sheets = [(sheet, SHEETS.get(re.sub(r"[\s_\-]", "", sheet.title).lower())) for sheet in book.worksheets]
        unknown = [sheet.title for sheet, kind in sheets if kind is None]
        if unknown:
            raise Emoji2IdiomError(f"{path}:{unknown[0]}: unknown sheet; an Emoji2Idiom workbook has {KNOWN}; "
                                   "remove or rename the sheet")
        if not sheets:
            raise Emoji2IdiomError(f"no sheets; an Emoji2Idiom workbook has {KNOWN}", path)
        for sheet, kind in sheets:
            try:
                for task, draft in _sheet(path, sheet, kind, [base / sheet.title, base], dropped):
                    out[task].append(draft)
            except Emoji2IdiomError:
                raise
            except (SyntaxError, ValueError, KeyError, IndexError, TypeError, zipfile.BadZipFile, OSError,
                    EOFError) as error:  # a sheet's XML is read lazily, row by row
                raise Emoji2IdiomError(f"{path}:{sheet.title}: the sheet cannot be read ({type(error).__name__}: "
                                       f"{_one_line(error)}); save the workbook again from a spreadsheet program"
                                       ) from None
    finally:
        book.close()
    return out


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:200]


def _sheet(path: Path, sheet, kind: str, folders: list[Path], dropped: Counter | None):
    """(task, draft) for every question row of one sheet."""
    for number, row in enumerate(sheet.iter_rows(min_row=1, values_only=True), 1):
        cells = (tuple(row) + (None, None, None))[:3]
        if all(c is None or (isinstance(c, str) and not c.strip()) for c in cells):
            continue
        if number == 1 and not (isinstance(cells[0], str) and IMAGE_NAME.fullmatch(cells[0].strip())):
            if dropped is not None:
                dropped[f"emoji2idiom {sheet.title} (header row)"] += 1
            continue
        yield _question(f"{path}:{sheet.title}:row {number}", kind, cells, folders, path.name, sheet.title, number)


def _question(where: str, kind: str, cells: tuple, folders: list[Path], file: str, sheet: str,
              number: int) -> tuple[str, Draft]:
    image, emoji, target = cells
    if not isinstance(image, str) or not IMAGE_NAME.fullmatch(image.strip()):
        raise Emoji2IdiomError(f"{where}:column A: {image!r} is not an image file name like 1.jpg; "
                               "column A names the row's picture")
    for column, value, what in (("B", emoji, "category" if kind == "English_word" else "emoji string"),
                                ("C", target, "target text")):
        if value is None or (isinstance(value, str) and not value.strip()):
            raise Emoji2IdiomError(f"{where}:column {column}: empty {what}; fill it in or delete the row")
        if not isinstance(value, str):
            raise Emoji2IdiomError(f"{where}:column {column}: {value!r} is not text, expected the {what}")
    target = target.strip()
    if kind == "Chinese_idiom":
        answer = PUNCTUATION.sub("", target)
        if not HAN.fullmatch(answer) or len(answer) < 4:
            raise Emoji2IdiomError(f"{where}:column C: {target!r} is not a Chinese idiom of 4 or more characters; "
                                   "column C of the Chinese sheet is the idiom")
        task = "emoji-chengyu" if len(answer) == 4 else "emoji-chengyu-long"
    else:
        task = TASK[kind]
        answer = target.lower() if task == "emoji-word" else target
    png = _picture(where, image.strip(), folders)
    meta = {"imported": True, "source": f"{file}:{sheet}:row {number}", "answer_format": FORMAT[task]}
    meta |= {"category": emoji.strip()} if kind == "English_word" else {"emoji": emoji.strip()}
    return task, Draft(QUESTIONS[task], [png], None, answer, f"emoji2idiom:{sheet}:{number}", meta)


def _picture(where: str, name: str, folders: list[Path]) -> bytes:
    """The named picture from the first folder that has it, as RGB PNG bytes without metadata."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    found = next((folder / name for folder in folders if (folder / name).is_file()), None)
    if found is None:
        raise Emoji2IdiomError(f"{where}:column A: image {name} not found in {' or '.join(map(str, folders))}; "
                               "put the sheet's pictures there or name their folder (emoji2idiom_images)")
    data = read_bytes(found, "picture", MAX_IMAGE_BYTES, Emoji2IdiomError)
    try:
        with Image.open(io.BytesIO(data)) as picture:
            picture = ImageOps.exif_transpose(picture.convert("RGBA") if picture.mode in ("P", "LA", "PA")
                                              else picture)
            rgba = picture.convert("RGBA")
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as error:
        raise Emoji2IdiomError(f"{where}:column A: {found} is not a picture Pillow can read ({_one_line(error)}); "
                               "replace the file") from None
    clean = Image.new("RGB", rgba.size, (255, 255, 255))
    clean.paste(rgba, mask=rgba.getchannel("A"))
    out = io.BytesIO()
    clean.save(out, format="PNG", compress_level=6)
    return out.getvalue()
