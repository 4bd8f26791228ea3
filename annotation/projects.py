"""Label Studio projects out, annotations back in, through ``label-studio-sdk`` 2.x.

``push`` creates or updates one project per (build, stage) and imports only the
tasks it does not hold yet, keyed by ``data.key``; machine suggestions go in as
predictions. ``pull`` pages through every task, checks that none is missing,
writes an append-only snapshot under ``annotation/snapshots/`` and turns the
annotations into decisions (majority vote; ties left for an expert).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from cogforge.annotation.server import CREDENTIALS, DEFAULT_PORT, ROOT, _read_env_file
from cogforge.annotation.stages import Stage, get_stage
from cogforge.core.decisions import decisions_path, load_decisions
from cogforge.core.errors import UserError, read_json

SNAPSHOTS = ROOT / "annotation" / "snapshots"
_BATCH = 500


class AnnotationError(UserError, RuntimeError):
    """Label Studio is unreachable, refused a request, or returned something unusable."""


@dataclass
class Connection:
    client: object  # label_studio_sdk.LabelStudio
    url: str


def connect(url: str | None = None, api_key: str | None = None, timeout: float = 60) -> Connection:
    """A client for any Label Studio: URL and token from the arguments, the environment
    (``LABEL_STUDIO_URL``, ``LABEL_STUDIO_API_KEY``) or the local credentials file."""
    import httpx
    from label_studio_sdk import LabelStudio

    stored = _read_env_file(CREDENTIALS)
    url = (url or os.environ.get("LABEL_STUDIO_URL") or f"http://127.0.0.1:{DEFAULT_PORT}").rstrip("/")
    api_key = api_key or os.environ.get("LABEL_STUDIO_API_KEY") or stored.get("LABEL_STUDIO_API_KEY")
    if not api_key:
        raise AnnotationError("no API token: set LABEL_STUDIO_API_KEY (or start the local server "
                              "with `make annotate`, which writes annotation/.credentials.env)")
    try:
        response = httpx.get(f"{url}/health", timeout=10)
    except httpx.HTTPError as err:
        raise AnnotationError(f"Label Studio at {url} is unreachable ({err.__class__.__name__}: {err}); "
                              "start it with `make annotate` or set LABEL_STUDIO_URL") from None
    if response.status_code != 200:
        raise AnnotationError(f"Label Studio at {url} answered /health with HTTP {response.status_code}")
    return Connection(LabelStudio(base_url=url, api_key=api_key, timeout=timeout), url)


def _call(what: str, fn, *args, **kwargs):
    """Run an SDK call; turn its failures into one clear AnnotationError."""
    import httpx
    from label_studio_sdk.core.api_error import ApiError

    try:
        return fn(*args, **kwargs)
    except ApiError as err:
        body = err.body if isinstance(err.body, (dict, str)) else repr(err.body)
        detail = body.get("detail", body) if isinstance(body, dict) else body
        raise AnnotationError(f"Label Studio refused to {what}: HTTP {err.status_code}: {detail}") from None
    except httpx.HTTPError as err:
        raise AnnotationError(f"Label Studio connection failed while trying to {what}: {err}") from None


def project_title(benchmark: str, stage: str) -> str:
    return f"{benchmark}: {stage}"[:50]


def _describe(stage: Stage, build: Path, benchmark: str) -> str:
    return json.dumps({"cogforge_stage": stage.name, "benchmark": benchmark, "build": str(build.resolve())})


def project_info(project) -> dict:
    try:
        return json.loads(project.description or "{}")
    except json.JSONDecodeError:
        return {}


def find_project(conn: Connection, title: str):
    for project in _call("list projects", conn.client.projects.list):
        if project.title == title:
            return project
    return None


def push(build: Path | str, stage_name: str, annotators: int = 1, conn: Connection | None = None,
         document_root: Path | str | None = None, title: str | None = None) -> dict:
    """Create or update the stage's project for a build; import only what is new."""
    build = Path(build)
    manifest = read_json(build / "manifest.json", "build manifest")
    if not isinstance(manifest, dict) or not isinstance(manifest.get("benchmark"), str):
        raise AnnotationError(f"{build / 'manifest.json'}: not a build's manifest (no benchmark); "
                              "push a folder that `cogforge build` wrote")
    benchmark = manifest["benchmark"]
    stage = get_stage(stage_name, benchmark)
    if stage.benchmark not in (None, benchmark):
        raise AnnotationError(f"stage {stage.name} is for {stage.benchmark}, the build is {benchmark}")
    if annotators < 1:
        raise AnnotationError("--annotators must be at least 1")
    root = Path(document_root or os.environ.get("LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT") or ROOT)
    tasks = stage.tasks(build, root)
    conn = conn or connect()
    ls = conn.client
    title = title or project_title(benchmark, stage.name)
    project = find_project(conn, title)
    settings = dict(label_config=stage.label_config, description=_describe(stage, build, benchmark),
                    maximum_annotations=annotators, overlap_cohort_percentage=100,
                    show_collab_predictions=True)
    if project is None:
        project = _call("create a project", ls.projects.create, title=title, **settings)
        created = True
    else:
        project = _call("update the project", ls.projects.update, project.id, **settings)
        created = False
    storages = _call("list local storages", ls.import_storage.local.list, project=project.id)
    # Label Studio serves a local file only from a storage's folder; a refined build shows renders too.
    for folder in ("images", "renders"):
        media = (build / folder).resolve()
        if (folder == "images" or media.is_dir()) and not any(Path(s.path or "") == media for s in storages):
            _call("add a local storage", ls.import_storage.local.create, project=project.id, path=str(media),
                  title=f"{benchmark} {folder}", use_blob_urls=False)
    if stage.hidden:
        _hide_columns(ls, project.id, stage.hidden)
    existing = {t.data.get("key"): t.id for t in _call("list tasks", lambda: list(
        ls.tasks.list(project=project.id, fields="all", page_size=1000)))}
    wanted = {t["key"] for t in tasks}
    new = [t for t in tasks if t["key"] not in existing]
    suggestions = stage.predictions(build, new) if stage.predictions and new else {}
    for start in range(0, len(new), _BATCH):
        batch = [{"data": t, "predictions": suggestions.get(t["key"], [])} for t in new[start:start + _BATCH]]
        _call("import tasks", ls.projects.import_tasks, project.id, request=batch)
    return {"project": project.id, "title": title, "url": f"{conn.url}/projects/{project.id}/data",
            "created": created, "added": len(new), "present": len(wanted) - len(new),
            "disappeared": sorted(k for k in existing if k not in wanted)}


HIDDEN_VIEW = "Tasks (answers hidden)"


def _hide_columns(ls, project: int, fields: tuple[str, ...]) -> None:
    """The project's Data Manager tab with the stage's hidden fields left out of its table
    (and of the task list beside the labeling view), made once; a coordinator can still
    show them from the tab's Columns menu."""
    views = _call("list views", ls.views.list, project=project)
    if any((v.data or {}).get("title") == HIDDEN_VIEW for v in views):
        return
    columns = [f"tasks:data.{f}" for f in fields]
    _call("create a view", ls.views.create, project=project,
          data={"title": HIDDEN_VIEW, "hiddenColumns": {"explore": columns, "labeling": columns}})


# --------------------------------------------------------------------------- pull


def _write_new(path: Path, text: str) -> None:
    """Write a file that must not exist yet, all at once (temporary file, then a hard link)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    try:
        os.link(tmp, path)  # fails if the path exists: snapshots are append-only
    except FileExistsError:
        raise AnnotationError(f"{path} already exists; snapshots are never overwritten") from None
    finally:
        tmp.unlink()


def _replace(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def fetch(project_id: int, conn: Connection) -> dict:
    """Everything a project holds, as a snapshot dict (no file written)."""
    ls = conn.client
    project = _call("read the project", ls.projects.get, project_id)
    tasks = _call("list tasks", lambda: list(ls.tasks.list(project=project_id, fields="all", page_size=200)))
    if project.task_number is not None and len(tasks) != project.task_number:
        raise AnnotationError(f"project {project_id} holds {project.task_number} tasks but "
                              f"{len(tasks)} were fetched; nothing was written")
    users = {u.id: u.email for u in _call("list users", lambda: list(ls.users.list()))}

    def annotation(a) -> dict:
        a = a if isinstance(a, dict) else a.dict()
        return {"id": a["id"], "completed_by": a["completed_by"], "annotator": users.get(a["completed_by"]),
                "result": a.get("result") or [], "was_cancelled": bool(a.get("was_cancelled")),
                "created_at": str(a.get("created_at"))}

    def prediction(p) -> dict:
        p = p if isinstance(p, dict) else p.dict()
        return {"model_version": p.get("model_version"), "score": p.get("score"), "result": p.get("result") or []}

    return {
        "project": {"id": project.id, "title": project.title, "label_config": project.label_config,
                    **project_info(project)},
        "pulled_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "tasks": [{"id": t.id, "data": t.data,
                   "annotations": [annotation(a) for a in (t.annotations or [])],
                   "predictions": [prediction(p) for p in (t.predictions or [])]}
                  for t in sorted(tasks, key=lambda t: t.id)],
    }


def choices(annotation: dict, name: str) -> list[str] | None:
    """The values a Choices/Rating/TextArea control received in one annotation (None if absent)."""
    for r in annotation["result"]:
        if r.get("from_name") == name:
            value = r.get("value", {})
            for key in ("choices", "text", "rating", "number"):
                if key in value:
                    v = value[key]
                    return [str(x) for x in v] if isinstance(v, list) else [str(v)]
    return None


def derive_decisions(snapshot: dict, stage: Stage) -> list[dict]:
    """Majority vote of the ``verdict`` control per unit; ties are flagged for an expert.

    A rejected sense-graph edge (unit ``edge``) also gets a ``fix``: "reverse" when
    more than half of its reject votes said "direction reversed", else "relabel" when
    more than half said "wrong label", else None (the edge is removed).
    """
    out = []
    for task in snapshot["tasks"]:
        votes, reasons = Counter(), Counter()
        for a in task["annotations"]:
            if a["was_cancelled"]:
                continue
            verdict = choices(a, "verdict")
            if not verdict:
                continue
            votes[verdict[0]] += 1
            if verdict[0] == "reject":
                reasons.update(choices(a, "reasons") or [])
        if not votes:
            continue
        ranked = votes.most_common()
        decision = "tie" if len(ranked) > 1 and ranked[0][1] == ranked[1][1] else ranked[0][0]
        row = {"unit": stage.unit, "key": task["data"]["key"], "decision": decision,
               "reasons": sorted(reasons), "votes": dict(sorted(votes.items())),
               "state": task["data"].get("state"), "stage": stage.name,
               "project": snapshot["project"]["id"]}
        if stage.unit == "edge" and decision == "reject":
            row["fix"] = next((fix for reason, fix in (("direction reversed", "reverse"), ("wrong label", "relabel"))
                               if 2 * reasons[reason] > votes["reject"]), None)
        out.append(row)
    return sorted(out, key=lambda d: d["key"])


def pull(project_id: int, conn: Connection | None = None, snapshots: Path = SNAPSHOTS,
         decisions_root: Path | str = ROOT) -> dict:
    """Fetch every annotation into a new snapshot and update the decisions file."""
    conn = conn or connect()
    snapshot = fetch(project_id, conn)
    info = snapshot["project"]
    folder = Path(snapshots) / f"{project_id}-{_slug(info['title'])}"
    existing = sorted(folder.glob("[0-9][0-9][0-9][0-9].json")) if folder.is_dir() else []
    number = int(existing[-1].stem) + 1 if existing else 1
    path = folder / f"{number:04d}.json"
    decisions: list[dict] = []
    stage = get_stage(info["cogforge_stage"], info.get("benchmark")) if info.get("cogforge_stage") else None
    if stage and stage.decides:
        decisions = derive_decisions(snapshot, stage)
        snapshot["decisions"] = decisions
    _write_new(path, json.dumps(snapshot, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    decisions_file = None
    if stage and stage.decides:
        decisions_file = decisions_path(info["benchmark"], decisions_root)
        kept = [d for d in load_decisions(decisions_file)
                if not (d.get("stage") == stage.name and d.get("project") == project_id)]
        rows = sorted(kept + decisions, key=lambda d: (d.get("stage", ""), d["key"]))
        _replace(decisions_file, "".join(json.dumps(d, sort_keys=True) + "\n" for d in rows))
    annotations = sum(len(t["annotations"]) for t in snapshot["tasks"])
    return {"snapshot": path, "tasks": len(snapshot["tasks"]), "annotations": annotations,
            "decisions": Counter(d["decision"] for d in decisions), "decisions_file": decisions_file}


def _checked_snapshot(snapshot, path: Path) -> dict:
    """A snapshot file's content, if it has what the agreement measures read; its labelling
    config is parsed without entities (a file from elsewhere may carry an entity bomb)."""
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException, ElementTree

    project = snapshot.get("project") if isinstance(snapshot, dict) else None
    if not isinstance(project, dict) or not isinstance(project.get("label_config"), str) \
            or not isinstance(snapshot.get("tasks"), list) \
            or not all(isinstance(t, dict) and isinstance(t.get("annotations"), list) for t in snapshot["tasks"]):
        raise AnnotationError(f"{path}: not a snapshot (an object with project.label_config and tasks with "
                              "annotations); use a file `cogforge annotate pull` wrote")
    try:
        ElementTree.fromstring(project["label_config"])
    except (ParseError, DefusedXmlException) as err:
        raise AnnotationError(f"{path}: project.label_config is not a usable labelling config ({err})") from None
    return snapshot


def load_snapshot(path_or_project: str, conn: Connection | None = None,
                  snapshots: Path = SNAPSHOTS) -> tuple[dict, Path | None]:
    """A snapshot file, or the newest snapshot of a project id (pulling one if there is none)."""
    path = Path(path_or_project)
    if path.is_file():
        return _checked_snapshot(read_json(path, "snapshot"), path), path
    if not path_or_project.isdigit():
        raise AnnotationError(f"{path_or_project}: neither a snapshot file nor a project id")
    matches = sorted(Path(snapshots).glob(f"{path_or_project}-*/[0-9][0-9][0-9][0-9].json"))
    if not matches:
        result = pull(int(path_or_project), conn, snapshots)
        matches = [result["snapshot"]]
    return json.loads(matches[-1].read_text()), matches[-1]
