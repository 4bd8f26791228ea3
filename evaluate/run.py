"""Running a model on a release through an OpenAI-compatible chat-completions endpoint.

Each item goes out as one user message: its images as PNG data URLs, in prompt
order, then its question. A multiple-choice question shows its options once, lettered
as the scorer keys them: with ``circular``, every rotation of the options is its own
request, with the question's own option list rewritten (``prompt_text``). Requests run
with bounded concurrency; each answer is appended to an on-disk cache as it arrives, so
an interrupted run resumes without asking again. The predictions file that
``score`` reads is written whole at the end, with a ``.meta.json`` beside it that
records the model, endpoint, temperature and max tokens (never the API key).
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import httpx
from tqdm import tqdm

from cogforge.core.errors import UserError
from cogforge.core.releases import load_release, read_rows
from cogforge.evaluate.client import Endpoint, EndpointError, chat
from cogforge.evaluate.extract import rotate


def _data_url(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


# How builders list options in a question: "A. dog" (every builder) or "(A) dog".
OPTION_STYLES = ("{letter}. {option}", "({letter}) {option}")


class PromptError(UserError):
    """A release item whose question lists only some of its options, or lists them twice."""


def _listing(options: list[str], style: str) -> str:
    return "\n".join(style.format(letter=chr(65 + k), option=o) for k, o in enumerate(options))


def prompt_text(row: dict, options: list[str] | None) -> str:
    """The text sent for an item, its options shown once, lettered as the scorer keys them.

    ``options`` is the order asked (the item's, or a rotation of them under circular
    evaluation). A question that lists its options (every builder writes "A. dog" lines
    and an answer instruction) has that list rewritten in place; a question without one
    gets the list and the instruction appended.
    """
    question = row["question"]
    if not options:
        return question
    for style in OPTION_STYLES:
        listed = _listing(row["options"], style)
        found = [m.start() for m in re.finditer(re.escape(listed), question)
                 if (m.start() == 0 or question[m.start() - 1] == "\n")
                 and (m.end() == len(question) or question[m.end()] == "\n")]
        if len(found) == 1:
            start = found[0]
            return question[:start] + _listing(options, style) + question[start + len(listed):]
        if found:
            raise PromptError(f"item {row['id']}: its question lists its options {len(found)} times")
    stray = [o for k, o in enumerate(row["options"]) for style in OPTION_STYLES
             if re.search(rf"(?m)^{re.escape(style.format(letter=chr(65 + k), option=o))}$", question)]
    if stray:
        raise PromptError(f"item {row['id']}: its question lists some of its options ({stray[0]!r}) but not "
                          "all, in order; fix the builder so that it lists every option or none")
    return question + "\nOptions:\n" + _listing(options, OPTION_STYLES[0]) + "\nAnswer with the option's letter."


def messages(row: dict, release: Path, options: list[str] | None) -> list[dict]:
    content: list[dict] = [{"type": "image_url", "image_url": {"url": _data_url(release / "data" / p)}}
                           for p in row["file_names"]]
    content.append({"type": "text", "text": prompt_text(row, options)})
    return [{"role": "user", "content": content}]


def requests_for(rows: list[dict], circular: bool) -> list[tuple[str, dict, list[str] | None]]:
    out = []
    for row in rows:
        out.append((row["id"], row, row["options"]))
        if circular and row["options"]:
            out += [(f"{row['id']}::rot{k}", row, rotate(row["options"], k)) for k in range(1, len(row["options"]))]
    return out


def _read_cache(path: Path) -> dict[str, str]:
    cache = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by an interruption: asked again
            cache[row["id"]] = row["response"]
    return cache


def run(release: Path | str, endpoint: Endpoint, out: Path | str, concurrency: int = 4,
        temperature: float = 0.0, max_tokens: int = 512, circular: bool = False,
        limit: int | None = None, progress: bool = True, split: str | None = None) -> dict:
    """Ask the model every item (of ``split``; the first ``limit``); returns counts (asked, cached, failed)."""
    release, out = Path(release), Path(out)
    rows, info = load_release(release)
    if split is not None:
        splits = sorted({r["split"] for r in rows})
        if split not in splits:
            raise UserError(f"split {split!r} is not in the release; it has {splits}", release)
        rows = [r for r in rows if r["split"] == split]
    rows = rows[:limit] if limit else rows
    todo = requests_for(rows, circular)
    for _, row, options in todo:  # a malformed item stops the run before anything is asked
        try:
            prompt_text(row, options)
        except PromptError as err:  # named by its release file and line
            same = [r["id"] for r in read_rows(release) if r["split"] == row["split"]]
            raise PromptError(str(err), release / "data" / f"{row['split']}.jsonl", same.index(row["id"]) + 1) from None
    cache_path = out.with_name(out.name + ".cache.jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)
    cache = _read_cache(cache_path)
    pending = [t for t in todo if t[0] not in cache]
    errors: dict[str, str] = {}
    lock = threading.Lock()
    with httpx.Client(timeout=endpoint.timeout) as client, open(cache_path, "a", encoding="utf-8") as handle, \
            ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = {pool.submit(chat, endpoint, messages(row, release, options), temperature, max_tokens, client): rid
                   for rid, row, options in pending}
        bar = tqdm(total=len(futures), desc=f"ask {endpoint.model}", disable=not progress)
        for future in as_completed(futures):
            rid = futures[future]
            try:
                text = future.result()
            except EndpointError as err:
                errors[rid] = str(err)
            else:
                with lock:
                    cache[rid] = text
                    handle.write(json.dumps({"id": rid, "response": text}, ensure_ascii=False) + "\n")
                    handle.flush()
            bar.update()
        bar.close()
    lines = []
    for rid, _, _ in todo:
        if rid in cache:
            lines.append({"id": rid, "response": cache[rid]})
        else:
            lines.append({"id": rid, "response": "", "error": errors.get(rid, "not asked")})
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    tmp.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    os.replace(tmp, out)
    meta = {"model": endpoint.model, "base_url": endpoint.base_url, "temperature": temperature,
            "max_tokens": max_tokens, "circular": circular, "release": info["release"],
            "benchmark": info["benchmark"], "version": info["version"], "requests": len(todo),
            "answered": len(todo) - len(errors), "failed": len(errors), "timeout_s": endpoint.timeout,
            "retries": endpoint.retries, "split": split, "limit": limit}
    out.with_name(out.name + ".meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return {"requests": len(todo), "from_cache": len(todo) - len(pending), "asked": len(pending),
            "failed": len(errors), "errors": errors}
