"""How boris.pyz decides, before it unpacks anything, whether it can run here, and how its
build sorts the installed packages into layers. The built archive itself is run under
every interpreter found in tests/e2e/test_pyz.py."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from scripts import build_pyz, pyz_start

FOUR = ["linux-x86_64", "linux-aarch64", "darwin-x86_64", "darwin-arm64"]
PYTHONS = ["3.10", "3.11", "3.12", "3.13", "3.14"]


def manifest(platforms: list[str], pythons: list[str] = PYTHONS) -> dict[str, Any]:
    needs = {
        p: {"glibc": "2.28"} if p.startswith("linux") else {"macos": "13.0"} for p in platforms
    }
    combos: dict[str, list[str]] = {
        f"{p}-cp{v.replace('.', '')}": [] for p in platforms for v in pythons
    }
    return {"format": 1, "platforms": needs, "layers": combos}


def facts(
    implementation: str = "CPython",
    version: str = "3.12.1",
    system: str = "linux",
    machine: str = "x86_64",
    bits: int = 64,
    libc: str | None = "2.36",
    macos: str | None = None,
) -> dict[str, object]:
    return {
        "implementation": implementation,
        "version": version,
        "minor": ".".join(version.split(".")[:2]),
        "system": system,
        "machine": machine,
        "bits": bits,
        "libc": libc,
        "macos": macos,
    }


UNIVERSAL = "boris.pyz needs CPython 3.10-3.14 on linux/darwin x86_64/arm64; this is "


@pytest.mark.parametrize(
    ("found", "line"),
    [
        (facts(version="3.9.18"), UNIVERSAL + "CPython 3.9.18 on linux x86_64"),
        (facts(version="2.7.18"), UNIVERSAL + "CPython 2.7.18 on linux x86_64"),
        (facts(version="3.15.0"), UNIVERSAL + "CPython 3.15.0 on linux x86_64"),
        (
            facts(implementation="PyPy", version="3.10.14"),
            UNIVERSAL + "PyPy 3.10.14 on linux x86_64",
        ),
        (facts(system="win32", machine="AMD64"), UNIVERSAL + "CPython 3.12.1 on win32 AMD64"),
        (facts(machine="riscv64"), UNIVERSAL + "CPython 3.12.1 on linux riscv64"),
        (facts(bits=32), UNIVERSAL + "CPython 3.12.1 (32-bit) on linux x86_64"),
        (
            facts(libc=None),
            "boris.pyz needs CPython 3.10-3.14 on linux/darwin x86_64/arm64 with glibc 2.28 or "
            "newer; this is CPython 3.12.1 on linux x86_64 with another C library than glibc",
        ),
        (
            facts(libc="2.17"),
            "boris.pyz needs CPython 3.10-3.14 on linux/darwin x86_64/arm64 with glibc 2.28 or "
            "newer; this is CPython 3.12.1 on linux x86_64 with glibc 2.17",
        ),
        (
            facts(system="darwin", machine="x86_64", libc=None, macos="12.7.1"),
            "boris.pyz needs CPython 3.10-3.14 on linux/darwin x86_64/arm64 on macOS 13.0 or "
            "newer; this is CPython 3.12.1 on darwin x86_64 on macOS 12.7.1",
        ),
    ],
)
def test_the_refusal_names_what_is_needed_and_what_was_found(
    found: dict[str, object], line: str
) -> None:
    assert pyz_start.refusal("boris.pyz", found, manifest(FOUR)) == line


@pytest.mark.parametrize(
    "found",
    [
        facts(),
        facts(version="3.10.0", libc="2.28"),
        facts(version="3.14.2", machine="aarch64"),
        facts(system="darwin", machine="arm64", libc=None, macos="15.1"),
        facts(system="darwin", machine="x86_64", libc=None, macos="13.0"),
    ],
)
def test_what_the_archive_carries_runs(found: dict[str, object]) -> None:
    assert pyz_start.refusal("boris.pyz", found, manifest(FOUR)) is None


def test_a_platform_file_names_its_own_platform() -> None:
    found = facts(system="darwin", machine="arm64", libc=None, macos="15.1")
    assert pyz_start.refusal("boris-linux-x86_64.pyz", found, manifest(["linux-x86_64"])) == (
        "boris-linux-x86_64.pyz needs CPython 3.10-3.14 on linux x86_64; "
        "this is CPython 3.12.1 on darwin arm64"
    )


def test_a_platform_without_one_python_names_the_pythons_it_has() -> None:
    """Where a platform's natives for one Python are missing, the line says which
    Pythons that platform does have."""
    carried = manifest(FOUR)
    del carried["layers"]["darwin-x86_64-cp314"]
    found = facts(version="3.14.0", system="darwin", machine="x86_64", libc=None, macos="14.2")
    assert pyz_start.refusal("boris.pyz", found, carried) == (
        "boris.pyz needs CPython 3.10-3.13 on darwin x86_64; "
        "this is CPython 3.14.0 on darwin x86_64"
    )
    assert pyz_start.refusal("boris.pyz", facts(version="3.14.0"), carried) is None


def test_this_machine_is_named_as_the_archive_names_platforms() -> None:
    assert pyz_start.platform_name(facts(machine="aarch64")) == "linux-aarch64"
    assert pyz_start.platform_name(facts(system="darwin", machine="arm64")) == "darwin-arm64"
    assert pyz_start.combo_name(facts(version="3.10.13")) == "linux-x86_64-cp310"
    found = pyz_start.found()
    assert found["implementation"] == "CPython"
    assert found["bits"] == 64


# --- sorting the installed packages into layers --------------------------------------------


def test_each_entry_goes_to_the_widest_layer_that_has_it_unchanged() -> None:
    targets, pythons = ["linux-x86_64", "darwin-arm64"], ["3.10", "3.11", "3.12"]
    combos = [(t, p) for t in targets for p in pythons]
    entries: dict[tuple[str, str], dict[str, str]] = {c: {} for c in combos}
    for combo in combos:
        target, python = combo
        entries[combo]["pure"] = "same everywhere"
        entries[combo]["abi3"] = f"built for {target}"
        entries[combo]["native"] = f"built for {target} and {python}"
        if python == "3.10":
            entries[combo]["backport"] = "only 3.10 installs it"
        # a release that left 3.10 behind: 3.10 gets an older one
        entries[combo]["moved_on"] = "old" if python == "3.10" else "new"
    layers, needed = build_pyz.sort_into_layers(entries)

    def names(layer: str) -> set[str]:
        return {name for _, name in layers[layer]}

    assert names("") == {"pure"}
    assert names("linux-x86_64") == names("darwin-arm64") == {"abi3"}
    assert names("any-cp310") == {"backport", "moved_on"}
    assert names("any-cp311-cp312") == {"moved_on"}
    assert names("darwin-arm64-cp311") == {"native"}
    assert needed["darwin-arm64-cp311"] == ["darwin-arm64-cp311", "darwin-arm64", "any-cp311-cp312"]
    assert needed["linux-x86_64-cp310"] == ["linux-x86_64-cp310", "any-cp310", "linux-x86_64"]
    # Every combo finds each of its entries exactly once: in the shared layer or its own.
    for combo in combos:
        found = sorted(
            name
            for layer in ["", *needed[build_pyz.combo_name(combo)]]
            for _, name in layers[layer]
        )
        assert found == sorted(entries[combo])


def test_a_universal_binary_can_serve_both_darwin_targets() -> None:
    entries = {
        ("darwin-arm64", "3.12"): {"fat": "universal2"},
        ("darwin-x86_64", "3.12"): {"fat": "universal2"},
        ("linux-x86_64", "3.12"): {"fat": "elf"},
    }
    layers, needed = build_pyz.sort_into_layers(entries)
    assert set(layers) == {"", "darwin-arm64+darwin-x86_64", "linux-x86_64"}
    assert needed["darwin-x86_64-cp312"] == ["darwin-arm64+darwin-x86_64"]


def test_the_oldest_glibc_and_macos_come_from_the_wheel_tags(tmp_path: Path) -> None:
    def wheel(site: Path, name: str, *tags: str) -> None:
        (site / f"{name}.dist-info").mkdir(parents=True)
        lines = ["Wheel-Version: 1.0", *(f"Tag: {tag}" for tag in tags)]
        (site / f"{name}.dist-info" / "WHEEL").write_text("\n".join(lines) + "\n")

    linux, darwin = tmp_path / "linux", tmp_path / "darwin"
    wheel(linux, "pure-1", "py3-none-any")
    wheel(linux, "old-1", "cp312-cp312-manylinux_2_17_x86_64", "cp312-cp312-manylinux2014_x86_64")
    wheel(linux, "re2-1", "cp312-cp312-manylinux_2_28_x86_64")
    wheel(darwin, "fat-1", "cp312-cp312-macosx_10_13_universal2")
    wheel(darwin, "re2-1", "cp312-cp312-macosx_13_0_x86_64")
    assert build_pyz.platform_needs("linux-x86_64", [linux]) == {"glibc": "2.28"}
    assert build_pyz.platform_needs("darwin-x86_64", [darwin]) == {"macos": "13.0"}
    assert build_pyz.platform_needs("linux-x86_64", [tmp_path / "none"]) == {}


# --- starting without shiv's bootstrap ---------------------------------------------------

BUILD = {"build_id": "abc", "root": None, "entry_point": "boris.__main__:main"}


@pytest.mark.parametrize(
    ("environ", "root"),
    [
        ({}, None),
        ({"SHIV_ROOT": "/tmp/shiv"}, None),
        ({"SHIV_ROOT": "$OTHER", "OTHER": "/tmp/other"}, None),
        ({"SHIV_ROOT": "~/x"}, None),
        ({}, "/opt/built"),
    ],
)
def test_the_unpacked_archive_is_where_shivs_bootstrap_puts_it(
    environ: dict[str, str], root: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """shiv's own bootstrap (its cache_path) is the oracle: the same directory for the same
    archive, build and variables."""
    from shiv.bootstrap import cache_path
    from shiv.bootstrap.environment import Environment

    archive = tmp_path / "boris.pyz"
    archive.write_bytes(b"")
    link = tmp_path / "link.pyz"
    link.symlink_to(archive)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    build = {**BUILD, "root": root}
    shiv = Environment(built_at="", shiv_version="", **build)

    class Opened:  # what cache_path reads of the ZipFile
        filename = str(link)

    expected = cache_path(Opened(), shiv.root, shiv.build_id) / "site-packages"
    assert pyz_start.site_packages_of(str(link), build, environ) == str(expected)


@pytest.mark.parametrize("variable", pyz_start.SHIV_OVERRIDES)
def test_shivs_own_variables_leave_the_start_to_its_bootstrap(variable: str) -> None:
    assert pyz_start.shiv_environment({variable: "1"}) is None


def test_site_packages_go_before_the_interpreters_own_as_shiv_puts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shiv.bootstrap import get_first_sitedir_index

    before = ["/x/lib/python3.12", "/x/lib/python3.12/site-packages", "/y/dist-packages"]
    monkeypatch.setattr("sys.path", list(before))
    index = get_first_sitedir_index()
    unpacked = tmp_path / "site-packages"
    unpacked.mkdir()
    pyz_start.add_site_packages(str(unpacked))
    assert sys.path == [*before[:index], str(unpacked), *before[index:]]
