package toolcache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNoApt is returned by AptInstall on a machine where it cannot install
// (no apt-get, or not root).
var ErrNoApt = errors.New("cannot install Debian packages here (needs apt-get as root)")

// AptInstall installs Debian packages with apt-get once per machine, for
// tools the tests need (Chromium, podman). present reports whether the tools
// are there; it is asked first, and again under the lock, since another
// process may have installed them meanwhile. Every caller, whatever the
// packages, takes the same lock (apt.lock in the cache directory): dpkg
// installs one thing at a time. apt-get waits for a dpkg lock held by
// anyone else (up to 5 minutes), and runs apt-get update when an install
// fails on stale package lists.
func AptInstall(ctx context.Context, present func() bool, logf func(string, ...any), packages ...string) error {
	if present() {
		return nil
	}
	apt, err := exec.LookPath("apt-get")
	if err != nil || os.Geteuid() != 0 {
		return fmt.Errorf("%s: %w", strings.Join(packages, ", "), ErrNoApt)
	}
	cache, err := Dir()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	unlock, err := Lock(ctx, filepath.Join(cache, "apt.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	if present() {
		return nil
	}
	run := func(args ...string) error {
		args = append([]string{"-o", "DPkg::Lock::Timeout=300"}, args...)
		cmd := exec.CommandContext(ctx, apt, args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			return fmt.Errorf("apt-get %s: %v: %s", strings.Join(args, " "), err, lines[len(lines)-1])
		}
		return nil
	}
	if logf != nil {
		logf("toolcache: installing Debian's %s with apt-get (once per machine)", strings.Join(packages, ", "))
	}
	install := append([]string{"install", "-y", "--no-install-recommends"}, packages...)
	if err := run(install...); err != nil {
		if err := run("update"); err != nil {
			return fmt.Errorf("installing %s: %w", strings.Join(packages, ", "), err)
		}
		if err := run(install...); err != nil {
			return fmt.Errorf("installing %s: %w", strings.Join(packages, ", "), err)
		}
	}
	if !present() {
		return fmt.Errorf("installed %s with apt-get, but the tools are still missing", strings.Join(packages, ", "))
	}
	return nil
}
