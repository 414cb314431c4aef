"""Fetchers: what the loader (or a worker) does with one index or batch of indices."""


class _MapDatasetFetcher:
    """Samples of a map-style dataset, by index (or by a batch of indices, through __getitems__ if any)."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, index):
        """The collated batch (or the converted sample) for `index`."""
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            data = getitems(index) if callable(getitems) else [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class _IterableDatasetFetcher:
    """The next samples of an iterable dataset's iterator; StopIteration once it is exhausted (or, with
    drop_last, once only a partial batch is left)."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, index):
        """The next batch (len(index) samples) or the next sample."""
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (self.drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


class _DatasetKind:
    """Map-style or iterable-style, and the fetcher for each."""

    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        """The fetcher for a dataset of this kind."""
        cls = _MapDatasetFetcher if kind == _DatasetKind.Map else _IterableDatasetFetcher
        return cls(dataset, auto_collation, collate_fn, drop_last)
