"""``make bench``: measured performance figures for the toolkit's main jobs.

Prints what the issues' targets are checked against. Numbers are measured on this
machine each run; nothing here asserts a time.
"""

from __future__ import annotations

import os
import resource
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path


def _peak_mib() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def bench_carv(work: Path) -> list[tuple[str, str]]:
    from cogforge.builders import carv
    from cogforge.exports.release import release

    started = time.perf_counter()
    manifest = carv.build(work / "carv", progress=False)
    wall = time.perf_counter() - started
    own, children = _peak_mib()
    started = time.perf_counter()
    folder = release(work / "carv", "1.0.0", work / "releases", decisions=work / "no-decisions.jsonl")
    release_wall = time.perf_counter() - started
    scored, score_wall = _bench_scoring(folder, work)
    t = manifest["timings"]
    items = manifest["counts"]["items"]
    release_peak, _ = _peak_mib()
    workers = min(os.cpu_count() or 1, 8)
    return [
        ("CARV build: wall seconds (target < 10 s)", f"{wall:.2f}"),
        ("CARV build: items", f"{items}"),
        ("CARV build: items/s", f"{items / wall:.0f}"),
        ("CARV build: sampling seconds", f"{t['sample_s']:.2f}"),
        ("CARV build: unique images rendered", f"{t['rendered']}"),
        ("CARV build: rendering seconds", f"{t['render_s']:.2f} ({workers} processes)"),
        ("CARV build: ms per image (wall / images)", f"{1000 * t['render_s'] / t['rendered']:.1f}"),
        ("CARV build: ms per image per process", f"{1000 * t['render_s'] * workers / t['rendered']:.1f}"),
        ("CARV build: writing seconds", f"{t['write_s']:.2f}"),
        ("CARV build: peak memory, main process (MiB)", f"{own:.0f}"),
        ("CARV build: peak memory, largest render worker (MiB)", f"{children:.0f}"),
        ("CARV release incl. QC: wall seconds (target < 20 s)", f"{release_wall:.2f}"),
        ("CARV release: peak memory, main process (MiB)", f"{release_peak:.0f}"),
        (f"CARV scoring: {scored} predictions, wall seconds (target < 10 s)", f"{score_wall:.2f}"),
        ("CARV scoring: predictions/s", f"{scored / score_wall:.0f}"),
    ]


def _bench_scoring(folder: Path, work: Path, models: int = 19) -> tuple[int, float]:
    """Score 19 predictions files of 5,500 captions each (104,500 predictions) together,
    a third of them wrong in one property, as a leaderboard run would."""
    import json
    import random

    from cogforge.core.releases import load_release
    from cogforge.evaluate.score import Scorer

    rows = [json.loads(line) for line in (folder / "data" / "test.jsonl").read_text().splitlines()]
    rng = random.Random(0)
    paths = []
    for m in range(models):
        path = work / f"model{m}.jsonl"
        lines = []
        for r in rows:
            caption = r["answer"] if rng.random() > 0.33 else r["answer"].replace(" a ", " a red ", 1)
            lines.append(json.dumps({"id": r["id"], "response": json.dumps({"caption": caption})}))
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    started = time.perf_counter()
    loaded, info = load_release(folder)
    scorer = Scorer(loaded, info["benchmark"])
    from cogforge.evaluate import carv as carv_judge

    for path in paths:
        carv_judge.parse_caption.cache_clear()  # each model scored cold: no help from the others
        scorer.score(path)
    return models * len(rows), time.perf_counter() - started


def bench_constructure(work: Path) -> list[tuple[str, str]]:
    """CONSTRUCTURE cold (isA graph rebuilt from nltk) and warm (graph from the cache)."""
    from cogforge.builders import constructure
    from cogforge.generators import wordnet

    started = time.perf_counter()
    wordnet.load(use_cache=False)  # rebuilds and rewrites the cache, as a first build does
    cold_graph = time.perf_counter() - started
    started = time.perf_counter()
    manifest = constructure.build(work / "constructure", progress=False)
    warm = time.perf_counter() - started
    t = manifest["timings"]
    return [
        ("CONSTRUCTURE: isA graph from nltk (cold), seconds", f"{cold_graph:.2f}"),
        ("CONSTRUCTURE: cold build (graph + build), seconds", f"{cold_graph + warm - t['graph_s']:.2f}"),
        ("CONSTRUCTURE: warm build, seconds (target < 10 s)", f"{warm:.2f}"),
        ("CONSTRUCTURE: warm graph load, seconds", f"{t['graph_s']:.2f}"),
        ("CONSTRUCTURE: questions", f"{manifest['counts']['items']}"),
    ]


def bench_cogevolve(work: Path) -> list[tuple[str, str]]:
    """CogEvolve cold (graphs mined from WordNet) and warm (graphs from the cache), and
    the schema validator's throughput on the build's SVGs."""
    from cogforge.builders import cogevolve
    from cogforge.core import svgcheck
    from cogforge.generators import wordnet

    for stale in wordnet.CACHE.glob("cogevolve-graphs-*.json"):
        stale.unlink()
    started = time.perf_counter()
    cogevolve.build(work / "cogevolve-cold", progress=False)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    manifest = cogevolve.build(work / "cogevolve", progress=False)
    warm = time.perf_counter() - started
    svgs = [p.read_bytes() for p in sorted((work / "cogevolve" / "svg").glob("*.svg"))]
    rounds = max(1, 2000 // max(1, len(svgs)))
    started = time.perf_counter()
    for _ in range(rounds):
        for data in svgs:
            svgcheck.check(data)
    rate = rounds * len(svgs) / (time.perf_counter() - started)
    return [
        ("CogEvolve: cold build (graphs mined), seconds", f"{cold:.2f}"),
        ("CogEvolve: warm build, seconds (target < 10 s)", f"{warm:.2f}"),
        ("CogEvolve: items / schemas", f"{manifest['counts']['items']} / {manifest['counts']['schemas']}"),
        ("CogEvolve: svgcheck throughput, schemas per second", f"{rate:.0f}"),
    ]


def bench_symbols(work: Path) -> list[tuple[str, str]]:
    """The chemistry domain's build (its data are read from files, so every build is warm),
    and what one molecule and one equation take to draw."""
    import random

    from cogforge.builders import symbols
    from cogforge.generators.symbols import _equations, _molecules

    started = time.perf_counter()
    manifest = symbols.build(work / "symbols", progress=False, domains=["chemistry"])
    wall = time.perf_counter() - started
    library = _molecules.load_library()[:200]
    rng = random.Random(0)
    styles = [_molecules.Style.draw(rng) for _ in library]
    started = time.perf_counter()
    for molecule, style in zip(library, styles):
        _molecules.render(molecule.smiles, style)
    per_molecule = (time.perf_counter() - started) / len(library) * 1000
    reactions = _equations.load_reactions()
    started = time.perf_counter()
    for reaction in reactions:
        _equations.render(reaction.equation, _equations.Style())
    per_equation = (time.perf_counter() - started) / len(reactions) * 1000
    return [
        ("symbols chemistry build: wall seconds (target < 20 s)", f"{wall:.2f}"),
        ("symbols chemistry build: items", str(manifest["counts"]["items"])),
        ("symbols: ms per rendered molecule (RDKit Cairo, 512 px)", f"{per_molecule:.1f}"),
        ("symbols: ms per rendered equation (Pillow, 1280 x 320)", f"{per_equation:.1f}"),
    ]


def bench_physics(work: Path) -> list[tuple[str, str]]:
    """The physics domain's build (generated, so every build is warm), and what one circuit
    takes to solve (lcapy) and to draw (schemdraw, cairosvg), and one force diagram to draw."""
    import random

    from cogforge.builders import symbols
    from cogforge.generators.symbols import _circuits as circ
    from cogforge.generators.symbols import _forces as fz

    started = time.perf_counter()
    manifest = symbols.build(work / "physics", progress=False, domains=["physics"])
    wall = time.perf_counter() - started
    rng = random.Random(1)
    circuits = [circ.sample(rng, rng.choice([1, 2, 3])) for _ in range(60)]
    circ.solve.cache_clear()
    started = time.perf_counter()
    for emf, tree in circuits:
        circ.solve(circ.netlist(emf, tree))
    per_solve = (time.perf_counter() - started) / len(circuits) * 1000
    started = time.perf_counter()
    for emf, tree in circuits:
        circ.draw(emf, tree)
    per_draw = (time.perf_counter() - started) / len(circuits) * 1000
    scenes = [fz.sample_scene(rng) for _ in range(100)]
    started = time.perf_counter()
    for scene in scenes:
        fz.render(scene, fz.free_body(scene))
    per_scene = (time.perf_counter() - started) / len(scenes) * 1000
    return [
        ("symbols physics build: wall seconds (target < 20 s)", f"{wall:.2f}"),
        ("symbols physics build: items", str(manifest["counts"]["items"])),
        ("symbols: ms per circuit solved (lcapy)", f"{per_solve:.1f}"),
        ("symbols: ms per circuit drawn (schemdraw + cairosvg, 900 px)", f"{per_draw:.1f}"),
        ("symbols: ms per force diagram drawn (Pillow, 768 x 576)", f"{per_scene:.1f}"),
    ]


def _symbols_domain_build(work: Path, domain: str) -> tuple[float, dict]:
    """One symbols domain built by the command line in a fresh process, after a first
    build that fills the disk caches (the emoji font's coverage, the real characters'
    index): what a user waits for, with nothing of an earlier build in memory."""
    import json
    import subprocess
    import sys

    def run(out: Path) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cogforge.cli", "build", "symbols", "--domains", domain, "--quiet",
                        "--out", str(out)], check=True, capture_output=True)
        return time.perf_counter() - started

    run(work / f"{domain}-cold")
    wall = run(work / domain)
    return wall, json.loads((work / domain / "manifest.json").read_text())


def bench_culture(work: Path) -> list[tuple[str, str]]:
    """The culture domain's build (its data are files, so every build is warm; the
    first build in a fresh checkout also reads the emoji font's coverage), and what one
    emoji rebus takes to draw."""
    from cogforge.generators.symbols import _emoji

    wall, manifest = _symbols_domain_build(work, "culture")
    emojis = list(_emoji.usable())[:200]
    rebuses = [emojis[k:k + 4] for k in range(0, len(emojis), 4)]
    started = time.perf_counter()
    for rebus in rebuses:
        _emoji.render_rebus(rebus)
    per_rebus = (time.perf_counter() - started) / len(rebuses) * 1000
    return [
        ("symbols culture build: wall seconds, a fresh process, caches warm (target < 20 s)", f"{wall:.2f}"),
        ("symbols culture build: items", str(manifest["counts"]["items"])),
        ("symbols: ms per 4-emoji rebus drawn (Noto Color Emoji, PNG)", f"{per_rebus:.1f}"),
    ]


def bench_language(work: Path) -> list[tuple[str, str]]:
    """The language domain's build, warm (the first build in a fresh checkout indexes the
    stroke data of every real character, the faked glyphs' check), and what one sentence
    takes to draw and one faked glyph to make and check against every real character."""
    import random

    from cogforge.generators.symbols import _fakes, _hanzi

    wall, manifest = _symbols_domain_build(work, "language")
    rng = random.Random(0)
    sentence = list("我们今天下午在图书馆认真地讨论了这个问题。")
    started = time.perf_counter()
    for _ in range(20):
        _hanzi.render_sentence(sentence, _hanzi.Style.draw(rng))
    per_sentence = (time.perf_counter() - started) / 20 * 1000
    chars = [c for c in "馆认真讨论题问图书课程游泳锻炼"]
    started = time.perf_counter()
    made = [_fakes.make_fake(c, rng) for c in chars]
    per_fake = (time.perf_counter() - started) / len(chars) * 1000
    return [
        ("symbols language build: wall seconds, a fresh process, caches warm (target < 20 s)", f"{wall:.2f}"),
        ("symbols language build: items", str(manifest["counts"]["items"])),
        ("symbols: ms per handwritten sentence drawn (21 characters)", f"{per_sentence:.1f}"),
        (f"symbols: ms per faked glyph made and checked against every real character ({sum(m is not None for m in made)}"
         f" of {len(chars)} characters faked)", f"{per_fake:.1f}"),
    ]


def bench_corecognition(work: Path) -> list[tuple[str, str]]:
    """The CoreCognition build (procedural, so every build is warm) and what one item
    of each concept takes to draw."""
    import random

    from cogforge.builders import corecognition
    from cogforge.generators.corecognition import concepts

    started = time.perf_counter()
    manifest = corecognition.build(work / "corecognition", progress=False)
    wall = time.perf_counter() - started
    rows = [("corecognition build: wall seconds (target < 20 s)", f"{wall:.2f}"),
            ("corecognition build: items", str(manifest["counts"]["items"]))]
    for concept, module in concepts().items():  # drawn and PNG-encoded, frames and strip
        params = [f.sample(random.Random(k), k) for f in module.FAMILIES for k in range(5)]
        fams = [f for f in module.FAMILIES for _ in range(5)]
        started = time.perf_counter()
        for family, p in zip(fams, params):
            corecognition.draw_item(family.name, p)
        per_item = (time.perf_counter() - started) / len(params) * 1000
        rows.append((f"corecognition: ms per {concept} item drawn", f"{per_item:.1f}"))
    return rows


def bench_mathematics(work: Path) -> list[tuple[str, str]]:
    """The mathematics domain's build (generated, so every build is warm), its QC
    (every answer re-derived, every picture redrawn), and what one item of each task
    takes to make, check and draw."""
    import random
    from types import SimpleNamespace

    from cogforge.builders import symbols
    from cogforge.core.positions import Positions
    from cogforge.generators.symbols import mathematics
    from cogforge.qc.core import load_build
    from cogforge.qc.symbols import mathematics as qc_math

    started = time.perf_counter()
    manifest = symbols.build(work / "mathematics", progress=False, domains=["mathematics"])
    wall = time.perf_counter() - started
    build = load_build(work / "mathematics")
    started = time.perf_counter()
    qc_math.check(build, build.items)
    qc_wall = time.perf_counter() - started
    rows = [("symbols mathematics build: wall seconds (target < 20 s)", f"{wall:.2f}"),
            ("symbols mathematics build: items", str(manifest["counts"]["items"])),
            ("symbols mathematics QC (re-derive and redraw): wall seconds", f"{qc_wall:.2f}")]
    for name, task in mathematics.TASKS.items():
        ctx = SimpleNamespace(positions=Positions(), dropped=Counter())
        module = mathematics.GENERATOR_OF[name]
        started = time.perf_counter()
        drafts = task.make(ctx, 12, random.Random(1))
        made = time.perf_counter() - started
        started = time.perf_counter()
        for d in drafts:
            module.check(name, d.question, d.options, d.answer, d.meta)
        checked = time.perf_counter() - started
        started = time.perf_counter()
        for d in drafts:
            module.pictures(name, d.meta)
        drawn = time.perf_counter() - started
        n = max(len(drafts), 1)
        rows.append((f"mathematics {name} ({task.paper}): ms per item made / checked / drawn",
                     f"{made / n * 1000:.1f} / {checked / n * 1000:.1f} / {drawn / n * 1000:.1f}"))
    return rows


# --------------------------------------------------------------------------- scaled builds (issue 27)
# A sharded build (``cogforge build NAME --scale N``) on each executor, and its cost as it
# grows. Figures are items/s over the whole build call (CARV's includes drawing its images
# once, whatever the scale) and peak RSS of a child process that runs the build alone.

SCALED = {"CARV": "carv", "CoreCognition": "corecognition"}
# Scales of the memory and linearity figures; COGFORGE_BENCH_SCALES=1,10 sets both.
# CoreCognition's 100x (75,400 items, PNG encoding) takes about 27 minutes on one process.
SCALES = {"carv": (1, 10, 100), "corecognition": (1, 10, 100)}
SCALES_ENV = "COGFORGE_BENCH_SCALES"
# The executor comparison's build sizes: long enough that a worker's start is a small part.
EXECUTOR_SCALE = {"carv": 10, "corecognition": 1}


def _note(text: str) -> None:
    """A line on stderr as each figure is measured (the table comes at the end)."""
    import sys

    print(f"bench: {text}", file=sys.stderr, flush=True)


def _scaled_build(builder: str, out: Path, scale: int, executor) -> tuple[int, float, str]:
    """A sharded build: its items, its wall seconds and its manifest's sha256."""
    import hashlib
    import importlib

    module = importlib.import_module(f"cogforge.builders.{builder}")
    started = time.perf_counter()
    manifest = module.build(out, scale=scale, executor=executor, sharded=True, progress=False)
    wall = time.perf_counter() - started
    digest = hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest()
    shutil.rmtree(out)
    return manifest["counts"]["items"], wall, digest


def bench_executors(work: Path) -> list[tuple[str, str]]:
    """Items/s of a scaled sharded build on the local executor (1 and 2 processes) and on a
    real Ray cluster on this machine (a head of 1 CPU; then a second node of 1 CPU), and
    Ray's overhead against the local executor with as many workers."""
    import ray
    from ray.cluster_utils import Cluster

    from cogforge.core.executor import make_executor

    runs: dict[tuple[str, str], tuple[int, float, str]] = {}

    def measure(setup: str, executor) -> None:
        with executor:
            for label, builder in SCALED.items():
                runs[label, setup] = _scaled_build(builder, work / builder, EXECUTOR_SCALE[builder], executor)
                items, wall, _ = runs[label, setup]
                _note(f"{label} x{EXECUTOR_SCALE[builder]} on {setup}: {items:,} items in {wall:.1f} s")

    for processes in (1, 2):
        measure(f"local, {processes} process{'es' if processes > 1 else ''}", make_executor("local", processes=processes))
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.wait_for_nodes()
        measure("Ray, 1 node", make_executor("ray", cluster.address))
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        measure("Ray, 2 nodes", make_executor("ray", cluster.address))
    finally:
        ray.shutdown()
        cluster.shutdown()
    rows = []
    for label, builder in SCALED.items():
        items = runs[label, "local, 1 process"][0]
        setups = [setup for (name, setup) in runs if name == label]
        for setup in setups:
            n, wall, _ = runs[label, setup]
            rows.append((f"{label} x{EXECUTOR_SCALE[builder]} sharded build ({n:,} items), {setup}: items/s",
                         f"{n / wall:.0f} ({wall:.1f} s)"))
        for ray_setup, local_setup in (("Ray, 1 node", "local, 1 process"), ("Ray, 2 nodes", "local, 2 processes")):
            overhead = runs[label, ray_setup][1] / runs[label, local_setup][1] - 1
            rows.append((f"{label}: Ray overhead, {ray_setup} vs {local_setup} (wall; target < 20%)",
                         f"{100 * overhead:+.0f}%"))
        same = len({runs[label, setup][2] for setup in setups}) == 1
        rows.append((f"{label}: same manifest bytes on all four ({items:,} items)", "yes" if same else "NO"))
    return rows


def scaled_child(builder: str, scale: int, out: str) -> None:
    """The child process of :func:`bench_scaling`: one sharded build on one process (this
    one), its items and wall seconds printed as JSON."""
    import json

    from cogforge.core.executor import make_executor

    with make_executor("local", processes=1) as executor:
        items, wall, _ = _scaled_build(builder, Path(out), scale, executor)
    status = Path("/proc/self/status").read_text().splitlines()
    peak_kib = int(next(line for line in status if line.startswith("VmHWM:")).split()[1])
    print(json.dumps({"items": items, "wall": wall, "peak_mib": peak_kib / 1024}))


def _run_child(builder: str, scale: int, out: Path) -> tuple[int, float, float]:
    """Items, wall seconds and peak RSS (MiB) of a sharded build in a fresh child process.
    The peak is the child's own ``VmHWM`` (``/proc/self/status``), read when its build is
    done: with one process the build starts no worker, so this is the whole build's peak.
    Not ``ru_maxrss`` from ``os.wait4``: Linux carries the parent's resident set at the
    fork into the child's ``ru_maxrss``, which would hide a child smaller than this bench."""
    import json
    import subprocess
    import sys

    code = f"from cogforge.bench import scaled_child; scaled_child({builder!r}, {scale}, {str(out)!r})"
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{builder} x{scale} build failed in its child process (exit {done.returncode})")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["items"], result["wall"], result["peak_mib"]


def _scales() -> dict[str, tuple[int, ...]]:
    text = os.environ.get(SCALES_ENV, "").strip()
    if not text:
        return SCALES
    try:
        scales = tuple(int(s) for s in text.split(","))
    except ValueError:
        scales = ()
    if not scales or min(scales) < 1:
        import sys

        print(f"cogforge: {SCALES_ENV}={text!r}: give whole scales of 1 or more separated by commas, e.g. 1,10,100",
              file=sys.stderr)
        raise SystemExit(2)
    return {builder: scales for builder in SCALES}


def bench_scaling(work: Path) -> list[tuple[str, str]]:
    """Peak RSS and items/s of a sharded build on one process at each scale (default CARV
    1x/10x/100x, CoreCognition 1x/10x; ``COGFORGE_BENCH_SCALES=1,10,100`` for both):
    memory should stay flat and the cost per item constant as the build grows."""
    scales = _scales()
    rows = [(f"scaled builds: scales ({SCALES_ENV})",
             "; ".join(f"{label} {','.join(map(str, scales[b]))}" for label, b in SCALED.items()))]
    for label, builder in SCALED.items():
        measured = {}
        for scale in scales[builder]:
            items, wall, peak = measured[scale] = _run_child(builder, scale, work / builder)
            _note(f"{label} x{scale} on 1 process: {items:,} items in {wall:.1f} s, peak RSS {peak:.0f} MiB")
            rows.append((f"{label} x{scale} sharded build, 1 process: items / items/s / peak RSS (MiB)",
                         f"{items:,} / {items / wall:.0f} / {peak:.0f}"))
        ordered = sorted(measured)
        for low, high in zip(ordered, ordered[1:]):
            (n0, w0, _), (n1, w1, _) = measured[low], measured[high]
            rows.append((f"{label}: items/s of the items added from x{low} to x{high} (marginal)",
                         f"{(n1 - n0) / (w1 - w0):.0f}"))
        first, last = ordered[0], ordered[-1]
        if last != first:
            (n0, w0, m0), (n1, w1, m1) = measured[first], measured[last]
            rows.append((f"{label}: peak RSS x{last} / x{first} (target <= 1.5)", f"{m1 / m0:.2f}"))
            rows.append((f"{label}: items/s x{last} / x{first} (target >= 0.8)", f"{(n1 / w1) / (n0 / w0):.2f}"))
    return rows


def make_tiny_pipeline(folder: Path) -> Path:
    """A tiny Stable Diffusion img2img pipeline (the real classes, tiny configs, random weights;
    a byte-level CLIP tokenizer from a vocab.json and merges.txt written here), saved with
    save_pretrained into ``folder/model``: the refinement backend's test model, and the one its
    CPU figure is measured on (no download)."""
    import json

    import torch
    from diffusers import AutoencoderKL, DDIMScheduler, StableDiffusionImg2ImgPipeline, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer

    words = folder / "tokenizer-files"
    words.mkdir(parents=True)
    # the 256 symbols of byte-level BPE (GPT-2's printable stand-ins for the bytes)
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    extra = iter(range(256, 512))
    symbols = [chr(b) if b in printable else chr(next(extra)) for b in range(256)]
    vocab = {t: n for n, t in enumerate(symbols + [s + "</w>" for s in symbols]
                                        + ["<|startoftext|>", "<|endoftext|>"])}
    (words / "vocab.json").write_text(json.dumps(vocab))
    (words / "merges.txt").write_text("#version: 0.2\n")  # no merges: one token a byte
    tokenizer = CLIPTokenizer.from_pretrained(words, model_max_length=160)
    torch.manual_seed(0)
    unet = UNet2DConditionModel(sample_size=16, in_channels=4, out_channels=4, block_out_channels=(8, 16),
                                layers_per_block=1, down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
                                up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"), cross_attention_dim=16,
                                norm_num_groups=4, attention_head_dim=2)
    vae = AutoencoderKL(block_out_channels=(8, 16), in_channels=3, out_channels=3, latent_channels=4,
                        down_block_types=("DownEncoderBlock2D",) * 2, up_block_types=("UpDecoderBlock2D",) * 2,
                        norm_num_groups=4, sample_size=32)
    text = CLIPTextModel(CLIPTextConfig(vocab_size=len(vocab), hidden_size=16, intermediate_size=32,
                                        num_attention_heads=2, num_hidden_layers=2, max_position_embeddings=160,
                                        bos_token_id=vocab["<|startoftext|>"], eos_token_id=vocab["<|endoftext|>"],
                                        pad_token_id=vocab["<|endoftext|>"]))
    scheduler = DDIMScheduler(beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear",
                              clip_sample=False, set_alpha_to_one=False, steps_offset=1)
    pipe = StableDiffusionImg2ImgPipeline(vae=vae, text_encoder=text, tokenizer=tokenizer, unet=unet,
                                          scheduler=scheduler, safety_checker=None, feature_extractor=None,
                                          image_encoder=None, requires_safety_checker=False)
    pipe.save_pretrained(folder / "model")
    return folder / "model"


def bench_refine(work: Path) -> list[tuple[str, str]]:
    """The diffusers refinement backend on the CPU with the tiny test model (random weights):
    what the backend itself costs around a pipeline call (prompts, seeds, PNG in and out), not
    what a real model costs. 16 states, 2 steps, batch 4, at 32 and 64 px, on one torch thread."""
    from cogforge.generators.carv import ProceduralRenderer, load_world
    from cogforge.generators.refine import Job, RefineRenderer, RefineSettings, folder_revision

    started = time.perf_counter()
    model = make_tiny_pipeline(work / "tiny")
    states = load_world().states()[:16]
    jobs = [Job(s, ProceduralRenderer().render(s), 0) for s in states]
    rows = [("refine (tiny model, CPU): import torch + diffusers, make the model, seconds",
             f"{time.perf_counter() - started:.2f}")]
    for size in (32, 64):
        settings = RefineSettings(model=str(model), model_name="tiny", revision=folder_revision(model), steps=2,
                                  size=size, batch=4, threads=1)
        renderer = RefineRenderer(settings)
        renderer.refine(jobs[:1])  # loads the model; not timed
        started = time.perf_counter()
        renderer.refine(jobs)
        wall = time.perf_counter() - started
        rows.append((f"refine (tiny model, CPU, {size} px, 2 steps, batch 4, 1 thread): images/s",
                     f"{len(jobs) / wall:.1f}"))
    return rows


def bench_streams(work: Path) -> list[tuple[str, str]]:
    """Each streaming benchmark as a training stream (cogforge.environments), in this one
    process: items/s over every task (after a warm-up item per task, which loads the world
    and, for CARV, renders on first use), and the time to open a fresh stream and make item
    10^9 (target: under 1 s; the build's items/s per process is the items/s target)."""
    from cogforge import environments

    rows = []
    for name, count in (("carv", 2000), ("corecognition", 300), ("constructure", 1000), ("symbols", 180),
                        ("cogevolve", 2000)):
        stream = environments.open(name, seed=1)
        for i in range(len(stream.tasks)):
            stream[10**6 + i]
        for label, first in (("first", 0), ("next", count)):  # CARV: the first renders its 432 states
            started = time.perf_counter()
            for i in range(first, first + count):
                stream[i]
            wall = time.perf_counter() - started
            rows.append((f"stream {name}: items/s over {len(stream.tasks)} tasks, 1 process, {label} {count} items",
                         f"{count / wall:.1f}"))
        started = time.perf_counter()
        environments.open(name, seed=2)[10**9]
        rows.append((f"stream {name}: seconds to open a stream and make item 10^9 (target < 1 s)",
                     f"{time.perf_counter() - started:.3f}"))
    # CONSTRUCTURE's multiple-choice items come from a bank filled once per process, seed and
    # knobs (builders/constructure.py, "streams"): its first item pays for the filling
    for task in ("abstraction", "concretization", "common-ancestor"):
        started = time.perf_counter()
        environments.open("constructure", task=task, seed=3)[10**9]
        rows.append((f"stream constructure: seconds to fill a new seed's {task} bank and make item 10^9",
                     f"{time.perf_counter() - started:.3f}"))
    return rows


BENCHES = (bench_carv, bench_constructure, bench_cogevolve, bench_symbols, bench_physics, bench_mathematics,
           bench_culture, bench_language, bench_corecognition, bench_executors, bench_scaling, bench_refine,
           bench_streams)


def main(argv: list[str] | None = None) -> int:
    """``python -m cogforge.bench [NAME ...]``: every bench, or those named (``executors``,
    ``scaling``, ``carv``, ...)."""
    import sys

    names = sys.argv[1:] if argv is None else argv
    known = {b.__name__.removeprefix("bench_"): b for b in BENCHES}
    unknown = [n for n in names if n not in known]
    if unknown:
        print(f"cogforge: bench: no bench called {unknown[0]!r}; use one of {', '.join(known)}", file=sys.stderr)
        return 2
    chosen = [known[n] for n in names] if names else list(BENCHES)
    work = Path(tempfile.mkdtemp(prefix="cogforge-bench-"))
    try:
        rows = [row for bench in chosen for row in bench(work)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    width = max(len(name) for name, _ in rows)
    print(f"cogforge bench on {os.cpu_count()} cores")
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
