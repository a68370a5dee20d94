"""How boris.pyz starts: it checks the interpreter and the platform before anything is
unpacked, then unpacks and puts on sys.path the native parts this interpreter needs.

This file goes into the archive as ``_boris_start.py``. The archive's ``__main__.py``
imports it and calls :func:`main` before shiv's bootstrap runs, so it is written in
the syntax every Python reads, 2.7 included: whatever ``python3`` (or ``python``) a user
has, an interpreter the archive cannot serve gets one line on stderr and exit status 2
rather than a traceback, and nothing is unpacked.

The archive's layout (written by scripts/build_pyz.py):

- ``site-packages/``: what every interpreter and platform the archive serves shares
  (pure Python); shiv's bootstrap unpacks it on the first start.
- ``natives/<layer>/``: the rest, in layers: ``<os>-<arch>`` (abi3 extensions, shared
  by every Python on a platform), ``cp3XX`` (pure packages only some Pythons need) and
  ``<os>-<arch>-cp3XX`` (extensions built for one Python on one platform).
- ``boris-pyz.json``: the manifest: which layers each (platform, Python) needs, and
  the platforms' own needs (the oldest glibc or macOS their extensions load on).

shiv's preamble (run after its bootstrap has unpacked ``site-packages``, before Boris is
imported) then puts this interpreter's layers on sys.path (scripts/pyz_layers.py, the
archive's ``_boris_layers.py``), passing it :func:`combo_name`.
"""

import json
import os
import sys

MYPY = False
if MYPY:  # mypy reads the type comments; no typing module is imported at run time
    from typing import Any  # noqa: F401

MANIFEST = "boris-pyz.json"
NATIVES = "natives"

#: Spellings of one architecture: the archive names arm64 as the platform's wheels do.
_MACHINES = {"amd64": "x86_64", "x86_64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}
_ARCH_NAMES = {"linux-arm64": "linux-aarch64"}


def found():  # type: () -> dict[str, object]
    """What this interpreter and machine are."""
    import platform
    import struct

    machine = platform.machine()
    facts = {
        "implementation": platform.python_implementation(),
        "version": platform.python_version(),
        "minor": "%d.%d" % sys.version_info[:2],
        "system": sys.platform,
        "machine": machine,
        "bits": struct.calcsize("P") * 8,
        "libc": None,
        "macos": None,
    }  # type: dict[str, object]
    if sys.platform.startswith("linux"):
        facts["system"] = "linux"
        facts["libc"] = _glibc()
    elif sys.platform == "darwin":
        facts["macos"] = platform.mac_ver()[0] or None
    return facts


def _glibc():  # type: () -> str | None
    """This process's glibc version ("2.36"), or None under another C library (musl)."""
    try:
        name = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.36"
    except (AttributeError, ValueError, OSError):
        name = None
    if not name or not name.startswith("glibc "):
        return None
    return name.split()[1]


def platform_name(facts):  # type: (dict[str, object]) -> str
    """The archive's name for the platform of ``facts``: linux-x86_64, darwin-arm64, ..."""
    machine = str(facts["machine"])
    arch = _MACHINES.get(machine.lower(), machine)
    name = "%s-%s" % (facts["system"], arch)
    return _ARCH_NAMES.get(name, name)


def combo_name(facts):  # type: (dict[str, object]) -> str
    minor = str(facts["minor"]).replace(".", "")
    return "%s-cp%s" % (platform_name(facts), minor)


def _version_key(text):  # type: (str) -> tuple[int, ...]
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def _span(versions):  # type: (list[str]) -> str
    """3.10-3.14 for a run of minors, else a list: 3.10, 3.12."""
    ordered = sorted(versions, key=_version_key)
    minors = [_version_key(v)[1] for v in ordered]
    if len(ordered) > 1 and minors == list(range(minors[0], minors[0] + len(minors))):
        return "%s-%s" % (ordered[0], ordered[-1])
    return ", ".join(ordered)


def _platforms_phrase(platforms):  # type: (list[str]) -> str
    """``linux/darwin x86_64/arm64`` for all four, else the platforms one by one."""
    if sorted(platforms) == ["darwin-arm64", "darwin-x86_64", "linux-aarch64", "linux-x86_64"]:
        return "linux/darwin x86_64/arm64"
    return " or ".join(p.replace("-", " ", 1) for p in sorted(platforms))


def refusal(name, facts, manifest):  # type: (str, dict[str, object], dict[str, Any]) -> str | None
    """The line that says why the archive ``name`` cannot run here, or None if it can."""
    layers = manifest["layers"]  # type: dict[str, list[str]]
    needs = manifest["platforms"]  # type: dict[str, dict[str, str]]
    platform = platform_name(facts)
    carried = {}  # type: dict[str, list[str]]
    for combo in layers:
        target, minor = combo.rsplit("-cp", 1)
        carried.setdefault(target, []).append("3." + minor[1:])
    everywhere = sorted({v for versions in carried.values() for v in versions}, key=_version_key)
    if platform in carried and sorted(carried[platform], key=_version_key) != everywhere:
        need = "CPython %s on %s" % (_span(carried[platform]), _platforms_phrase([platform]))
    else:
        need = "CPython %s on %s" % (_span(everywhere), _platforms_phrase(list(carried)))
    this = "%s %s" % (facts["implementation"], facts["version"])
    if facts["bits"] != 64:
        this += " (%s-bit)" % facts["bits"]
    this += " on %s %s" % (facts["system"], facts["machine"])
    line = "%s needs %s; this is %s" % (name, need, this)
    if (
        facts["implementation"] != "CPython"
        or facts["bits"] != 64
        or combo_name(facts) not in layers
    ):
        return line
    glibc = needs.get(platform, {}).get("glibc")
    if glibc and (facts["libc"] is None or _version_key(str(facts["libc"])) < _version_key(glibc)):
        libc = "glibc %s" % facts["libc"] if facts["libc"] else "another C library than glibc"
        return "%s needs %s with glibc %s or newer; this is %s with %s" % (
            name, need, glibc, this, libc
        )  # fmt: skip
    macos = needs.get(platform, {}).get("macos")
    if macos and facts["macos"] and _version_key(str(facts["macos"])) < _version_key(macos):
        return "%s needs %s on macOS %s or newer; this is %s on macOS %s" % (
            name, need, macos, this, facts["macos"]
        )  # fmt: skip
    return None


def _archive():  # type: () -> str
    return os.path.dirname(os.path.abspath(__file__))


def read(name):  # type: (str) -> bytes
    """A member of the archive, read through the zipimporter that loaded this module (it
    has read the archive's directory already; a ZipFile would read it again)."""
    return __loader__.get_data(name)  # type: ignore[name-defined,no-any-return]


def _manifest():  # type: () -> dict[str, Any]
    return json.loads(read(MANIFEST).decode("utf-8"))  # type: ignore[no-any-return]


def main():  # type: () -> None
    """The archive's entry: refuse, or hand over to shiv's bootstrap."""
    archive = _archive()
    reason = refusal(os.path.basename(archive), found(), _manifest())
    if reason is not None:
        sys.stderr.write(reason + "\n")
        sys.exit(2)
    import _bootstrap  # shiv's, in the archive

    _bootstrap.bootstrap()
