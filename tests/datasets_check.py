"""Run inside .venv-datasets3 (datasets 3.6 alone) or .venv-lmms: load a release with `datasets`.

Usage: python datasets_check.py RELEASE
Prints JSON: the datasets version and, for each split, what `datasets.load_dataset(RELEASE)`
gives (rows, features, the first item's id and image sizes).
"""

import json
import sys
from pathlib import Path

import datasets


def splits(release: Path) -> dict:
    out = {}
    for split, ds in datasets.load_dataset(str(release)).items():
        first = ds[0]
        out[split] = {"n": len(ds), "features": {k: repr(v) for k, v in ds.features.items()},
                      "first_id": first["id"], "first_sizes": [list(im.size) for im in first["images"]]}
    return out


if __name__ == "__main__":
    print(json.dumps({"datasets_version": datasets.__version__, "splits": splits(Path(sys.argv[1]))}))
