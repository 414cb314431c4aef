"""The one parser of the schema's expressions: `pointwise:`, derivative formulas, `jvp:` and `save_if:`.

They are small C-like expressions with C's precedence: numbers, strings, names, calls `f(a, b)`, method
calls `x.pow(2)` (formulas), indexing `grads[0]`, list literals `[0, 1]`, unary `- ! ~ +`, the binary
operators `* / % + - < <= > >= == != & ^ | && ||` and the conditional `c ? a : b`. Each expression is
parsed once, when the schema loads, into a tree of the node classes below; the loading step validates
the trees and the generator prints them (Printer), so no other module reads expression text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Iterator

_TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<number>(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?[fF]?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>"[^"]*")
  | (?P<op>==|!=|<=|>=|&&|\|\||[-+*/%<>!&|^~?:(),.\[\]])
""", re.X)


@dataclass(frozen=True)
class Token:
    kind: str  # number, ident, string, op
    text: str
    pos: int


def tokenize(text: str) -> list[Token]:
    tokens, pos = [], 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m:
            raise ValueError(f"unexpected character '{text[pos]}' at column {pos + 1}")
        pos = m.end()
        if m.lastgroup != "ws":
            tokens.append(Token(m.lastgroup, m.group(), m.start()))
    return tokens


# ------------------------------------------------------------------ the tree

@dataclass(frozen=True)
class Num:
    text: str


@dataclass(frozen=True)
class Str:
    text: str  # with its quotes


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Call:
    fn: str
    args: tuple


@dataclass(frozen=True)
class Method:
    receiver: object
    name: str
    args: tuple


@dataclass(frozen=True)
class Unary:
    op: str
    operand: object


@dataclass(frozen=True)
class Binary:
    op: str
    left: object
    right: object


@dataclass(frozen=True)
class Conditional:
    cond: object
    then: object
    other: object


@dataclass(frozen=True)
class Index:
    obj: object
    index: object


@dataclass(frozen=True)
class ListLit:
    items: tuple


@dataclass(frozen=True)
class Paren:
    inner: object


def children(node) -> tuple:
    """A node's sub-expressions, left to right: its fields that are nodes or tuples of nodes (names,
    operators and literal texts are strings)."""
    out = []
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, tuple):
            out.extend(value)
        elif not isinstance(value, str):
            out.append(value)
    return tuple(out)


def walk(node) -> Iterator:
    """Every node of the tree, parents before children, left to right."""
    yield node
    for c in children(node):
        yield from walk(c)


def names(node) -> list[str]:
    """The plain names an expression reads (not called functions or methods), in order."""
    return [n.name for n in walk(node) if isinstance(n, Name)]


# ------------------------------------------------------------------ parsing

# Binary operators by precedence, loosest first (C's table).
_LEVELS = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"),
           ("*", "/", "%")]
_UNARY = ("-", "+", "!", "~")


class _Parser:
    def __init__(self, text: str):
        self.toks = tokenize(text)
        self.i = 0

    def peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def at(self, text: str) -> bool:
        t = self.peek()
        return t is not None and t.kind == "op" and t.text == text

    def take(self, text: str | None = None) -> Token:
        t = self.peek()
        if t is None:
            raise ValueError(f"expected '{text}' at the end" if text else "unexpected end of the expression")
        if text is not None and not (t.kind == "op" and t.text == text):
            raise ValueError(f"expected '{text}' at column {t.pos + 1}, found '{t.text}'")
        self.i += 1
        return t

    def parse(self):
        if not self.toks:
            raise ValueError("empty expression")
        e = self.conditional()
        t = self.peek()
        if t is not None:
            raise ValueError(f"unexpected '{t.text}' at column {t.pos + 1}")
        return e

    def conditional(self):
        cond = self.binary(0)
        if not self.at("?"):
            return cond
        self.take("?")
        then = self.conditional()
        self.take(":")
        return Conditional(cond, then, self.conditional())

    def binary(self, level: int):
        if level == len(_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() is not None and self.peek().kind == "op" and self.peek().text in _LEVELS[level]:
            op = self.take().text
            left = Binary(op, left, self.binary(level + 1))
        return left

    def unary(self):
        t = self.peek()
        if t is not None and t.kind == "op" and t.text in _UNARY:
            self.take()
            return Unary(t.text, self.unary())
        return self.postfix()

    def args(self) -> tuple:
        self.take("(")
        out = []
        if self.at(")"):
            self.take(")")
            return ()
        while True:
            out.append(self.conditional())
            if self.at(")"):
                self.take(")")
                return tuple(out)
            self.take(",")

    def postfix(self):
        e = self.primary()
        while True:
            if self.at("."):
                self.take(".")
                t = self.take()
                if t.kind != "ident":
                    raise ValueError(f"expected a method name after '.' at column {t.pos + 1}")
                if not self.at("("):
                    raise ValueError(f"'.{t.text}' is not a call: write .{t.text}()")
                e = Method(e, t.text, self.args())
            elif self.at("["):
                self.take("[")
                idx = self.conditional()
                self.take("]")
                e = Index(e, idx)
            else:
                return e

    def primary(self):
        t = self.take()
        if t.kind == "number":
            return Num(t.text)
        if t.kind == "string":
            return Str(t.text)
        if t.kind == "ident":
            return Call(t.text, self.args()) if self.at("(") else Name(t.text)
        if t.text == "(":
            e = self.conditional()
            self.take(")")
            return Paren(e)
        if t.text == "[":
            items = []
            while not self.at("]"):
                items.append(self.conditional())
                if not self.at("]"):
                    self.take(",")
            self.take("]")
            return ListLit(tuple(items))
        raise ValueError(f"unexpected '{t.text}' at column {t.pos + 1}")


def parse(text: str):
    """The tree of one expression; ValueError (with the column) when it does not parse."""
    return _Parser(text).parse()


# ------------------------------------------------------------------ printing

class Printer:
    """Prints a tree as C++ in one canonical spacing (`a + b`, `-a`, `f(a, b)`, `c ? a : b`). Subclasses
    say how names, numbers, calls, methods and lists are spelled."""

    def print(self, node) -> str:
        if isinstance(node, Num):
            return self.number(node.text)
        if isinstance(node, Str):
            return node.text
        if isinstance(node, Name):
            return self.name(node.name)
        if isinstance(node, Paren):
            return f"({self.print(node.inner)})"
        if isinstance(node, Unary):
            return f"{node.op}{self.print(node.operand)}"
        if isinstance(node, Binary):
            return f"{self.print(node.left)} {node.op} {self.print(node.right)}"
        if isinstance(node, Conditional):
            return f"{self.print(node.cond)} ? {self.print(node.then)} : {self.print(node.other)}"
        if isinstance(node, Index):
            return f"{self.print(node.obj)}[{self.print(node.index)}]"
        if isinstance(node, Call):
            return f"{self.function(node.fn)}({', '.join(self.print(a) for a in node.args)})"
        if isinstance(node, Method):
            return self.method(node)
        if isinstance(node, ListLit):
            return self.list(node)
        raise AssertionError(node)

    def number(self, text: str) -> str:
        return text

    def name(self, name: str) -> str:
        return name

    def function(self, name: str) -> str:
        return name

    def method(self, node: Method) -> str:
        """x.f(a) is printed as the free function f(x, a)."""
        args = [node.receiver] + list(node.args)
        return f"{self.function(node.name)}({', '.join(self.print(a) for a in args)})"

    def list(self, node: ListLit) -> str:
        return "{" + ", ".join(self.print(x) for x in node.items) + "}"
