# The fondue-neo4j image: the static binary on an empty base, with the CA
# certificates that neo4j+s:// and bolt+s:// need, run as a non-root user
# (numeric, so that Kubernetes' runAsNonRoot can check it).
#
# docker/build-image.sh prepares the build context and builds this file with
# podman, buildah or docker (no Docker daemon needed, nothing is pulled):
#
#   docker/build-image.sh registry.example.com/fondue-neo4j:v1.2.0
#
# The context holds two files: fondue-neo4j, built by the local Go toolchain
# (CGO_ENABLED=0, version and commit stamped with -X main.version and
# -X main.commit), and ca-certificates.crt, the build host's CA bundle
# (Debian's ca-certificates).
FROM scratch
ARG VERSION=unknown
ARG COMMIT=unknown
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY fondue-neo4j /usr/local/bin/fondue-neo4j
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/fondue-neo4j"]
LABEL org.opencontainers.image.title="fondue-neo4j" \
      org.opencontainers.image.description="Finds and splits ambiguous nodes in Neo4j graphs" \
      org.opencontainers.image.source="https://github.com/fondue-neo4j/fondue-neo4j" \
      org.opencontainers.image.version="$VERSION" \
      org.opencontainers.image.revision="$COMMIT"
