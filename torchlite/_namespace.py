"""The generated ops of a `python_module:` namespace (torchlite.special, torchlite.nn.functional, ...)."""


def export(module_globals: dict, generated) -> None:
    """Puts every op bound in `generated` (a submodule of _C) into the module whose globals are given."""
    for name in dir(generated):
        if not name.startswith("__"):
            module_globals[name] = getattr(generated, name)
