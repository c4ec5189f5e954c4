package connector

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"os"
	"sync"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Lock is a held lock: a (:FondueLock {name}) node with its owner and an
// expiry time in server epoch milliseconds.
type Lock struct {
	c      *Conn
	o      syncjob.LockOptions
	owner  string
	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   chan struct{}
	// hbCtx bounds the heartbeat's refreshes; Release cancels it, so that
	// a refresh stuck on a dead server does not hold up the exit.
	hbCtx    context.Context
	hbCancel context.CancelFunc
	done     chan struct{}
	once     sync.Once
}

// processHost says where a process runs: its host name, the boot id of
// its kernel and its pid namespace. A lock records its holder's, with its
// pid: a holder on the same host, boot and pid namespace whose pid is not
// running any more is provably gone (crashed, killed).
type processHost struct{ host, boot, pidNS string }

func thisHost() processHost {
	host, _ := os.Hostname()
	return processHost{host: host, boot: bootID(), pidNS: pidNamespace()}
}

// gone reports whether a lock holder that ran on host h with pid is
// provably gone: same host, same boot, same pid namespace as this process
// (all known), and no process with that pid.
func (me processHost) gone(h processHost, pid int64) bool {
	return me.boot != "" && me.pidNS != "" && h == me && pid > 0 && pid <= 1<<31 && processGone(int(pid))
}

// AcquireLock takes the lock in one write transaction, or fails with
// ErrLocked saying which run holds it and for how long. A lock whose
// holder stopped refreshing it (expired) is taken over; so is, at once,
// the lock of a holder that is provably gone (it ran on this host, since
// the last boot, in this pid namespace, and its pid is not running), with
// a warning. The returned lock's Context is ctx, cancelled with
// ErrLockLost if the lock is lost.
func (c *Conn) AcquireLock(ctx context.Context, o syncjob.LockOptions) (*Lock, error) {
	if o.Name == "" {
		o.Name = syncjob.DefaultLockName
	}
	if o.TTL <= 0 {
		o.TTL = syncjob.DefaultLockTTL
	}
	if o.TTL < syncjob.MinLockTTL {
		return nil, errorf(syncjob.ErrInvalid, nil, "LockOptions.TTL %s is too short (at least %s)", o.TTL, syncjob.MinLockTTL)
	}
	if err := c.EnsureConstraint(ctx, syncjob.LockLabel, "name"); err != nil {
		return nil, err
	}
	me := thisHost()
	var rnd [6]byte
	rand.Read(rnd[:])
	l := &Lock{c: c, o: o, owner: fmt.Sprintf("%s@%s/%d/%s", o.RunID, me.host, os.Getpid(), hex.EncodeToString(rnd[:])),
		stop: make(chan struct{}), done: make(chan struct{})}
	q, err := c.render("lock_acquire", cypher.Vars{Label: syncjob.LockLabel})
	if err != nil {
		return nil, err
	}
	acquire := func(takeover string) (*neo4j.Record, error) {
		res, err := c.query(ctx, q, map[string]any{
			"name": o.Name, "owner": l.owner, "run": o.RunID, "host": me.host, "boot": me.boot, "pidns": me.pidNS,
			"pid": int64(os.Getpid()), "ttl": o.TTL.Milliseconds(), "takeover": takeover,
		}, true)
		if err != nil {
			return nil, c.classify(err, "take the lock")
		}
		if len(res.Records) != 1 {
			return nil, fmt.Errorf("take the lock: %d rows", len(res.Records))
		}
		return res.Records[0], nil
	}
	r, err := acquire("")
	if err != nil {
		return nil, err
	}
	free, _, _ := neo4j.GetRecordValue[bool](r, "free")
	if !free {
		// A holder that is provably gone is taken over at once, if it
		// still holds the lock (the owner is compared in the transaction).
		holder, _, _ := neo4j.GetRecordValue[string](r, "owner")
		h, _, _ := neo4j.GetRecordValue[string](r, "host")
		boot, _, _ := neo4j.GetRecordValue[string](r, "boot")
		pidNS, _, _ := neo4j.GetRecordValue[string](r, "pidns")
		pid, _, _ := neo4j.GetRecordValue[int64](r, "pid")
		if holder != "" && me.gone(processHost{host: h, boot: boot, pidNS: pidNS}, pid) {
			run, _, _ := neo4j.GetRecordValue[string](r, "run")
			if r, err = acquire(holder); err != nil {
				return nil, err
			}
			if free, _, _ = neo4j.GetRecordValue[bool](r, "free"); free {
				c.log.Warn("took over the lock of a run that is no longer running (same host, same boot, its process is gone)",
					"lock", o.Name, "run", run, "host", h, "pid", pid)
			}
		}
	}
	if !free {
		run, _, _ := neo4j.GetRecordValue[string](r, "run")
		h, _, _ := neo4j.GetRecordValue[string](r, "host")
		remaining, _, _ := neo4j.GetRecordValue[int64](r, "remaining")
		return nil, errorf(syncjob.ErrLocked, nil, "another run holds the lock %q: run %q on host %q (it expires in %s unless that run refreshes it; a crashed run's lock expires after its TTL)",
			o.Name, run, h, (time.Duration(remaining) * time.Millisecond).Round(time.Second))
	}
	c.log.Debug("lock taken", "lock", o.Name, "ttl", o.TTL.String())
	l.ctx, l.cancel = context.WithCancelCause(ctx)
	l.hbCtx, l.hbCancel = context.WithCancel(context.WithoutCancel(ctx))
	c.fenceMu.Lock()
	c.fence = l
	c.fenceMu.Unlock()
	go l.heartbeat()
	return l, nil
}

// Context is cancelled if the lock is lost: with cause ErrLockLost when
// another run took it over, or an ErrUnreachable error (wrapping
// ErrLockLost and the driver's error) when the server could not be reached
// to refresh it.
func (l *Lock) Context() context.Context { return l.ctx }

func (l *Lock) heartbeat() {
	defer close(l.done)
	every := l.o.TTL / 3
	t := time.NewTicker(every)
	defer t.Stop()
	last := time.Now()
	q, _ := l.c.render("lock_refresh", cypher.Vars{Label: syncjob.LockLabel})
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(l.hbCtx, every)
		res, err := l.c.query(ctx, q, map[string]any{
			"name": l.o.Name, "owner": l.owner, "ttl": l.o.TTL.Milliseconds(),
		}, true)
		cancel()
		switch {
		case l.hbCtx.Err() != nil:
			return // Release stopped us mid-refresh
		case err == nil && len(res.Records) == 1:
			last = time.Now()
		case err == nil:
			l.c.log.Error("lost the lock: it expired and another run took it over", "lock", l.o.Name)
			l.cancel(syncjob.ErrLockLost)
			return
		default:
			l.c.log.Warn("could not refresh the lock", "lock", l.o.Name, "error", err.Error())
			if time.Since(last) >= l.o.TTL {
				l.c.log.Error("lost the lock: not refreshed within its TTL", "lock", l.o.Name, "ttl", l.o.TTL.String())
				// The cause is the server, not another run.
				l.cancel(errorf(syncjob.ErrUnreachable, errors.Join(syncjob.ErrLockLost, err),
					"lost the connection to Neo4j at %s: the lock could not be refreshed for %s (its TTL), so the run stopped (%s)",
					l.c.cfg.URI, l.o.TTL, oneLine(err.Error())))
				return
			}
		}
	}
}

// Release stops refreshing the lock and deletes it (if it is still ours).
// It works even when the lock's context was cancelled.
func (l *Lock) Release(ctx context.Context) error {
	var err error
	l.once.Do(func() {
		close(l.stop)
		l.hbCancel()
		<-l.done
		l.c.fenceMu.Lock()
		if l.c.fence == l {
			l.c.fence = nil
		}
		l.c.fenceMu.Unlock()
		// The release gets what is left of the run's retry budget: a run
		// that lost the server tries once, briefly (the lock then expires
		// by itself after lock.ttl, or is taken over at once by the next
		// run on this host).
		limit := l.c.cfg.ConnectTimeout + l.c.retryLeft()
		var cerr *syncjob.Error
		if cause := context.Cause(l.ctx); errors.As(cause, &cerr) && errors.Is(cerr, syncjob.ErrUnreachable) {
			limit = l.c.cfg.ConnectTimeout
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
		defer cancel()
		q, rerr := l.c.render("lock_release", cypher.Vars{Label: syncjob.LockLabel})
		if rerr != nil {
			err = rerr
			return
		}
		_, err = l.c.query(ctx, q, map[string]any{"name": l.o.Name, "owner": l.owner}, true)
		l.cancel(nil)
		if err != nil {
			err = l.c.classify(err, "release the lock")
		} else {
			l.c.log.Debug("lock released", "lock", l.o.Name)
		}
	})
	return err
}

// EnsureConstraint creates a uniqueness constraint on (label, property) if
// it does not exist (a schema transaction of its own).
func (c *Conn) EnsureConstraint(ctx context.Context, label, property string) error {
	name := "fondue_" + label + "_" + property
	q, err := c.render("constraint_unique", cypher.Vars{Label: label, Property: property, ConstraintName: name})
	if err != nil {
		return err
	}
	if _, err := c.query(ctx, q, nil, true); err != nil {
		return c.classify(err, fmt.Sprintf("create the uniqueness constraint on :%s(%s)", label, property))
	}
	return nil
}

// checkFence runs in every write transaction of a connection that holds a
// lock (fencing): first, or for a batch of scores last (batches written at
// once then wait for each other's commit only). It takes the lock node's
// write lock, so that no other run can take the lock over until the
// transaction ends, and fails with ErrLocked (wrapping ErrLockLost) if the
// lock is no longer ours, which rolls the transaction back. A run that lost
// its lock, for instance because it was paused for longer than lock.ttl,
// therefore commits nothing more, even before its heartbeat notices.
// Without a lock it does nothing.
func (c *Conn) checkFence(ctx context.Context, tx neo4j.ManagedTransaction, doing string) error {
	c.fenceMu.Lock()
	l := c.fence
	c.fenceMu.Unlock()
	if l == nil {
		return nil
	}
	q, err := c.render("lock_fence", cypher.Vars{Label: syncjob.LockLabel})
	if err != nil {
		return err
	}
	res, err := tx.Run(ctx, q, map[string]any{"lock_name": l.o.Name, "lock_owner": l.owner})
	if err != nil {
		return err
	}
	recs, err := res.Collect(ctx)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		l.cancel(syncjob.ErrLockLost)
		return errorf(syncjob.ErrLocked, syncjob.ErrLockLost,
			"lost the lock %q (it expired or another run took it over): stopped before %s; nothing more was written", l.o.Name, doing)
	}
	return nil
}

// Lock is AcquireLock as syncjob.Locker wants it.
func (c *Conn) Lock(ctx context.Context, o syncjob.LockOptions) (syncjob.Lock, error) {
	l, err := c.AcquireLock(ctx, o)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Conn is the Neo4j store of the sync job.
var _ syncjob.Store = (*Conn)(nil)
