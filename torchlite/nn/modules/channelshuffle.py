"""ChannelShuffle: interleaves the channels of `groups` groups (ShuffleNet)."""
from .module import Module

__all__ = ["ChannelShuffle"]


def _channel_shuffle(input, groups):
    # (N, g * k, *) -> (N, g, k, *) -> (N, k, g, *) -> (N, g * k, *)
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    channels = input.shape[1]
    if channels % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} channels and {groups} "
                           "groups.")
    batch, rest = input.shape[0], list(input.shape[2:])
    grouped = input.reshape([batch, groups, channels // groups] + rest)
    return grouped.transpose(1, 2).reshape(list(input.shape))


class ChannelShuffle(Module):
    """Splits the C channels of an (N, C, *) input into `groups` groups and interleaves them:
    (N, g, C / g, *) is transposed to (N, C / g, g, *)."""

    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return _channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
