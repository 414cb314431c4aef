# Tests run against the installed torchlite (the source tree has no compiled _C):
# import it before anything puts the repository root on sys.path.
import os
import sys

_ROOT = os.path.dirname(os.path.abspath(__file__))
_saved = list(sys.path)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.getcwd()) != _ROOT]
import torchlite  # noqa: E402,F401

sys.path[:] = _saved
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)  # for `import codegen`
