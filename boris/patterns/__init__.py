"""Patterns the file tools and the search tools share: glob patterns (deny patterns,
glob, grep's include) and grep's regular expressions on RE2 (also the near-miss hint's
whitespace-blind line search). Imports nothing of Boris's other packages."""
