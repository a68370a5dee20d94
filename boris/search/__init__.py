"""grep and glob's domain: the directory walk and its ignore files, the content search of
each file and its worker processes, each tool's call checked and run. Uses the file
tools' scope and access (boris.files) and the shared patterns (boris.patterns); imports
nothing of the MCP server."""
