"""A line of an ignore file (git's pattern syntax) as a regular expression matching
exactly the paths its rule names: pathspec's translation, with the end of its regular
expression rewritten. The one module that knows the forms of pathspec's regexes.

pathspec (``GitIgnoreSpecPattern.pattern_to_regex``, public) reads git's syntax: comments,
``!``, escapes, anchoring, ``**``, classes, the lines git skips. Its regex matches a path
or anything below it (pathspec decides for a whole tree at once), while git and ripgrep
test every path against the rules on its own (see boris.search.ignores). So the end of
each regex is rewritten to match the path itself, by the form pathspec ends it with:

- ``(?:(?P<ps_d>/)|$)``: the last component is a name, of a file or a directory
  (``x``, ``a/*.log``): the path ends there, a directory's with its ``/``;
- ``(?P<ps_d>/)``: a directory's name (``x/``): a directory ending there; ``x/**/``,
  which pathspec writes as ``x/``, the directories below ``x``; alone (``*/``,
  ``**/``), every directory;
- ``/`` (``x/**``, and ``**/*/**`` alone): everything below, not the directory itself;
- ``.`` alone (``*``, ``**``): everything.

Any other ending is a form this module does not know, and its line is skipped.
``tests/search/test_gitignore_regex.py`` pins pathspec's output for a line of each
form (an upgrade that changes one fails there, by name) and checks the rewritten
regexes against ``git check-ignore``; docs/DEVELOPING.md "Upgrading google-re2 and pathspec".

Paths are matched relative to the ignore file's directory, ``/``-separated, a
directory's ending in ``/``; the regex is searched (not anchored at the start: it
anchors itself), on the path's bytes read as Latin-1.
"""

from __future__ import annotations

_NAME_END = "(?:(?P<ps_d>/)|$)"
_DIRECTORY_END = "(?P<ps_d>/)"
_BELOW_END = "/"
_EVERYTHING = "."


def rule_regex(line: str) -> tuple[str, bool] | None:
    """The regular expression for ``line``'s rule and whether the rule ignores (False:
    a ``!`` rule, which re-includes); None for a comment, a blank line, a line git
    skips or one of a form not known here."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    try:
        regex, include = GitIgnoreSpecPattern.pattern_to_regex(line)
    except Exception:  # pathspec raises several kinds for an invalid line
        return None
    if regex is None or include is None:
        return None  # a comment, a blank line, or a pattern git would never match
    exact = _exact(regex, line)
    return None if exact is None else (exact, include)


def _exact(regex: str, line: str) -> str | None:
    """pathspec's ``regex`` for ``line`` rewritten to match only the paths the rule
    names; None for a form not known here."""
    if regex.endswith(_NAME_END):
        return regex[: -len(_NAME_END)] + "/?$"
    if regex.endswith(_DIRECTORY_END):
        body = regex[: -len(_DIRECTORY_END)]
        text = line if line.endswith("\\ ") else line.rstrip()
        if body and text.endswith("/**/"):
            return body + "/.+/$"  # "x/**/": the directories below x
        return body + "/$"
    if regex.endswith(_BELOW_END):
        return regex + ".+$"
    if regex == _EVERYTHING:
        return regex
    return None
