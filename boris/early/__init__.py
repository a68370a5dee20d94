"""Answers given over STDIO while the app is still loading.

Spawned over STDIO, Boris is asked for its ``initialize`` (or, by a client of the
2026-07-28 protocol, ``server/discover``) and ``tools/list`` right away, while fastmcp,
the MCP SDK and pydantic take most of a second to import. Those answers depend on
nothing but the settings and the protocol version asked for, so they are answered at
once from a file built from the app itself (``answers.json``, see :mod:`.generate`),
while the app loads in a thread; everything else waits for the app and is then served
as it always is (:mod:`.stdio`).

- :mod:`.settings` reads what those answers need of the flags and ``BORIS_*``
  variables without pydantic, and only where the meaning is certain; anything else
  and the server starts as before.
- :mod:`.answers` puts an answer together from ``answers.json`` and the settings, with
  the very functions the app describes its tools with (boris.descriptions).
- :mod:`.responder` decides which messages to answer, as the SDK's server would, and
  what to hand over to the server once the app is ready.
- :mod:`.schema` checks a request's parameters against the JSON Schemas of the SDK's
  own models, stored in ``answers.json``.

Nothing here (but :mod:`.generate`) imports fastmcp, the SDK, pydantic or anyio.
"""
