"""python -m codegen audit: every derivative formula, what it saves, and whether it checks out now.

For each differentiable op: its backward node, the formula of each input (and `jvp`), every saved value
(tensor, output, metadata or number) with the condition under which it is saved, the non-differentiable
inputs and outputs, the test notes (domain, xfail and not-twice-differentiable reasons), and the result of
running its checks now: gradcheck and gradgradcheck in float64 on the gradcheck samples of the op
database (torchlite.testing.op_db, in the installed package), with the largest |analytical - numerical| seen, and, for ops with a `jvp:`
entry, the forward-mode Jacobian against finite differences (`forward_ad`; "skip" for ops without one).
"""
from __future__ import annotations

import json
import sys

from .autograd import autograd_context, node_indices
from .load import load

def _saved(ag, nf) -> list[dict]:
    out = []
    for m in ag.members:
        cond = "always"
        if m.needed_by:
            names = list(m.needed_by)
            cond = "if " + " or ".join(names) + (" requires grad" if len(names) == 1 else " require grad")
        if m.python_name in nf.derivatives.save_if:
            cond += f" and {nf.derivatives.save_if[m.python_name].text}"
        out.append({"name": m.python_name, "kind": m.kind, "type": m.decl.replace("autograd::", ""), "when": cond})
    return out


def _jvp(jvp) -> str | dict | None:
    """The `jvp:` entry as written: a kind, one formula, or {return: formula}."""
    if jvp is None or jvp.kind != "formulas":
        return None if jvp is None else jvp.kind
    texts = {name: ex.text for name, ex in jvp.formulas.items()}
    return texts if jvp.per_output else next(iter(texts.values()))


def describe(yaml_path: str) -> list[dict]:
    functions = load(yaml_path)
    op_names = {nf.name for nf in functions}
    index = node_indices(functions)
    ops = []
    for nf in functions:
        if not nf.differentiable:
            continue
        ag = autograd_context(nf, index[nf.schema.full_name], op_names)
        ops.append({
            "name": nf.schema.full_name,
            "schema": str(nf.schema),
            "line": nf.line,
            "node": ag.node,
            "formulas": {", ".join(f.inputs): f.expr.text for f in nf.derivatives.formulas},
            "jvp": _jvp(nf.derivatives.jvp),
            "saved": _saved(ag, nf),
            "zero_fill": ag.zero_fill,
            "nondiff": list(nf.derivatives.nondiff),
            "nondiff_outputs": list(nf.derivatives.nondiff_outputs),
            "test": {"domain": list(nf.test.domain) if nf.test.domain else None, "xfail": nf.test.xfail,
                     "not_twice_differentiable": nf.test.not_twice_differentiable},
            "random": "random" in nf.tags,
            "reparameterized": "reparameterized" in nf.tags,
        })
    return ops


def run_checks(ops: list[dict]) -> None:
    """Adds `checks` to each op: gradcheck / gradgradcheck / forward_ad -> pass, fail, skip or
    "not differentiable twice", with the largest error and the first failure."""
    try:
        from torchlite.autograd.gradcheck import _check, _first_gradients
        from torchlite.testing import op_by_name
        from torchlite.testing._opinfo import check_random_gradient, check_random_tangent
    except Exception as e:  # noqa: BLE001  (torchlite not built or installed)
        for op in ops:
            op["checks"] = {"gradcheck": "skip", "gradgradcheck": "skip", "forward_ad": "skip",
                            "note": f"checks not run: {type(e).__name__}: {e}"}
        return
    for op in ops:
        info = op_by_name[op["name"]]
        forward = bool(op["jvp"])
        result = {"gradcheck": "pass", "gradgradcheck": "pass", "forward_ad": "pass" if forward else "skip",
                  "max_error": {}}
        if op["random"]:
            result["gradgradcheck"] = "skip"
        if op["test"]["not_twice_differentiable"]:
            result["gradgradcheck"] = "not differentiable twice"
        cases = [(label, "function") for label, _ in info.gradcheck_samples()]
        if "inplace" in info.variants and not op["random"]:
            cases.append((cases[0][0], "inplace"))
        for label, kind in cases:
            what = f"{label}" + (" (in-place)" if kind == "inplace" else "")
            checks = ["gradcheck"] if op["random"] else ["gradcheck", "gradgradcheck"]
            if op["jvp"]:
                checks.append("forward_ad")
            for check in checks:
                if result[check] not in ("pass", "fail"):
                    continue
                try:
                    fn, inputs = info.as_function(info.gradcheck_sample(label), kind)
                    if op["random"] and check == "forward_ad":
                        check_random_tangent(info, fn, inputs)  # asserts the tangent is zero (finite if reparameterized)
                        ok, err, msg = True, 0.0, ""
                    elif op["random"]:
                        check_random_gradient(info, fn, inputs)  # asserts the gradient is zero (finite if reparameterized)
                        ok, err, msg = True, 0.0, ""
                    elif check == "gradcheck":
                        ok, err, msg = _check(fn, inputs)
                    elif check == "forward_ad":
                        ok, err, msg = _check(fn, inputs, forward=True)
                    else:
                        ok, err, msg = _check(*_first_gradients(fn, inputs))
                except Exception as e:  # noqa: BLE001
                    ok, err, msg = False, float("inf"), f"{type(e).__name__}: {e}"
                result["max_error"][f"{check} {what}"] = err
                if not ok:
                    # An op whose test entry says why it fails (zeta's derivative for x is not implemented, as
                    # in PyTorch) reports "xfail"; the reason is in the report's test notes.
                    result[check] = "xfail" if op["test"]["xfail"] else "fail"
                    result.setdefault("failure", f"{check} {what}: {msg.splitlines()[0] if msg else ''}")
        op["checks"] = result


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|")


def markdown(ops: list[dict]) -> str:
    n = len(ops)
    count = {k: sum(op.get("checks", {}).get(k) == "pass" for op in ops)
             for k in ("gradcheck", "gradgradcheck", "forward_ad")}
    lines = [
        "# Autograd audit",
        "",
        "Generated by `python -m codegen audit` from native_functions.yaml: every differentiable op's",
        "backward formulas, what its node saves and when, and its checks as run when the report was made",
        "(gradcheck and gradgradcheck in float64 on the gradcheck samples of the op database,",
        "torchlite.testing.op_db, at gradcheck's default tolerances), and for ops with a `jvp:` entry the",
        "forward-mode Jacobian (dual tensors) against finite differences (`forward_ad`; `skip` for ops",
        "without one).",
        "",
        f"**{n} differentiable ops: gradcheck passes for {count['gradcheck']}, gradgradcheck for "
        f"{count['gradgradcheck']}, the forward-mode check for {count['forward_ad']} (those with a `jvp:`).**",
        "",
    ]
    for op in ops:
        c = op.get("checks", {})
        lines += [f"## `{op['name']}` ({op['node']})", "", f"`{_md_escape(op['schema'])}` "
                  f"(native_functions.yaml:{op['line']})", ""]
        lines += ["| input | formula |", "|---|---|"]
        for k, v in op["formulas"].items():
            lines.append(f"| {k} | `{_md_escape(v)}` |")
        if isinstance(op["jvp"], dict):
            for out_name, formula in op["jvp"].items():
                lines.append(f"| (jvp of {out_name}) | `{_md_escape(formula)}` |")
        elif op["jvp"]:
            lines.append(f"| (jvp) | `{_md_escape(str(op['jvp']))}` |")
        lines.append("")
        if op["saved"]:
            lines.append("Saves: " + "; ".join(f"`{s['name']}` ({s['kind']}, {s['when']})" for s in op["saved"]))
        else:
            lines.append("Saves nothing.")
        if op["zero_fill"]:
            lines.append("")
            lines.append("Several differentiable outputs: a gradient an output did not get is zero-filled before "
                         "the formulas run.")
        if op["nondiff"] or op["nondiff_outputs"]:
            lines.append("")
            lines.append("Not differentiable: " + ", ".join(op["nondiff"] + [f"output {o}" for o in
                                                                              op["nondiff_outputs"]]))
        notes = [f"{k}: {v}" for k, v in op["test"].items() if v]
        if op["reparameterized"]:
            notes.append("random, reparameterized: the draws' gradient is finite and shaped like the input (its "
                         "values are checked by the op's own tests)")
        elif op["random"]:
            notes.append("random: the gradient is zero by definition (as PyTorch); the check asserts that")
        if notes:
            lines += ["", "Test notes: " + "; ".join(notes)]
        if c:
            errs = c.get("max_error", {})
            worst = max((v for v in errs.values()), default=0.0)
            line = (f"Checks: gradcheck **{c['gradcheck']}**, gradgradcheck **{c['gradgradcheck']}**, "
                    f"forward_ad {c['forward_ad']} (max error {worst:.0e})")
            if "failure" in c:
                line += f"; first failure: {_md_escape(c['failure'])}"
            if "note" in c:
                line += f"; {c['note']}"
            lines += ["", line]
        lines.append("")
    return "\n".join(lines)


def main(yaml_path: str, json_path: str | None, report_path: str | None, run: bool = True) -> int:
    ops = describe(yaml_path)
    if run:
        run_checks(ops)
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"ops": ops}, f, indent=1, default=str)
    if report_path:
        with open(report_path, "w") as f:
            f.write(markdown(ops))
    not_run = next((op["checks"]["note"] for op in ops if "note" in op.get("checks", {})), None)
    if not_run:  # the report says so too, but a check that could not run is no pass
        print(f"audit: error: {not_run}", file=sys.stderr)
        return 1
    failed = [op["name"] for op in ops if "fail" in (op.get("checks", {}).get("gradcheck"),
                                                      op.get("checks", {}).get("gradgradcheck"),
                                                      op.get("checks", {}).get("forward_ad"))]
    print(f"audit: {len(ops)} differentiable ops; "
          f"gradcheck pass {sum(op.get('checks', {}).get('gradcheck') == 'pass' for op in ops)}, "
          f"gradgradcheck pass {sum(op.get('checks', {}).get('gradgradcheck') == 'pass' for op in ops)}, "
          f"failing: {', '.join(failed) or 'none'}")
    if report_path:
        print(f"audit: report written to {report_path}")
    return 1 if failed else 0
