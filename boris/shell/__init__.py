"""bash and task_output's domain: running a command in its own process group, bounded
capture of its output, progress lines, background tasks. Imports nothing of the MCP
server."""
