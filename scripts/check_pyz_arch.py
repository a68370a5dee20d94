"""Check that every native binary inside a boris pyz is built for the pyz's target.

Usage: python3 scripts/check_pyz_arch.py <file.pyz> [<os>-<arch>]
       (linux-x86_64, linux-aarch64, darwin-x86_64, darwin-arm64)

Reads the ELF e_machine or Mach-O cputype of every member that is an ELF or Mach-O
file (whatever its name), prints one line per binary and exits 1 on any mismatch or
when the archive has no native binary at all. Without a target (an archive for several
platforms), each binary must fit every platform its layer serves
(``natives/<os>-<arch>[-cp3XX]/``, ``natives/<a>+<b>/``); a binary anywhere else is a
mismatch.
"""

from __future__ import annotations

import struct
import sys
import zipfile

ELF_MACHINES = {62: "x86_64", 183: "aarch64"}
MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "arm64"}
MACHO_MAGIC_64 = b"\xcf\xfa\xed\xfe"  # little-endian 64-bit
FAT_MAGIC = b"\xca\xfe\xba\xbe"  # universal binary, big-endian header


def architectures(header: bytes) -> tuple[str, set[str]] | None:
    """(format, {arch, ...}) of a binary's first bytes, or None if it is not one."""
    if header[:4] == b"\x7fELF":
        (machine,) = struct.unpack_from("<H", header, 18)
        return "elf", {ELF_MACHINES.get(machine, f"e_machine={machine}")}
    if header[:4] == MACHO_MAGIC_64:
        (cpu,) = struct.unpack_from("<I", header, 4)
        return "macho", {MACHO_CPUS.get(cpu, f"cputype={cpu:#x}")}
    if header[:4] == FAT_MAGIC:
        (count,) = struct.unpack_from(">I", header, 4)
        if count > 20:  # Java class files share this magic; a fat header lists few archs
            return None
        cpus = {struct.unpack_from(">I", header, 8 + 20 * i)[0] for i in range(count)}
        return "macho", {MACHO_CPUS.get(cpu, f"cputype={cpu:#x}") for cpu in cpus}
    return None


TARGETS = ("linux-x86_64", "linux-aarch64", "darwin-x86_64", "darwin-arm64")


def layer_targets(name: str) -> list[str]:
    """The platforms the layer a member lies in serves (``natives/linux-x86_64-cp310/``,
    ``natives/darwin-arm64+darwin-x86_64/``); none outside the layers."""
    parts = name.split("/")
    if len(parts) < 3 or parts[0] != "natives":
        return []
    where = parts[1].split("-cp", 1)[0]
    return list(TARGETS) if where == "any" else where.split("+")


def check(pyz: str, target: str | None) -> list[str]:
    """Problems found; empty when every binary fits the target (or its layer's)."""
    problems: list[str] = []
    seen = 0
    with zipfile.ZipFile(pyz) as archive:
        for info in archive.infolist():
            if info.is_dir() or info.file_size < 64:
                continue
            with archive.open(info) as member:
                found = architectures(member.read(8 + 20 * 20))
            if found is None:
                continue
            seen += 1
            fmt, archs = found
            expected = [target] if target else layer_targets(info.filename)
            ok = bool(expected) and all(fits(fmt, archs, t) for t in expected)
            print(f"{'ok ' if ok else 'BAD'} {fmt:5} {','.join(sorted(archs)):14} {info.filename}")
            if not ok:
                wanted = "+".join(expected) or "a platform's layer (natives/<os>-<arch>...)"
                problems.append(f"{info.filename}: {fmt} {sorted(archs)}, expected {wanted}")
    if seen == 0:
        problems.append("no native binaries found; is this a boris pyz?")
    return problems


def fits(fmt: str, archs: set[str], target: str) -> bool:
    system, arch = target.split("-", 1)
    return fmt == ("elf" if system == "linux" else "macho") and arch in archs


def main() -> None:
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    problems = check(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
