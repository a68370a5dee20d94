"""The view tool (not implemented yet)."""

from __future__ import annotations

from fastmcp.dependencies import Depends

from boris.errors import Code, ToolFailure
from boris.session import Session, current_session
from boris.settings import Settings
from boris.tools import ToolDef


def view(path: str, session: Session = Depends(current_session)) -> str:
    raise ToolFailure(Code.INVALID_INPUT, "not implemented yet")


def definition(settings: Settings) -> ToolDef:
    return ToolDef(
        fn=view,
        title="View a file or directory",
        description="View a file or directory.",
        read_only=True,
    )
