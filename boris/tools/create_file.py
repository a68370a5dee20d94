"""The create_file tool (not implemented yet)."""

from __future__ import annotations

from fastmcp.dependencies import Depends

from boris.errors import Code, ToolFailure
from boris.session import Session, current_session
from boris.settings import Settings
from boris.tools import ToolDef


def create_file(path: str, session: Session = Depends(current_session)) -> str:
    raise ToolFailure(Code.INVALID_INPUT, "not implemented yet")


def definition(settings: Settings) -> ToolDef:
    return ToolDef(
        fn=create_file,
        title="Create or overwrite a file",
        description="Create or overwrite a file.",
        read_only=False,
    )
