"""Where Boris meets a library below its public API: one module per library, the only
places in Boris that name a library's private parts.

Each use says why no public way does, and what the private way is worth where a public one
exists; ``tests/seams/`` holds a test per use that fails when the library changes under
it, and docs/DEVELOPING.md "Upgrading fastmcp or the MCP SDK" says which. Starlette needs none:
Boris uses it through its public API only. ``tests/test_layering.py`` checks that no other
module names a private attribute of fastmcp, the MCP SDK or Starlette.
"""
