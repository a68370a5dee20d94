"""notebook_edit over generated notebooks and edit sequences, against a plain model: a list
of cells (type, source, outputs, execution count, id), edited as the README says, and read
back from the file by nbformat.

Each notebook is written by Jupyter (nbformat itself) or in VS Code's style (its indent
kept), with or without cell ids. After each edit the file must be exactly what that writer
writes for the notebook it now holds: the writers are deterministic, so every byte outside
the edited cell is the writer's own, and the edited cell is written as the writer would
have written it. An edit that must fail leaves the file's bytes as they were.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
from hypothesis import event, given
from hypothesis import strategies as st

from boris.errors import BorisError
from boris.session import Session
from boris.tools import notebook_edit as notebook_edit_tool
from boris.tools import view as view_tool
from tests.support.notebooks import jupyter, vscode
from tests.support.sessions import in_loop, session_in_tempdir

notebook_edit = in_loop(notebook_edit_tool.notebook_edit)
view = in_loop(view_tool.view)

#: Characters that test the JSON escapes and nbformat's way of splitting sources into lines.
sources = st.text(
    alphabet=st.sampled_from(["a", "b", " ", "\n", "\r", "\t", '"', "\\", "é", "✓", "\u2028"]),
    max_size=12,
)

WRITERS = ["jupyter", "vscode", "vscode-2", "vscode-tab"]
INDENTS = {"vscode": " ", "vscode-2": "  ", "vscode-tab": "\t"}


@st.composite
def cells(draw: st.DrawFn, number: int, with_ids: bool) -> dict[str, Any]:
    kind = draw(st.sampled_from(["code", "markdown", "raw"]))
    cell: dict[str, Any] = {"cell_type": kind, "metadata": {}, "source": draw(sources)}
    if with_ids:
        cell["id"] = f"cell-{number}"
    if kind == "code":
        ran = draw(st.booleans())
        cell["execution_count"] = number if ran else None
        text = draw(sources)
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": text}] if ran else []
    return cell


@st.composite
def notebooks(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    with_ids = draw(st.booleans())
    count = draw(st.integers(0, 4))
    content = {
        "cells": [draw(cells(n, with_ids)) for n in range(count)],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5 if with_ids else 4,
    }
    return draw(st.sampled_from(WRITERS)), content


#: One edit: mode, the cell (a number, possibly out of range), whether to name it by its
#: id, the new source, the cell type given.
edits = st.tuples(
    st.sampled_from(["replace", "insert", "delete"]),
    st.one_of(st.integers(1, 3), st.integers(-1, 6)),
    st.booleans(),
    sources,
    st.sampled_from([None, "code", "markdown"]),
)


def write(writer: str, content: dict[str, Any]) -> str:
    if writer == "jupyter":
        return jupyter(nbformat.from_dict(json.loads(json.dumps(content))))
    return vscode(json.loads(json.dumps(content)), INDENTS[writer])


def read(text: str) -> list[dict[str, Any]]:
    """The cells as nbformat reads them, in the model's terms."""
    notebook = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    return [
        {
            "cell_type": cell.cell_type,
            "source": cell.source,
            "outputs": cell.get("outputs"),
            "execution_count": cell.get("execution_count"),
            "id": cell.get("id"),
        }
        for cell in notebook.cells
    ]


def apply(
    model: list[dict[str, Any]], edit: tuple[str, int, bool, str, str | None]
) -> tuple[list[dict[str, Any]], int | None]:
    """The model after ``edit``, and the index of a cell it inserted; None for the model
    if the edit must fail."""
    mode, number, _, source, kind = edit
    cells = [dict(cell) for cell in model]
    if mode == "insert":
        if kind is None or not 0 <= number <= len(cells):
            return model, None
        new: dict[str, Any] = {"cell_type": kind, "source": source, "outputs": None}
        new["execution_count"] = None
        if kind == "code":
            new["outputs"] = []
        cells.insert(number, {**new, "id": None})
        return cells, number
    if not 1 <= number <= len(cells):
        return model, None
    if mode == "delete":
        del cells[number - 1]
        return cells, None
    cell = cells[number - 1]
    cell["cell_type"] = kind or cell["cell_type"]
    cell["source"] = source
    code = cell["cell_type"] == "code"
    cell["outputs"], cell["execution_count"] = ([], None) if code else (None, None)
    return cells, None


def call(
    session: Session, path: Path, edit: tuple[str, int, bool, str, str | None], ids: list[Any]
) -> str:
    mode, number, by_id, source, kind = edit
    cell: int | str = number
    if by_id and 1 <= number <= len(ids) and ids[number - 1] is not None:
        cell = ids[number - 1]
    try:
        return notebook_edit(
            path=str(path),
            cell=cell,
            edit_mode=mode,  # type: ignore[arg-type]
            new_source=None if mode == "delete" else source,
            cell_type=kind,  # type: ignore[arg-type]
            session=session,
        )
    except BorisError as failure:
        return str(failure)


@given(notebooks(), st.lists(edits, min_size=1, max_size=5))
def test_edits_match_the_model_in_the_writers_style(
    case: tuple[str, dict[str, Any]], steps: list[tuple[str, int, bool, str, str | None]]
) -> None:
    writer, content = case
    with session_in_tempdir() as (session, root):
        path = root / "n.ipynb"
        text = write(writer, content)
        path.write_bytes(text.encode())
        view(path=str(path), session=session)
        model = read(text)
        for step in steps:
            before = path.read_bytes()
            expected, inserted = apply(model, step)
            result = call(session, path, step, [cell["id"] for cell in model])
            after = path.read_bytes()
            if expected is model:
                event(f"{step[0]} refused")
                assert result.startswith("[INVALID_INPUT] "), result
                assert after == before
                continue
            event(f"{step[0]} made")
            assert not result.startswith("["), result
            cells = read(after.decode())
            if inserted is not None:
                expected[inserted]["id"] = cells[inserted]["id"]
                assert (cells[inserted]["id"] is not None) == (content["nbformat_minor"] >= 5)
            assert cells == expected
            assert after.decode() == write(writer, json.loads(after))
            model = cells
