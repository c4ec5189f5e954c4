#!/usr/bin/env bash
# Builds the fondue-neo4j container image (the Dockerfile at the repository's
# root) without a Docker daemon when podman or buildah is installed:
#
#   docker/build-image.sh [IMAGE]        (default IMAGE: fondue-neo4j:VERSION)
#
# 1. builds the binary with the local Go toolchain: static (CGO_ENABLED=0),
#    for linux, -trimpath, the version and commit stamped
#    (-X main.version, -X main.commit; fondue-neo4j --version prints them);
# 2. copies the build host's CA bundle next to it;
# 3. builds the image from those two files (FROM scratch: nothing is pulled).
#
# Environment:
#   VERSION         the version to stamp (default: git describe --tags --always --dirty)
#   COMMIT          the commit to stamp (default: git rev-parse HEAD)
#   GOARCH          the image's architecture (default: the Go toolchain's)
#   CONTAINER_TOOL  podman, buildah or docker (default: the first on PATH, in that order)
#   CA_BUNDLE       the CA certificates (default: /etc/ssl/certs/ca-certificates.crt,
#                   Debian's and Ubuntu's package ca-certificates)
#
# Push the image with "podman push IMAGE" (or buildah push, docker push).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}
commit=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
image=${1:-fondue-neo4j:$version}
arch=${GOARCH:-$(go env GOARCH)}
ca=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
tool=${CONTAINER_TOOL:-}
if [[ -z $tool ]]; then
  for t in podman buildah docker; do
    if command -v "$t" >/dev/null 2>&1; then
      tool=$t
      break
    fi
  done
fi
if [[ -z $tool ]]; then
  echo "build-image: none of podman, buildah, docker is installed (Debian: apt-get install podman)" >&2
  exit 1
fi
if [[ ! -r $ca ]]; then
  echo "build-image: no CA bundle at $ca: install ca-certificates or set CA_BUNDLE" >&2
  exit 1
fi

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath \
  -ldflags "-s -w -X main.version=$version -X main.commit=$commit" \
  -o "$context/fondue-neo4j" ./cmd/fondue-neo4j
cp "$ca" "$context/ca-certificates.crt"
platform=()
if [[ $arch != "$(go env GOHOSTARCH)" ]]; then
  platform=(--platform "linux/$arch")
fi
"$tool" build "${platform[@]}" -f "$root/Dockerfile" -t "$image" \
  --build-arg VERSION="$version" --build-arg COMMIT="$commit" "$context"
echo "build-image: built $image (fondue-neo4j $version, commit $commit, linux/$arch, with $tool)"
