"""Annotation stages: what a Label Studio project shows for a build, and what it decides.

A stage names its labeling-config template (``annotation/templates/<stage>.xml``),
turns a build into tasks (each keyed by a stable ``key``: an image's sha256, an
item id or a sense-graph edge ``word|source>target``), optionally adds machine
suggestions as predictions, and says which unit its accept/reject decisions apply to.

The stages here serve every benchmark (``item-validation``); a benchmark's own stages
are part of its registered descriptor (``Benchmark.stages``), which builds them from
the task functions below or from its own.
"""

from __future__ import annotations

import functools
import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal
from urllib.parse import quote

from cogforge.core import registry
from cogforge.core.errors import UserError

TEMPLATES = Path(__file__).parent / "templates"


def local_url(path: Path, document_root: Path) -> str:
    """The URL Label Studio's local-file serving gives a file under its document root."""
    try:
        rel = path.resolve().relative_to(document_root.resolve())
    except ValueError:
        raise UserError(f"{path} is not under Label Studio's document root {document_root}; "
                         "build inside the project folder or set LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT") from None
    return "/data/local-files/?d=" + quote(rel.as_posix())


def _items(build: Path) -> list[dict]:
    return [json.loads(line) for line in (build / "items.jsonl").read_text().splitlines()]


def _item_html(item: dict, build: Path, document_root: Path, with_answer: bool,
               size: str = "width:180px;height:180px", caption: str = "Image") -> str:
    figures = "".join(
        f'<figure style="margin:0 6px 6px 0;display:inline-block;text-align:center">'
        f'<img src="{local_url(build / p, document_root)}" alt="{caption.lower()} {n}" '
        f'style="{size};border:1px solid #ccc"/>'
        f'<figcaption>{caption} {n}</figcaption></figure>'
        for n, p in enumerate(item["images"], 1))
    parts = [f'<div style="font-family:sans-serif"><div>{figures}</div>',
             f'<p style="white-space:pre-wrap">{html.escape(item["question"])}</p>']
    if item.get("options"):
        parts.append("<ol type='A'>" + "".join(f"<li>{html.escape(o)}</li>" for o in item["options"]) + "</ol>")
    if with_answer:
        parts.append(f"<p><b>Answer:</b> {html.escape(item['answer'])}</p>")
    parts.append(f'<p style="color:#888">{html.escape(item["id"])}</p></div>')
    return "".join(parts)


def _render_beside(build: Path, row: dict, document_root: Path) -> str:
    """The procedural render a refined image was made from, shown beside it ("" when the
    build is not refined: the image is the render)."""
    if "render" not in row:
        return ""
    return ('<figure style="margin:0;text-align:center">'
            f'<img src="{local_url(build / row["render"], document_root)}" alt="procedural render" '
            'style="width:512px;max-width:100%;border:1px solid #ccc"/>'
            "<figcaption>The procedural render it was refined from (what the caption states). "
            "Judge the image on the left.</figcaption></figure>")


def carv_image_audit_tasks(build: Path, document_root: Path) -> list[dict]:
    """One task per state image. In a refined build (``--renderer refine``) the image is the
    refined one and its procedural render is shown beside it: people make the final call on
    what the property check (``qc/refine.py``) let through."""
    rows = [json.loads(line) for line in (build / "states.jsonl").read_text().splitlines()]
    return [{"key": Path(r["image"]).stem, "image": local_url(build / r["image"], document_root),
             "render": _render_beside(build, r, document_root),
             "intended": f"Intended: {r['caption']}", "state": r["state"]} for r in rows]


# The property that drifted (``qc/refine.py``'s first reason) -> the audit's reason to reject.
_REFINE_REASON = {"colour": "wrong colour", "count": "wrong count", "edges": "unrecognisable"}


def carv_image_audit_predictions(build: Path, tasks: list[dict]) -> dict[str, list[dict]]:
    """Machine suggestions from QC: accept unless an image fails the media or duplicate checks."""
    from cogforge.qc.checks import check_duplicates, check_media
    from cogforge.qc.core import load_build
    from cogforge.qc.refine import check_refined_build, is_refined

    loaded = load_build(build)
    flagged: dict[str, str] = {}
    for finding in check_media(loaded).findings + check_duplicates(loaded).findings:
        if finding.severity == "error" and finding.target.startswith("images/"):
            flagged[Path(finding.target).stem] = "overlap" if "near-duplicate" in finding.message else "unrecognisable"
    if is_refined(loaded.manifest):  # the property check names what refinement changed
        for finding in check_refined_build(loaded).findings:
            if finding.severity == "error" and finding.target.startswith("images/"):
                flagged.setdefault(Path(finding.target).stem, _REFINE_REASON.get(
                    finding.message.split("): ", 1)[-1].split(":", 1)[0], "unrecognisable"))
    out = {}
    for task in tasks:
        reason = flagged.get(task["key"])
        result = [{"from_name": "verdict", "to_name": "image", "type": "choices",
                   "value": {"choices": ["reject" if reason else "accept"]}}]
        if reason:
            result.append({"from_name": "reasons", "to_name": "image", "type": "choices",
                           "value": {"choices": [reason]}})
        out[task["key"]] = [{"model_version": "cogforge-qc", "score": 1.0, "result": result}]
    return out


def human_baseline_tasks(build: Path, document_root: Path) -> list[dict]:
    # The ground truth is not in the task: annotators could read task data.
    return [{"key": i["id"], "html": _item_html(i, build, document_root, with_answer=False)}
            for i in _items(build)]


def corecognition_cross_validation_tasks(build: Path, document_root: Path) -> list[dict]:
    """One task per item, without its answer (annotators answer it, then judge it), every
    frame of a sequence shown in order; ``state`` names the family, concept and pair so
    decisions and agreement can be read per family."""
    return [{"key": i["id"], "html": _item_html(i, build, document_root, with_answer=False,
                                                 size="width:320px;height:auto", caption="Frame"),
             "state": {"family": i["meta"]["family"], "concept": i["meta"]["concept"],
                       "pair_id": i["meta"]["pair_id"], "role": i["meta"]["role"]}}
            for i in _items(build)]


def item_validation_tasks(build: Path, document_root: Path) -> list[dict]:
    return [{"key": i["id"], "html": _item_html(i, build, document_root, with_answer=True)}
            for i in _items(build)]


@functools.cache
def _wordnet(folder: str | None):
    from cogforge.generators import wordnet

    return wordnet.reader(Path(folder) if folder else None)


def sense_graph_audit_tasks(build: Path, document_root: Path) -> list[dict]:
    """One task per edge of the build's sense graphs, keyed like the decisions that
    :func:`generators.cogevolve.graphs.apply_decisions` reads.

    The word's other WordNet noun senses are shown for context (graphs hold only the
    senses they connect), from the WordNet folder the build was made with. The
    prototype is not marked: the direction of the edge is what is being judged.
    """
    from cogforge.generators.cogevolve.graphs import edge_key, word_senses

    manifest = json.loads((build / "manifest.json").read_text())
    wn = _wordnet((manifest.get("wordnet") or {}).get("dir"))
    out = []
    for line in (build / "graphs.jsonl").read_text().splitlines():
        graph = json.loads(line)
        word = graph["word"]
        senses = word_senses(wn, word) | graph["senses"]
        for source, target, label in graph["edges"]:
            others = [v["gloss"] for k, v in senses.items() if k not in (source, target)]
            out.append({"key": edge_key(word, source, target),
                        "word": f"Word: {word.replace('_', ' ')}",
                        "from": f"From: {senses[source]['gloss']}",
                        "to": f"To: {senses[target]['gloss']}",
                        "relation": f"Proposed relation: {label}",
                        "others": "\n".join(f"- {g}" for g in others) or "(none)",
                        "state": {"graph": graph.get("id", word), "word": word, "source": source,
                                  "target": target, "label": label}})
    return out


def cogevolve_schema_audit_tasks(build: Path, document_root: Path) -> list[dict]:
    """One task per distinct schema PNG the items show, keyed by its sha256.

    Two senses (of one word or of two words sharing a core drawing) can render to the
    same bytes: the task then lists every meaning the picture is used for. No ``state``: the decision is about the image, found by its hash.
    """
    meanings: dict[str, dict[tuple[str, str], str]] = {}
    for item in _items(build):
        glosses = {s["key"]: s["gloss"] for s in item["meta"].get("graph", {}).get("senses", [])}
        for record in item["meta"].get("image_records", []):
            meanings.setdefault(record["png"], {})[(item["meta"]["word"], record["sense"])] = glosses[record["sense"]]
    out = []
    for png, shown in sorted(meanings.items(), key=lambda kv: Path(kv[0]).stem):
        lines = [f"{word.replace('_', ' ')}: {gloss}" for (word, _), gloss in sorted(shown.items())]
        out.append({"key": Path(png).stem, "image": local_url(build / png, document_root),
                    "meaning": "\n".join(lines), "senses": sorted(sense for _, sense in shown)})
    return out


def _culture_reading(meta: dict) -> str:
    """How the generator meant the picture to be read, one line a part (from the item's meta)."""
    if meta.get("parts"):  # emoji-word: each emoji's CLDR name gives a part of the word
        return "\n".join(f"{p['emoji']} {p['name']} -> {p['word']}" for p in meta["parts"])
    if meta.get("rebus"):  # chengyu: each character by meaning or sound
        return "\n".join(f"{r['emoji']} {r['emoji_zh']} -> {r['char']} ({r['pinyin']}, {r['match']})"
                         for r in meta["rebus"])
    why = meta.get("why") or ""  # emoji-idiom: a one-line reason
    return f"{meta['emoji']}: {why}" if why and meta.get("emoji") else why


def symbols_guessability_tasks(build: Path, document_root: Path) -> list[dict]:
    """One task per distinct picture of the build's generated culture items (emoji
    rebuses), keyed by its sha256 so that a rejection outlives rebuilds that draw the
    same picture. The task shows the question a model gets; the intended answer and how
    the generator reads the picture are in the task too, behind a collapsed panel the
    annotator opens after guessing. No ``state``: the decision is about the picture.
    Imported items are not asked about (their source dataset chose them).
    """
    shown: dict[str, list[dict]] = {}
    for item in _items(build):
        if item["meta"].get("domain") == "culture" and not item["meta"].get("imported") and item["images"]:
            shown.setdefault(Path(item["images"][0]).stem, []).append(item)
    if not shown:
        raise UserError(f"{build}: no generated culture items to ask about; build them with "
                        "`cogforge build symbols --domains culture`")
    out = []
    for key, items in sorted(shown.items()):
        first = items[0]
        answers = list(dict.fromkeys(i["answer"] for i in items))
        out.append({"key": key, "image": local_url(build / first["images"][0], document_root),
                    "question": first["question"], "answer": " / ".join(answers),
                    "reading": "\n".join(dict.fromkeys(_culture_reading(i["meta"]) for i in items)) or "(none)",
                    "tasks": sorted({i["task"] for i in items})})
    return out


@dataclass(frozen=True)
class Stage:
    """One kind of Label Studio project.

    Args:
        name: what ``cogforge annotate push --stage`` names it by.
        benchmark: the benchmark whose builds it takes; None: any benchmark's.
        unit: what one task and its decision are about.
        decides: whether the stage's accept/reject becomes a decision the builders read.
        tasks: ``tasks(build, document_root) -> [{"key": ..., ...}]``.
        predictions: machine suggestions, ``predictions(build, tasks) -> {key: [prediction]}``.
        caption_question: a free-text answer scored against the item's answer.
        letter_question: an option letter scored against the item's answer letter.
        template: the labeling config: a name in ``annotation/templates/`` (default: the
            stage's name), or the path of a file (a benchmark from another package).
        hidden: task data fields the project's Data Manager table does not show (its
            columns show every field by default): what the labeling view reveals only
            after the annotator has answered, such as the intended answer.
    """

    name: str
    benchmark: str | None
    unit: Literal["image", "item", "edge"]
    decides: bool
    tasks: Callable[[Path, Path], list[dict]]
    predictions: Callable[[Path, list[dict]], dict[str, list[dict]]] | None = None
    caption_question: str | None = None
    letter_question: str | None = None
    template: str | Path | None = None
    hidden: tuple[str, ...] = ()

    @property
    def label_config(self) -> str:
        if isinstance(self.template, Path):
            return self.template.read_text()
        return (TEMPLATES / f"{self.template or self.name}.xml").read_text()


# The stages every benchmark has; a benchmark's own come with its descriptor.
STAGES = {s.name: s for s in [
    Stage("item-validation", None, "item", True, item_validation_tasks),
]}


def stages(benchmark: str | None = None) -> dict[str, Stage]:
    """The stages a build of ``benchmark`` can be pushed to, by name; with no benchmark,
    those of every registered benchmark (each benchmark is imported)."""
    names = [benchmark] if benchmark else registry.available()
    out = dict(STAGES)
    for name in names:
        found = registry.find(name)
        out.update({s.name: s for s in (found.stages if found else ())})
    return out


def get_stage(name: str, benchmark: str | None = None) -> Stage:
    """The stage called ``name``: a shared one, or one of ``benchmark``'s (of any
    registered benchmark when ``benchmark`` is None)."""
    if name in STAGES:
        return STAGES[name]
    known = stages(benchmark)
    if name not in known:
        of = f" for {benchmark}" if benchmark else ""
        raise UserError(f"unknown stage {name!r}; stages{of}: {', '.join(known)}")
    return known[name]
