class Size(tuple):
    """A tensor's shape: a tuple of ints, printed as torchlite.Size([2, 3])."""

    def __repr__(self):
        return f"torchlite.Size([{', '.join(str(s) for s in self)}])"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n
