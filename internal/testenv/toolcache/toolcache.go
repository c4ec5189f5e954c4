// Package toolcache installs test tools (the Neo4j test server, the Cypher
// linter's npm packages) once per machine into a shared cache directory,
// safely when several test processes install at the same time.
//
// An installation is built in a private staging directory, marked complete,
// and renamed into place while an exclusive flock is held; readers only
// trust directories that carry the completion marker.
package toolcache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// EnvDir overrides the cache directory.
const EnvDir = "TESTENV_CACHE"

// ReadyMarker is the file that marks a complete installation.
const ReadyMarker = ".fondue-installed"

// Dir returns the cache directory: $TESTENV_CACHE, else
// $HOME/.cache/fondue-neo4j.
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return filepath.Abs(d)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: set %s or HOME: %w", EnvDir, err)
	}
	return filepath.Join(home, ".cache", "fondue-neo4j"), nil
}

// Installed reports whether dir holds a complete installation.
func Installed(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ReadyMarker))
	return err == nil
}

// Ensure returns cacheDir/name, building it first if it is not installed.
// build fills the empty staging directory it is given (which lives in
// cacheDir, so the final rename is atomic); scratch is a second empty
// directory for downloads and temporary files, removed afterwards. The
// marker's content is note. Concurrent callers, in any process, build once.
func Ensure(ctx context.Context, cacheDir, name, note string, build func(ctx context.Context, staging, scratch string) error) (string, error) {
	final := filepath.Join(cacheDir, name)
	if Installed(final) {
		return final, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("create cache directory: %w", err)
	}
	unlock, err := Lock(ctx, filepath.Join(cacheDir, name+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if Installed(final) { // another process finished while we waited
		return final, nil
	}
	tmp, err := os.MkdirTemp(cacheDir, ".install-"+name+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	staging := filepath.Join(tmp, name)
	scratch := filepath.Join(tmp, "scratch")
	for _, d := range []string{staging, scratch} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return "", err
		}
	}
	if err := build(ctx, staging, scratch); err != nil {
		return "", err
	}
	marker := note + "\ninstalled " + time.Now().UTC().Format(time.RFC3339) + "\n"
	if err := os.WriteFile(filepath.Join(staging, ReadyMarker), []byte(marker), 0o644); err != nil {
		return "", err
	}
	// A directory without the marker is a leftover of an interrupted
	// install; we hold the lock, so it can go.
	if _, err := os.Stat(final); err == nil {
		if err := os.RemoveAll(final); err != nil {
			return "", fmt.Errorf("remove incomplete install %s: %w", final, err)
		}
	}
	if err := os.Rename(staging, final); err != nil {
		return "", fmt.Errorf("move the installation into place: %w", err)
	}
	return final, nil
}

// Lock takes an exclusive flock on path, polling so that ctx can cancel the
// wait. The lock dies with the process, so a crashed installer never
// blocks the next one.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("flock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for another process installing into the cache (lock %s): %w", path, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
