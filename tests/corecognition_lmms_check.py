"""Run inside .venv-lmms (lmms-eval 0.7.3 beside cogforge's wheel): the public-layout export read by
`datasets` and scored by lmms-eval's own corecognition task functions.

Usage: python corecognition_lmms_check.py FILE.parquet
Prints JSON: rows, stages, accuracy of gold replies, of wrong replies, and of the
letter reply "A" on true/false items (which lmms-eval cannot read as Yes/No).
"""

import importlib.util
import json
import sys
from pathlib import Path

import datasets

# lmms-eval's own corecognition/utils.py, loaded from its file: importing it through the
# package would first import every lmms-eval task and model (half a minute) for nothing
spec = importlib.util.find_spec("lmms_eval")
path = Path(spec.submodule_search_locations[0]) / "tasks" / "corecognition" / "utils.py"
loader = importlib.util.spec_from_file_location("corecognition_utils", path)
utils = importlib.util.module_from_spec(loader)
loader.loader.exec_module(utils)

ds = datasets.load_dataset("parquet", data_files=sys.argv[1], split="train")
gold, wrong, sizes, texts = [], [], set(), []
for doc in ds:
    visual = utils.corecognition_doc_to_visual(doc)
    sizes.add(visual[0].size)
    texts.append(utils.corecognition_doc_to_text(doc, {"pre_prompt": "", "post_prompt": ""}))
    gold.append(utils.corecognition_process_results(doc, [doc["answer"]])["accuracy"])
    other = {"Yes": "No", "No": "Yes"}.get(doc["answer"]) or ("B" if doc["answer"] == "A" else "A")
    wrong.append(utils.corecognition_process_results(doc, [f"The answer is {other}."])["accuracy"])
print(json.dumps({"rows": len(ds), "stages": sorted(set(ds["stage"])), "gold": sum(gold) / len(gold),
                  "wrong": sum(wrong) / len(wrong), "widths": sorted({w for w, _ in sizes}),
                  "prompts_with_options": sum("\nA. " in t for t in texts),
                  "types": sorted(set(ds["type"]))}))
