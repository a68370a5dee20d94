"""boris.pyz's native layers: unpacked on the first start of each interpreter, put on
sys.path on every start (this file is the archive's ``_boris_layers.py``).

shiv's preamble calls :func:`add_layers` once shiv's bootstrap has unpacked the shared
``site-packages`` and before Boris is imported; scripts/pyz_start.py, which runs before
all that, has already checked that the archive carries this interpreter's combination
of platform and Python (see it for the archive's layout).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import marshal
import os
import sys
from typing import TYPE_CHECKING, Any

# Only a first start unpacks: what it needs is imported then, not at every start.
if TYPE_CHECKING:
    import zipfile
    from pathlib import Path

MANIFEST = "boris-pyz.json"
NATIVES = "natives"


def add_layers(site_packages: str | Path, combo: str, force: bool = False) -> None:
    """Put the layers of ``combo`` (``linux-x86_64-cp312``) on sys.path just before
    ``site_packages`` (shiv's unpacked directory), unpacking those not there yet beside
    it (all again with ``force``, shiv's SHIV_FORCE_EXTRACT).

    Each layer is unpacked into a directory of its own and renamed into place, so a
    start that is interrupted, or two first starts at once, never leave half a layer.
    """
    site = os.path.abspath(site_packages)
    root = os.path.join(os.path.dirname(site), NATIVES)
    # Read through the zipimporter that loaded this module: it has the archive's
    # directory already, which a ZipFile reads again (needed only to unpack).
    manifest = json.loads(__loader__.get_data(MANIFEST))  # type: ignore[name-defined]
    layers: list[str] = manifest["layers"][combo]
    paths = [os.path.join(root, layer) for layer in layers]
    missing = [
        (layer, path)
        for layer, path in zip(layers, paths, strict=True)
        if force or not os.path.isdir(path)
    ]
    if missing:
        import zipfile

        os.makedirs(root, exist_ok=True)
        with zipfile.ZipFile(os.path.dirname(os.path.abspath(__file__))) as zf:
            for layer, path in missing:
                _unpack(zf, layer, path, force)
    if sys.dont_write_bytecode:
        _cache_bytecode(os.path.dirname(site))
    index = sys.path.index(site) if site in sys.path else len(sys.path)
    sys.path[index:index] = paths


def _unpack(zf: zipfile.ZipFile, layer: str, target: str, force: bool) -> None:
    import shutil
    import tempfile

    prefix = f"{NATIVES}/{layer}/"
    staging = tempfile.mkdtemp(prefix=f".{layer}.", dir=os.path.dirname(target))
    try:
        for info in zf.infolist():
            if info.filename.startswith(prefix) and not info.is_dir():
                path = os.path.join(staging, *info.filename[len(prefix) :].split("/"))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with zf.open(info) as source, open(path, "wb") as sink:
                    shutil.copyfileobj(source, sink)
                os.chmod(path, (info.external_attr >> 16) & 0o777 or 0o644)
        if force and os.path.isdir(target):
            shutil.rmtree(target)
        try:
            os.rename(staging, target)
        except OSError:
            if not os.path.isdir(target):  # not another start that got there first
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


class _CachingLoader(importlib.machinery.SourceFileLoader):
    """Writes the bytecode of what it compiles beside the source, as an unchecked-hash
    pyc: the unpacked files never change (a new archive unpacks elsewhere)."""

    def source_to_code(self, data: Any, path: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        code = super().source_to_code(data, path, *args, **kwargs)
        pyc = importlib.util.cache_from_source(path)
        header = importlib.util.MAGIC_NUMBER + (0b01).to_bytes(4, "little")  # hash, unchecked
        staging = f"{pyc}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(pyc), exist_ok=True)
            with open(staging, "wb") as sink:
                sink.write(header + importlib.util.source_hash(data) + marshal.dumps(code))
            os.replace(staging, pyc)
        except OSError:  # read-only: it is compiled again next time, nothing worse
            pass
        return code


def _cache_bytecode(root: str) -> None:
    """Have the bytecode of each module imported from under ``root`` (the unpacked
    archive) written beside it, also under PYTHONDONTWRITEBYTECODE=1, as is common in
    containers and CI, where every start would otherwise compile Boris and its
    libraries again. Only what is imported is compiled, when it is first imported;
    nothing outside ``root`` is written."""
    loaders = [
        (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES),
        (_CachingLoader, importlib.machinery.SOURCE_SUFFIXES),
        (importlib.machinery.SourcelessFileLoader, importlib.machinery.BYTECODE_SUFFIXES),
    ]
    prefix = os.path.join(root, "")

    def finder(path: str) -> importlib.machinery.FileFinder:
        if not os.path.join(os.path.abspath(path), "").startswith(prefix):
            raise ImportError("outside the unpacked archive")
        return importlib.machinery.FileFinder(path, *loaders)

    sys.path_hooks.insert(0, finder)
    sys.path_importer_cache.clear()


def go_on_unpacked(zipped: str, site_packages: str) -> None:
    """After a first start that ran from the archive's own ``zipped`` site-packages while
    it unpacked: the packages imported from there go on from the unpacked
    ``site_packages`` (what they import next is read, and its bytecode cached, from the
    files), and the bytecode of the modules already imported is cached there, as it would
    have been had they been imported from the files: a later start compiles none."""
    prefix = os.path.join(zipped, "")
    for module in list(sys.modules.values()):
        origin = getattr(module, "__file__", None)
        if not isinstance(origin, str) or not origin.startswith(prefix):
            continue
        unpacked = os.path.join(site_packages, origin[len(prefix) :])
        if hasattr(module, "__path__"):
            module.__path__ = [os.path.dirname(unpacked)]
        if unpacked.endswith(".py"):
            _CachingLoader(module.__name__, unpacked).get_code(module.__name__)
