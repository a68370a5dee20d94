"""grep and glob's domain: glob patterns, the directory walk, the content search and its
worker processes. Imports nothing of the MCP server."""
