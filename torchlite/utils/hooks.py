"""Hook handles (PyTorch's torch.utils.hooks)."""
import weakref

__all__ = ["RemovableHandle", "add_hook"]


class RemovableHandle:
    """What the register_*_hook methods return: `remove()` unregisters the hook; also a context manager.

    `hooks_dict` is the dict the hook was put in (held weakly); `extra_dict` names further dicts (one or a
    list) that were given an entry under the same id, removed with it."""

    _next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1
        if extra_dict is None:
            extra_dict = []
        elif isinstance(extra_dict, dict):
            extra_dict = [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(r() for r in self.extra_dict_ref))

    def __setstate__(self, state):
        hooks_dict, self.id, extra = state
        self.hooks_dict_ref = weakref.ref(hooks_dict if hooks_dict is not None else {})
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra if d is not None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(hooks, hook, *, prepend=False, extra_dict=None):
    """Puts `hook` in the ordered dict `hooks` (first with prepend) under a new id; returns its handle."""
    handle = RemovableHandle(hooks, extra_dict=extra_dict)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle
