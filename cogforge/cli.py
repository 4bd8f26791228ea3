"""The ``cogforge`` command line. Subcommands grow with the toolkit's layers.

A mistake in what a person gave (a :class:`cogforge.errors.UserError`) is printed as
``cogforge: FILE:LINE: message``, one line, exit status 2; every input is read and
checked before anything is written. Any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import re
import sys
from pathlib import Path

from cogforge.core import registry
from cogforge.core.errors import UserError


def _summary(manifest: dict, out_dir: Path) -> str:
    counts = manifest["counts"]
    lines = [f"{manifest['benchmark']} build, seed {manifest['seed']}", ""]
    width = max(len(k) for k in counts["by_task"])
    lines.append(f"  {'task':<{width}}  items  types  per type")
    for task, n in counts["by_task"].items():
        per_type = counts.get("by_type", {}).get(task, {})
        spread = f"{min(per_type.values())}-{max(per_type.values())}" if per_type else "-"
        lines.append(f"  {task:<{width}}  {n:>5}  {len(per_type):>5}  {spread:>8}")
    lines += [
        f"  {'total':<{width}}  {counts['items']:>5}",
        "",
        f"  images: {counts['images']} unique files",
        f"  time:   {manifest['elapsed_s']:.1f} s",
        f"  output: {out_dir}/ (" + ("items/part-*.jsonl, shards/" if manifest.get("layout") == "sharded"
                                     else "items.jsonl") + ", images/, manifest.json)",
    ]
    if "refine_stats" in manifest:
        r = manifest["refine_stats"]
        lines[-3:-3] = [f"  refine: {r['refined']} images refined now in {r['pipeline_calls']} pipeline calls, "
                        f"{r['from_cache']} from the cache, {r['rejected']} rejected by the property check, "
                        f"{len(manifest['refine']['dropped'])} states dropped"]
    if manifest.get("layout") == "sharded":
        repeats = sum(d["repeats"] for d in counts["duplicates"].values())
        lines[-3:-3] = [f"  shards: {manifest['shards']['count']} of up to {manifest['shards']['size']} items "
                        f"({manifest['made_shards']} made now), scale {manifest['scale']}, "
                        f"executor {manifest['executor']['name']} ({manifest['executor']['workers']} workers)",
                        f"  repeats across shards: {repeats} items "
                        f"({repeats / max(1, counts['items']):.2%}; per task in manifest.json)"]
    return "\n".join(lines)


def _named_decisions(path: str | None) -> list[dict]:
    """A decisions file named with ``--decisions``, read and checked before any work: it
    must exist and hold decisions (the default file may be absent: no decisions yet)."""
    from cogforge.core.decisions import load_decisions

    if path is None:
        return []
    if not Path(path).is_file():
        raise UserError("no such decisions file; check the path, or leave out --decisions to use "
                        "annotation/decisions/<benchmark>.jsonl", path)
    decisions = load_decisions(path)
    if not decisions:
        raise UserError("holds no decisions; leave out --decisions to build or check without any", path)
    return decisions


def cmd_build(args: argparse.Namespace) -> int:
    from cogforge.core.decisions import decisions_path, load_decisions

    benchmark = registry.get(args.benchmark)
    out_dir = Path(args.out or f"build/{args.benchmark}")
    decisions = _named_decisions(args.decisions) or load_decisions(decisions_path(args.benchmark))
    # An option reaches the build function only when it has a parameter of that name.
    accepts = inspect.signature(benchmark.build).parameters
    # Images people rejected in annotation are left out of the rebuild.
    excluded = [d["state"] for d in decisions
                if d["unit"] == "image" and d["decision"] == "reject" and d.get("state")]
    kwargs = {}
    if excluded:
        if "excluded" not in accepts:
            raise UserError(f"{len(excluded)} images with a state were rejected in annotation, but the "
                            f"{args.benchmark} builder cannot leave states out (no `excluded` parameter)")
        kwargs["excluded"] = excluded
    if "decisions" in accepts:  # builders that read other units (cogevolve: sense-graph edges)
        kwargs["decisions"] = decisions
    if args.input:
        if "inputs" not in accepts:
            raise UserError(f"--input: the {args.benchmark} builder takes no input files")
        inputs: dict[str, list[str]] = {}
        for spec in args.input:
            key, sep, path = spec.partition("=")
            if not sep or not path:
                raise UserError(f"--input {spec!r}: expected KEY=PATH, e.g. chainnet=edges.tsv")
            if benchmark.inputs and key not in benchmark.inputs:
                raise UserError(f"--input {key}=...: {args.benchmark} takes "
                                + " or ".join(f"{k}=FILE" for k in benchmark.inputs))
            inputs.setdefault(key, []).append(path)
        kwargs["inputs"] = inputs
    if args.renderer:
        if "renderer" not in accepts:
            raise UserError(f"--renderer: the {args.benchmark} builder has one renderer")
        kwargs["renderer"] = args.renderer
    if args.domains:
        if "domains" not in accepts:
            raise UserError(f"--domains: the {args.benchmark} builder has no domains")
        kwargs["domains"] = [d.strip() for d in args.domains.split(",") if d.strip()]
    run = {"scale": args.scale, "resume": args.resume or None, "shard_size": args.shard_size}
    wants_executor = args.executor or args.address or args.processes is not None
    for flag, value in run.items():
        if value is None or value is False:
            continue
        if "scale" not in accepts:
            raise UserError(f"--{flag.replace('_', '-')}: the {args.benchmark} builder builds in memory; sharded "
                            "builds (--scale, --shard-size, --resume) are carv's and corecognition's")
        kwargs[flag] = value
    from cogforge.core.executor import make_executor, use

    executor = make_executor(args.executor or "local", args.address, args.processes) if wants_executor else None
    try:
        if executor and "executor" in accepts:
            kwargs["executor"] = executor
        with use(executor) if executor else contextlib.nullcontext():  # the builder's drawing runs there
            manifest = benchmark.build(out_dir, seed=args.seed, config_path=args.config,
                                       progress=not args.quiet, **kwargs)
    finally:
        if executor:
            executor.close()
    if excluded:
        print(f"left out {len(excluded)} states rejected in annotation")
    print(_summary(manifest, out_dir))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """``cogforge list``: every registered benchmark, the package that registers it and its
    entry point, read from the installed packages' metadata (no benchmark is imported). A
    name that two packages register is listed with both, then refused (exit 2)."""
    rows = [("benchmark", "package", "entry point")]
    rows += [(r.name, f"{r.package} {r.version}".strip(), r.value) for r in registry.registrations()]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    for name, package, value in rows:
        print(f"{name:<{widths[0]}}  {package:<{widths[1]}}  {value}")
    if len(rows) == 1:
        print(f"(no package registers a benchmark in entry point group {registry.GROUP!r})")
    duplicated = registry.duplicates()
    if duplicated:
        return _refuse("\n".join(str(registry.duplicate_error(name, regs)) for name, regs in duplicated.items()))
    return 0


def _loadable(name: str) -> registry.Benchmark | None:
    """A benchmark for help texts; one that cannot be loaded is left out of them (using it
    says why)."""
    try:
        return registry.find(name)
    except registry.RegistryError:
        return None


def _input_help() -> str:
    """What ``--input`` accepts, from every registered benchmark's descriptor."""
    takes = []
    for name in registry.available():
        benchmark = _loadable(name)
        if benchmark and benchmark.inputs:
            takes += [f"{name} {key}=FILE: {what}" for key, what in benchmark.inputs.items()]
    return ("an input file for the builder's config list KEY" + "".join(f"; {t}" for t in takes)
            + "; repeatable").replace("%", "%%")


def _stage_help() -> str:
    """The stages ``annotate push`` takes, the shared ones and every registered benchmark's."""
    from cogforge.annotation.stages import STAGES

    names = list(STAGES)
    for name in registry.available():
        benchmark = _loadable(name)
        names += [stage.name for stage in (benchmark.stages if benchmark else ())]
    return "push: the stage, one of " + ", ".join(names).replace("%", "%%")


def cmd_qc(args: argparse.Namespace) -> int:
    from cogforge.qc import run_qc, write_report
    from cogforge.qc.report import table

    build = Path(args.build)
    _named_decisions(args.decisions)
    report = run_qc(build, args.decisions)
    out = Path(args.out) if args.out else build.with_name(build.name + ".qc")
    json_path, md_path = write_report(report, out)
    print(table(report))
    print(f"\n  report: {json_path} and {md_path}")
    return 0 if report.passed else 1


def cmd_release(args: argparse.Namespace) -> int:
    from cogforge.core.releases import verify
    from cogforge.exports.release import diff, release

    words = args.words
    if words[0] == "diff":
        if len(words) != 3:
            raise UserError("usage: cogforge release diff RELEASE_A RELEASE_B")
        changes = diff(words[1], words[2])
        print(f"{changes['from']} -> {changes['to']}: {len(changes['added'])} added, "
              f"{len(changes['removed'])} removed, {len(changes['changed'])} changed")
        for key in ("added", "removed"):
            for item_id in changes[key]:
                print(f"  {key:<8} {item_id}")
        for change in changes["changed"]:
            print(f"  changed  {change['id']} ({', '.join(change['fields'])})")
        return 0
    if words[0] == "verify":
        if len(words) != 2:
            raise UserError("usage: cogforge release verify RELEASE_FOLDER")
        problems = verify(words[1])
        for problem in problems:
            print(f"  {problem}")
        print(f"{words[1]}: {'verified, every file matches MANIFEST.sha256' if not problems else f'{len(problems)} problem(s)'}")
        return 1 if problems else 0
    if len(words) != 1 or not args.version:
        raise UserError("usage: cogforge release BUILD --version X.Y.Z")
    _named_decisions(args.decisions)
    folder = release(words[0], args.version, args.releases, args.decisions)
    print(f"released {folder}")
    return 0


def cmd_annotate(args: argparse.Namespace) -> int:
    from cogforge.annotation import agreement as agr
    from cogforge.annotation import projects
    from cogforge.annotation.server import serve

    if args.action == "serve":
        return serve(args.port, args.host)
    if args.action == "push":
        if not args.target or not args.stage:
            raise UserError("usage: cogforge annotate push BUILD --stage STAGE [--annotators N]")
        r = projects.push(args.target, args.stage, args.annotators)
        print(f"project {r['project']} ({r['title']}): {'created' if r['created'] else 'updated'}, "
              f"{r['added']} tasks added, {r['present']} already there, "
              f"{len(r['disappeared'])} no longer in the build")
        for key in r["disappeared"][:20]:
            print(f"  gone from the build: {key}")
        print(f"  open {r['url']}")
        return 0
    if args.action == "pull":
        if not args.target or not args.target.isdigit():
            raise UserError("usage: cogforge annotate pull PROJECT_ID")
        r = projects.pull(int(args.target))
        print(f"snapshot {r['snapshot']}: {r['tasks']} tasks, {r['annotations']} annotations")
        if r["decisions_file"]:
            counts = ", ".join(f"{n} {k}" for k, n in sorted(r["decisions"].items())) or "none yet"
            print(f"  decisions ({counts}) in {r['decisions_file']}")
        return 0
    if not args.target:
        raise UserError("usage: cogforge annotate agreement PROJECT_ID|SNAPSHOT")
    snapshot, path = projects.load_snapshot(args.target)
    result = agr.agreement(snapshot)
    out = Path(args.out) if args.out else path.with_suffix("").with_name(path.stem + "-agreement")
    paths = agr.write_reports(result, out)
    print(agr.table(result))
    print(f"\n  report: {paths['markdown']} (and agreement.json)")
    return 0


def cmd_svg(args: argparse.Namespace) -> int:
    """``cogforge svg check FILE...``: the image-schema rules (one core in <defs>, reused
    with <use>, identical across the files of one word; safe, opaque, no leaks)."""
    from cogforge.core import svgcheck

    group_by = (lambda p: str(p)) if args.each else None
    problems = svgcheck.check_files(args.files, group_by=group_by, banned_words=args.ban or ())
    # a file that cannot be read as SVG at all is a bad input, not a finding
    unreadable = next((p for p in problems if p.rule in ("parse", "size")), None)
    if unreadable is not None:
        line = re.search(r"line (\d+)", unreadable.element)
        detail = "" if line else f"{unreadable.element}: "
        raise UserError(f"not an SVG image: {detail}{unreadable.message}", unreadable.file,
                        int(line.group(1)) if line else None)
    for problem in problems:
        print(problem, file=sys.stderr)
    bad = len({p.file for p in problems})
    print(f"{len(args.files) - bad} of {len(args.files)} files pass" + (f"; {len(problems)} problems" if problems else ""))
    return 1 if problems else 0


def cmd_eval(args: argparse.Namespace) -> int:
    from cogforge.evaluate.client import Endpoint

    if args.action == "score":
        from cogforge.evaluate import report
        from cogforge.evaluate.judge import Judges
        from cogforge.evaluate.score import score

        if not args.predictions:
            raise UserError("usage: cogforge eval score --release RELEASE --predictions FILE|FOLDER [...]")
        judges = None
        if args.judge:
            endpoints = []
            for spec in args.judge:
                model, sep, url = spec.partition("@")
                if not sep:
                    raise UserError(f"--judge {spec!r}: expected MODEL@BASE_URL")
                endpoints.append(Endpoint(url, model, api_key_env=args.api_key_env))
            judges = Judges(tuple(endpoints), args.judge_agree or len(endpoints))
        results = score(args.release, args.predictions, judges, args.allow_unverified,
                        True if args.circular else None, args.split, args.model)
        out = Path(args.out) if args.out else Path(args.predictions[0]).with_suffix(".scores")
        paths = report.write(results, out)
        for model, r in results["models"].items():
            o, e, p = r["overall"], r["answer_extraction"], r["problems"]
            lo, hi = o["ci95"]
            print(f"{model}: accuracy {100 * o['accuracy']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] on {o['n']} items "
                  f"(chance {100 * o['chance']:.1f}%); answers not parsed {100 * e['fail_rate']:.1f}%")
            if len(r["predictions"]) > 1 or Path(r["predictions"][0]) not in map(Path, args.predictions):
                print("  from " + ", ".join(r["predictions"]))
            for kind in ("malformed", "duplicate_ids", "unknown_ids"):
                for problem in p[kind][:20]:
                    print(f"  {kind.replace('_', ' ')}: {problem}")
            if p["missing_ids"]:
                print(f"  missing: {len(p['missing_ids'])} items count as wrong, e.g. {p['missing_ids'][:5]}")
        print(f"report: {paths['markdown']}")
        return 0
    if args.action == "run":
        from cogforge.evaluate.run import run

        if not args.model or not args.base_url:
            raise UserError("usage: cogforge eval run --release R --model M --base-url URL")
        endpoint = Endpoint(args.base_url, args.model, args.api_key_env, args.timeout, args.retries)
        out = Path(args.out or f"predictions/{args.model.replace('/', '_')}.jsonl")
        r = run(args.release, endpoint, out, args.concurrency, args.temperature, args.max_tokens,
                args.circular, args.limit, split=args.split)
        print(f"{out}: {r['requests']} requests, {r['from_cache']} from the cache, {r['asked']} asked, "
              f"{r['failed']} failed")
        return 1 if r["failed"] else 0
    from cogforge.evaluate.baselines import write_baseline

    out = Path(args.out or f"predictions/baseline-{args.kind}.jsonl")
    write_baseline(args.release, args.kind, out, args.seed)
    print(f"wrote {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # what a benchmark accepts is in its descriptor, imported only for help that shows it
    helping = "-h" in argv or "--help" in argv
    parser = argparse.ArgumentParser(prog="cogforge", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    build = sub.add_parser("build", help="build a benchmark into build/<benchmark>/")
    build.add_argument("benchmark", choices=registry.available(), help="a registered benchmark (`cogforge list`)")
    build.add_argument("--seed", type=int, default=None, help="overrides the config's seed")
    build.add_argument("--config", default=None, help="a config file (default: the builder's own)")
    build.add_argument("--out", default=None, help="build folder (default: build/<benchmark>)")
    build.add_argument("--quiet", action="store_true", help="no progress bars")
    build.add_argument("--decisions", default=None,
                       help="human decisions to apply (default: annotation/decisions/<benchmark>.jsonl)")
    build.add_argument("--input", action="append", metavar="KEY=PATH",
                       help=_input_help() if helping else "an input file for the builder's config list KEY")
    build.add_argument("--domains", default=None, metavar="A,B",
                       help="only these domains, comma-separated (symbols: chemistry, ...)")
    build.add_argument("--renderer", default=None, metavar="NAME",
                       help="carv: overrides the config's renderer (procedural, or refine: diffusers, "
                            "configured by the config's [refine] table)")
    build.add_argument("--scale", type=int, default=None, metavar="N",
                       help="N times the config's counts, written in shards (carv, corecognition)")
    build.add_argument("--executor", choices=("local", "ray"), default=None,
                       help="where shards and drawing run: local processes (default) or a Ray cluster")
    build.add_argument("--address", default=None, metavar="HOST:PORT",
                       help="the Ray cluster to use with --executor ray (default: a new local one)")
    build.add_argument("--processes", type=int, default=None, metavar="N",
                       help="worker processes of the local executor (default: every core, at most 8)")
    build.add_argument("--shard-size", type=int, default=None, metavar="N", help="items per shard")
    build.add_argument("--resume", action="store_true",
                       help="keep the complete shards of an interrupted sharded build, make the rest")
    build.set_defaults(func=cmd_build)

    lst = sub.add_parser("list", help="the registered benchmarks, the package of each and its entry point")
    lst.set_defaults(func=cmd_list)

    qc = sub.add_parser("qc", help="check a build; writes qc_report.json and qc_report.md")
    qc.add_argument("build", help="a build folder, e.g. build/carv")
    qc.add_argument("--decisions", default=None,
                    help="human decisions file (default: annotation/decisions/<benchmark>.jsonl)")
    qc.add_argument("--out", default=None, help="report folder (default: <build>.qc next to the build)")
    qc.set_defaults(func=cmd_qc)

    rel = sub.add_parser("release", help="publish a checked build; or `release diff A B`, `release verify F`",
                         usage="cogforge release BUILD --version X.Y.Z | release diff A B | release verify FOLDER")
    rel.add_argument("words", nargs="+", help="BUILD, or diff A B, or verify FOLDER")
    rel.add_argument("--version", default=None, help="semantic version X.Y.Z")
    rel.add_argument("--releases", default="releases", help="releases root (default: releases/)")
    rel.add_argument("--decisions", default=None, help="human decisions file for QC")
    rel.set_defaults(func=cmd_release)

    ann = sub.add_parser("annotate", help="Label Studio: serve, push a build, pull annotations, agreement")
    ann.add_argument("action", choices=["serve", "push", "pull", "agreement"])
    ann.add_argument("target", nargs="?", help="push: a build folder; pull: a project id; "
                                               "agreement: a project id or a snapshot file")
    ann.add_argument("--stage", help=_stage_help() if helping else "push: the stage")
    ann.add_argument("--annotators", type=int, default=1, help="push: how many people see each task")
    ann.add_argument("--port", type=int, default=8080, help="serve: the port (it must be free)")
    ann.add_argument("--host", default="127.0.0.1", metavar="ADDR",
                     help="serve: the address to listen on (default 127.0.0.1, this machine only; "
                          "0.0.0.0 opens it to every network this machine is on)")
    ann.add_argument("--out", default=None, help="agreement: report folder")
    ann.set_defaults(func=cmd_annotate)

    svg = sub.add_parser("svg", help="check image-schema SVGs: `svg check FILE...` (one word's images)")
    svg.add_argument("action", choices=["check"])
    svg.add_argument("files", nargs="+", help="SVG files; by default one word's images, which must share their core")
    svg.add_argument("--each", action="store_true", help="check each file on its own (no shared-core rule)")
    svg.add_argument("--ban", action="append", help="a word no id or class may contain (repeatable)")
    svg.set_defaults(func=cmd_svg)

    ev = sub.add_parser("eval", help="score predictions on a release, run a model, or write a baseline")
    ev.add_argument("action", choices=["score", "run", "baseline"])
    ev.add_argument("--release", required=True, help="a release folder, e.g. releases/carv/1.0.0")
    ev.add_argument("--predictions", nargs="+", help="score: predictions files, or folders VLMEvalKit wrote "
                    "(searched for this release's <model>_<dataset>.xlsx); files of one model are scored together")
    ev.add_argument("--out", default=None, help="score: report folder; run/baseline: predictions file")
    ev.add_argument("--allow-unverified", action="store_true", help="score a release whose hashes fail")
    ev.add_argument("--split", default=None, help="score, run: only this split's items (a VLMEvalKit "
                    "prediction file of one split selects it by itself)")
    ev.add_argument("--circular", action="store_true", help="multiple choice: every rotation of the options")
    ev.add_argument("--judge", action="append", help="score: an LLM judge MODEL@BASE_URL (repeat for an ensemble)")
    ev.add_argument("--judge-agree", type=int, default=None, help="score: judges that must agree (default: all)")
    ev.add_argument("--model", help="run: the model name the endpoint serves; score: the model of every "
                    "predictions file (they are scored as one)")
    ev.add_argument("--base-url", help="run: e.g. http://127.0.0.1:8000/v1")
    ev.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
    ev.add_argument("--concurrency", type=int, default=4)
    ev.add_argument("--retries", type=int, default=4)
    ev.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    ev.add_argument("--temperature", type=float, default=0.0)
    ev.add_argument("--max-tokens", type=int, default=512)
    ev.add_argument("--limit", type=int, default=None, help="run: only the first N items")
    ev.add_argument("--kind", choices=["random", "majority", "choices-only"], default="random")
    ev.add_argument("--seed", type=int, default=0)
    ev.set_defaults(func=cmd_eval)

    args = parser.parse_args(argv)
    from cogforge.annotation.server import ServerError

    try:
        return args.func(args)
    except (UserError, ServerError) as err:
        return _refuse(str(err))
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as err:
        # a path named on the command line that is not there (or not a file)
        return _refuse(f"{err.filename}: {err.strerror}" if err.filename else str(err))


def _refuse(message: str) -> int:
    """Print a user error, one ``cogforge: `` line per problem (a config with two
    mistakes names both); exit status 2, as argparse uses for a bad command line."""
    for line in message.splitlines() or [message]:
        print(f"cogforge: {line}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
