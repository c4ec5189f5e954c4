// Package imagetest tests the fondue-neo4j container image: it builds the
// Dockerfile with docker/build-image.sh (the local Go toolchain, then
// podman; no Docker daemon, no registry) and runs the image with podman:
// --version, the README's first command, and the Kubernetes CronJob of
// deploy/kubernetes (its arguments, environment, mounts and security
// context; its Pushgateway a stand-in) against a live test server on
// loopback, on both server versions (internal/testenv/neo4jtest).
//
// podman and runc are installed with apt-get once per machine when missing
// (internal/testenv/toolcache.AptInstall). The image is built into a private,
// temporary container storage (the vfs driver, which works on any file
// system), removed at the end.
package imagetest
