"""python -m codegen generate|check|audit

  generate [--out DIR]   validate native_functions.yaml and write generated/ (changed files only)
  check                  validate only
  audit [--json PATH] [--report PATH] [--no-run]
                         every differentiable op's formulas, saved values and checks (run now);
                         the Markdown report goes to docs/autograd_audit.md by default
"""
from __future__ import annotations

import argparse
import os
import sys

from .load import load
from .model import SchemaError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m codegen", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["generate", "check", "audit"])
    ap.add_argument("--yaml", default=os.path.join(ROOT, "native_functions.yaml"))
    ap.add_argument("--out", default=os.path.join(ROOT, "generated"))
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--json", help="audit: also write the audit as JSON here")
    ap.add_argument("--report", help="audit: the Markdown report (default docs/autograd_audit.md; none with "
                                     "--no-run unless given)")
    ap.add_argument("--no-run", action="store_true", help="audit: do not run the checks")
    args = ap.parse_args(argv)
    try:
        if args.command == "generate":
            from .gen import generate
            w = generate(args.yaml, args.out)
            if not args.quiet:
                print(f"codegen: {len(w.written)} files, {len(w.changed)} changed")
        elif args.command == "check":
            fns = load(args.yaml)
            print(f"codegen: {len(fns)} operator overloads OK")
        else:
            from .audit import main as audit_main
            report = args.report or (None if args.no_run else os.path.join(ROOT, "docs", "autograd_audit.md"))
            return audit_main(args.yaml, args.json, report, run=not args.no_run)
    except SchemaError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
