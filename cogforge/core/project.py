"""The project folder: where cogforge keeps what it writes beside builds (caches, CogEvolve's
Twemoji, annotation's credentials, server data, snapshots and decisions).

``$COGFORGE_PROJECT`` when set; else the source checkout cogforge runs from (the folder with
its ``pyproject.toml``); else, for an installed wheel, the current directory: never the
installed package itself. Data that ships with the package is read from the package.
"""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    if os.environ.get("COGFORGE_PROJECT"):
        return Path(os.environ["COGFORGE_PROJECT"]).resolve()
    checkout = Path(__file__).resolve().parents[2]
    return checkout if (checkout / "pyproject.toml").is_file() else Path.cwd().resolve()
