#!/bin/sh
# sbom.sh ARTIFACT DOCUMENT: writes a CycloneDX SBOM (JSON) of a Go binary,
# read from the build information the binary embeds, with cyclonedx-gomod
# pinned in this module (tools/go.mod). GoReleaser's sboms step runs it
# (.goreleaser.yaml) in place of syft, GoReleaser's default, which Debian
# does not package.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
case $1 in /*) artifact=$1 ;; *) artifact=$PWD/$1 ;; esac
case $2 in /*) doc=$2 ;; *) doc=$PWD/$2 ;; esac
cd "$here" && exec go tool cyclonedx-gomod bin -json -output "$doc" "$artifact"
