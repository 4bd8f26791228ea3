"""Run inside .venv-lmms (lmms-eval 0.7.3 beside cogforge's wheel): load a release the tools' own way.

Usage: python lmms_eval_check.py RELEASE RESPONSES.json [RELEASE RESPONSES.json ...]
Prints JSON, one object per release in the order given: for each split, what
`datasets.load_dataset(RELEASE)` gives; for each lmms-eval task in RELEASE/exports/lmms_eval,
loaded through lmms-eval's TaskManager, the accuracy on gold targets and on shuffled targets,
and the verdict on each response of RESPONSES ({item id: response}). Every release is checked
in one process: importing lmms-eval takes a fifth of a minute.
"""

import json
import random
import sys
from pathlib import Path

import datasets
from datasets_check import splits  # beside this script
from lmms_eval.tasks import TaskManager, get_task_dict



def check(release: Path, responses: dict) -> dict:
    out = {"datasets_version": datasets.__version__, "splits": splits(release), "tasks": {}}
    manager = TaskManager(include_path=str(release / "exports" / "lmms_eval"), include_defaults=False)
    names = sorted(n for n in manager.all_tasks if n in manager.all_subtasks)
    for name, task in get_task_dict(names, manager).items():
        out["tasks"][name] = check_task(task, responses)
    return out


def check_task(task, responses: dict) -> dict:
    dataset = task.test_docs()
    # scoring reads no pixels: decoding every picture of every doc cost CARV 90 s
    pictures = [k for k, feature in dataset.features.items() if "Image" in repr(feature)]
    docs = list(dataset.remove_columns(pictures) if pictures else dataset)
    targets = [task.doc_to_target(d) for d in docs]
    shuffled = targets[:]
    random.Random(0).shuffle(shuffled)
    mean = task.aggregation()["accuracy"]
    verdicts = {d["id"]: task.process_results(d, [responses[d["id"]]])["accuracy"] for d in docs
                if d["id"] in responses}
    return {
        "n": len(docs), "ids": [d["id"] for d in docs],
        "gold": mean([task.process_results(d, [t])["accuracy"] for d, t in zip(docs, targets)]),
        "shuffled": mean([task.process_results(d, [t])["accuracy"] for d, t in zip(docs, shuffled)]),
        "text": task.doc_to_text(docs[0]), "images": len(task.doc_to_visual(dataset[0])),
        "target": targets[0], "verdicts": verdicts}


pairs = sys.argv[1:]
print(json.dumps([check(Path(release), json.loads(Path(answers).read_text()))
                  for release, answers in zip(pairs[::2], pairs[1::2])]))
