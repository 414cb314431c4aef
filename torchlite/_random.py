"""The default CPU generator and PyTorch's module-level seeding functions (torch.manual_seed, ...).

Every random op draws from the generator passed as `generator=`, else from `default_generator`: a
counter-based Philox4x32-10 stream whose state is (seed, offset). See torchlite.Generator.
"""
from . import _C

Generator = _C.Generator
default_generator = _C.default_generator


def manual_seed(seed) -> Generator:
    """Seeds the default generators of the CPU and CUDA (int(seed); negative seeds wrap modulo 2^64) and returns
    the CPU one."""
    _C._cuda_default_generator.manual_seed(int(seed))  # every device, as PyTorch
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seeds the default generator from the OS's entropy source and returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed of the default generator."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state: a uint8 tensor of 16 bytes (seed and offset, little-endian)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restores the default generator's state from get_rng_state()."""
    default_generator.set_state(new_state)
