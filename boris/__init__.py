"""Boris: an MCP server that gives any AI agent the tools of a coding agent."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("boris")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"
