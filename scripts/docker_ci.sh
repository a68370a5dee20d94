#!/usr/bin/env bash
# A Docker daemon and the images tests/e2e/test_docker.py needs, on a Debian machine with
# root and no image registry (CI):
#
#   scripts/docker_ci.sh up     install Debian's docker.io and debootstrap if missing, start
#                               dockerd unless one answers, and make the images from
#                               Debian's packages: boris-test/debian-python3 (minbase with
#                               python3 only) and the Dockerfile's base image (python:3.11-slim:
#                               that plus pip, venv and the host's CA bundle)
#   scripts/docker_ci.sh down   stop the dockerd that 'up' started, by its pid
#
# Whatever cannot be done is said on stderr and skipped (exit 0): the Docker tests then
# skip themselves, saying why. Every step that waits on the network is bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."

STATE=build/docker-ci
PLAIN=boris-test/debian-python3
SUITE=bookworm  # python:3.11-slim is Debian bookworm's Python 3.11
mkdir -p "$STATE"

say() { echo "docker_ci: $*" >&2; }

daemon_answers() { timeout 20 docker info >/dev/null 2>&1; }

mirror() {  # the host's Debian mirror, as apt knows it
  local uri
  uri=$(grep -hoE '^URIs: *\S+' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 | awk '{print $2}' || true)
  [ -n "$uri" ] || uri=$(grep -hoE '^deb +\S+' /etc/apt/sources.list 2>/dev/null | head -1 | awk '{print $2}' || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

install() {
  command -v dockerd >/dev/null && command -v debootstrap >/dev/null && command -v docker >/dev/null \
    && return 0
  if ! command -v apt-get >/dev/null || [ "$(id -u)" != 0 ]; then
    say "docker.io/debootstrap missing and no apt-get as root to install them; skipping"
    return 1
  fi
  # Bounded: an unreachable mirror must not hold the whole run.
  if ! (timeout 300 apt-get update -q && DEBIAN_FRONTEND=noninteractive timeout 600 \
        apt-get install -y -q --no-install-recommends docker.io debootstrap) </dev/null >"$STATE/apt.log" 2>&1; then
    say "could not install docker.io and debootstrap (see $STATE/apt.log); skipping"
    tail -5 "$STATE/apt.log" >&2
    return 1
  fi
}

start_daemon() {
  daemon_answers && return 0
  say "starting dockerd"
  setsid dockerd >"$STATE/dockerd.log" 2>&1 </dev/null &
  echo $! >"$STATE/dockerd.pid"
  for _ in $(seq 60); do
    daemon_answers && return 0
    sleep 1
  done
  say "dockerd did not answer within 60 s (see $STATE/dockerd.log); skipping"
  tail -5 "$STATE/dockerd.log" >&2
  return 1
}

has_image() { [ -n "$(docker images --quiet "$1")" ]; }

make_plain() {
  has_image "$PLAIN" && return 0
  local root="$STATE/rootfs"
  rm -rf "$root"
  say "debootstrap $SUITE (minbase, python3) from $(mirror)"
  if ! timeout 600 debootstrap --variant=minbase --include=python3 "$SUITE" "$root" "$(mirror)" \
      >"$STATE/debootstrap.log" 2>&1; then
    say "debootstrap failed (see $STATE/debootstrap.log); skipping"
    tail -5 "$STATE/debootstrap.log" >&2
    return 1
  fi
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | docker import --change 'CMD ["python3"]' - "$PLAIN" >/dev/null
  rm -rf "$root"
}

make_bases() {  # every image the Dockerfile starts FROM, other than its own stages
  local base context="$STATE/base"
  for base in $(awk 'toupper($1) == "FROM" {print $2}' Dockerfile | sort -u); do
    has_image "$base" && continue
    rm -rf "$context" && mkdir -p "$context"
    cp /etc/ssl/certs/ca-certificates.crt "$context/"  # so pip inside trusts the same roots
    cat >"$context/Dockerfile" <<EOF
FROM $PLAIN
RUN apt-get update \\
    && apt-get install -y --no-install-recommends python3-pip python3-venv ca-certificates passwd \\
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb \\
    && rm -f /usr/lib/python3.*/EXTERNALLY-MANAGED
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
CMD ["python3"]
EOF
    say "making $base from Debian's packages"
    if ! DOCKER_BUILDKIT=0 timeout 600 docker build --quiet --tag "$base" "$context" \
        >"$STATE/base.log" 2>&1; then
      say "could not make $base (see $STATE/base.log); skipping"
      tail -5 "$STATE/base.log" >&2
      return 1
    fi
  done
}

stop_daemon() {
  [ -f "$STATE/dockerd.pid" ] || return 0
  local pid
  pid=$(cat "$STATE/dockerd.pid")
  rm -f "$STATE/dockerd.pid"
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 30); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 1
  done
  say "dockerd ($pid) did not stop within 30 s; killing it"
  kill -KILL "$pid" 2>/dev/null || true
}

case "${1:-}" in
  up) install && start_daemon && make_plain && make_bases || true ;;
  down) stop_daemon ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
