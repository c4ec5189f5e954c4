package toolcache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testCache returns a fresh directory inside the real cache directory (the
// tests write nowhere else) and removes it at the end.
func testCache(t *testing.T) string {
	t.Helper()
	root, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(root, "toolcache-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestDirHonoursEnv(t *testing.T) {
	t.Setenv(EnvDir, "relative/cache")
	d, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(d) || filepath.Base(d) != "cache" {
		t.Fatalf("Dir() = %q", d)
	}
}

func TestEnsureBuildsOnceAcrossConcurrentCallers(t *testing.T) {
	cache := testCache(t)
	var builds atomic.Int32
	build := func(ctx context.Context, staging, scratch string) error {
		builds.Add(1)
		time.Sleep(200 * time.Millisecond) // widen the race window
		if err := os.WriteFile(filepath.Join(scratch, "download"), []byte("x"), 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(staging, "tool"), []byte("ok"), 0o644)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	dirs := make([]string, 8)
	errs := make([]error, 8)
	for i := range dirs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			dirs[i], errs[i] = Ensure(ctx, cache, "tool-v1", "test tool", build)
		}(i)
	}
	wg.Wait()
	for i := range dirs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if dirs[i] != filepath.Join(cache, "tool-v1") {
			t.Fatalf("caller %d got %q", i, dirs[i])
		}
	}
	if n := builds.Load(); n != 1 {
		t.Fatalf("built %d times, want once", n)
	}
	if b, err := os.ReadFile(filepath.Join(cache, "tool-v1", "tool")); err != nil || string(b) != "ok" {
		t.Fatalf("installed file: %q %v", b, err)
	}
	// Staging and scratch directories are gone.
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		if e.Name() != "tool-v1" && e.Name() != "tool-v1.lock" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestEnsureFailedBuildLeavesNothing(t *testing.T) {
	cache := testCache(t)
	ctx := context.Background()
	boom := errors.New("download failed")
	_, err := Ensure(ctx, cache, "tool", "", func(ctx context.Context, staging, scratch string) error {
		os.WriteFile(filepath.Join(staging, "half"), nil, 0o644)
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if Installed(filepath.Join(cache, "tool")) {
		t.Fatal("a failed build counts as installed")
	}
	// An incomplete directory (no marker) is replaced by the next build.
	os.MkdirAll(filepath.Join(cache, "tool", "junk"), 0o755)
	dir, err := Ensure(ctx, cache, "tool", "", func(ctx context.Context, staging, scratch string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "junk")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the incomplete directory was not replaced")
	}
}

func TestLockWaitsAndHonoursContext(t *testing.T) {
	path := filepath.Join(testCache(t), fmt.Sprintf("x-%d.lock", os.Getpid()))
	ctx := context.Background()
	unlock, err := Lock(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := Lock(short, path); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second holder got the lock: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := Lock(ctx, path)
		if err == nil {
			u()
		}
		got <- err
	}()
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-got:
		t.Fatalf("the waiter got the lock while it was held (%v)", err)
	default:
	}
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter did not get the lock after unlock")
	}
}

// TestAptInstallPresentOrUnavailable: tools that are there need no apt-get;
// without apt-get the error names the packages and is ErrNoApt. (The
// install itself is exercised by the tests that need Chromium and podman.)
func TestAptInstallPresentOrUnavailable(t *testing.T) {
	ctx := context.Background()
	asked := 0
	if err := AptInstall(ctx, func() bool { asked++; return true }, t.Logf, "no-such-package"); err != nil || asked != 1 {
		t.Fatalf("tools present: %v after %d checks, want nil after 1", err, asked)
	}
	t.Setenv("PATH", t.TempDir())
	err := AptInstall(ctx, func() bool { return false }, t.Logf, "no-such-package")
	if !errors.Is(err, ErrNoApt) || !strings.Contains(err.Error(), "no-such-package") {
		t.Fatalf("no apt-get: %v, want ErrNoApt naming the package", err)
	}
}
