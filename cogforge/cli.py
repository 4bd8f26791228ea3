"""The ``cogforge`` command line. Subcommands grow with the toolkit's layers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import builders
from annotation.decisions import DecisionError
from exports.release import ReleaseError


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
        f"  output: {out_dir}/ (items.jsonl, images/, manifest.json)",
    ]
    return "\n".join(lines)


def cmd_build(args: argparse.Namespace) -> int:
    module = builders.get(args.benchmark)
    out_dir = Path(args.out or f"build/{args.benchmark}")
    manifest = module.build(out_dir, seed=args.seed, config_path=args.config,
                            progress=not args.quiet)
    print(_summary(manifest, out_dir))
    return 0


def cmd_qc(args: argparse.Namespace) -> int:
    from qc import run_qc, write_report
    from qc.report import table

    build = Path(args.build)
    report = run_qc(build, args.decisions)
    out = Path(args.out) if args.out else build.with_name(build.name + ".qc")
    json_path, md_path = write_report(report, out)
    print(table(report))
    print(f"\n  report: {json_path} and {md_path}")
    return 0 if report.passed else 1


def cmd_release(args: argparse.Namespace) -> int:
    from exports.release import diff, release, verify

    words = args.words
    if words[0] == "diff":
        if len(words) != 3:
            raise SystemExit("usage: cogforge release diff RELEASE_A RELEASE_B")
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
            raise SystemExit("usage: cogforge release verify RELEASE_FOLDER")
        problems = verify(words[1])
        for problem in problems:
            print(f"  {problem}")
        print(f"{words[1]}: {'verified, every file matches MANIFEST.sha256' if not problems else f'{len(problems)} problem(s)'}")
        return 1 if problems else 0
    if len(words) != 1 or not args.version:
        raise SystemExit("usage: cogforge release BUILD --version X.Y.Z")
    folder = release(words[0], args.version, args.releases, args.decisions)
    print(f"released {folder}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cogforge", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    build = sub.add_parser("build", help="build a benchmark into build/<benchmark>/")
    build.add_argument("benchmark", choices=builders.available())
    build.add_argument("--seed", type=int, default=None, help="overrides the config's seed")
    build.add_argument("--config", default=None, help="a config file (default: the builder's own)")
    build.add_argument("--out", default=None, help="build folder (default: build/<benchmark>)")
    build.add_argument("--quiet", action="store_true", help="no progress bars")
    build.set_defaults(func=cmd_build)

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

    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ReleaseError, FileNotFoundError, DecisionError) as err:
        print(f"cogforge: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
