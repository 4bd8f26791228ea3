"""Photo-like CARV images: a diffusers pipeline refines the procedural render.

The procedural render (:class:`generators.carv.ProceduralRenderer`) is the condition and
its ground truth stays exact; a diffusion pipeline redraws it to look like a photograph.
Three kinds of pipeline, named in the config's ``[refine]`` table:

* ``img2img``: ``diffusers.AutoPipelineForImage2Image`` (Stable Diffusion 1.5, SDXL, ...)
  noises the render up to ``strength`` and denoises it under the prompt;
* ``controlnet``: the same with a ControlNet conditioned on the render's edges, which holds
  the layout while a higher strength changes the surfaces;
* ``edit``: an image-editing pipeline (``DiffusionPipeline``, the class the model folder
  names, e.g. InstructPix2Pix) given the render and the prompt as the instruction.

Models load from a local folder, or from the local Hugging Face cache by id, with
``local_files_only=True``: nothing is downloaded. The prompt is written from the state
(items, their number and material, the furniture, its colour and material, the relation;
words in ``data/carv_refine.json``), with one fixed negative prompt.

Determinism. Each (state, attempt) gets its own ``torch.Generator`` seeded by a hash of
the build seed, the state and the attempt, so an image does not depend on which other
states are refined or in which order. States are refined ``batch`` at a time; the last
batch is padded to the full size with copies of its last job, because batched float
arithmetic on the CPU rounds differently for another batch *size* (never for other
neighbours of the same size): with the padding, a state's bytes depend on (build seed,
state, attempt, model revision, parameters, batch size, device, dtype, library
versions) alone, which is exactly the cache key (:func:`cache_key`).

This module computes; it writes no file. The disk cache, the property check and the retry
of rejected states are the builder's (``builders/carv.py``); the check itself is
``qc/refine.py``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple, Sequence

from cogforge.generators.carv import DATA, RENDERERS, SIZE, ProceduralRenderer, State, load_world

Kind = Literal["img2img", "controlnet", "edit"]
PIPELINES: tuple[str, ...] = ("img2img", "controlnet", "edit")
# The libraries whose versions can change an image's bytes: they are in the cache key and
# the manifest.
VERSIONED = ("torch", "diffusers", "transformers")


@functools.cache
def _words() -> dict:
    return json.loads((DATA / "carv_refine.json").read_text())


def prompt(state: State, kind: str = "img2img") -> str:
    """The prompt for a state: "two white ceramic cups on a red painted wooden table, a
    photograph, ..."; an edit pipeline gets it as an instruction ("turn this drawing into a
    photograph of two ...")."""
    world, words = load_world(), _words()
    if kind == "edit":
        return f"{words['edit_instruction']} {prompt(state)}"
    singular, plural = world.words["subject"][state.subject]
    noun = singular if state.subject_number == "one" else plural
    relation = world.words["spatial_relation"][state.spatial_relation]
    furniture = f"{words['object_color'][state.object_color]} {state.object}"
    return (f"{state.subject_number} {words['subject'][state.subject]} {noun} {relation} a {furniture}, "
            f"{words['style']}")


def negative_prompt() -> str:
    return _words()["negative"]


def seed_for(build_seed: int, state: State, attempt: int) -> int:
    """The generator seed of one (state, attempt): a hash, so no two states share noise and
    a rejected state's next attempt draws new noise."""
    text = f"carv-refine:{build_seed}:{'|'.join(state)}:{attempt}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") & (2**63 - 1)


def library_versions() -> dict[str, str]:
    return {name: importlib.metadata.version(name) for name in VERSIONED}


def folder_revision(folder: Path) -> str:
    """A local model folder's revision: the sha256 of its files' relative paths and
    contents, so that any changed weight or config is a new revision."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return "sha256:" + digest.hexdigest()


@dataclass(frozen=True)
class RefineSettings:
    """What a refinement run needs: the resolved model and every parameter that changes bytes.

    Args:
        model: the model folder (a local folder, or the snapshot folder of a cached id).
        model_name: what the config named (the folder or the id), for the manifest.
        revision: the model's revision (a snapshot's commit, or :func:`folder_revision`).
        pipeline: ``img2img``, ``controlnet`` or ``edit``.
        controlnet: the ControlNet folder (``controlnet`` only) and its revision.
        strength: how far img2img and ControlNet move from the render (0-1).
        steps: denoising steps.
        guidance: classifier-free guidance scale.
        image_guidance: the edit pipeline's image guidance scale.
        size: the side the pipeline works at (pixels); the image is stored at CARV's size.
        batch: states per pipeline call.
        device: ``cpu``, ``cuda``, ``cuda:1``, ...
        dtype: ``float32``, ``float16`` or ``bfloat16``.
        threads: CPU threads torch uses (None: torch's default).
        seed: the build seed.
    """

    model: str
    model_name: str
    revision: str
    pipeline: Kind = "img2img"
    controlnet: str | None = None
    controlnet_revision: str | None = None
    strength: float = 0.5
    steps: int = 30
    guidance: float = 7.5
    image_guidance: float = 1.5
    size: int = 512
    batch: int = 4
    device: str = "cpu"
    dtype: str = "float32"
    threads: int | None = None
    seed: int = 0

    def parameters(self) -> dict:
        """The pipeline parameters, as the manifest records them."""
        out = {"strength": self.strength, "steps": self.steps, "guidance": self.guidance,
               "size": self.size, "batch": self.batch, "negative_prompt": negative_prompt()}
        if self.pipeline == "controlnet":
            out["control"] = "edges"
        if self.pipeline == "edit":
            out["image_guidance"] = self.image_guidance
            del out["strength"]
        if self.device == "cpu":
            out["threads"] = self.threads
        return out


def cache_key(settings: RefineSettings, state: State, attempt: int, versions: dict[str, str]) -> str:
    """Everything an image's bytes depend on, hashed: equal keys, equal bytes (on the CPU)."""
    record = {
        "state": list(state), "attempt": attempt, "seed": seed_for(settings.seed, state, attempt),
        "prompt": prompt(state, settings.pipeline), "pipeline": settings.pipeline, "revision": settings.revision,
        "controlnet_revision": settings.controlnet_revision, "parameters": settings.parameters(),
        "device": settings.device, "dtype": settings.dtype, "versions": versions, "out_size": SIZE,
    }
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


class Job(NamedTuple):
    """One image to refine: the state, its procedural render (PNG) and the attempt number."""

    state: State
    render: bytes
    attempt: int


def edges(render: "Image.Image") -> "Image.Image":  # noqa: F821
    """The ControlNet condition: the render's edges, white on black (a Canny-like map from
    the gradient of the luminance)."""
    from PIL import ImageFilter, ImageOps

    return ImageOps.grayscale(render).filter(ImageFilter.FIND_EDGES).point(
        lambda v: 255 if v > 24 else 0).convert("RGB")


def _png(pixels) -> bytes:
    """A pipeline's float image (H, W, 3 in 0-1) as CARV's RGB PNG, resized to CARV's size."""
    import numpy as np
    from PIL import Image

    image = Image.fromarray((np.clip(pixels, 0, 1) * 255).round().astype("uint8"), "RGB")
    if image.size != (SIZE, SIZE):
        image = image.resize((SIZE, SIZE), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=6)
    return out.getvalue()


def load_pipeline(settings: RefineSettings):
    """The diffusers pipeline, from local files only, on the settings' device and dtype."""
    import torch
    from diffusers import AutoPipelineForImage2Image, ControlNetModel, DiffusionPipeline

    if settings.threads:
        torch.set_num_threads(settings.threads)
    options = {"dtype": getattr(torch, settings.dtype), "local_files_only": True}
    if settings.pipeline == "img2img":
        pipe = AutoPipelineForImage2Image.from_pretrained(settings.model, **options)
    elif settings.pipeline == "controlnet":
        controlnet = ControlNetModel.from_pretrained(settings.controlnet, **options)
        pipe = AutoPipelineForImage2Image.from_pretrained(settings.model, controlnet=controlnet, **options)
    else:
        pipe = DiffusionPipeline.from_pretrained(settings.model, **options)
    pipe.set_progress_bar_config(disable=True)
    return pipe.to(settings.device)


class RefineRenderer:
    """CARV's ``Renderer`` that refines the procedural render with a diffusers pipeline.

    ``render(state)`` is attempt 0 of one state; a build calls :meth:`refine` with batches
    of jobs. The pipeline loads on first use, so a build whose images all come from the
    cache never loads it. A Ray actor is this class made remote (one model per actor).
    """

    name = "refine"
    version = "1"

    def __init__(self, settings: RefineSettings):
        self.settings = settings
        self._pipe = None
        self.calls = 0  # pipeline calls made by this instance

    def render(self, state: State) -> bytes:
        return self.refine([Job(state, ProceduralRenderer().render(state), 0)])[0]

    def refine(self, jobs: Sequence[Job]) -> list[bytes]:
        """Refined PNGs of ``jobs``, in order, ``batch`` per pipeline call."""
        size = self.settings.batch
        out: list[bytes] = []
        for start in range(0, len(jobs), size):
            chunk = list(jobs[start:start + size])
            padded = chunk + [chunk[-1]] * (size - len(chunk))
            out += self._call(padded)[:len(chunk)]
        return out

    def _call(self, jobs: list[Job]) -> list[bytes]:
        import torch
        from PIL import Image

        if self._pipe is None:
            self._pipe = load_pipeline(self.settings)
        s = self.settings
        renders = [Image.open(io.BytesIO(job.render)).convert("RGB").resize((s.size, s.size),
                                                                              Image.Resampling.LANCZOS)
                   for job in jobs]
        generators = [torch.Generator("cpu").manual_seed(seed_for(s.seed, job.state, job.attempt))
                      for job in jobs]
        options = {"prompt": [prompt(job.state, s.pipeline) for job in jobs],
                   "negative_prompt": [negative_prompt()] * len(jobs), "image": renders,
                   "num_inference_steps": s.steps, "guidance_scale": s.guidance,
                   "generator": generators, "output_type": "np"}
        if s.pipeline == "controlnet":
            options.update(control_image=[edges(r) for r in renders], strength=s.strength)
        elif s.pipeline == "edit":
            options.update(image_guidance_scale=s.image_guidance)
        else:
            options.update(strength=s.strength)
        images = self._pipe(**options).images
        self.calls += 1
        return [_png(image) for image in images]

    def pipeline_class(self) -> str:
        """The class of the pipeline the settings load, named without loading the weights."""
        model_index = json.loads((Path(self.settings.model) / "model_index.json").read_text())
        base = model_index.get("_class_name", "DiffusionPipeline")
        if self.settings.pipeline == "edit":
            return base
        try:  # how AutoPipelineForImage2Image picks the class: the model family, then its task's class
            from diffusers.pipelines.auto_pipeline import AUTO_IMAGE2IMAGE_PIPELINES_MAPPING, _get_model

            family = _get_model(base).removesuffix("-controlnet")
            if self.settings.pipeline == "controlnet":
                family += "-controlnet"
            return AUTO_IMAGE2IMAGE_PIPELINES_MAPPING[family].__name__
        except (ImportError, KeyError, AttributeError):
            return base

    def record(self, versions: dict[str, str], pipeline: str | None = None) -> dict:
        """The manifest's ``renderer`` entry (``pipeline``: the class name, when known already)."""
        s = self.settings
        out = {"name": self.name, "version": self.version, "model": s.model_name, "revision": s.revision,
               "kind": s.pipeline, "pipeline": pipeline or self.pipeline_class(), "parameters": s.parameters(),
               "device": s.device, "dtype": s.dtype, "versions": versions, "seed_rule": (
                   "sha256('carv-refine:{seed}:{state joined by |}:{attempt}'), first 8 bytes, 63 bits")}
        if s.pipeline == "controlnet":
            out["controlnet"] = {"model": s.controlnet, "revision": s.controlnet_revision}
        return out


# Registered beside the procedural renderer; unlike it, it needs settings (the config's
# [refine] table), which the builder gives it.
RENDERERS["refine"] = RefineRenderer
