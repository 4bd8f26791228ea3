"""The ``cogforge`` command line. Subcommands grow with the toolkit's layers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import builders


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

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
