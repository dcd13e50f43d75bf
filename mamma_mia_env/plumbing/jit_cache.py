"""Where numba keeps the compiled kernels, keyed on every source file of the package.

numba's own on-disk cache checks the file a kernel is written in, not the files of the
functions and constants it calls: a rule edited in ``rules.py`` would leave
``kernels.py``'s and the bots' cached kernels stale. So every kernel of the project is
cached through ``njit`` below, in one directory per hash of every source file of
``mamma_mia_env`` and ``mamma_mia_agents`` (docs/ENV.md, "Compilation", says where);
``cache_dir()`` says which directory is in use (``None``: caching is off).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
from numba.core import caching

from mamma_mia_env.plumbing.threads import configure_threads

PACKAGE = Path(__file__).resolve().parents[1]  # mamma_mia_env/
_state: dict[str, str | None] = {}


def source_roots() -> list[Path]:
    """This package's folder and, if installed, the agents package's (found without
    importing it: the env never imports its users)."""
    roots = [PACKAGE]
    try:
        spec = importlib.util.find_spec("mamma_mia_agents")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin:
        roots.append(Path(spec.origin).resolve().parent)
    return roots


def source_digest() -> str:
    """A hash of every source file under ``source_roots``, numba's version and Python's."""
    digest = hashlib.sha256(f"{numba.__version__} {sys.version_info[:2]}".encode())
    for root in source_roots():
        digest.update(root.name.encode() + b"\0")
        for path in sorted(root.rglob("*.py"), key=lambda p: p.relative_to(root).as_posix()):
            if "__pycache__" in path.parts:
                continue
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def _candidates(digest: str) -> list[Path]:
    env = os.environ
    user = env.get("NUMBA_CACHE_DIR") or env.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    base = Path(user) / "mamma-mia-env"
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    temp = Path(tempfile.gettempdir()) / f"mamma-mia-env-{uid}"
    return [base / "numba" / digest, temp / "numba" / digest]


def cache_dir() -> str | None:
    """The cache directory for the current sources, picked at the first call."""
    if "dir" not in _state:
        digest = source_digest()
        chosen = next((str(p) for p in _candidates(digest) if _writable(p)), None)
        if chosen is None:
            warnings.warn(
                "mamma-mia-env: no writable cache directory for the compiled kernels "
                f"(tried {[str(p) for p in _candidates(digest)]}); compiling in every process",
                RuntimeWarning,
                stacklevel=2,
            )
        _state.update(digest=digest, dir=chosen)
    return _state["dir"]


class _SourceKeyedLocator(caching._CacheLocator):
    """Every kernel of the package in the one directory of the current sources."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno

    def get_cache_path(self) -> str:
        return cache_dir()  # type: ignore[return-value]

    def get_source_stamp(self) -> str:
        return _state["digest"]  # type: ignore[return-value]

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _SourceKeyedLocator | None:
        return cls(py_func, py_file) if cache_dir() is not None else None


class _Impl(caching.CompileResultCacheImpl):
    _locator_classes = [_SourceKeyedLocator]


class SourceKeyedCache(caching.FunctionCache):
    """numba's function cache in our directory; unreadable files are a miss."""

    _impl_class = _Impl

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        try:
            return super().load_overload(sig, target_context)
        except Exception:  # a corrupt index or data file: compile again, then overwrite it
            return None

    def save_overload(self, sig: Any, data: Any) -> None:
        try:
            super().save_overload(sig, data)
        except Exception:
            try:  # a corrupt index: start it afresh, then save again
                self.flush()
                super().save_overload(sig, data)
            except Exception:
                pass  # the cache only saves time; a kernel that cannot be saved still runs


class _FirstUseCache(caching.NullCache):
    """A kernel's cache, chosen at its first compile or load (importing touches nothing);
    OpenMP is asked for passive waits then, before numba starts its threads."""

    def __init__(self, py_func: Any) -> None:
        self._py_func = py_func
        self._cache: caching._Cache | None = None

    def _chosen(self) -> caching._Cache:
        if self._cache is None:
            configure_threads()
            has_dir = cache_dir() is not None
            self._cache = SourceKeyedCache(self._py_func) if has_dir else caching.NullCache()
        return self._cache

    @property
    def cache_path(self) -> str | None:
        return self._chosen().cache_path

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        return self._chosen().load_overload(sig, target_context)

    def save_overload(self, sig: Any, cres: Any) -> None:
        self._chosen().save_overload(sig, cres)

    def flush(self) -> None:
        self._chosen().flush()


def njit(**options: Any) -> Callable[[Callable], Any]:
    """``numba.njit(**options)`` cached in the source-keyed directory, if there is one."""
    options.pop("cache", None)

    def wrap(func: Callable) -> Any:
        dispatcher = numba.njit(**options)(func)
        dispatcher._cache = _FirstUseCache(dispatcher.py_func)
        return dispatcher

    return wrap
