"""Check that every native binary inside a boris pyz is built for the pyz's target.

Usage: python3 scripts/check_pyz_arch.py <file.pyz> <os>-<arch>
       (linux-x86_64, linux-aarch64, darwin-x86_64, darwin-arm64)

Reads the ELF e_machine or Mach-O cputype of every member that is an ELF or Mach-O
file (whatever its name), prints one line per binary and exits 1 on any mismatch or
when the archive has no native binary at all.
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


def check(pyz: str, target: str) -> list[str]:
    """Problems found; empty when every binary fits the target."""
    system, arch = target.split("-", 1)
    expected_format = "elf" if system == "linux" else "macho"
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
            ok = fmt == expected_format and arch in archs
            print(f"{'ok ' if ok else 'BAD'} {fmt:5} {','.join(sorted(archs)):14} {info.filename}")
            if not ok:
                problems.append(f"{info.filename}: {fmt} {sorted(archs)}, expected {target}")
    if seen == 0:
        problems.append("no native binaries found; is this a boris pyz?")
    return problems


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    problems = check(sys.argv[1], sys.argv[2])
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
