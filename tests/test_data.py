"""torchlite.utils.data: datasets, samplers, collation and the DataLoader (in this process and in workers)."""
import collections
import math
import os
import pickle
import sys
import time
import warnings

import numpy as np
import pytest

import torchlite as tl
from torchlite.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset, IterableDataset,
                                  RandomSampler, Sampler, SequentialSampler, StackDataset, Subset,
                                  SubsetRandomSampler, TensorDataset, WeightedRandomSampler, default_collate,
                                  default_convert, get_worker_info, random_split)

Point = collections.namedtuple("Point", "x y")


def values(t):
    return np.asarray(t).tolist()


# ----------------------------------------------------------------------------------------------------- datasets


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i * i


class Stream(IterableDataset):
    """range(start, end); in a worker, the worker's contiguous share of it (PyTorch's documented example)."""

    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per = math.ceil((self.end - self.start) / info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))


class SizedStream(IterableDataset):
    def __init__(self, n, reported):
        self.n, self.reported = n, reported

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.reported


def test_dataset_base_classes():
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__."):
        Dataset()[0]
    with pytest.raises(TypeError):
        IterableDataset()  # __iter__ is abstract
    both = Squares(2) + Squares(3)
    assert isinstance(both, ConcatDataset) and [both[i] for i in range(5)] == [0, 1, 0, 1, 4]
    chained = Stream(0, 2) + Stream(5, 7)
    assert isinstance(chained, ChainDataset) and list(chained) == [0, 1, 5, 6]
    assert Dataset[int] is not None  # generic, as PyTorch's


def test_tensor_dataset():
    x, y = tl.arange(12).reshape(6, 2).float(), tl.arange(6)
    ds = TensorDataset(x, y)
    assert len(ds) == 6
    a, b = ds[4]
    assert values(a) == [8.0, 9.0] and b.item() == 4
    assert ds.tensors[0] is x
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(tl.zeros(2), tl.zeros(3))


def test_concat_dataset():
    c = ConcatDataset([range(3), range(10, 14)])
    assert len(c) == 7 and c.cumulative_sizes == [3, 7]
    assert [c[i] for i in range(7)] == [0, 1, 2, 10, 11, 12, 13]
    assert c[-1] == 13 and c[-7] == 0
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        c[-8]
    with pytest.raises(IndexError):
        c[7]
    with pytest.warns(FutureWarning, match="renamed to `cumulative_sizes`"):
        assert c.cummulative_sizes == [3, 7]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Stream(0, 1)])


def test_chain_dataset():
    ch = ChainDataset([SizedStream(3, 3), SizedStream(2, 2)])
    assert list(ch) == [0, 1, 2, 0, 1] and len(ch) == 5
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([range(2)]))


def test_subset_and_stack_dataset():
    s = Subset(Squares(10), [7, 2, 5])
    assert len(s) == 3 and s[0] == 49 and s[2] == 25
    assert s.__getitems__([1, 0]) == [4, 49]
    assert Subset(list(range(10)), [1, 3])[1] == 3

    t = StackDataset(range(3), "abc")
    assert len(t) == 3 and t[1] == (1, "b") and t.__getitems__([0, 2]) == [(0, "a"), (2, "c")]
    d = StackDataset(num=range(3), char="abc")
    assert d[2] == {"num": 2, "char": "c"} and d.__getitems__([1]) == [{"num": 1, "char": "b"}]
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(range(2), range(3))
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        StackDataset()
    with pytest.raises(ValueError, match="but both types are given"):
        StackDataset(range(2), a=range(2))


def test_random_split():
    parts = random_split(range(10), [3, 7], generator=tl.Generator().manual_seed(42))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    again = random_split(range(10), [3, 7], generator=tl.Generator().manual_seed(42))
    assert again[0].indices == parts[0].indices  # reproducible
    assert all(isinstance(p, Subset) for p in parts)
    # Fractions: floors, then the remainder one by one from the first split.
    assert [len(p) for p in random_split(range(10), [0.33, 0.33, 0.34])] == [4, 3, 3]
    assert [len(p) for p in random_split(range(11), [0.2] * 5)] == [3, 2, 2, 2, 2]
    with pytest.warns(UserWarning, match="Length of split at index 2 is 0"):
        assert [len(p) for p in random_split(range(10), [0.5, 0.5, 0.0])] == [5, 5, 0]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(range(10), [1.5, -0.5])
    # The default generator is torchlite's: seeding it makes the split reproducible.
    tl.manual_seed(3)
    a = random_split(range(20), [0.5, 0.5])[0].indices
    tl.manual_seed(3)
    assert random_split(range(20), [0.5, 0.5])[0].indices == a


# ----------------------------------------------------------------------------------------------------- samplers


def test_sequential_and_base_sampler():
    assert list(SequentialSampler("abcd")) == [0, 1, 2, 3] and len(SequentialSampler(range(4))) == 4
    with pytest.raises(NotImplementedError):
        iter(Sampler())
    with pytest.raises(TypeError):
        len(Sampler())


def test_random_sampler():
    g = tl.Generator().manual_seed(0)
    order = list(RandomSampler(range(10), generator=g))
    assert sorted(order) == list(range(10))
    assert list(RandomSampler(range(10), generator=tl.Generator().manual_seed(0))) == order
    # num_samples beyond the length: whole permutations, then a prefix of one.
    long = list(RandomSampler(range(4), num_samples=10, generator=g))
    assert len(long) == 10 and sorted(long[:4]) == sorted(long[4:8]) == [0, 1, 2, 3] and len(set(long[8:])) == 2
    rep = RandomSampler(range(5), replacement=True, num_samples=100, generator=g)
    drawn = list(rep)
    assert len(rep) == 100 and len(drawn) == 100 and set(drawn) <= set(range(5)) and len(set(drawn)) > 1
    tl.manual_seed(7)  # without a generator: a seed drawn from the default generator per pass
    a = list(RandomSampler(range(50)))
    tl.manual_seed(7)
    assert list(RandomSampler(range(50))) == a
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got replacement=1"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        RandomSampler([])
    with pytest.raises(ValueError, match="but got num_samples=2.0"):
        RandomSampler(range(3), num_samples=2.0)


def test_subset_random_sampler():
    s = SubsetRandomSampler([10, 20, 30, 40], generator=tl.Generator().manual_seed(1))
    assert len(s) == 4 and sorted(s) == [10, 20, 30, 40]


def test_weighted_random_sampler():
    g = tl.Generator().manual_seed(0)
    s = WeightedRandomSampler([0.0, 1.0, 3.0], 4000, generator=g)
    assert s.weights.dtype == tl.float64 and len(s) == 4000
    drawn = np.array(list(s))
    assert set(drawn.tolist()) == {1, 2}  # a zero weight is never drawn
    assert abs((drawn == 2).mean() - 0.75) < 0.04
    no_rep = list(WeightedRandomSampler([0.9, 0.4, 0.05, 0.2, 0.3, 0.1], 5, replacement=False, generator=g))
    assert len(set(no_rep)) == 5 and set(no_rep) <= set(range(6))
    # Without replacement, heavy weights come first far more often.
    firsts = [list(WeightedRandomSampler([100.0, 1.0], 2, replacement=False, generator=g))[0] for _ in range(50)]
    assert firsts.count(0) > 40
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=True"):
        WeightedRandomSampler([1, 2], True)
    with pytest.raises(ValueError, match="replacement should be a boolean value, but got replacement=1"):
        WeightedRandomSampler([1, 2], 2, replacement=1)
    with pytest.raises(ValueError, match=r"weights should be a 1d sequence but given weights have shape \(1, 2\)"):
        WeightedRandomSampler([[1, 2]], 2)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        list(WeightedRandomSampler([1, 2], 3, replacement=False))
    with pytest.raises(RuntimeError, match=r"invalid multinomial distribution \(encountering probability entry < 0\)"):
        list(WeightedRandomSampler([1, -2], 3))
    with pytest.raises(RuntimeError, match=r"invalid multinomial distribution \(sum of probabilities <= 0\)"):
        list(WeightedRandomSampler([0, 0], 3))
    with pytest.raises(RuntimeError, match="infinity or NaN"):
        list(WeightedRandomSampler([1, float("inf")], 3))


def test_batch_sampler():
    assert list(BatchSampler(SequentialSampler(range(10)), 3, False)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert list(BatchSampler(range(10), 3, True)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert len(BatchSampler(range(10), 3, False)) == 4 and len(BatchSampler(range(10), 3, True)) == 3
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match=f"batch_size should be a positive integer value, but got batch_size={bad}"):
            BatchSampler(range(3), bad, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got drop_last=3"):
        BatchSampler(range(3), 2, 3)


# ----------------------------------------------------------------------------------------------------- collation


def test_default_collate_numbers_and_strings():
    t = default_collate([1, 2])
    assert t.dtype == tl.int64 and values(t) == [1, 2]
    assert default_collate([1.5, 2]).dtype == tl.float64
    assert default_collate([1, 2.5]).dtype == tl.float32  # an int first: tensor([...]) infers the default dtype
    b = default_collate([True, False])
    assert b.dtype == tl.bool and values(b) == [True, False]
    assert default_collate(["a", "b"]) == ["a", "b"] and default_collate([b"a", b"b"]) == [b"a", b"b"]


def test_default_collate_tensors_and_numpy():
    t = default_collate([tl.ones(2, 3), tl.zeros(2, 3)])
    assert tuple(t.shape) == (2, 2, 3) and values(t[0]) == [[1.0] * 3] * 2
    a = default_collate([np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)])
    assert a.dtype == tl.int32 and values(a) == [[1, 2], [3, 4]]
    assert default_collate([np.array(1.5), np.array(2.5)]).dtype == tl.float64
    assert default_collate([np.float32(1), np.float32(2)]).dtype == tl.float32
    assert default_collate([np.int32(1), np.int32(2)]).dtype == tl.int32
    assert default_collate([np.float16(1), np.float16(2)]).dtype == tl.float16
    assert default_collate([np.bool_(True), np.bool_(False)]).dtype == tl.bool
    g = default_collate([tl.tensor(1.0, requires_grad=True), tl.tensor(2.0, requires_grad=True)])
    assert g.requires_grad


def test_default_collate_structures():
    d = default_collate([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}])
    assert list(d) == ["a", "b"] and values(d["a"]) == [1, 2] and d["b"] == ["x", "y"]
    od = default_collate([collections.OrderedDict(a=1), collections.OrderedDict(a=2)])
    assert type(od) is collections.OrderedDict
    p = default_collate([Point(0, 0.5), Point(1, 1.5)])
    assert type(p) is Point and p.x.dtype == tl.int64 and p.y.dtype == tl.float64
    tup = default_collate([(0, 1), (2, 3)])
    assert type(tup) is list and [values(x) for x in tup] == [[0, 2], [1, 3]]
    lst = default_collate([[0, 1], [2, 3]])
    assert type(lst) is list and [values(x) for x in lst] == [[0, 2], [1, 3]]
    nested = default_collate([{"k": [(1, "s")]}, {"k": [(2, "t")]}])
    assert values(nested["k"][0][0]) == [1, 2] and nested["k"][0][1] == ("s", "t")  # inner strings: a tuple


def test_default_collate_errors():
    msg = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
    with pytest.raises(TypeError, match=msg.format("<class 'NoneType'>")):
        default_collate([None, None])
    with pytest.raises(TypeError, match=msg.format("<class 'set'>")):
        default_collate([{1}, {2}])
    with pytest.raises(TypeError, match=msg.format("<U1")):
        default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 and "
                                           r"\[3\] at entry 1"):
        default_collate([tl.ones(2), tl.ones(3)])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(KeyError):
        default_collate([{"a": 1}, {"b": 2}])


def test_default_convert():
    out = default_convert([np.array([1]), np.float64(2), 3, "a", (np.array(1),), Point(np.array(0), 1),
                           {"k": np.array([1.0])}])
    assert values(out[0]) == [1] and out[1].dtype == tl.float64 and out[2] == 3 and out[3] == "a"
    assert type(out[4]) is list and isinstance(out[4][0], tl.Tensor)
    assert type(out[5]) is Point and isinstance(out[5].x, tl.Tensor) and out[5].y == 1
    assert out[6]["k"].dtype == tl.float64
    s = np.array(["a"])
    assert default_convert(s) is s  # string arrays are left alone
    assert default_convert("abc") == "abc" and default_convert(range(3)) == [0, 1, 2]


def _nested_samples(np_mod):
    return [
        {"i": 1, "f": 0.5, "b": True, "s": "x", "t": (2, [3.5, 4]), "p": Point(5, 6.5),
         "a": np_mod.array([1, 2], dtype=np_mod.int32), "n": np_mod.float32(1.25), "z": np_mod.array(2.0)},
        {"i": 2, "f": 1.5, "b": False, "s": "y", "t": (3, [4.5, 5]), "p": Point(7, 8.5),
         "a": np_mod.array([3, 4], dtype=np_mod.int32), "n": np_mod.float32(2.25), "z": np_mod.array(3.0)},
    ]


def _describe(x, is_tensor):
    """A comparable description of a collated structure: tensors as (dtype name, shape, values)."""
    if is_tensor(x):
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), np.asarray(x.detach()).tolist())
    if isinstance(x, dict):
        return {k: _describe(v, is_tensor) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_describe(v, is_tensor) for v in x])
    return x


def test_default_collate_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    from torch.utils.data import default_collate as torch_collate
    from torch.utils.data import default_convert as torch_convert

    ours = _describe(default_collate(_nested_samples(np)), lambda x: isinstance(x, tl.Tensor))
    theirs = _describe(torch_collate(_nested_samples(np)), lambda x: isinstance(x, torch.Tensor))
    assert ours == theirs
    for batch in ([1, 2.5], [2.5, 1], [True, 1], [[1, 2], [3, 4]], [(1.0, "a"), (2.0, "b")],
                  [np.int64(3), np.int64(4)], [np.array([[1.0]]), np.array([[2.0]])]):
        assert (_describe(default_collate(batch), lambda x: isinstance(x, tl.Tensor))
                == _describe(torch_collate(batch), lambda x: isinstance(x, torch.Tensor))), batch
    sample = _nested_samples(np)[0]
    assert (_describe(default_convert(sample), lambda x: isinstance(x, tl.Tensor))
            == _describe(torch_convert(sample), lambda x: isinstance(x, torch.Tensor)))


# ----------------------------------------------------------------------------------------------------- DataLoader


def batches(loader):
    """A loader's output as plain Python values (tensors as lists)."""
    def plain(x):
        if isinstance(x, tl.Tensor):
            return np.asarray(x).tolist()
        if isinstance(x, (list, tuple)):
            return [plain(v) for v in x]
        if isinstance(x, dict):
            return {k: plain(v) for k, v in x.items()}
        return x
    return [plain(b) for b in loader]


def test_loader_order_batch_size_and_drop_last():
    ds = TensorDataset(tl.arange(10).float(), tl.arange(10))
    out = batches(DataLoader(ds, batch_size=4))
    assert out == [[[0.0, 1.0, 2.0, 3.0], [0, 1, 2, 3]], [[4.0, 5.0, 6.0, 7.0], [4, 5, 6, 7]], [[8.0, 9.0], [8, 9]]]
    assert len(DataLoader(ds, batch_size=4)) == 3 and len(DataLoader(ds, batch_size=4, drop_last=True)) == 2
    assert len(batches(DataLoader(ds, batch_size=4, drop_last=True))) == 2
    assert batches(DataLoader(range(3))) == [[0], [1], [2]]  # batch_size=1 by default
    # batch_size=None: no batching; samples go through default_convert.
    assert batches(DataLoader(range(3), batch_size=None)) == [0, 1, 2]
    assert DataLoader(range(3), batch_size=None).collate_fn is default_convert
    assert DataLoader(range(3)).collate_fn is default_collate
    assert batches(DataLoader(range(5), batch_size=2, collate_fn=lambda b: sum(b))) == [1, 5, 4]
    assert batches(DataLoader(range(6), sampler=[5, 0, 3], batch_size=2)) == [[5, 0], [3]]
    assert batches(DataLoader(range(6), batch_sampler=[[1, 2], [4]])) == [[1, 2], [4]]
    assert len(DataLoader(range(6), batch_sampler=[[1, 2], [4]])) == 2


def test_loader_shuffle_reproducible():
    def run(seed):
        return batches(DataLoader(range(20), batch_size=6, shuffle=True, generator=tl.Generator().manual_seed(seed)))

    a = run(0)
    assert a == run(0)
    assert sorted(sum(a, [])) == list(range(20)) and [len(b) for b in a] == [6, 6, 6, 2]
    assert a != run(1)
    loader = DataLoader(range(20), shuffle=True, generator=tl.Generator().manual_seed(0))
    assert isinstance(loader.sampler, RandomSampler)
    assert batches(loader) != batches(loader)  # reshuffled every epoch (the generator moves on)
    tl.manual_seed(5)
    b = batches(DataLoader(range(20), shuffle=True))
    tl.manual_seed(5)
    assert batches(DataLoader(range(20), shuffle=True)) == b


def test_loader_iterable_dataset_single_process():
    assert batches(DataLoader(Stream(3, 7))) == [[3], [4], [5], [6]]
    assert batches(DataLoader(Stream(0, 5), batch_size=2)) == [[0, 1], [2, 3], [4]]
    assert batches(DataLoader(Stream(0, 5), batch_size=2, drop_last=True)) == [[0, 1], [2, 3]]
    assert batches(DataLoader(Stream(0, 3), batch_size=None)) == [0, 1, 2]
    assert len(DataLoader(SizedStream(5, 5), batch_size=2)) == 3
    assert len(DataLoader(SizedStream(5, 5), batch_size=2, drop_last=True)) == 2
    with pytest.raises(TypeError):
        len(DataLoader(Stream(0, 5)))
    loader = DataLoader(SizedStream(5, 3))
    assert len(loader) == 3
    with pytest.warns(UserWarning, match="was reported to be 3"):
        assert len(list(loader)) == 5


def test_loader_argument_errors():
    ds = range(10)
    cases = [
        (dict(sampler=[1, 2], shuffle=True), ValueError, "sampler option is mutually exclusive with shuffle"),
        (dict(batch_sampler=[[1]], batch_size=2), ValueError,
         "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"),
        (dict(batch_sampler=[[1]], shuffle=True), ValueError, "batch_sampler option is mutually exclusive"),
        (dict(batch_sampler=[[1]], drop_last=True), ValueError, "batch_sampler option is mutually exclusive"),
        (dict(batch_sampler=[[1]], sampler=[1]), ValueError, "batch_sampler option is mutually exclusive"),
        (dict(batch_size=None, drop_last=True), ValueError,
         "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"),
        (dict(num_workers=-1), ValueError, "num_workers option should be non-negative; use num_workers=0"),
        (dict(timeout=-1), ValueError, "timeout option should be non-negative"),
        (dict(prefetch_factor=2), ValueError, "prefetch_factor option could only be specified in multiprocessing"),
        (dict(num_workers=1, prefetch_factor=-1), ValueError, "prefetch_factor option should be non-negative"),
        (dict(persistent_workers=True), ValueError, "persistent_workers option needs num_workers > 0"),
        (dict(multiprocessing_context="fork"), ValueError,
         "multiprocessing_context can only be used with multi-process loading"),
        (dict(num_workers=1, multiprocessing_context="bogus"), ValueError,
         "multiprocessing_context option should specify a valid start method"),
        (dict(num_workers=1, multiprocessing_context=3), TypeError,
         "multiprocessing_context option should be a valid context object"),
        (dict(batch_size=0), ValueError, "batch_size should be a positive integer value, but got batch_size=0"),
    ]
    for kwargs, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            DataLoader(ds, **kwargs)
    for kwargs, name in ((dict(shuffle=True), "shuffle"), (dict(sampler=[1]), "sampler"),
                         (dict(batch_sampler=[[1]]), "batch_sampler")):
        with pytest.raises(ValueError, match=f"DataLoader with IterableDataset: expected unspecified {name} option"):
            DataLoader(Stream(0, 3), **kwargs)
    loader = DataLoader(ds, batch_size=3)
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 4
    loader.foo = 1  # other attributes can be set
    assert loader.prefetch_factor is None and DataLoader(ds, num_workers=1).prefetch_factor == 2
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        assert batches(DataLoader(range(3), batch_size=2, pin_memory=True)) == [[0, 1], [2]]


def test_loader_len_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    from torch.utils.data import DataLoader as TorchLoader
    from torch.utils.data import RandomSampler as TorchRandomSampler
    from torch.utils.data import random_split as torch_random_split

    for n in (1, 7, 12):
        for bs in (1, 3, 5, None):
            for drop_last in (False, True):
                if bs is None and drop_last:
                    continue
                assert (len(DataLoader(range(n), batch_size=bs, drop_last=drop_last))
                        == len(TorchLoader(range(n), batch_size=bs, drop_last=drop_last)))
    for fracs in ([0.3, 0.3, 0.4], [0.33, 0.33, 0.34], [0.1] * 10, [0.5, 0.5], [1 / 3] * 3):
        for n in (10, 11, 29):
            ours = [len(p) for p in random_split(range(n), fracs, generator=tl.Generator().manual_seed(0))]
            theirs = [len(p) for p in torch_random_split(range(n), fracs, generator=torch.Generator().manual_seed(0))]
            assert ours == theirs, (fracs, n)
    for kwargs in (dict(), dict(num_samples=13), dict(replacement=True, num_samples=9)):
        ours = RandomSampler(range(5), **kwargs)
        theirs = TorchRandomSampler(range(5), **kwargs)
        assert len(ours) == len(theirs) and len(list(ours)) == len(list(theirs))
        if not kwargs.get("replacement"):  # whole permutations, then part of one: every index k or k + 1 times
            n = len(ours)
            for drawn in (list(ours), list(theirs)):
                assert all(n // 5 <= drawn.count(i) <= -(-n // 5) for i in range(5))


# ------------------------------------------------------------------------------------ worker processes (fork/spawn)


class Failing(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise ValueError(f"sample {i} is corrupt")
        return i


class MissingKey(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return {}["absent"]


class WhoAmI(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return {"id": info.id, "num_workers": info.num_workers, "seed": info.seed, "initial": tl.initial_seed(),
                "same_dataset": info.dataset is self, "tag": getattr(self, "tag", None)}


def tag_dataset(worker_id):
    get_worker_info().dataset.tag = f"worker-{worker_id}"


class Slow(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(0.6)
        return i


def test_workers_give_the_same_batches_in_order():
    ds = TensorDataset(tl.arange(23).float() * 2, tl.arange(23))
    for shuffle in (False, True):
        ref = batches(DataLoader(ds, batch_size=4, shuffle=shuffle, generator=tl.Generator().manual_seed(1)))
        out = batches(DataLoader(ds, batch_size=4, shuffle=shuffle, num_workers=2,
                                 generator=tl.Generator().manual_seed(1)))
        assert out == ref
    loader = DataLoader(range(10), batch_size=3, num_workers=2, prefetch_factor=1, persistent_workers=True)
    first = batches(loader)
    workers = list(loader._iterator._workers)
    assert batches(loader) == first == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert loader._iterator._workers == workers  # the same processes served the second epoch
    it = iter(loader)
    next(it)  # an epoch left unfinished...
    assert batches(loader) == first  # ...does not leak into the next one
    assert len(it) == 4
    assert sorted(sum(batches(DataLoader(range(10), batch_size=2, num_workers=2, in_order=False)), [])) == list(range(10))


def test_worker_errors_are_raised_in_the_parent():
    it = iter(DataLoader(Failing(), batch_size=2, num_workers=2))
    assert values(next(it)) == [0, 1]
    with pytest.raises(ValueError) as info:
        next(it)
    text = str(info.value)
    assert text.startswith("Caught ValueError in DataLoader worker process 1.\nOriginal Traceback (most recent call last):")
    assert "ValueError: sample 3 is corrupt" in text and "in __getitem__" in text
    assert values(next(it)) == [4, 5]  # the iterator goes on, as PyTorch's
    del it
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 0") as info:
        next(iter(DataLoader(MissingKey(), num_workers=1)))
    assert "KeyError: 'absent'" in str(info.value)


def test_worker_init_fn_and_worker_info():
    assert get_worker_info() is None
    g = tl.Generator().manual_seed(123)
    base = int(tl.empty((), dtype=tl.int64).random_(generator=tl.Generator().manual_seed(123)).item())
    out = list(DataLoader(WhoAmI(), batch_size=None, num_workers=2, worker_init_fn=tag_dataset, generator=g))
    assert [o["id"] for o in out] == [0, 1, 0, 1]
    for o in out:
        assert o["num_workers"] == 2 and o["same_dataset"] and o["tag"] == f"worker-{o['id']}"
        assert o["seed"] == base + o["id"] and o["initial"] == o["seed"]


def test_iterable_dataset_with_workers():
    # Each worker iterates its own replica; results alternate between workers (PyTorch's documented output).
    assert batches(DataLoader(Stream(3, 7), num_workers=2)) == [[3], [5], [4], [6]]
    assert batches(DataLoader(Stream(0, 11), batch_size=2, num_workers=2)) == [[0, 1], [6, 7], [2, 3], [8, 9],
                                                                                [4, 5], [10]]
    # Without sharding every worker yields the whole stream.
    assert sorted(sum(batches(DataLoader(SizedStream(3, 3), num_workers=2)), [])) == [0, 0, 1, 1, 2, 2]


def test_spawn_context_timeout_and_tensor_pickling(tmp_path, monkeypatch):
    # Spawned workers start in the parent's working directory with its sys.path; with the repository root on
    # it they would import the source tree's torchlite (no _C there when CI installed a wheel), not the
    # installed one this process runs.
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if os.path.abspath(p or os.curdir) != root])
    t = tl.arange(6).float()
    assert values(pickle.loads(pickle.dumps(t))) == values(t)
    loader = DataLoader(TensorDataset(t, tl.arange(6)), batch_size=2, num_workers=2, multiprocessing_context="spawn")
    assert batches(loader) == [[[0.0, 1.0], [0, 1]], [[2.0, 3.0], [2, 3]], [[4.0, 5.0], [4, 5]]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="DataLoader timed out after 0.2 seconds"):
            list(DataLoader(Slow(), num_workers=1, timeout=0.2))
