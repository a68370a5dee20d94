"""The glob tool (not implemented yet)."""

from __future__ import annotations

from fastmcp.dependencies import Depends

from boris.errors import Code, ToolFailure
from boris.session import Session, current_session
from boris.settings import Settings
from boris.tools import ToolDef


def glob(path: str, session: Session = Depends(current_session)) -> str:
    raise ToolFailure(Code.INVALID_INPUT, "not implemented yet")


def definition(settings: Settings) -> ToolDef:
    return ToolDef(
        fn=glob, title="Find files by name", description="Find files by name.", read_only=True
    )
