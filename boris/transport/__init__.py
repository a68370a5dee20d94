"""How clients reach the app: STDIO (one client) and streamable HTTP (many sessions)."""
