"""The tools, one module each: a plain typed function carrying fastmcp's ``tool``
decorator, which hands its arguments to the domain and returns the text."""
