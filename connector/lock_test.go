package connector

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

func TestLock(t *testing.T) {
	reset(t)
	c, _ := open(t)
	ctx := ctxT(t, 2*time.Minute)
	l1, err := c.AcquireLock(ctx, syncjob.LockOptions{RunID: "run-1", TTL: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// Held, and kept past its TTL by the heartbeat.
	time.Sleep(4 * time.Second)
	_, err = c.AcquireLock(ctx, syncjob.LockOptions{RunID: "run-2"})
	if !errors.Is(err, syncjob.ErrLocked) || !strings.Contains(err.Error(), `another run holds the lock "fondue-neo4j": run "run-1"`) {
		t.Fatalf("second run: %v", err)
	}
	if l1.Context().Err() != nil {
		t.Fatal("lock lost while refreshed")
	}
	// Another name is another lock.
	l3, err := c.AcquireLock(ctx, syncjob.LockOptions{Name: "other", RunID: "run-3"})
	if err != nil {
		t.Fatal(err)
	}
	if err := l3.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l1.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(run(t, "MATCH (l:FondueLock) RETURN l", nil)); n != 0 {
		t.Fatalf("%d lock nodes after release", n)
	}
	l2, err := c.AcquireLock(ctx, syncjob.LockOptions{RunID: "run-2"})
	if err != nil {
		t.Fatal(err)
	}
	l2.Release(ctx)
}

// The lock of a crashed run (not refreshed any more) expires and is taken
// over; a live one is not.
func TestLockStaleTakeover(t *testing.T) {
	reset(t)
	c, _ := open(t)
	ctx := ctxT(t, time.Minute)
	if err := c.EnsureConstraint(ctx, syncjob.LockLabel, "name"); err != nil {
		t.Fatal(err)
	}
	run(t, "CREATE (:FondueLock {name: 'fondue-neo4j', owner: 'crashed', run: 'old', host: 'h', expires: timestamp() + 60000})", nil)
	if _, err := c.AcquireLock(ctx, syncjob.LockOptions{RunID: "new"}); !errors.Is(err, syncjob.ErrLocked) || !strings.Contains(err.Error(), `run "old" on host "h" (it expires in `) {
		t.Fatalf("live lock: %v", err)
	}
	run(t, "MATCH (l:FondueLock) SET l.expires = timestamp() - 1", nil)
	l, err := c.AcquireLock(ctx, syncjob.LockOptions{RunID: "new"})
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	defer l.Release(ctx)
	if r := run(t, "MATCH (l:FondueLock) RETURN l.run, count(*)", nil); len(r) != 1 || r[0].Values[0] != "new" || r[0].Values[1] != int64(1) {
		t.Fatalf("lock nodes: %v", r)
	}
}

// A lock taken over by another run (after it expired) cancels the
// holder's context.
func TestLockLost(t *testing.T) {
	reset(t)
	c, _ := open(t)
	ctx := ctxT(t, time.Minute)
	l, err := c.AcquireLock(ctx, syncjob.LockOptions{RunID: "run-1", TTL: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	run(t, "MATCH (l:FondueLock) SET l.owner = 'thief'", nil)
	select {
	case <-l.Context().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("lost lock not noticed")
	}
	if !errors.Is(context.Cause(l.Context()), syncjob.ErrLockLost) {
		t.Fatalf("cause %v", context.Cause(l.Context()))
	}
	l.Release(ctx) // does not delete the thief's lock
	if n := len(run(t, "MATCH (l:FondueLock {owner: 'thief'}) RETURN l", nil)); n != 1 {
		t.Fatal("released someone else's lock")
	}
}

// Many runs at once: exactly one gets the lock.
func TestLockConcurrent(t *testing.T) {
	reset(t)
	c, _ := open(t)
	ctx := ctxT(t, time.Minute)
	if err := c.Driver().VerifyConnectivity(ctx); err != nil { // driver v5.28.4: warm up before parallel connects
		t.Fatal(err)
	}
	const n = 6
	var wg sync.WaitGroup
	var mu sync.Mutex
	var won []*Lock
	var lost int
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := c.AcquireLock(ctx, syncjob.LockOptions{RunID: "r"})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won = append(won, l)
			case errors.Is(err, syncjob.ErrLocked):
				lost++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if len(won) != 1 || lost != n-1 {
		t.Fatalf("%d won, %d lost", len(won), lost)
	}
	won[0].Release(ctx)
}

// deadPID returns the pid of a process that has just exited (and was
// reaped): no process of this pid namespace has it.
func deadPID(t *testing.T) int64 {
	t.Helper()
	for range 10 {
		cmd := exec.Command("true")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		if pid := cmd.Process.Pid; processGone(pid) {
			return int64(pid)
		}
	}
	t.Fatal("every exited pid was reused at once")
	return 0
}

// A lock whose holder is provably gone (it ran on this host, since this
// boot, in this pid namespace, and its pid is not running) is taken over at
// once, with a warning; a holder that may be alive keeps its lock until it
// expires: on another host, boot or pid namespace, with a live pid, or
// recorded by a version that did not record where it ran.
func TestLockTakeoverGoneHolder(t *testing.T) {
	reset(t)
	c, logs := open(t)
	ctx := ctxT(t, time.Minute)
	if err := c.EnsureConstraint(ctx, syncjob.LockLabel, "name"); err != nil {
		t.Fatal(err)
	}
	me := thisHost()
	if me.boot == "" || me.pidNS == "" {
		t.Fatalf("no boot id or pid namespace on this host: %+v", me)
	}
	dead := deadPID(t)
	plant := func(props map[string]any) {
		run(t, "MATCH (l:FondueLock) DELETE l", nil)
		run(t, "CREATE (l:FondueLock {name: 'fondue-neo4j', owner: 'crashed-owner', run: 'crashed-run', expires: timestamp() + 600000}) SET l += $props",
			map[string]any{"props": props})
	}
	here := map[string]any{"host": me.host, "boot_id": me.boot, "pid_ns": me.pidNS, "pid": dead}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range here {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for name, props := range map[string]map[string]any{
		"another host":          with("host", me.host+"-other"),
		"another boot":          with("boot_id", "00000000-0000-0000-0000-000000000000"),
		"another pid namespace": with("pid_ns", "pid:[1]"),
		"a live pid":            with("pid", int64(os.Getpid())),
		"no boot id recorded":   with("boot_id", nil),
		"no pid recorded":       with("pid", nil),
	} {
		plant(props)
		if _, err := c.AcquireLock(ctx, syncjob.LockOptions{RunID: "next"}); !errors.Is(err, syncjob.ErrLocked) || !strings.Contains(err.Error(), `run "crashed-run"`) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if strings.Contains(logs.String(), "took over") {
		t.Fatalf("took over a lock whose holder may be alive:\n%s", logs)
	}
	plant(here)
	l, err := c.AcquireLock(ctx, syncjob.LockOptions{RunID: "resumed"})
	if err != nil {
		t.Fatalf("the lock of a holder that is gone: %v", err)
	}
	defer l.Release(ctx)
	if !strings.Contains(logs.String(), "took over the lock of a run that is no longer running") || !strings.Contains(logs.String(), "run=crashed-run") {
		t.Fatalf("no warning about the takeover:\n%s", logs)
	}
	r := run(t, "MATCH (l:FondueLock) RETURN l.run, l.pid, l.boot_id, l.pid_ns, l.host", nil)
	if len(r) != 1 || r[0].Values[0] != "resumed" || r[0].Values[1] != int64(os.Getpid()) || r[0].Values[2] != me.boot ||
		r[0].Values[3] != me.pidNS || r[0].Values[4] != me.host {
		t.Fatalf("lock nodes: %v", r)
	}
}
