"""What a CARV release says about itself, and the layout of the paper's own code.

``exports/carv_paper/`` is the data layout that the CARV paper's public scripts read
(``src/inference/analogy_composition.py`` and the analysis and plotting scripts):

* ``data_path_all/<track>/<operation>/<easy|hard>_<N>.json``: a list of
  ``{"context_image": [stems in prompt order], "label": answer stem, "id": ...}``, N the
  number of items in the file;
* ``data/<track>/<stem>.jpeg``: every image named by its state, ``label`` included;
* ``data_labels_all/<track>/<operation>/<easy|hard>_<N>.json``: index-aligned lists of
  ``changed_properties1`` / ``changed_properties2`` (the paper's property names).

A stem is ``<number>_<subject>_<position>_<color>_<object>``, e.g.
``one_banana_right_of_red_chair``, the paper's ``dict_to_filename``. Our cells map to its
tracks as :data:`TRACKS` says.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

# cell id -> (track, operation folder, difficulty), as the paper's scripts name them:
# "mix" easy = shared source (SS), hard = different sources (DS), two changes per pair;
# "large" easy/hard = shared source with 3/4 changes per pair; "single" lives under union/hard,
# where the paper's single-pair generator writes it.
TRACKS = {
    "single": ("single", "union", "hard"),
    **{f"ss-{op}-2": ("mix", op, "easy") for op in ("union", "intersection", "difference")},
    **{f"ds-{op}-2": ("mix", op, "hard") for op in ("union", "intersection", "difference")},
    **{f"ss-{op}-3": ("large", op, "easy") for op in ("union", "intersection")},
    **{f"ss-{op}-4": ("large", op, "hard") for op in ("union", "intersection")},
}
# The paper's property names (generate_data_mix.DATA_TAMPLATE) and values in stems.
PAPER_PROPERTY = {"subject": "subject", "subject_number": "number", "object": "object",
                  "object_color": "color", "spatial_relation": "position"}
POSITION = {"left": "left_of", "right": "right_of", "on": "on", "under": "under"}
IMAGE_FOLDER = {"single": "mix", "mix": "mix", "large": "large"}  # single reads mix's images


def stem(state: dict) -> str:
    """The paper's file stem of a state."""
    return "_".join([state["subject_number"], state["subject"].replace(" ", "-"),
                     POSITION[state["spatial_relation"]], state["object_color"], state["object"]])


def _jpeg(png: bytes) -> bytes:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        rgb = image.convert("RGBA")
        flat = Image.new("RGB", rgb.size, (255, 255, 255))
        flat.paste(rgb, mask=rgb.getchannel("A"))
    out = io.BytesIO()
    flat.save(out, "JPEG", quality=95)
    return out.getvalue()


def extra_exports(rows: list[dict], build_dir: Path) -> dict[str, bytes | str]:
    """The paper's layout under ``exports/carv_paper/``."""
    root = "exports/carv_paper"
    files: dict[tuple[str, str, str], list[tuple[dict, dict]]] = {}
    images: set[tuple[str, str]] = set()
    png_of: dict[str, str] = {}
    for row in rows:
        meta = json.loads(row["meta"])
        if meta["cell"] not in TRACKS:
            raise ValueError(f"item {row['id']}: cell {meta['cell']!r} has no track in the paper's layout "
                             "(exports/carv.py TRACKS)")
        track, operation, difficulty = TRACKS[meta["cell"]]
        states = meta["states"]
        names = ["source_1", "target_1", "query"] if track == "single" else \
            ["source_1", "target_1", "source_2", "target_2", "query"]
        context = [stem(states[n]) for n in names]
        label = stem(states["answer"])
        for s, png in zip(context + [label], list(row["file_names"]) + [meta["answer_image"]]):
            if png_of.setdefault(s, png) != png:  # build images are named by their sha256
                raise ValueError(f"item {row['id']}: two different images of state {s}; the paper's layout "
                                 "holds one image per state")
            images.add((IMAGE_FOLDER[track], s))
        entry = {"context_image": context, "label": label, "id": row["id"]}
        changed = {f"changed_properties{k}": sorted(PAPER_PROPERTY[p] for p, _, _ in meta.get(f"T{k}") or [])
                   for k in (1, 2)}
        files.setdefault((track, operation, difficulty), []).append((entry, changed))
    out: dict[str, bytes | str] = {}
    for (track, operation, difficulty), entries in sorted(files.items()):
        name = f"{difficulty}_{len(entries)}.json"
        out[f"{root}/data_path_all/{track}/{operation}/{name}"] = json.dumps([e for e, _ in entries], indent=1) + "\n"
        out[f"{root}/data_labels_all/{track}/{operation}/{name}"] = json.dumps(
            [{"id": e["id"], **c} for e, c in entries], indent=1) + "\n"
    converted: dict[str, bytes] = {}
    for folder, s in sorted(images):
        png = png_of[s]
        if png not in converted:
            converted[png] = _jpeg((build_dir / png).read_bytes())
        out[f"{root}/data/{folder}/{s}.jpeg"] = converted[png]
    return out


PRETTY_NAME = "CARV"
LICENSE = "cc-by-4.0"
TASK_CATEGORIES = ["visual-question-answering", "image-to-text"]
SUMMARY = (
    "CARV (Compositional Analogical Reasoning in Vision) asks a model to read the "
    "property changes in one or two image pairs, compose them with a set operation "
    "(union, intersection or difference) and caption the result of applying them to a "
    "query image. This release is regenerated by cogforge: the images are procedural "
    "renders of a controlled world (9 items, one or two of them, a table or chair that is "
    "wooden, red or blue, and four spatial relations), and every answer is computed from "
    "the generator's ground truth. It follows Table 1 of the paper: 5,500 items in 11 cells."
)
META_FIELDS = {
    "cell, setting, operation, atomic, table2_column": "the Table 1 cell and its Table 2 column",
    "states": "source_1, target_1, (source_2, target_2), query, answer as property dicts",
    "T1, T2, T": "the transformations as [[property, from, to], ...]",
    "answer_image": "path of the rendered answer state (not shown to the model)",
}
LIMITATIONS = [
    "The images are procedural drawings, not the edited photographs of the paper; a model's "
    "score here measures the same reasoning on a simpler visual domain.",
    "Captions are canonical (\"two cups under a blue table\"); score free-form answers with a "
    "judge that parses the five properties rather than by exact match.",
    "Human accuracy is not measured in this release unless an annotation section says so.",
]
