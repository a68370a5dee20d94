"""The symbols tool: code structure without a language server (boris.structure.symbols)."""

from __future__ import annotations

import threading
from typing import Annotated

from fastmcp.dependencies import Depends
from fastmcp.tools import tool
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from boris.session import Session, current_session
from boris.structure.languages import KINDS, language_names
from boris.text import LIMIT
from boris.tools import read_only

Count = Annotated[int, Field(ge=0)]

DESCRIPTION = f"""\
Show the structure of code: what a file or a tree defines, where a name is defined, \
and where it is used. Parses the code (tree-sitter); no language server needed.

Languages: {language_names()} (by extension, or the #! line of a file without one); \
a notebook's code cells as Python.
- path is a file, no name: its outline, every definition nested as in the source, one \
a line: `kind name  start-end  signature`, indented two spaces a level; the line range \
is ready to give as a view_range.
- path is a directory, no name: a map, each file (newest first) with its top-level \
definitions.
- name: the definitions of that name across the file or tree, as \
`path:start-end  kind Qualified.name  signature`. name may be qualified \
("SessionStore.for_context"), or with regex: true an RE2 pattern on the qualified name.
- name with references: true: where the name is used as code (not in comments or \
strings), as `path:line:column  in Enclosing.definition  line`, definitions left out. \
This is syntax, not type resolution: every use of the same name is listed, whichever \
definition it refers to.
- kind ({", ".join(KINDS)}) keeps definitions of that kind only.
Files are chosen as grep chooses them: .gitignore and other ignore files, include, \
type; binary files and files over the size limit are skipped. head_limit and offset \
page through long results; output over {LIMIT} characters is cut, with a last line \
giving the offset to continue from."""

_PATH = "File or directory to look at. Defaults to the current working directory."
_NAME = (
    'A definition\'s name ("run"), a qualified name ("Server.run"), or with regex: true '
    "an RE2 pattern on qualified names. Without it: an outline or a map."
)
_KIND = f"Only definitions of this kind: {', '.join(KINDS)}."
_REFERENCES = "List where name is used as code instead of where it is defined."
_REGEX = "Read name as an RE2 regular expression on qualified names."
_INCLUDE = (
    "Only files whose path relative to the directory, or whose name, matches this glob "
    '(e.g. "*.py", "src/**/*.ts").'
)
_TYPE = "Only files of this grep type (e.g. py, js, ts, go, rust, java, c, cpp)."
_HEAD_LIMIT = "Show only the first N lines (files for a map), after offset. 0 means no limit."
_OFFSET = "Skip the first N lines (files for a map) before applying head_limit."


@tool("symbols", annotations=read_only("Show code structure"), description=DESCRIPTION)
async def symbols(
    path: Annotated[str | SkipJsonSchema[None], Field(description=_PATH)] = None,
    name: Annotated[str | SkipJsonSchema[None], Field(description=_NAME)] = None,
    kind: Annotated[str | SkipJsonSchema[None], Field(description=_KIND)] = None,
    references: Annotated[bool, Field(description=_REFERENCES)] = False,
    regex: Annotated[bool, Field(description=_REGEX)] = False,
    include: Annotated[str | SkipJsonSchema[None], Field(description=_INCLUDE)] = None,
    type: Annotated[str | SkipJsonSchema[None], Field(description=_TYPE)] = None,
    head_limit: Annotated[Count, Field(description=_HEAD_LIMIT)] = 0,
    offset: Annotated[Count, Field(description=_OFFSET)] = 0,
    session: Session = Depends(current_session),
) -> str:
    files = session.files
    stop = threading.Event()

    def run() -> str:
        from boris.structure import symbols as engine  # on first use: not needed to start

        request = engine.Request(
            path=path,
            name=name,
            kind=kind,
            references=references,
            regex=regex,
            include=include,
            file_type=type,
            head_limit=head_limit,
            offset=offset,
        )
        return engine.run(files, request, stop, session.pages)

    return await session.blocking(run, stop)
