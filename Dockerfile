# Boris in a container: serves MCP over HTTP on :8080 for the project mounted at /workspace.
#   docker build -t boris .
#   docker run -p 8080:8080 -v "$PWD":/workspace boris --generate-token

# --- build: the same script that builds release zipapps -----------------------------------
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md build_zipapp.sh ./
COPY boris ./boris
COPY scripts ./scripts
# The zipapp for this machine's platform (it runs under any CPython 3.10-3.14).
RUN ./build_zipapp.sh && mv dist/boris-linux-*.pyz dist/boris.pyz

# --- run: a slim Python with only the zipapp ------------------------------------------------
FROM python:3.11-slim
COPY --from=build /src/dist/boris.pyz /usr/local/bin/boris.pyz
# tini runs as PID 1 and reaps the orphans that commands leave behind (`make &`, daemons);
# without it they would pile up as zombies for the life of the container.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 boris \
    && mkdir -p /workspace \
    && chown boris:boris /workspace
USER boris
ENV SHIV_ROOT=/home/boris/.shiv
# Unpack the zipapp once at build time, and start the server once (stdin closed: it exits
# at once) so that the bytecode of what it imports is cached: containers start warm.
RUN python3 /usr/local/bin/boris.pyz --transport stdio </dev/null >/dev/null
WORKDIR /workspace
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/health', timeout=4)"]
# Listens on every interface of the container, so Boris starts only with --token or
# --generate-token given after the image name (or --allow-unauthenticated).
ENTRYPOINT ["/usr/bin/tini", "--", "python3", "/usr/local/bin/boris.pyz", "--transport", "http", "--host", "0.0.0.0", "--port", "8080"]
