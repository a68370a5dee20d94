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


# --- starting: shiv's bootstrap, or its steps without it --------------------------------

#: shiv's variables that change how it starts (SHIV_ROOT, where it unpacks, aside): with
#: any of them set, shiv's own bootstrap runs, which reads them.
SHIV_OVERRIDES = (
    "SHIV_INTERPRETER",
    "SHIV_ENTRY_POINT",
    "SHIV_CONSOLE_SCRIPT",
    "SHIV_MODULE",
    "SHIV_FORCE_EXTRACT",
    "SHIV_COMPILE_PYC",
    "SHIV_COMPILE_WORKERS",
    "SHIV_EXTEND_PYTHONPATH",
    "SHIV_PREPEND_PYTHONPATH",
)


def shiv_environment(environ):  # type: (Any) -> dict[str, Any] | None
    """shiv's build settings (the archive's environment.json), if Boris may start the way
    shiv would without its bootstrap: none of its overrides set, none of the settings
    Boris's build leaves off turned on."""
    if any(name in environ for name in SHIV_OVERRIDES):
        return None
    settings = json.loads(read("environment.json").decode("utf-8"))  # type: dict[str, Any]
    for name in ("always_write_cache", "no_modify", "extend_pythonpath", "prepend_pythonpath"):
        if settings.get(name):
            return None
    if settings.get("script") or not settings.get("entry_point"):
        return None
    return settings


def site_packages_of(archive_path, settings, environ):  # type: (str, dict[str, Any], Any) -> str
    """Where shiv unpacks the archive's site-packages (its bootstrap's cache_path):
    SHIV_ROOT (or the build's root, or ~/.shiv), then the archive's name and build id."""
    root = environ.get("SHIV_ROOT", settings.get("root"))
    if root and root.startswith("$"):
        root = environ.get(root[1:], root[1:])
    root = os.path.expanduser(root) if root else os.path.expanduser("~/.shiv")
    name = os.path.basename(os.path.realpath(archive_path))
    return os.path.join(root, "%s_%s" % (name, settings["build_id"]), "site-packages")


def add_site_packages(site_packages):  # type: (str) -> None
    """``site_packages`` on sys.path before any other site-packages, as shiv puts it."""
    import site

    length = len(sys.path)
    index = length
    for position, part in enumerate(sys.path):
        stem = os.path.splitext(os.path.basename(part.rstrip("/")))[0]
        if stem in ("site-packages", "dist-packages"):
            index = position
            break
    site.addsitedir(site_packages)
    sys.path[:] = sys.path[:index] + sys.path[length:] + sys.path[index:length]


def main():  # type: () -> None
    """The archive's entry: refuse; or start Boris, from the unpacked archive if it was
    unpacked before, else from the archive itself while it unpacks; or hand over to
    shiv's bootstrap (what shiv's variables ask for)."""
    archive = _archive()
    facts = found()
    reason = refusal(os.path.basename(archive), facts, _manifest())
    if reason is not None:
        sys.stderr.write(reason + "\n")
        sys.exit(2)
    settings = shiv_environment(os.environ)
    if settings is not None:
        combo = combo_name(facts)
        site_packages = site_packages_of(sys.argv[0], settings, os.environ)
        if os.path.isdir(site_packages):
            _start_unpacked(site_packages, combo, settings["entry_point"])
        else:
            _start_unpacking(archive, site_packages, combo, bool(settings.get("compile_pyc")))
        return
    import _bootstrap  # shiv's, in the archive

    _bootstrap.bootstrap()


def _start_unpacked(site_packages, combo, entry_point):  # type: (str, str, str) -> None
    """shiv's bootstrap without it (its import alone takes tens of milliseconds: compileall,
    subprocess, hashlib, code): the unpacked site-packages and this interpreter's layers
    on sys.path, then the entry point, its return the exit status."""
    import importlib

    import _boris_layers

    add_site_packages(site_packages)
    _boris_layers.add_layers(site_packages, combo)
    module, _, name = entry_point.partition(":")
    sys.exit(getattr(importlib.import_module(module), name)())


def _start_unpacking(archive, site_packages, combo, compile_pyc):
    # type: (str, str, str, bool) -> None
    """The first start: Boris runs from the archive itself (Python imports from a zip),
    so that it answers a STDIO client's first messages at once, while the archive
    unpacks as shiv unpacks it (then this interpreter's layers) before the app loads from
    the unpacked files."""
    sys.path.insert(0, os.path.join(archive, "site-packages"))
    from boris.__main__ import main as serve

    def unpack():  # type: () -> None
        import zipfile
        from pathlib import Path

        import _bootstrap
        import _boris_layers

        with zipfile.ZipFile(sys.argv[0]) as opened:
            target = Path(os.path.dirname(site_packages))
            _bootstrap.extract_site_packages(opened, target, compile_pyc)
        zipped = os.path.join(archive, "site-packages")
        sys.path.remove(zipped)
        add_site_packages(site_packages)
        _boris_layers.add_layers(site_packages, combo)
        _boris_layers.go_on_unpacked(zipped, site_packages)

    serve(before_loading=unpack)
