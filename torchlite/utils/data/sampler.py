"""Samplers (PyTorch's torch.utils.data.sampler): the orders in which a DataLoader visits a dataset."""
import math
from typing import Generic, TypeVar

import numpy as np

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]

T_co = TypeVar("T_co", covariant=True)


def _tl():
    import torchlite

    return torchlite


class Sampler(Generic[T_co]):
    """Base class of samplers: an iterable over dataset indices (or batches of indices), optionally sized."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _fresh_generator():
    """A generator seeded from the default generator (one draw), as samplers without a generator use."""
    tl = _tl()
    seed = int(tl.empty((), dtype=tl.int64).random_().item())
    g = tl.Generator()
    g.manual_seed(seed)
    return g


class RandomSampler(Sampler[int]):
    """Random indices: permutations of the dataset (without replacement; num_samples > len repeats whole
    permutations), or independent uniform draws (with replacement)."""

    def __init__(self, data_source, replacement: bool = False, num_samples=None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        """How many indices one pass yields (len(data_source) unless given)."""
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self):
        tl = _tl()
        n = len(self.data_source)
        g = self.generator if self.generator is not None else _fresh_generator()
        left = self.num_samples
        if self.replacement:
            while left > 0:  # in chunks of 32: a long pass needs no big buffer
                k = min(32, left)
                yield from tl.randint(high=n, size=(k,), dtype=tl.int64, generator=g).tolist()
                left -= k
        else:
            while left > 0:
                perm = tl.randperm(n, generator=g).tolist()
                yield from perm[:left]
                left -= n

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (without replacement)."""

    def __init__(self, indices, generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _tl().randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


def _check_distribution(w):
    if np.any(~(w >= 0)):
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    if np.any(np.isinf(w)):
        raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    if not w.sum() > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def _multinomial(weights, num_samples, replacement, generator):
    """Indices drawn with probabilities proportional to `weights` (a float64 tensor), PyTorch's
    torch.multinomial checks and messages; the uniform numbers come from `generator`."""
    tl = _tl()
    w = np.asarray(weights, dtype=np.float64)
    if not replacement and num_samples > w.shape[0]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    _check_distribution(w)
    u = np.asarray(tl.rand(num_samples if replacement else w.shape[0], dtype=tl.float64, generator=generator))
    if replacement:
        cdf = np.cumsum(w)
        cdf /= cdf[-1]
        idx = np.searchsorted(cdf, u, side="right")
        return np.minimum(idx, np.flatnonzero(w)[-1]).tolist()
    # Without replacement: exponential races (the smallest -log(u)/w win), zero weights last.
    with np.errstate(divide="ignore"):
        keys = -np.log(u) / w
    return np.argsort(keys, kind="stable")[:num_samples].tolist()


class WeightedRandomSampler(Sampler[int]):
    """num_samples indices in [0, len(weights)) drawn with probabilities proportional to `weights`."""

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None) -> None:
        tl = _tl()
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        if isinstance(weights, tl.Tensor):
            weights_tensor = weights.detach().to(tl.float64)
        else:
            weights_tensor = tl.from_numpy(np.array(weights, dtype=np.float64))
        if weights_tensor.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from _multinomial(self.weights, self.num_samples, self.replacement, self.generator)

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Groups the indices of `sampler` into lists of batch_size (the last one shorter unless drop_last)."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
