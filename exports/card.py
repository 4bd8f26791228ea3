"""The dataset card (README.md with the Hugging Face YAML header) and Croissant metadata.

``plugin`` is the benchmark's release hooks (``Benchmark.card``: ``PRETTY_NAME``, ``SUMMARY``,
``LICENSE``, ...), each optional; None gives the shared card.
"""

from __future__ import annotations

import json
from typing import Any

ROW_FIELDS = {
    "id": "stable item id",
    "benchmark": "benchmark name",
    "task": "task or cell the item belongs to",
    "split": "split name",
    "question": "the full prompt shown to the model",
    "images": "the item's images in the order the prompt uses them (PNG bytes and their path "
              "under data/; in the JSON lines files, `file_names` holds the paths)",
    "options": "choices for multiple-choice items, else null",
    "answer": "the ground-truth answer",
    "meta": "benchmark-specific ground truth as a JSON string",
}


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                        (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "n>1M"


def yaml_header(info: dict, plugin: Any) -> str:
    """The YAML block: written by hand so key order and quoting stay stable."""
    splits = info["splits"]
    lines = ["---", f"license: {getattr(plugin, 'LICENSE', 'cc-by-4.0')}",
             f"pretty_name: {getattr(plugin, 'PRETTY_NAME', info['benchmark'])}",
             "language:", "- en", "task_categories:"]
    lines += [f"- {c}" for c in getattr(plugin, "TASK_CATEGORIES", ["visual-question-answering"])]
    lines += ["size_categories:", f"- {_size_category(info['items'])}",
              "configs:", "- config_name: default", "  data_files:"]
    for split in splits:
        lines += [f"  - split: {split}", f"    path: {info.get('data_files', {}).get(split, f'data/{split}.parquet')}"]
    # `sequence:` is the form every `datasets` version reads (4.x and later load it as List).
    lines += ["dataset_info:", "  features:",
              "  - name: id", "    dtype: string", "  - name: benchmark", "    dtype: string",
              "  - name: task", "    dtype: string", "  - name: split", "    dtype: string",
              "  - name: question", "    dtype: string", "  - name: images", "    sequence: image",
              "  - name: options", "    sequence: string", "  - name: answer", "    dtype: string",
              "  - name: meta", "    dtype: string", "  splits:"]
    for split, n in splits.items():
        lines += [f"  - name: {split}", f"    num_bytes: {info['split_bytes'][split]}",
                  f"    num_examples: {n}"]
    lines.append("---")
    return "\n".join(lines) + "\n"


SHARDED_EXPORTS = ("This release comes from a sharded (training-scale) build: its rows are parquet parts, "
                   "`data/<split>/part-NNNNN.parquet`, written one shard at a time. The evaluation suites' "
                   "formats are not written for it (VLMEvalKit TSVs, lmms-eval task folders, a benchmark's "
                   "own layouts): each reads a whole split at once, images inline, and is meant for "
                   "paper-sized benchmarks; release a default build for them.")


def evaluate_with(info: dict, plugin: Any) -> list[str]:
    """How to run each tool the field uses on this release, with the exact commands."""
    folder = f"releases/{info['benchmark']}/{info['version']}"
    names = info.get("vlmevalkit", [])
    if info.get("layout") == "sharded":
        return ["## Evaluate with ...", "", SHARDED_EXPORTS, "",
                f"`cogforge eval score --release {folder} --predictions <file.jsonl>` scores predictions "
                "(JSON lines with `id` and `response`).", "", "### datasets and parquet", "",
                f'`load_dataset("{folder}")` (the `default` config reads `data/<split>/*.parquet`), or '
                '`load_dataset("parquet", data_files="data/<split>/*.parquet", streaming=True)` to read '
                "part by part."] + getattr(plugin, "EVALUATE_WITH", [])
    out = ["## Evaluate with ...", "", "### VLMEvalKit", "",
           "Copy the TSVs of `exports/vlmevalkit/` into `$LMUData` (default `~/LMUData`) and run "
           "`python run.py --mode infer --data <name> ... --model <model>` with any of: "
           + ", ".join(f"`{n}`" for n in names) + ". Names with `openended` are free-text (VLMEvalKit "
           "then adds no multiple-choice instructions, and has no evaluator for them: `--mode infer`); "
           "the others are multiple choice, with the stem in `question`, the options in `A`, `B`, ... "
           "and the letter alone asked for. Score its output folder here: "
           f"`cogforge eval score --release {folder} --predictions <VLMEvalKit>/outputs` (it finds "
           "`<model>/T<date>_G<commit>/<model>_<name>.xlsx`, scores a model's files together, one score "
           "per split; the `id` column, or `index`, joins each prediction to its item).", "",
           "### lmms-eval", "",
           f"`lmms-eval --model <model> --include_path {folder}/exports/lmms_eval --tasks <task>`; "
           "tasks, by split group (a group runs all of them and reports their accuracy over all items):", ""]
    for tag, tasks in info.get("lmms_eval", {}).items():
        out.append(f"- `{tag}`: " + ", ".join(f"`{t}`" for t in tasks))
    out += ["", "`utils.py` there carries cogforge's answer extraction and judge, so its accuracy "
            "equals `cogforge eval score` on the same responses. Its sample logs name each item "
            "(`--log_samples --output_path <out>`): "
            f"`cogforge eval score --release {folder} --predictions <out>` reads them.", "",
            "### datasets, parquet and Croissant", "",
            f'`load_dataset("{folder}")` (the `default` config reads `data/<split>.parquet`); '
            "`pandas.read_parquet` or any parquet reader works on the files alone; "
            "`mlcroissant.Dataset(\"croissant.json\").records(\"<split>\")` yields the same records "
            "with PIL images."]
    out += getattr(plugin, "EVALUATE_WITH", [])
    return out


def card(info: dict, qc: dict, plugin: Any, changes: dict | None,
         annotation: dict | None) -> str:
    name = getattr(plugin, "PRETTY_NAME", info["benchmark"])
    split0 = next(iter(info["splits"]))
    out = [yaml_header(info, plugin), f"# {name} {info['version']}", "",
           "## Summary", "", getattr(plugin, "SUMMARY", f"The {name} benchmark, built by cogforge."), "",
           "## Loading", "", "```python", "from datasets import load_dataset", "",
           f'ds = load_dataset("path/to/{info["benchmark"]}/{info["version"]}", split="{split0}")',
           'ds[0]["images"]  # list of PIL images, in prompt order',
           'import json; json.loads(ds[0]["meta"])  # benchmark ground truth', "```", "",
           ("`data/<split>/part-NNNNN.parquet` (one part per build shard) hold" if info.get("layout") == "sharded"
            else "`data/<split>.parquet` holds")
           + " every row with its images embedded, so the parquet files "
           "alone are the dataset (tested with `datasets` 5.2 and 3.6; older than 4.0 works too). "
           "The same rows are in " + ("`data/<split>/part-NNNNN.jsonl`" if info.get("layout") == "sharded"
                                      else "`data/<split>.jsonl`") + ", with `file_names` relative to `data/`, and each "
           "image is stored once in `data/images/` (named by its sha256).", "",
           "## Structure and fields", "", "| split | items |", "| --- | --- |"]
    out += [f"| {s} | {n} |" for s, n in info["splits"].items()]
    if info.get("stats_md"):  # generated by the build (stats.md): items per task and split, and more
        out += ["", info["stats_md"].rstrip()]
    else:
        out += ["", "| task | items |", "| --- | --- |"]
        out += [f"| {t} | {n} |" for t, n in info["tasks"].items()]
    out += ["", "| field | meaning |", "| --- | --- |"]
    out += [f"| `{k}` | {v} |" for k, v in ROW_FIELDS.items()]
    meta_fields = getattr(plugin, "META_FIELDS", {})
    if meta_fields:
        out += ["", "`meta` holds:", "", "| key | meaning |", "| --- | --- |"]
        out += [f"| {k} | {v} |" for k, v in meta_fields.items()]
    out += ["", *evaluate_with(info, plugin), "", "Also in this release: `croissant.json` (Croissant 1.1, "
            "images as image fields), `MANIFEST.sha256` (every file's sha256; check with "
            "`cogforge release verify <folder>`), `release.json`, and the QC report.", "",
            "## How it was built", "",
            f"- Toolkit: cogforge {info['toolkit_version']}",
            f"- Seed: {info['seed']}",
            f"- Generator: {json.dumps(info.get('renderer'))}",
            f"- Build manifest sha256: `{info['build_manifest_sha256']}`",
            "- The same toolkit version, seed and config rebuild these files byte for byte.", "",
            "## Quality checks", "",
            f"QC {'passed' if qc['passed'] else 'failed'}: {qc['errors']} errors, {qc['warnings']} warnings "
            "(`qc_report.md` has the tables).", "", "| check | errors | warnings |", "| --- | --- | --- |"]
    out += [f"| {k} | {v['error']} | {v['warning']} |" for k, v in qc["by_check"].items()]
    out += ["", "## Annotation and agreement", ""]
    if annotation and annotation.get("decisions"):
        out.append(f"{annotation['decisions']} human decisions were applied "
                   f"({annotation.get('rejected_images', 0)} images rejected).")
    else:
        out.append("No human annotation has been applied to this release yet.")
    out += ["", "## Changes", ""]
    if changes:
        out.append(f"Since {changes['from']}: {len(changes['added'])} items added, "
                   f"{len(changes['removed'])} removed, {len(changes['changed'])} changed.")
    else:
        out.append("First release.")
    out += ["", "## Limitations", ""]
    out += [f"- {x}" for x in getattr(plugin, "LIMITATIONS", [])] or ["- None recorded."]
    citation = info.get("citation")
    if citation:
        out += ["", "## Citation", "", "```bibtex", citation, "```"]
    return "\n".join(out) + "\n"


def croissant(info: dict, files: dict[str, str], plugin: Any) -> dict[str, Any]:
    """Croissant 1.1 JSON-LD: every data file with its sha256, a record set per split."""
    import mlcroissant as mlc

    distribution: list = []
    for rel, digest in sorted(files.items()):
        if rel.startswith("data/images/"):
            continue
        fmt = {"jsonl": "application/jsonlines", "parquet": "application/x-parquet",
               "tsv": "text/tab-separated-values", "json": "application/json"}.get(rel.rsplit(".", 1)[-1])
        if fmt is None or not rel.startswith(("data/", "exports/")):
            continue
        distribution.append(mlc.FileObject(id=rel, name=rel, content_url=rel,
                                           encoding_formats=[fmt], sha256=digest))
    distribution.append(mlc.FileSet(id="images", name="images", includes=["data/images/*.png"],
                                    encoding_formats=["image/png"]))
    record_sets = []
    for split in info["splits"]:
        source = f"data/{split}.parquet"
        if info.get("layout") == "sharded":  # the split's parts, as one file set
            source = f"{split}-parts"
            distribution.append(mlc.FileSet(id=source, name=source, includes=[f"data/{split}/*.parquet"],
                                            encoding_formats=["application/x-parquet"]))
        fields = []
        key = "file_set" if info.get("layout") == "sharded" else "file_object"
        for column, description in ROW_FIELDS.items():
            extract = mlc.Extract(column=column)
            if column == "images":  # PNG bytes in the parquet: a consumer gets PIL images
                fields.append(mlc.Field(
                    id=f"{split}/images", name="images", description=description,
                    data_types=[mlc.DataType.IMAGE_OBJECT], repeated=True,
                    source=mlc.Source(**{key: source}, extract=extract,
                                      transforms=[mlc.Transform(json_path="bytes")])))
                continue
            repeated = column == "options"
            fields.append(mlc.Field(
                id=f"{split}/{column}", name=column, description=description,
                data_types=[mlc.DataType.TEXT], is_array=repeated or None,
                array_shape="-1" if repeated else None,
                source=mlc.Source(**{key: source}, extract=extract)))
        record_sets.append(mlc.RecordSet(id=split, name=split, fields=fields,
                                         description=f"The {split} split, one record per item."))
    metadata = mlc.Metadata(
        name=f"{info['benchmark']}-{info['version']}",
        description=getattr(plugin, "SUMMARY", info["benchmark"]),
        version=info["version"], license=[getattr(plugin, "LICENSE", "cc-by-4.0")],
        cite_as=info.get("citation"),
        conforms_to=["http://mlcommons.org/croissant/1.1"],
        distribution=distribution, record_sets=record_sets)
    return metadata.to_json()
