"""Variable-length sequences for the recurrent layers (PyTorch's torch.nn.utils.rnn): PackedSequence,
pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence, unpad_sequence, unpack_sequence.

A PackedSequence holds the time steps one after the other, each with only the sequences still running at
that step: `data` is (sum(batch_sizes), *), `batch_sizes[t]` the number of sequences at step t (never
increasing), and `sorted_indices` the order (longest first) the sequences were packed in."""
from collections import namedtuple

from ..._tensor import Tensor

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence", "pack_sequence",
           "unpad_sequence", "unpack_sequence", "invert_permutation"]


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """Packed variable-length sequences (see the module's docstring); made by pack_padded_sequence or
    pack_sequence, read by the recurrent layers."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise TypeError("PackedSequence(): batch_sizes is required")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with(self, fn):
        return type(self)(fn(self.data), self.batch_sizes,
                          None if self.sorted_indices is None else self.sorted_indices.to(self.data.device),
                          None if self.unsorted_indices is None else self.unsorted_indices.to(self.data.device))

    def to(self, *args, **kwargs):
        """The same sequences with data moved/cast as Tensor.to does (indices follow the device)."""
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._with(lambda d: data)

    def cuda(self, *args, **kwargs):
        return self._with(lambda d: d.cuda(*args, **kwargs))

    def cpu(self):
        return self._with(lambda d: d.cpu())

    def double(self):
        return self._with(lambda d: d.double())

    def float(self):
        return self._with(lambda d: d.float())

    def half(self):
        return self._with(lambda d: d.half())

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The permutation that undoes `permutation` (a 1-D int64 tensor), or None."""
    if permutation is None:
        return None
    from ... import arange, empty_like

    out = empty_like(permutation)
    out.scatter_(0, permutation, arange(permutation.numel(), device=permutation.device))
    return out


def _lengths_list(lengths):
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise ValueError(f"lengths must be a 1-D tensor, got {lengths.dim()}-D")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _batch_sizes(lengths):
    steps = lengths[0] if lengths else 0
    return [sum(1 for n in lengths if n > t) for t in range(steps)]


def _time_major_index(batch_sizes, B):
    """The rows of a (T * B, ...) time-major tensor that a packing with these batch sizes keeps, in order."""
    idx = []
    for t, bs in enumerate(batch_sizes):
        idx.extend(range(t * B, t * B + bs))
    return idx


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T, B, *) ((B, T, *) with batch_first) of sequences of the given lengths."""
    from ... import int64, tensor

    lengths = _lengths_list(lengths)
    if any(n <= 0 for n in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if batch_first:
        input = input.transpose(0, 1)
    B = input.shape[1] if input.dim() > 1 else 0
    if len(lengths) != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} (batch_size="
                           f"{B})")
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = sorted(range(B), key=lambda i: -lengths[i])
        sorted_indices = tensor(order, dtype=int64, device=input.device)
        lengths = [lengths[i] for i in order]
        input = input.index_select(1, sorted_indices)
    if lengths[0] > input.shape[0]:
        raise RuntimeError(f"Expected the longest sequence (length {lengths[0]}) to fit the padded input of "
                           f"{input.shape[0]} steps")
    batch_sizes = _batch_sizes(lengths)
    flat = input.reshape((input.shape[0] * B,) + tuple(input.shape[2:]))
    idx = tensor(_time_major_index(batch_sizes, B), dtype=int64, device=input.device)
    data = flat.index_select(0, idx)
    return PackedSequence(data, tensor(batch_sizes, dtype=int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch (T, B, *) ((B, T, *) with batch_first) and the lengths (int64) of a PackedSequence,
    in the order the sequences had before packing."""
    from ... import full, int64, tensor

    batch_sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    data = sequence.data
    T = len(batch_sizes)
    B = batch_sizes[0] if batch_sizes else 0
    if total_length is not None:
        if total_length < T:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {T}")
        T_out = total_length
    else:
        T_out = T
    rest = tuple(data.shape[1:])
    padded = full((T_out * B,) + rest, padding_value, dtype=data.dtype, device=data.device)
    idx = tensor(_time_major_index(batch_sizes, B), dtype=int64, device=data.device)
    padded = padded.index_copy(0, idx, data).reshape((T_out, B) + rest)
    lengths = [sum(1 for bs in batch_sizes if bs > b) for b in range(B)]
    lengths = tensor(lengths, dtype=int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.cpu())
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks tensors of shape (L_i, *) into one padded (L_max, B, *) ((B, L_max, *) with batch_first)."""
    from ... import full

    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    L = max(s.shape[0] for s in sequences)
    rest = tuple(sequences[0].shape[1:])
    rows = []
    for s in sequences:
        n = s.shape[0]
        if n == L:
            rows.append(s)
            continue
        pad = full((L - n,) + rest, padding_value, dtype=s.dtype, device=s.device)
        rows.append(_cat([s, pad] if padding_side == "right" else [pad, s]))
    from ... import stack

    out = stack(rows, 0)  # (B, L, *)
    return out if batch_first else out.transpose(0, 1)


def _cat(ts):
    from ... import cat

    return cat(ts, 0)


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of tensors (L_i, *) of decreasing lengths (any order with enforce_sorted=False)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences (L_i, *) that a padded batch holds."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :n] for i, n in enumerate(_lengths_list(lengths))]


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
