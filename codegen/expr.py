"""Tokenizing pointwise expressions and derivative formulas.

Both are small C-like expressions. Tokens are identifiers, numbers, strings and
operators; an identifier followed by `(` is a call, one preceded by `.` is a
method (formulas only: `x.pow(2)`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<number>(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?[fF]?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>"[^"]*")
  | (?P<op>==|!=|<=|>=|&&|\|\||::|[-+*/%<>!&|^~?:(),.\[\]{}=])
""", re.X)


@dataclass(frozen=True)
class Token:
    kind: str  # number, ident, call, method, string, op
    text: str
    pos: int


def tokenize(text: str) -> list[Token]:
    tokens, pos = [], 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m:
            raise ValueError(f"unexpected character '{text[pos]}' at column {pos + 1}")
        pos = m.end()
        kind = m.lastgroup
        if kind == "ws":
            continue
        tokens.append(Token(kind, m.group(), m.start()))
    # Classify identifiers: calls and methods.
    out = []
    for i, t in enumerate(tokens):
        if t.kind == "ident":
            prev = tokens[i - 1] if i else None
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if prev is not None and prev.text == ".":
                t = Token("method", t.text, t.pos)
            elif nxt is not None and nxt.text == "(":
                t = Token("call", t.text, t.pos)
        out.append(t)
    depth = 0
    for t in out:
        depth += t.text == "("
        depth -= t.text == ")"
        if depth < 0:
            raise ValueError("unbalanced parentheses")
    if depth:
        raise ValueError("unbalanced parentheses")
    return out


# Operators a pointwise expression may use (C semantics on the op-math type).
POINTWISE_OPS = {"+", "-", "*", "/", "%", "(", ")", ",", "<", ">", "<=", ">=", "==", "!=", "&&", "||",
                 "!", "?", ":", "&", "|", "^", "~"}
