"""The directory walk grep and glob share (boris/search/walk.py): order, skips, symlinks,
scope. These call the walk directly; tests/tools/test_grep_files.py and
tests/tools/test_glob.py check the same rules through a client, and the ignore files are
tests/search/test_ignores.py's.
"""

from __future__ import annotations

import os
from pathlib import Path

from boris.files.scope import PathScope
from boris.search.walk import walk
from boris.text import printable
from tests.support.trees import OPEN, write_tree
from tests.support.trees import walk_entries as entries


def test_depth_first_in_name_order(tmp_path: Path) -> None:
    # "a" sorts before "a.txt", so a's contents come before a.txt (walk order).
    write_tree(tmp_path, {"b.txt": "", "a.txt": "", "a/z.txt": "", "a/m/n.txt": "", "c/": ""})
    assert entries(tmp_path) == ["a/", "a/m/", "a/m/n.txt", "a/z.txt", "a.txt", "b.txt", "c/"]


def test_name_order_is_the_order_of_the_names_bytes(tmp_path: Path) -> None:
    """Entries come in the order of their names' bytes, as in git and ripgrep, also
    for names that are not UTF-8 or hold characters past U+FFFF."""
    names = [b"A", "a\u00e9".encode(), b"a\xe9", b"z", b"\xc3", "\u00e9".encode(),
             "\U0001f600".encode(), b"\xff"]  # fmt: skip
    for name in reversed(names):
        (tmp_path / os.fsdecode(name)).write_text("")
    assert [os.fsencode(rel) for rel in entries(tmp_path)] == names


def test_git_and_node_modules_skipped_at_any_depth(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".git/config": "",
            "node_modules/x/index.js": "",
            "src/node_modules/y.js": "",
            "src/.git": "gitdir: elsewhere",  # a worktree's .git file
            "src/.hidden": "",
            "src/main.py": "",
        },
    )
    assert entries(tmp_path) == ["src/", "src/.hidden", "src/main.py"]


def test_circular_symlinks_end(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a/file.txt": "", "b/other.txt": ""})
    (tmp_path / "a" / "up").symlink_to(tmp_path)  # a loop back to the root
    (tmp_path / "b" / "to_a").symlink_to(tmp_path / "a")  # into a directory seen already
    (tmp_path / "b" / "self").symlink_to(tmp_path / "b")
    assert entries(tmp_path) == [
        "a/",
        "a/file.txt",
        "a/up/",
        "b/",
        "b/other.txt",
        "b/self/",
        "b/to_a/",
    ]


def test_symlinked_directory_followed_once_by_grep_and_listed_by_glob(tmp_path: Path) -> None:
    write_tree(tmp_path, {"real/x.txt": "", "z/": ""})
    (tmp_path / "link").symlink_to(tmp_path / "z")
    (tmp_path / "z" / "inner.txt").write_text("")
    followed = entries(tmp_path, follow=True)
    assert followed == ["link/", "link/inner.txt", "real/", "real/x.txt", "z/"]
    listed = entries(tmp_path, follow=False)
    assert listed == ["link/", "real/", "real/x.txt", "z/", "z/inner.txt"]


def test_file_symlinks_listed_broken_ones_skipped(tmp_path: Path) -> None:
    write_tree(tmp_path, {"target.txt": ""})
    (tmp_path / "alias.txt").symlink_to(tmp_path / "target.txt")
    (tmp_path / "broken").symlink_to(tmp_path / "missing")
    assert entries(tmp_path) == ["alias.txt", "target.txt"]


def test_denied_entries_dropped(tmp_path: Path) -> None:
    write_tree(tmp_path, {".env": "", "src/.env": "", "keys/a.pem": "", "src/ok.py": ""})
    scope = PathScope([], ["**/.env", "keys"])
    assert entries(tmp_path, scope) == ["src/", "src/ok.py"]


def test_symlink_leaving_the_allowed_dirs_skipped(tmp_path: Path) -> None:
    allowed = write_tree(tmp_path / "work", {"in.txt": ""})
    write_tree(tmp_path / "outside", {"secret.txt": ""})
    (allowed / "escape").symlink_to(tmp_path / "outside")
    (allowed / "escape.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    scope = PathScope([str(allowed)], [])
    assert entries(allowed, scope) == ["in.txt"]


def test_symlink_through_a_loop_out_of_the_allowed_dirs_skipped(tmp_path: Path) -> None:
    allowed = write_tree(tmp_path / "work", {"in.txt": ""})
    write_tree(tmp_path / "outside", {"secret.txt": ""})
    (allowed / "loop").symlink_to(allowed / "loop")
    (allowed / "out").symlink_to(tmp_path / "outside")
    (allowed / "sneaky").symlink_to("loop/../out")  # realpath alone stops at the loop
    scope = PathScope([str(allowed)], [])
    assert entries(allowed, scope) == ["in.txt"]


def test_symlink_into_a_denied_directory_skipped(tmp_path: Path) -> None:
    write_tree(tmp_path, {"private/key.txt": "", "pub/": ""})
    (tmp_path / "pub" / "door").symlink_to(tmp_path / "private")
    scope = PathScope([], [str(tmp_path / "private")])
    assert entries(tmp_path, scope) == ["pub/"]


def test_name_prefilter_still_enters_directories(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": "", "docs/b.md": "", "docs/c.py": ""})
    found = [
        rel
        for rel, _, _ in walk(
            str(tmp_path), OPEN, follow_symlinks=False, names=lambda n: n.endswith(".py")
        )
    ]
    assert found == ["a.py", "docs/c.py"]


def test_undecodable_names_are_made_printable(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.txt")  # Latin-1 bytes, not UTF-8
    (tmp_path / name).write_text("")
    (tmp_path / ".gitignore").write_text("*.log\n")  # ignore rules see the name too
    rels = [rel for rel, _, _ in walk(str(tmp_path), OPEN, follow_symlinks=True)]
    assert rels[0] == ".gitignore"
    assert printable(rels[1]) == "caf\ufffd.txt"
    assert printable("plain/ascii") == "plain/ascii"
    assert printable("déjà/vu") == "déjà/vu"
