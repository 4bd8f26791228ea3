"""The diffusers refinement backend (``generators/refine.py``, ``--renderer refine``) with a real
pipeline: the session's ``tiny_pipeline`` (Stable Diffusion img2img classes, tiny configs, random
weights), loaded from its folder as a user's model is. A build refines only the states its items
use (the rest are excluded), 32 px in the pipeline, so a build costs seconds on the CPU.

Random weights destroy every property, so the builds here check with lenient thresholds (the
property check itself is tests/test_refine_qc.py's); the rejection test sets a hue threshold that
half the images fail.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import io
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from cogforge.benchmarks.carv import refine_checker
from cogforge.builders import carv
from cogforge.core import registry
from cogforge.core.errors import UserError
from cogforge.core.executor import make_executor
from cogforge.generators import refine
from cogforge.generators.carv import ProceduralRenderer, State, load_world
from conftest import write_small_config

COGFORGE = Path(sys.executable).with_name("cogforge")
CELLS = [("single", "single", "single", 1, 2)]
LENIENT = {"edge_iou": 0.0, "object_edge_iou": 0.0, "hue": 180.0, "count_tolerance": 100}


def refine_config(path: Path, model: Path | str, cache: Path, qc: dict | None = None, **refine_keys) -> Path:
    """The small CARV config (renderer "procedural", so --renderer picks the backend) with a
    [refine] table for the tiny model: 32 px, 2 steps, batches of 4, one CPU thread."""
    write_small_config(path, CELLS)
    keys = {"model": str(model), "strength": 0.6, "steps": 2, "guidance": 5.0, "size": 32, "batch": 4,
            "threads": 1, "max_attempts": 3, "cache": str(cache), **refine_keys}
    lines = ["", "[refine]"] + [f"{k} = {json.dumps(v)}" for k, v in keys.items()]
    lines += ["", "[refine.qc]"] + [f"{k} = {json.dumps(v)}" for k, v in (qc or LENIENT).items()]
    path.write_text(path.read_text() + "\n".join(lines) + "\n")
    return path


def used_states() -> set[State]:
    """The states the small config's items use (seed 0): every other state is excluded."""
    world = load_world()
    cell = carv.Cell(*CELLS[0][:5], column="x")
    return {s for item in carv.sample_cell(cell, world, 0, set(world.states())) for s in item.values()}


def excluded() -> list[dict]:
    keep = used_states()
    return [s._asdict() for s in load_world().states() if s not in keep]


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def rows(build: Path) -> list[dict]:
    return [json.loads(line) for line in (build / "states.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def refined(tiny_pipeline, tmp_path_factory) -> dict:
    """One refined build with a fresh cache; the tests below read it and rebuild from its cache."""
    tmp = tmp_path_factory.mktemp("refined")
    config = refine_config(tmp / "carv.toml", tiny_pipeline, tmp / "cache")
    (tmp / "decisions.jsonl").write_text("".join(
        json.dumps({"unit": "image", "key": hashlib.sha256(json.dumps(s).encode()).hexdigest(),
                    "decision": "reject", "state": s}) + "\n" for s in excluded()))
    manifest = registry.get("carv").build(tmp / "build", config_path=config, excluded=excluded(),
                                          renderer="refine", progress=False)
    return {"build": tmp / "build", "manifest": manifest, "config": config, "tmp": tmp}


def test_a_refined_build_keeps_each_render_beside_its_image_and_records_the_model(refined, tiny_pipeline):
    build, manifest = refined["build"], refined["manifest"]
    record = manifest["renderer"]
    assert record["name"] == "refine" and record["kind"] == "img2img"
    assert record["pipeline"] == "StableDiffusionImg2ImgPipeline"
    assert record["model"] == str(tiny_pipeline)
    assert record["revision"] == refine.folder_revision(tiny_pipeline)  # a local folder: its files' hash
    assert record["device"] == "cpu" and record["dtype"] == "float32"
    assert record["versions"] == {name: importlib.metadata.version(name)
                                  for name in ("torch", "diffusers", "transformers")}
    assert record["parameters"]["steps"] == 2 and record["parameters"]["size"] == 32
    assert record["parameters"]["negative_prompt"] == refine.negative_prompt()
    assert "cache" not in manifest["config"]["refine"]  # where the cache is changes no byte
    assert manifest["refine"]["dropped"] == []
    written = json.loads((build / "manifest.json").read_text())
    assert written["renderer"] == record and "refine_stats" not in written

    states = used_states()
    assert len(rows(build)) == len(states) == manifest["counts"]["states"]
    for row in rows(build):
        state = State(**row["state"])
        image = (build / row["image"]).read_bytes()
        render = (build / row["render"]).read_bytes()
        assert Path(row["render"]).name == Path(row["image"]).name and row["render"].startswith("renders/")
        assert render == ProceduralRenderer().render(state)
        assert image != render
        with Image.open(io.BytesIO(image)) as picture:
            assert picture.size == (512, 512) and picture.mode == "RGB"
        assert row["refine"]["seed"] == refine.seed_for(0, state, row["refine"]["attempt"])
        assert "edge_iou" in row["refine"]["measures"]
    images = {row["image"] for row in rows(build)}
    items = [json.loads(line) for line in (build / "items.jsonl").read_text().splitlines()]
    assert {path for item in items for path in item["images"]} <= images
    stats = manifest["refine_stats"]  # a fresh cache: every image refined now, in batches of 4
    assert stats["from_cache"] == 0 and stats["refined"] >= len(states)
    assert stats["pipeline_calls"] >= -(-len(states) // 4)


def test_the_same_state_gives_the_same_bytes_on_the_cpu_alone_or_in_a_batch(refined):
    config = carv.load_config(refined["config"])
    renderer = carv.RefineRenderer(carv.refine_settings(config, 0, refined["config"]))
    row = rows(refined["build"])[0]
    state, attempt = State(**row["state"]), row["refine"]["attempt"]
    job = carv.Job(state, ProceduralRenderer().render(state), attempt)
    # refined alone (padded to the batch of 4) in a new pipeline: the bytes of the build's batch
    assert renderer.refine([job]) == [(refined["build"] / row["image"]).read_bytes()]
    again, other = renderer.refine([job, job._replace(attempt=attempt + 1)])
    assert again == (refined["build"] / row["image"]).read_bytes()
    assert other != again  # the next attempt draws new noise
    assert renderer.calls == 2


def test_a_rebuild_from_the_command_line_refines_nothing_and_gives_the_same_files(refined, tmp_path):
    result = subprocess.run([str(COGFORGE), "build", "carv", "--renderer", "refine", "--config", refined["config"],
                             "--decisions", refined["tmp"] / "decisions.jsonl", "--out", tmp_path / "build",
                             "--quiet"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    n = len(used_states())
    assert f"refine: 0 images refined now in 0 pipeline calls, {n} from the cache" in result.stdout
    assert tree(tmp_path / "build") == tree(refined["build"])


@pytest.mark.parametrize("change, key, says", [
    ({"model": "no/such/folder/anywhere"}, "model", "no model folder no/such/folder/anywhere"),
    ({"pipeline": "upscale"}, "pipeline", "Input should be 'img2img', 'controlnet' or 'edit'"),
    ({"pipeline": "controlnet"}, "pipeline", 'needs controlnet = FOLDER_OR_ID'),
])
def test_a_bad_refine_config_is_one_line_and_exit_2(tiny_pipeline, tmp_path, change, key, says):
    keys = {"model": tiny_pipeline, **change}
    config = refine_config(tmp_path / "bad.toml", keys.pop("model"), tmp_path / "cache", **keys)
    line = next(n for n, text in enumerate(config.read_text().splitlines(), 1) if text.startswith(f"{key} ="))
    result = subprocess.run([str(COGFORGE), "build", "carv", "--renderer", "refine", "--config", config,
                             "--out", tmp_path / "build", "--quiet"], capture_output=True, text=True, cwd=tmp_path,
                            timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith(f"cogforge: {config}:{line}: key refine.{key}: "), result.stderr
    assert says in result.stderr
    assert not (tmp_path / "build").exists()


def test_a_rejected_state_is_redrawn_with_the_next_seed_then_dropped(refined):
    config = carv.load_config(refined["config"])
    renderer = carv.RefineRenderer(carv.refine_settings(config, 0, refined["config"]))
    cache = carv.RefineCache(config["refine"]["cache"])
    states = sorted(used_states())
    renders = {s: ProceduralRenderer().render(s) for s in states}
    lenient = refine_checker(LENIENT)
    first = {row["refine"]["attempt"] for row in rows(refined["build"])}
    assert first == {0}
    worst_hue = {}
    for row in rows(refined["build"]):
        hues = [h for h in row["refine"]["measures"]["hue"].values() if isinstance(h, (int, float))]
        worst_hue[State(**row["state"])] = max(hues)
    threshold = statistics.median(worst_hue.values())
    strict = refine_checker({**LENIENT, "hue": threshold})
    out = carv.refine_all(renderer, renders, strict, 2, cache, progress=False)
    failed = {s for s in states if worst_hue[s] > threshold}
    assert failed and len(failed) < len(states)
    # attempt 0 came from the build's cache; only the rejected states were refined again
    assert out["stats"]["refined"] == len(failed)
    assert out["stats"]["from_cache"] == len(states)
    assert {s for s, row in out["rows"].items() if row["attempt"] == 0} == set(states) - failed
    for state, row in out["rows"].items():
        assert row["seed"] == refine.seed_for(0, state, row["attempt"])
        assert strict(renders[state], out["images"][state], state).ok
    dropped = {State(**d["state"]) for d in out["dropped"]}
    assert dropped | set(out["rows"]) == set(states) and not dropped & set(out["rows"])
    for entry in out["dropped"]:
        assert entry["attempts"] == 2 and any(r.startswith("colour:") for r in entry["reasons"])
    # the redraws are cached too: the same call again refines nothing
    again = carv.refine_all(renderer, renders, strict, 2, cache, progress=False)
    assert again["stats"]["refined"] == 0 and again["images"] == out["images"]
    assert lenient(renders[states[0]], out["images"].get(states[0], renders[states[0]]), states[0]).ok


def test_images_that_lose_their_properties_are_dropped_and_a_build_without_them_stops(refined, tmp_path):
    # the check's own thresholds: random weights destroy edges, colours and counts
    config = refine_config(tmp_path / "strict.toml", carv.load_config(refined["config"])["refine"]["model"],
                           Path(carv.load_config(refined["config"])["refine"]["cache"]), qc={"hue": 15.0},
                           max_attempts=1)
    with pytest.raises(UserError) as raised:
        registry.get("carv").build(tmp_path / "build", config_path=config, excluded=excluded(),
                                   renderer="refine", progress=False)
    message = str(raised.value)
    assert message.startswith(f"the property check dropped {len(used_states())} refined states after 1 attempts")
    assert "edges:" in message and "\n" not in message
    assert not (tmp_path / "build").exists()


def test_ray_refines_with_one_model_per_actor_and_the_same_bytes(refined, ray_cluster):
    config = carv.load_config(refined["config"])
    renderer = carv.RefineRenderer(carv.refine_settings(config, 0, refined["config"]))
    built = {State(**row["state"]): (refined["build"] / row["image"]).read_bytes() for row in rows(refined["build"])}
    jobs = [carv.Job(s, ProceduralRenderer().render(s), 0) for s in sorted(built)]
    with make_executor("ray", address=ray_cluster.address) as executor:
        import ray

        made = carv._refine_jobs(renderer, jobs, executor, progress=False)
        # one actor per CPU of the cluster's two nodes (a CPU each while it lives), killed after
        for _ in range(300):
            if ray.available_resources().get("CPU") == ray.cluster_resources()["CPU"]:
                break
            time.sleep(0.1)
        assert ray.available_resources().get("CPU") == ray.cluster_resources()["CPU"] == 2
    assert made == [built[job.state] for job in jobs]
    assert renderer.calls == 0  # nothing ran in this process


def test_a_controlnet_pipeline_refines_from_the_render_edges(tiny_pipeline, tmp_path):
    from diffusers import ControlNetModel, UNet2DConditionModel

    # a ControlNet of the tiny UNet's shape (random weights), saved as a user's folder
    unet = UNet2DConditionModel.from_pretrained(tiny_pipeline / "unet")
    ControlNetModel.from_unet(unet, conditioning_embedding_out_channels=(4, 8)).save_pretrained(tmp_path / "cn")
    config = refine_config(tmp_path / "carv.toml", tiny_pipeline, tmp_path / "cache", pipeline="controlnet",
                           controlnet=str(tmp_path / "cn"), strength=0.8)
    settings = carv.refine_settings(carv.load_config(config), 0, config)
    assert settings.controlnet_revision == refine.folder_revision(tmp_path / "cn")
    renderer = carv.RefineRenderer(settings)
    state = sorted(used_states())[0]
    render = ProceduralRenderer().render(state)
    (png,) = renderer.refine([carv.Job(state, render, 0)])
    with Image.open(io.BytesIO(png)) as picture:
        assert picture.size == (512, 512) and png != render
    assert renderer.pipeline_class() == type(renderer._pipe).__name__ == "StableDiffusionControlNetImg2ImgPipeline"
    assert renderer.record({})["controlnet"]["revision"] == settings.controlnet_revision
    edges = refine.edges(Image.open(io.BytesIO(render)).convert("RGB"))
    assert set(np.unique(np.asarray(edges.convert("L")))) == {0, 255}  # binary, as Canny ControlNets take


def test_an_editing_pipeline_takes_the_prompt_as_an_instruction(tiny_pipeline, tmp_path):
    import torch
    from diffusers import (StableDiffusionImg2ImgPipeline, StableDiffusionInstructPix2PixPipeline,
                           UNet2DConditionModel)

    # an InstructPix2Pix pipeline of the tiny model's parts (its UNet reads the image too: 8 channels)
    base = StableDiffusionImg2ImgPipeline.from_pretrained(tiny_pipeline, local_files_only=True)
    torch.manual_seed(0)
    unet = UNet2DConditionModel.from_config({**base.unet.config, "in_channels": 8})
    StableDiffusionInstructPix2PixPipeline(
        vae=base.vae, text_encoder=base.text_encoder, tokenizer=base.tokenizer, unet=unet, scheduler=base.scheduler,
        safety_checker=None, feature_extractor=None, image_encoder=None, requires_safety_checker=False,
    ).save_pretrained(tmp_path / "edit")
    config = refine_config(tmp_path / "carv.toml", tmp_path / "edit", tmp_path / "cache", pipeline="edit")
    renderer = carv.RefineRenderer(carv.refine_settings(carv.load_config(config), 0, config))
    state = sorted(used_states())[0]
    render = ProceduralRenderer().render(state)
    (png,) = renderer.refine([carv.Job(state, render, 0)])
    assert png != render and Image.open(io.BytesIO(png)).size == (512, 512)
    assert type(renderer._pipe).__name__ == renderer.pipeline_class() == "StableDiffusionInstructPix2PixPipeline"
    assert refine.prompt(state, "edit") == f"turn this drawing into a photograph of {refine.prompt(state)}"
    assert "strength" not in renderer.settings.parameters() and "image_guidance" in renderer.settings.parameters()
