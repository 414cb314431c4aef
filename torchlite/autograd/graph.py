"""The backward graph: `Node`, the type of every `grad_fn`.

Each node's Python type is a subclass of `Node` named after it (`type(t.grad_fn).__name__` is
'MulBackward0'), made the first time a node of that name reaches Python.
"""
from .._C import _Node as Node

__all__ = ["Node"]
