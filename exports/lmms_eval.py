"""An lmms-eval task folder for a release: ``exports/lmms_eval/``.

``lmms-eval --include_path <release>/exports/lmms_eval --tasks <name>`` runs it with no
other code. One YAML per task and split, named ``<benchmark>_<task>_<split>``, reads
``data/<split>.parquet`` (images embedded) relative to the YAML, as lmms-eval resolves
local ``data_files``; a group per split, ``<benchmark>_<split>``, runs all its tasks and
reports their accuracy weighted by items (the split's overall score). The prompt is the
item's ``question`` as the release has it (options listed once), the target is the
option letter for multiple choice and the answer otherwise.

Each sample's metrics carry its item ``id`` (a metric whose aggregate counts the items), so
lmms-eval's sample logs (``--log_samples``) name the item of every response and
``cogforge eval score`` reads them as they are (``evaluate/lmms_logs.py``).

``utils.py`` is self-contained: it carries cogforge's own answer extraction
(``evaluate/extract.py``) and, where the benchmark has one, its judge (its scorer's
``is_correct``, e.g. CARV's caption judge in ``evaluate/carv.py``) verbatim, so lmms-eval's
accuracy is the accuracy ``cogforge eval score`` reports for the same responses.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from pathlib import Path

from cogforge.core import registry

FOLDER = "exports/lmms_eval"
GENERATION = {"max_new_tokens": 512, "temperature": 0, "do_sample": False}


def task_name(benchmark: str, task: str, split: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", f"{benchmark}_{task}_{split}").lower()


def group_name(benchmark: str, split: str) -> str:
    """The group that runs every task of one split: ``--tasks <benchmark>_<split>``."""
    return task_name(benchmark, "", split)


def _judge_module(benchmark: str):
    """The registered benchmark's scorer (``Benchmark.scorer``), when it judges free-text
    answers (``is_correct``); a scorer may name a self-contained judge to embed (``JUDGE``)."""
    found = registry.find(benchmark)
    module = getattr(found.scorer, "JUDGE", found.scorer) if found else None
    return module if hasattr(module, "is_correct") else None


def _body(module) -> str:
    """A module's source without its ``from __future__`` line.

    lmms-eval loads utils.py without registering it in ``sys.modules``, where dataclasses
    cannot resolve string annotations: the annotations stay real (Python >= 3.10).
    """
    lines = inspect.getsource(module).splitlines()
    return "\n".join(line for line in lines if not line.startswith("from __future__ import")).strip()


def _top_level_names(source: str) -> set[str]:
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


GLUE = '''
# --------------------------------------------------------------------------- lmms-eval hooks

TASKS = {tasks}


def doc_to_visual(doc):
    return [image.convert("RGB") for image in doc["images"]]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    kwargs = lmms_eval_specific_kwargs or {{}}
    return f"{{kwargs.get('pre_prompt', '')}}{{doc['question']}}{{kwargs.get('post_prompt', '')}}"


def doc_to_target(doc):
    if doc["options"]:
        return chr(65 + list(doc["options"]).index(doc["answer"]))
    return doc["answer"]


def _norm_answer(text):
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def is_right(response, doc):
    """cogforge's verdict on one response: extraction, then the option or the benchmark's judge."""
    options = list(doc["options"]) if doc["options"] else None
    answer, _method = extract(response, options)
    if answer is None:
        return False
    if options:
        return answer == doc["answer"]
    row = {{"id": doc["id"], "task": doc["task"], "answer": doc["answer"], "options": None,
           "meta": json.loads(doc["meta"])}}
    {free_text}


def process_results(doc, results):
    # "id" goes into the sample log beside the verdict: the item each response answers
    return {{"accuracy": float(is_right(results[0] if results else "", doc)), "id": doc["id"]}}


def count_items(ids):
    """The aggregate of the "id" metric: how many items were scored."""
    return len(ids)


def _only(dataset, task):
    return dataset.filter(lambda t: t == task, input_columns="task")
'''


def utils_source(benchmark: str, tasks: list[str]) -> str:
    """The generated ``utils.py``."""
    from cogforge.evaluate import extract

    parts = [_body(extract)]
    judge = _judge_module(benchmark)
    if judge is not None:
        parts.append(_body(judge))
        free_text = "return is_correct(answer, row)"
    else:
        free_text = "return _norm_answer(answer) == _norm_answer(row[\"answer\"])"
    seen: set[str] = set()
    for part in parts:
        clash = seen & _top_level_names(part)
        if clash:
            raise ValueError(f"utils.py for {benchmark}: {sorted(clash)} defined twice by the embedded modules; "
                             "rename in evaluate/")
        seen |= _top_level_names(part)
    filters = "".join(f"\n\ndef docs_{_ident(t)}(dataset):\n    return _only(dataset, {t!r})\n" for t in tasks)
    header = (f'"""lmms-eval hooks for {benchmark}, generated by cogforge: do not edit.\n\n'
              "Self-contained: cogforge's answer extraction"
              + (f" and {benchmark}'s judge are" if judge is not None else " is")
              + ' copied below verbatim, so scores match `cogforge eval score`.\n"""\n\n'
              "import json\nimport re\n")
    body = "\n\n\n".join(f"# {'-' * 75} from cogforge {name}\n\n{part}"
                         for name, part in zip(["evaluate/extract.py", f"evaluate/{benchmark}.py"], parts))
    return header + "\n\n" + body + "\n\n" + GLUE.format(tasks=json.dumps(tasks), free_text=free_text) + filters


def _ident(task: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", task).lower()


def _yaml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid YAML double-quoted scalar


def template(version: str) -> str:
    lines = ["dataset_path: parquet", "output_type: generate_until",
             "doc_to_visual: !function utils.doc_to_visual", "doc_to_text: !function utils.doc_to_text",
             "doc_to_target: !function utils.doc_to_target", "process_results: !function utils.process_results",
             "generation_kwargs:"]
    lines += [f"  {k}: {json.dumps(v)}" for k, v in GENERATION.items()]
    lines += ["metric_list:", "  - metric: accuracy", "    aggregation: mean", "    higher_is_better: true",
              "  - metric: id", "    aggregation: !function utils.count_items", "    higher_is_better: true",
              "lmms_eval_specific_kwargs:", "  default:", '    pre_prompt: ""', '    post_prompt: ""',
              "metadata:", f"  version: {_yaml_string(version)}"]
    return "\n".join(lines) + "\n"


def task_yaml(benchmark: str, task: str, split: str) -> str:
    return "\n".join([
        f"task: {task_name(benchmark, task, split)}",
        "include: _default_template_yaml",
        "dataset_kwargs:", "  data_files:", f"    {split}: ../../data/{split}.parquet",
        f"test_split: {split}",
        f"process_docs: !function utils.docs_{_ident(task)}",
    ]) + "\n"


def group_yaml(benchmark: str, split: str, tasks: list[str], version: str) -> str:
    """A split's group: its tasks, and their accuracy pooled over items (weighted by task size)."""
    return "\n".join([
        f"group: {group_name(benchmark, split)}",
        "task:", *(f"  - {task_name(benchmark, t, split)}" for t in tasks),
        "aggregate_metric_list:", "  - metric: accuracy", "    aggregation: mean", "    weight_by_size: true",
        "metadata:", f"  version: {_yaml_string(version)}",
    ]) + "\n"


def files(benchmark: str, version: str, rows: list[dict]) -> dict[str, str]:
    """``{relative path: text}`` for the task folder."""
    pairs = sorted({(r["task"], r["split"]) for r in rows})
    tasks = sorted({t for t, _ in pairs})
    out = {f"{FOLDER}/_default_template_yaml": template(version),
           f"{FOLDER}/utils.py": utils_source(benchmark, tasks)}
    for task, split in pairs:
        out[f"{FOLDER}/{task_name(benchmark, task, split)}.yaml"] = task_yaml(benchmark, task, split)
    for split in sorted({s for _, s in pairs}):
        members = [t for t, s in pairs if s == split]
        out[f"{FOLDER}/_{group_name(benchmark, split)}.yaml"] = group_yaml(benchmark, split, members, version)
    return out


def readme_names(benchmark: str, rows: list[dict]) -> dict[str, list[str]]:
    """Task names by split group, for the card."""
    out: dict[str, list[str]] = {}
    for task, split in sorted({(r["task"], r["split"]) for r in rows}):
        out.setdefault(group_name(benchmark, split), []).append(task_name(benchmark, task, split))
    return out
