"""What the text of a flag or ``BORIS_*`` variable means, beyond its type: sizes, the
view requirement, an env var's list, directories that must exist, deny patterns made
absolute, the token a file holds; and the flag and variable each setting is given by.

Plain functions, no pydantic: the settings' validators (boris.settings) call them, and so
does the reading of the settings that answers a client before pydantic has loaded
(boris.early.settings). Each raises ValueError, with the message the settings report.
"""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Sequence

# Applied to the stripped value: one way to match any text, so linear in its length.
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMG]?B)?", re.IGNORECASE)
_SIZE_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}

#: Repeatable flags are singular on the command line; their env vars are plural.
_FLAG_NAMES = {
    "allow_dirs": "allow-dir",
    "deny_dirs": "deny-dir",
    "allow_origins": "allow-origin",
    "allow_hosts": "allow-host",
}


def flag_of(field: str) -> str:
    return "--" + _FLAG_NAMES.get(field, field.replace("_", "-"))


def env_of(field: str) -> str:
    return "BORIS_" + field.upper()


def parse_size(value: object) -> object:
    """``10MB`` → 10485760 (1024-based, case-insensitive, no suffix = bytes)."""
    if not isinstance(value, str):
        return value
    match = _SIZE.fullmatch(value.strip())
    if not match:
        raise ValueError(f"cannot parse size {value!r}; use a number with B, KB, MB or GB")
    number, unit = match.groups()
    scaled = float(number) * _SIZE_UNITS[(unit or "B").upper()]
    if not math.isfinite(scaled):
        raise ValueError(f"size {value!r} is too large")
    size = int(scaled)
    if size <= 0:
        raise ValueError(f"size {value!r} must be greater than zero")
    return size


def parse_view_requirement(value: object) -> object:
    """``auto`` is resolved here, once: it means ``true`` in this release."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("auto", "true"):
        return True
    if text == "false":
        return False
    raise ValueError(f"Input should be 'auto', 'true' or 'false', not {value!r}")


def env_list(value: object) -> object:
    """An env var's list, split on commas outside ``{…}``; flags arrive as lists (one item
    per value) and are kept whole."""
    if isinstance(value, str):
        from boris.patterns.glob_syntax import split_outside_braces

        return split_outside_braces(value)
    return value


def read_token_file(path: str) -> str:
    """The token in the file ``path``: its first line, whitespace stripped (a secret
    mounted by Docker or Kubernetes often ends with a newline), of at most
    :data:`TOKEN_CHARS` characters and none a control character. ValueError, saying why
    (never what the file holds), if it cannot be read or holds no such token: a token
    cut short, or one holding a NUL, would be taken for another than the file's."""
    try:
        with open(path, "rb") as file:
            first = file.readline(_FIRST_LINE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"cannot read --token-file {path}: {exc.strerror or exc}") from None
    too_long = (
        f"--token-file {path} holds more than {TOKEN_CHARS} characters on its first line: "
        f"a token is at most {TOKEN_CHARS}"
    )
    if len(first.removesuffix(b"\n")) > _FIRST_LINE_BYTES:
        raise ValueError(too_long)
    try:
        token = first.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise ValueError(f"--token-file {path} is not UTF-8 text") from None
    if not token:
        raise ValueError(f"--token-file {path} is empty: its first line must hold the token")
    if len(token) > TOKEN_CHARS:
        raise ValueError(too_long)
    control = _CONTROL.search(token)
    if control is not None:
        raise ValueError(
            f"--token-file {path} holds a control character (U+{ord(control[0]):04X}) in "
            "its token: a token is printable text on one line"
        )
    return token


#: The longest token a token file may hold, in characters.
TOKEN_CHARS = 1024
#: Bytes of a token file's first line read at most: room for the longest token in any
#: UTF-8 and whitespace around it; a longer line holds no token.
_FIRST_LINE_BYTES = 1 << 16
#: Control characters (Unicode's Cc: C0, DEL, C1), none of which a header can carry.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def token_file_warning(path: str) -> str | None:
    """What to warn of the token file ``path``, if its mode lets its group or others
    read it: None if not, and for what is not a regular file (a pipe from the shell's
    ``<(...)`` keeps nothing to read once read)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    readers = [who for who, bit in (("its group", 0o040), ("others", 0o004)) if info.st_mode & bit]
    if not stat.S_ISREG(info.st_mode) or not readers:
        return None
    return (
        f"--token-file {path} can be read by {' and '.join(readers)} "
        f"(mode {stat.S_IMODE(info.st_mode):04o}): make it readable by its owner alone "
        f"(chmod 600 {path})"
    )


def existing_directory(path: str, resolved: str) -> str:
    """``resolved`` (the resolved form of ``path``) if it is a directory."""
    if not os.path.isdir(resolved):
        what = "is not a directory" if os.path.exists(resolved) else "does not exist"
        raise ValueError(f"directory {path} {what}")
    return resolved


def workdir_of(value: str) -> str:
    """The working directory ``value`` names, resolved; it must exist."""
    return existing_directory(value, os.path.realpath(value))


def allow_dirs_of(values: Sequence[str], workdir: str) -> list[str]:
    """The allowed directories, relative ones to ``workdir``, resolved; each must exist."""
    from boris.files.scope import resolve_allow_dir

    return [existing_directory(d, resolve_allow_dir(d, workdir)) for d in values]


def deny_patterns_of(values: Sequence[str], workdir: str) -> list[str]:
    """The deny patterns as the scope matches them (boris.files.scope), each checked."""
    from boris.files.scope import normalise_deny_pattern
    from boris.patterns.glob_syntax import PatternError, pattern_problem

    normalised = []
    for pattern in values:
        problem = _one_pattern_problem(pattern) or pattern_problem(pattern)
        if problem is None:
            try:
                normalised.append(normalise_deny_pattern(pattern, workdir))
            except PatternError as exc:
                problem = str(exc)
            else:
                problem = pattern_problem(normalised[-1])
        if problem:
            raise ValueError(f"invalid deny pattern {pattern!r}: {problem}")
    return normalised


def _one_pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not the one pattern it looks like: a comma outside braces (an
    env var's list separator: two patterns were meant) or whitespace at either end. Both
    would be part of the pattern, which would then name no path anyone has, and deny
    nothing. Only a flag's value can hold either: an env var's list is split there, and
    each item stripped."""
    import shlex

    from boris.patterns.glob_syntax import split_outside_braces

    stripped = pattern.strip()
    if not stripped:
        return "it is only whitespace" if pattern else None
    items = split_outside_braces(stripped)
    if items != [stripped]:
        flags = " ".join(f"{flag_of('deny_dirs')} {shlex.quote(item)}" for item in items)
        shown = f" ({flags})" if flags else ""
        return (
            "a flag's value is one pattern, and a comma outside braces is part of it; give "
            f"each pattern its own flag{shown}, or alternatives in braces (**/*.{{pem,key}}); "
            "a comma in a name is written \\,"
        )
    if stripped == pattern:
        return None
    ends = " and ".join(
        end
        for end, trimmed in (("begins", pattern.lstrip()), ("ends", pattern.rstrip()))
        if trimmed != pattern
    )
    return (
        f"it {ends} with whitespace, which would be part of the pattern; write it without: "
        f"{shlex.quote(stripped)}"
    )
