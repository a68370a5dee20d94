"""Build boris.pyz zipapps that run under every CPython 3.10-3.14 (see build_zipapp.sh).

Usage: python3 scripts/build_pyz.py [--universal] [--python 3.X ...] <os>-<arch> ...

Writes dist/boris-<os>-<arch>.pyz for each target (linux-x86_64, linux-aarch64,
darwin-x86_64, darwin-arm64) and, with --universal, dist/boris.pyz for all of them; and
the wheel of Boris they carry, dist/boris-<version>-py3-none-any.whl.

For each target and each Python, uv installs Boris's wheel and binary wheels of its
dependencies for that target into a directory of its own (it refuses, loudly, when a
wheel is missing). The top-level entries of those directories (a package, a module, a
dist-info) are then sorted into layers by where they are the same: what every target and
Python share goes into shiv's site-packages, unpacked on the first start; the rest goes
into natives/<layer>/, one layer per group of targets and Pythons that share an entry
(``linux-x86_64`` for abi3 extensions, ``linux-x86_64-cp312`` for one Python's, ``any-cp310``
for a backport only 3.10 installs; see sort_into_layers). A start unpacks only the layers
of its own interpreter (scripts/pyz_start.py and scripts/pyz_layers.py, the archive's
_boris_start.py and _boris_layers.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "build" / "pyz"
DIST = REPO / "dist"
SHIV_VERSION = "1.0.8"
UV_VERSION = "0.13.8"

PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
TARGETS = ("linux-x86_64", "linux-aarch64", "darwin-x86_64", "darwin-arm64")

#: uv's name for each target, and the macOS version its wheels may need at most:
#: google-re2's current wheels need macOS 13 (x86_64) / 14 (arm64); with an older
#: target the resolver would quietly fall back to an old google-re2. manylinux_2_28:
#: google-re2 ships no older Linux wheels.
PLATFORMS = {
    "linux-x86_64": ("x86_64-manylinux_2_28", None),
    "linux-aarch64": ("aarch64-manylinux_2_28", None),
    "darwin-x86_64": ("x86_64-apple-darwin", "13.0"),
    "darwin-arm64": ("aarch64-apple-darwin", "14.0"),
}

SHEBANG = "/usr/bin/env python3"
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # what shiv --reproducible gives its members
MANIFEST = "boris-pyz.json"
#: The archive's own modules, beside __main__.py: the start check and the layers.
MODULES = {"_boris_start.py": "pyz_start.py", "_boris_layers.py": "pyz_layers.py"}

MAIN = """\
# boris.pyz: the interpreter and the platform are checked before anything is unpacked.
import _boris_start

_boris_start.main()
"""

PREAMBLE = """\
# Run by shiv's bootstrap once site-packages is unpacked: this interpreter's native layers.
import _boris_layers
import _boris_start

combo = _boris_start.combo_name(_boris_start.found())
_boris_layers.add_layers(site_packages, combo, env.force_extract)  # noqa: F821 (shiv's)
"""

#: Which combination of target and Python a site directory was installed for.
Combo = tuple[str, str]  # ("linux-x86_64", "3.10")


def cp(python: str) -> str:
    return "cp" + python.replace(".", "")


def combo_name(combo: Combo) -> str:
    return f"{combo[0]}-{cp(combo[1])}"


# --- installing -------------------------------------------------------------------------


def tool(name: str, version: str) -> list[str]:
    """The command of a build tool: the build interpreter's, one on PATH, or one installed
    into build/pyz/tools. (uv is told to trust the system's certificate store, as pip does,
    so that a proxy's or a company's root certificate is trusted.)"""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return [str(beside)]
    on_path = shutil.which(name)
    if on_path:
        return [on_path]
    venv = BUILD / "tools"
    if not (venv / "bin" / name).exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = str(venv / "bin" / "pip")
        subprocess.run([pip, "install", "--quiet", f"{name}=={version}"], check=True)
    return [str(venv / "bin" / name)]


def boris_wheel() -> Path:
    """Boris is pure Python: one wheel, built here, serves every target."""
    wheels = BUILD / "wheel"
    shutil.rmtree(wheels, ignore_errors=True)
    # setuptools builds in build/lib and copies only what changed: a module since moved or
    # deleted would still be packed.
    shutil.rmtree(REPO / "build" / "lib", ignore_errors=True)
    for staged in (REPO / "build").glob("bdist.*"):
        shutil.rmtree(staged, ignore_errors=True)
    subprocess.run(
        [
            *tool("uv", UV_VERSION), "build", "--quiet", "--no-config", "--system-certs",
            "--python", sys.executable, "--wheel", "--out-dir", str(wheels),
        ],
        cwd=REPO,
        check=True,
    )  # fmt: skip
    (wheel,) = wheels.glob("boris-*.whl")
    return wheel


def publish_wheel(wheel: Path) -> None:
    """The wheel into dist/, in place of any earlier one (``uvx --from dist/boris-*.whl``
    takes one file)."""
    DIST.mkdir(parents=True, exist_ok=True)
    for old in DIST.glob("boris-*.whl"):
        old.unlink()
    partial = DIST / (wheel.name + ".part")
    shutil.copyfile(wheel, partial)
    partial.replace(DIST / wheel.name)
    print(f"built {(DIST / wheel.name).relative_to(REPO)}")


def install(wheel: Path, combo: Combo) -> Path:
    """Boris and binary wheels of all it needs for ``combo``, in a directory of its own.

    uv, not pip: pip reads the environment markers of requirements
    (``exceptiongroup; python_version < "3.11"``, ``jeepney; sys_platform == "linux"``)
    against the interpreter that runs it whatever --python-version and --platform say
    (pypa/pip#10050), so it installs another Python's or platform's set; uv resolves for
    the target it is given. It fails, loudly, when a wheel is missing."""
    target, version = combo
    site = BUILD / "site" / combo_name(combo)
    shutil.rmtree(site, ignore_errors=True)
    platform, macos = PLATFORMS[target]
    env = dict(os.environ)
    if macos:
        env["MACOSX_DEPLOYMENT_TARGET"] = macos
    subprocess.run(
        [
            *tool("uv", UV_VERSION), "pip", "install", "--quiet", "--no-config", "--system-certs",
            "--python", sys.executable, "--target", str(site), "--only-binary", ":all:",
            "--python-version", version, "--python-platform", platform, str(wheel),
        ],
        check=True,
        env=env,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    # Console scripts point at the build machine's interpreter; the archive has no use for them.
    shutil.rmtree(site / "bin", ignore_errors=True)
    return site


# --- sorting into layers ----------------------------------------------------------------


def digest(path: Path) -> str:
    """The content of a top-level entry: every file's path, mode and bytes."""
    summary = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        summary.update(str(file.relative_to(path.parent)).encode() + b"\0")
        summary.update(b"x" if os.access(file, os.X_OK) else b"-")
        summary.update(hashlib.sha256(file.read_bytes()).digest())
    return summary.hexdigest()


def sort_into_layers(
    entries: Mapping[Combo, Mapping[str, str]],
) -> tuple[dict[str, set[tuple[Combo, str]]], dict[str, list[str]]]:
    """Layers for the top-level entries of each combo's site directory.

    ``entries`` maps each combo to {entry name: digest}. Returns the layers, each a set
    of (combo whose copy to take, entry name), where ``""`` names the shared layer; and
    for each combo the layers it needs besides the shared one, most specific first.

    An entry the same in every combo is shared. Any other goes to one layer per group
    of targets that have it with the same content under the same Pythons, named by
    them: ``linux-x86_64`` (every Python of that target), ``linux-x86_64-cp311-cp314``,
    ``any-cp310`` (every target, one Python), ``darwin-arm64+darwin-x86_64-cp312``.
    """
    combos = sorted(entries)
    targets = sorted({t for t, _ in combos})
    pythons = sorted({p for _, p in combos}, key=_minor)
    layers: dict[str, set[tuple[Combo, str]]] = {"": set()}
    members: dict[str, set[Combo]] = {}
    holders: dict[tuple[str, str], set[Combo]] = {}
    for combo, names in entries.items():
        for name, content in names.items():
            holders.setdefault((name, content), set()).add(combo)
    for (name, _), have in sorted(holders.items()):
        source = min(have)
        if have == set(combos):
            layers[""].add((source, name))
            continue
        by_pythons: dict[tuple[str, ...], list[str]] = {}
        for target in targets:
            under = tuple(p for p in pythons if (target, p) in have)
            if under:
                by_pythons.setdefault(under, []).append(target)
        for under, group in by_pythons.items():
            where = group[0] if len(group) == 1 else "any" if group == targets else "+".join(group)
            layer = where if list(under) == pythons else f"{where}-{_span(under)}"
            layers.setdefault(layer, set()).add((source, name))
            members[layer] = {(t, p) for t in group for p in under}
    needed = {
        combo_name(combo): sorted(
            (layer for layer, serves in members.items() if combo in serves),
            key=lambda layer: (len(members[layer]), layer),
        )
        for combo in combos
    }
    return layers, needed


def _minor(python: str) -> tuple[int, ...]:
    return tuple(int(part) for part in python.split("."))


def _span(pythons: Sequence[str]) -> str:
    """cp311-cp314 for a run of minors, else cp310+cp312."""
    minors = [_minor(p)[1] for p in pythons]
    if len(minors) > 1 and minors == list(range(minors[0], minors[0] + len(minors))):
        return f"{cp(pythons[0])}-{cp(pythons[-1])}"
    return "+".join(cp(p) for p in pythons)


# --- what each platform needs -----------------------------------------------------------

_MANYLINUX = re.compile(r"manylinux_(\d+)_(\d+)_")
_LEGACY_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
_MACOSX = re.compile(r"macosx_(\d+)_(\d+)_")


def platform_needs(target: str, sites: Iterable[Path]) -> dict[str, str]:
    """The oldest glibc (linux) or macOS (darwin) on which every wheel installed for
    ``target`` loads, from the wheels' tags (a wheel's tags are alternatives: it loads
    where its oldest one does)."""
    newest = (0, 0)
    for site in sites:
        for wheel in site.glob("*.dist-info/WHEEL"):
            lines = wheel.read_text().splitlines()
            floors = [_floor(line[4:].strip()) for line in lines if line.startswith("Tag:")]
            known = [floor for floor in floors if floor is not None]
            if known:
                newest = max(newest, min(known))
    if newest == (0, 0):
        return {}
    key = "glibc" if target.startswith("linux") else "macos"
    return {key: f"{newest[0]}.{newest[1]}"}


def _floor(tag: str) -> tuple[int, int] | None:
    """The glibc or macOS version a wheel tag names; None for a pure tag (``any``)."""
    platform = tag.rsplit("-", 1)[-1] + "_"
    found = _MANYLINUX.match(platform) or _MACOSX.match(platform)
    if found:
        return int(found[1]), int(found[2])
    return _LEGACY_MANYLINUX.get(platform.split("_")[0])


# --- packing ----------------------------------------------------------------------------


def stage(sources: Iterable[tuple[Path, str]], directory: Path) -> None:
    """Hard links (copies across file systems) of the given top-level entries."""
    directory.mkdir(parents=True)
    for site, name in sources:
        source, target = site / name, directory / name
        if source.is_dir():
            shutil.copytree(source, target, copy_function=_link)
        else:
            _link(source, target)


def _link(source: str | Path, target: str | Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def pack(sites: Mapping[Combo, Path], output: Path) -> None:
    """One archive for every combo of ``sites``."""
    entries = {combo: {p.name: digest(p) for p in site.iterdir()} for combo, site in sites.items()}
    layers, needed = sort_into_layers(entries)
    work = BUILD / "pack" / output.stem
    shutil.rmtree(work, ignore_errors=True)
    stage(((sites[combo], name) for combo, name in layers[""]), work / "site-packages")
    for layer, members in layers.items():
        if layer:
            stage(((sites[combo], name) for combo, name in members), work / "natives" / layer)
    targets = sorted({t for t, _ in sites})
    manifest = {
        "format": 1,
        "platforms": {
            t: platform_needs(t, (site for c, site in sites.items() if c[0] == t)) for t in targets
        },
        "layers": needed,
    }
    manifest_bytes = json.dumps(manifest, indent=1, sort_keys=True).encode() + b"\n"
    build_id = hashlib.sha256(manifest_bytes)
    natives = sorted((work / "natives").rglob("*")) if (work / "natives").exists() else []
    for path in [*sorted((work / "site-packages").rglob("*")), *natives]:
        if path.is_file():
            build_id.update(str(path.relative_to(work)).encode() + b"\0" + path.read_bytes())
    (work / "preamble.py").write_text(PREAMBLE)
    shiv_out = work / "shiv.pyz"
    subprocess.run(
        [
            *tool("shiv", SHIV_VERSION), "--site-packages", str(work / "site-packages"),
            "-e", "boris.__main__:main", "-o", str(shiv_out), "-p", SHEBANG,
            "--reproducible", "--compressed", "--preamble", str(work / "preamble.py"),
            "--build-id", build_id.hexdigest(),
        ],
        check=True,
        stdout=subprocess.DEVNULL,  # its warning that the build id is given
    )  # fmt: skip
    write_archive(shiv_out, work / "natives", manifest_bytes, output)


def write_archive(shiv_out: Path, natives: Path, manifest: bytes, output: Path) -> None:
    """shiv's archive with the start check as its __main__, the manifest and the layers."""
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".part")
    with partial.open("wb") as file:
        file.write(f"#!{SHEBANG}\n".encode())
        with (
            zipfile.ZipFile(shiv_out) as shiv,
            zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as archive,
        ):
            for info in shiv.infolist():
                if info.filename != "__main__.py":
                    archive.writestr(info, shiv.read(info), compress_type=zipfile.ZIP_DEFLATED)
            for name, source in MODULES.items():
                _add(archive, name, (REPO / "scripts" / source).read_bytes())
            _add(archive, MANIFEST, manifest)
            if natives.exists():
                for path in sorted(natives.rglob("*")):
                    if path.is_file():
                        name = f"natives/{path.relative_to(natives).as_posix()}"
                        _add(archive, name, path.read_bytes(), path.stat().st_mode)
            _add(archive, "__main__.py", MAIN.encode())
    partial.chmod(0o755)
    partial.replace(output)


def _add(archive: zipfile.ZipFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = zipfile.ZipInfo(name, ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100000 | (mode & 0o777)) << 16
    archive.writestr(info, data)


# --- the command line -------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="+", choices=TARGETS, metavar="TARGET")
    parser.add_argument("--python", action="append", dest="pythons", choices=PYTHONS)
    parser.add_argument("--universal", action="store_true", help="also dist/boris.pyz")
    args = parser.parse_args()
    pythons = args.pythons or list(PYTHONS)
    wheel = boris_wheel()
    publish_wheel(wheel)
    combos = [(t, p) for t in args.targets for p in pythons]
    with ThreadPoolExecutor(max_workers=4) as pool:
        sites = dict(zip(combos, pool.map(lambda c: install(wheel, c), combos), strict=True))
    for target in args.targets:
        output = DIST / f"boris-{target}.pyz"
        pack({c: s for c, s in sites.items() if c[0] == target}, output)
        print(f"built {output.relative_to(REPO)}")
    if args.universal:
        output = DIST / "boris.pyz"
        pack(sites, output)
        print(f"built {output.relative_to(REPO)}")


if __name__ == "__main__":
    main()
