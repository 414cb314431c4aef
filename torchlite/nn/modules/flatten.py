"""Flatten and Unflatten: reshape a range of dims into one, and one dim into several."""
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flattens dims start_dim..end_dim into one (by default all but the batch dim)."""

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dim `dim` into the sizes `unflattened_size` (a tuple, list or Size of ints; one may be -1)."""

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    @staticmethod
    def _require_tuple_int(sizes):
        if isinstance(sizes, (tuple, list)):
            for pos, size in enumerate(sizes):
                if not isinstance(size, int):
                    raise TypeError("unflattened_size must be tuple of ints, but found element of type "
                                    f"{type(size).__name__} at pos {pos}")
            return
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(sizes).__name__}")

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
