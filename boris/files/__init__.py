"""The file tools' domain: which paths are in scope, opening them safely, showing their
lines, and editing them without losing a byte. Imports nothing of the MCP server."""
