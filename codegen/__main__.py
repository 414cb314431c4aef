"""python -m codegen generate|check|audit

  generate [--out DIR]   validate native_functions.yaml and write generated/ (changed files only)
  check                  validate only
  audit                  list every op's derivative formulas and test notes
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
            for nf in load(args.yaml):
                print(f"{nf.schema}    [native_functions.yaml:{nf.line}]")
                if nf.composite:
                    print("    composite: gradients flow through the ops it calls")
                for d in nf.derivatives:
                    print(f"    {', '.join(d.inputs)}: {d.formula}")
                if nf.nondiff:
                    print(f"    nondiff: {', '.join(nf.nondiff)}")
                for k in ("xfail", "not_twice_differentiable"):
                    if getattr(nf.test, k):
                        print(f"    {k}: {getattr(nf.test, k)}")
    except SchemaError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
