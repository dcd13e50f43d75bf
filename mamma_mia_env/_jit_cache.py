"""Where numba keeps the compiled kernels.

numba's on-disk cache notices when a kernel's own file changes, not when a function
it calls from another module does; so after an edit or an upgrade it could load a
stale kernel. We key the cache directory on a hash of every source file of the
package: new sources, new directory. A user's ``NUMBA_CACHE_DIR`` is respected.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def configure_cache() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted(package.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    numba.config.CACHE_DIR = str(  # type: ignore[attr-defined]  # numba's config is dynamic
        base / "mamma-mia-env" / "numba" / digest.hexdigest()[:16]
    )
