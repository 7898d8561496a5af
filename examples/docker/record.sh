#!/usr/bin/env bash
# record.sh: record every docker cassette with the real docker CLI against a
# real Docker-compatible engine, through cassette's reverse proxy (the CLI
# reaches it through DOCKER_HOST; see real.env in cassette.yaml).
#
#   sudo apt-get install podman docker.io   # podman serves the Docker Engine API
#   ./record.sh
#
# Without DOCKER_SOCKET, it starts a throw-away podman API service on a unix
# socket, with storage, run and event files of its own in a temporary
# directory, and stops it at the end. DOCKER_SOCKET=unix:///path records
# against an engine already running, which must be fresh (no images,
# containers or volumes): the scenarios build their state in order.
# CASSETTE names the cassette binary (default: built from this checkout).
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${CASSETTE:-}" ]; then
  (cd ../.. && go build -o examples/docker/.cassette/bin/cassette ./cmd/cassette)
  CASSETTE=$PWD/.cassette/bin/cassette
fi
# The docker CLI: the one the cassettes were recorded with, by version (the
# Docker-Client/VERSION it sent), whichever of the dockers in PATH it is: a
# newer CLI ahead of Debian's in PATH (Docker 28 in /usr/local/bin) makes
# other calls and the fake would drift. DOCKER_CLI names another one.
want=$(sed -n 's|.*Docker-Client/\([^ ]*\).*|\1|p' cassettes/docker/version.yaml 2>/dev/null | head -n 1 || true)
want=${want:-20.10.24+dfsg1}
cli=${DOCKER_CLI:-}
if [ -z "$cli" ]; then
  found=
  while read -r d; do
    v=$("$d" --version 2>/dev/null || true)
    found="$found  $d: ${v:-no version}"$'\n'
    case "$v" in *" ${want%%+*}+"*|*" $want,"*) cli=$d; break ;; esac
  done < <(type -ap docker)
  [ -n "$cli" ] || { printf 'no docker CLI of version %s in PATH (the cassettes were recorded with it: sudo apt-get install docker.io), or name one with DOCKER_CLI=; found:\n%s' "$want" "$found" >&2; exit 3; }
fi
mkdir -p .cassette/cli
ln -sf "$cli" .cassette/cli/docker # real.command is `docker`: this one, first in PATH
PATH=$PWD/.cassette/cli:$PATH
echo "recording with $cli ($("$cli" --version))" >&2
engine_pid='' engine_dir=''
cleanup() {
  if [ -n "$engine_pid" ]; then kill "$engine_pid" 2>/dev/null; wait "$engine_pid" 2>/dev/null || true; fi
  if [ -n "$engine_dir" ]; then rm -rf "$engine_dir"; fi
}
trap cleanup EXIT

socket=${DOCKER_SOCKET:-}
if [ -z "$socket" ]; then
  command -v podman >/dev/null || { echo "podman is not installed: sudo apt-get install podman" >&2; exit 3; }
  engine_dir=$(mktemp -d)
  socket=unix://$engine_dir/podman.sock
  podman --root "$engine_dir/root" --runroot "$engine_dir/run" --tmpdir "$engine_dir/tmp" \
    --storage-driver vfs --events-backend file --cgroup-manager cgroupfs \
    system service --time=0 "$socket" >"$engine_dir/podman.log" 2>&1 &
  engine_pid=$!
fi
for _ in $(seq 100); do
  curl -sf --unix-socket "${socket#unix://}" http://localhost/_ping >/dev/null 2>&1 && break
  if [ -n "$engine_pid" ] && ! kill -0 "$engine_pid" 2>/dev/null; then cat "$engine_dir/podman.log" >&2; exit 3; fi
  sleep 0.1
done
curl -sf --unix-socket "${socket#unix://}" http://localhost/_ping >/dev/null || { echo "no engine answers at $socket" >&2; exit 3; }

# The image the scenarios import: one small file, built byte for byte the
# same on every run (the engine cannot run containers on every machine, so
# it holds no program).
mkdir -p .cassette/work/rootfs/etc
printf 'hello from the cassette docker example\n' >.cassette/work/rootfs/etc/motd
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C .cassette/work/rootfs -cf - . | gzip -n >.cassette/work/rootfs.tar.gz
mkdir -p .cassette/work/.docker

rec() { "$CASSETTE" record --quiet --base-url "$socket" --adapter docker --scenario "$@"; }
# In order: the calls that build the engine's state (--mutating: refresh
# does not re-run them) between read-only ones. Podman logs an import's
# `tag` event a moment after the import returns: two reads separate the
# import from the next change, so that the event stream keeps the order of
# the calls.
rec version         -- docker version --format '{{.Server.Version}} API {{.Server.APIVersion}} (minimum {{.Server.MinAPIVersion}}) {{.Server.Os}}/{{.Server.Arch}}'
rec import --mutating -- docker import --message 'cassette example' rootfs.tar.gz example/motd:1
rec image-inspect   -- docker image inspect --format '{{json .RepoTags}} {{.Comment}} {{.Os}}/{{.Architecture}} {{.Size}} {{.Config.Labels}}' example/motd:1
rec image-missing   -- docker image inspect example/nothing:1
rec create --mutating -- docker create --name web --label app=web example/motd:1 /bin/sh -c 'cat /etc/motd'
rec volume-create --mutating -- docker volume create --label app=web data
rec info            -- docker info --format '{{.ServerVersion}} driver={{.Driver}} images={{.Images}} containers={{.Containers}} stopped={{.ContainersStopped}}'
rec images          -- docker images --format '{{json .}}'
rec ps-all          -- docker ps --all --format '{{json .}}'
rec volume-ls       -- docker volume ls --format '{{json .}}'
rec network-ls      -- docker network ls --format '{{json .}}'
rec events          -- docker events --since 0 --until=-2s --format '{{json .}}'
