"""Datasets (PyTorch's torch.utils.data.dataset): map-style and iterable datasets and their combinations."""
import bisect
import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

from ..._random import default_generator

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset",
           "Subset", "random_split"]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses implement __getitem__ (and usually __len__); optionally __getitems__
    to fetch a whole batch of indices at once."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable):
    """An iterable-style dataset: subclasses implement __iter__. With DataLoader workers, every worker
    iterates its own copy (see get_worker_info to shard the stream)."""

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the tensors indexed along their first dimension, as a tuple."""

    def __init__(self, *tensors) -> None:
        assert all(tensors[0].size(0) == t.size(0) for t in tensors), "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Datasets of the same length side by side: a sample is a tuple (positional datasets) or a dict
    (keyword datasets) of their samples."""

    def __init__(self, *args, **kwargs) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        parts = list(args) if args else list(kwargs.values())
        if not parts:
            raise ValueError("At least one dataset should be passed")
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list):
        def column(d):
            if callable(getattr(d, "__getitems__", None)):
                items = d.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError("Nested dataset's output size mismatch. "
                                     f"Expected {len(indices)}, got {len(items)}")
                return list(items)
            return [d[i] for i in indices]

        if isinstance(self.datasets, dict):
            cols = {k: column(d) for k, d in self.datasets.items()}
            return [{k: c[j] for k, c in cols.items()} for j in range(len(indices))]
        cols = [column(d) for d in self.datasets]
        return [tuple(c[j] for c in cols) for j in range(len(indices))]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after the other."""

    @staticmethod
    def cumsum(sequence):
        """The running totals of the datasets' lengths."""
        out, total = [], 0
        for d in sequence:
            total += len(d)
            out.append(total)
        return out

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        for d in self.datasets:
            assert not isinstance(d, IterableDataset), "ConcatDataset does not support IterableDataset"
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]

    @property
    def cummulative_sizes(self):
        """Deprecated spelling of cumulative_sizes."""
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`", FutureWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Iterable datasets chained one after the other, on the fly."""

    def __init__(self, datasets) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list):
        mapped = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(mapped)
        return [self.dataset[i] for i in mapped]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths: Sequence, generator=default_generator):
    """Splits `dataset` into non-overlapping random Subsets of the given lengths, or of the given fractions
    of its length (floors, then the remainder handed out one by one from the first split on)."""
    from ... import randperm

    lengths = list(lengths)
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        n = len(dataset)
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(int(math.floor(n * frac)))
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, c in enumerate(counts):
            if c == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
        lengths = counts
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = randperm(sum(lengths), generator=generator).tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, order[start:start + length]))
        start += length
    return out
