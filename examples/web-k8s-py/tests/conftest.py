"""pytest's set-up for this project: the charm's own module (``src/charm.py``,
whose pure logic the tests call directly), and the harness
(``wasm_charm_testing``) and SDK (``wasm_charm``) of this source tree.
PYTHONPATH's entries come first."""

import sys
from pathlib import Path

_PROJECT = Path(__file__).resolve().parent.parent
_TREE = _PROJECT.parent.parent

for path in (_TREE / "testing-py", _TREE / "guest-sdk-py", _PROJECT / "src"):
    if str(path) not in sys.path:
        sys.path.append(str(path))
