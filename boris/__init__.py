"""Boris: an MCP server that gives any AI agent the tools of a coding agent."""

# The one definition of the version: pyproject.toml reads it from here (setuptools'
# ``attr``, without importing the package), so that the server need not load
# importlib.metadata to name itself in its first answer.
__version__ = "0.1.0"
