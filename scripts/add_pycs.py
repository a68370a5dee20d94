"""Add precompiled bytecode to a shiv zipapp built from a site-packages directory.

Usage: python3 scripts/add_pycs.py <site-packages dir> <file.pyz>

shiv leaves .pyc files out of the archive, so every start with PYTHONDONTWRITEBYTECODE=1
(common in containers and CI) would compile every imported module again. This compiles
the directory with *unchecked-hash* pycs (valid whatever mtimes extraction gives the
sources; the archive is immutable, so they can never go stale) and appends them to the
archive, where shiv's bootstrap extracts them with everything else. Must run under the
Python version the zipapp targets.
"""

from __future__ import annotations

import compileall
import py_compile
import sys
import zipfile
from pathlib import Path

# The fixed timestamp shiv --reproducible gives archive members.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    site, pyz = Path(sys.argv[1]), sys.argv[2]
    compileall.compile_dir(
        site,
        quiet=2,
        workers=0,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    with zipfile.ZipFile(pyz, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        for pyc in sorted(site.rglob("*.pyc")):
            info = zipfile.ZipInfo(f"site-packages/{pyc.relative_to(site)}", ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, pyc.read_bytes())


if __name__ == "__main__":
    main()
