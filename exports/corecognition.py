"""The CoreCognition benchmark's release card: what the items are and how they differ
from the paper's photographs and videos."""

from __future__ import annotations

import json
from pathlib import Path

PRETTY_NAME = "CoreCognition, procedural (cogforge)"
LICENSE = "cc-by-4.0"
TASK_CATEGORIES = ["visual-question-answering", "multiple-choice"]
SUMMARY = (
    "Core-knowledge stimuli after Li et al. (ICML 2025), 'Core Knowledge Deficits in Multi-Modal "
    "Language Models': the 12 concepts of the paper in its three stages (sensorimotor, concrete "
    "operational, formal operational), each built from classic developmental-psychology paradigms "
    "as procedural drawings. Every item is one half of a concept-hacking pair: the manipulated twin "
    "is drawn from the same parameters with only the causal one changed, under the same question "
    "and options, and its answer differs. Answers are computed from the parameters and re-derived "
    "by an independent method (shapely predicates, pymunk simulations, other formulas) in QC. "
    "Task ids are the concept keys of the public release (boundary, continuity, ...)."
)
META_FIELDS = {
    "concept, concept_name, stage, type": "the concept key and name, its Piagetian stage, MC or TF",
    "family, paradigm": "the prototype (item family) and the experiment it follows",
    "params": "everything the picture and the answer are computed from (seed: decoration only)",
    "pair_id, role, causal_param": "the concept-hacking pair, control or manipulated, and the one "
                                   "parameter the twin changes",
    "answer_letter, margin": "the answer's letter; how far the item sits from its decision boundary",
    "combined_image": "multi-frame items: the frames side by side with 'Frame i/N' captions",
}
LIMITATIONS = [
    "The paper's items are photographs, videos and simulator renders collected by hand; these are "
    "procedural drawings of the same paradigms, a different distribution of the same principles.",
    "Intentionality and tool use are tested with abstract agents and geometric affordances, not the "
    "everyday human actions and objects of the paper.",
    "Multi-frame items are frame sequences, not videos; a model given the combined strip can compare "
    "frames directly.",
]


# --------------------------------------------------------------------------- the public layout

PUBLIC_PATH = "exports/corecognition/frame-combined.parquet"
PUBLIC_FEATURES = {
    "id": {"dtype": "string", "_type": "Value"}, "concept": {"dtype": "string", "_type": "Value"},
    "stage": {"dtype": "string", "_type": "Value"}, "type": {"dtype": "string", "_type": "Value"},
    "question": {"dtype": "string", "_type": "Value"}, "images": {"_type": "Image"},
    "videos": {"dtype": "string", "_type": "Value"}, "answer": {"dtype": "string", "_type": "Value"},
    "choices": {"dtype": "string", "_type": "Value"},
    "image_paths": {"feature": {"_type": "Image"}, "_type": "Sequence"},
    "prompt": {"dtype": "string", "_type": "Value"},
}


def public_row(row: dict, image: bytes, frames: list[bytes]) -> dict:
    """A release row in the field layout of the public CoreCognition release's
    ``frame-combined`` configuration, which lmms-eval's ``corecognition`` task reads:
    one image (the frames side by side for a sequence), the answer as a letter (MC) or
    Yes/No (TF), ``choices`` as the dict-like string the release uses (slots A-F, unused
    ones ``nan``), and the ``prompt`` a model is given."""
    meta = json.loads(row["meta"]) if isinstance(row["meta"], str) else row["meta"]
    question = row["question"].split("\nA. ")[0]
    letters = "ABCDEF"
    choices = {letters[k]: row["options"][k] if k < len(row["options"]) else None for k in range(6)}
    choices_text = "{" + ", ".join(f"'{k}': " + ("nan" if v is None else repr(v)) for k, v in choices.items()) + "}"
    if meta["type"] == "TF":
        answer, prompt = row["answer"], f"{question}\nAnswer Yes or No."
    else:
        answer = meta["answer_letter"]
        listed = "\n".join(f"{letters[k]}. {o}" for k, o in enumerate(row["options"]))
        prompt = f"{question}\n{listed}\nAnswer with the option's letter."
    names = row["file_names"]
    return {"id": row["id"], "concept": meta["concept"], "stage": f"Stage {meta['stage']}", "type": meta["type"],
            "question": question, "images": {"bytes": image, "path": meta.get("combined_image", names[0])},
            "videos": "", "answer": answer, "choices": choices_text,
            "image_paths": [{"bytes": b, "path": n} for b, n in zip(frames, names)], "prompt": prompt}


def extra_exports(rows: list[dict], build_dir: Path) -> dict[str, bytes]:
    """The release's rows in the public layout (:func:`public_row`), one parquet file:
    ``lmms-eval --tasks corecognition`` runs on it with ``dataset_path: parquet`` and
    ``data_files`` pointing here."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema([("id", pa.string()), ("concept", pa.string()), ("stage", pa.string()),
                        ("type", pa.string()), ("question", pa.string()), ("images", image),
                        ("videos", pa.string()), ("answer", pa.string()), ("choices", pa.string()),
                        ("image_paths", pa.list_(image)), ("prompt", pa.string())],
                       metadata={"huggingface": json.dumps({"info": {"features": PUBLIC_FEATURES}})})
    records = []
    for row in rows:
        meta = json.loads(row["meta"]) if isinstance(row["meta"], str) else row["meta"]
        frames = [(Path(build_dir) / n).read_bytes() for n in row["file_names"]]
        combined = (Path(build_dir) / meta["combined_image"]).read_bytes() if "combined_image" in meta else frames[0]
        records.append(public_row(row, combined, frames))
    out = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(records, schema=schema), out, compression="zstd")
    return {PUBLIC_PATH: out.getvalue()}
