package connector

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Retries. The driver makes one attempt per call (its own retry time is
// 0); the connector retries transient failures (a lost connection, a
// deadlock, a server that is not available yet) itself, so that the
// retries of a whole run share one budget, Config.MaxRetryTime, counted
// from the first failure since the last success of any call. After a
// server loss the call that noticed it retries for the budget and fails;
// what the run does next (release its lock) gets the rest of the budget,
// nothing: a run ends about MaxRetryTime after the loss, not once per
// call.

// retryBudget tracks the connection's failures: failingSince is the time
// of the first failure since the last success (zero while calls succeed).
type retryBudget struct {
	mu           sync.Mutex
	failingSince time.Time
}

// failed records a failure at now and returns the first failure since the
// last success.
func (b *retryBudget) failed(now time.Time) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failingSince.IsZero() {
		b.failingSince = now
	}
	return b.failingSince
}

func (b *retryBudget) succeeded() {
	b.mu.Lock()
	b.failingSince = time.Time{}
	b.mu.Unlock()
}

// retryLeft is what is left of the retry budget: Config.MaxRetryTime while
// calls succeed, less once they fail, 0 once it is spent.
func (c *Conn) retryLeft() time.Duration {
	c.budget.mu.Lock()
	since := c.budget.failingSince
	c.budget.mu.Unlock()
	if since.IsZero() {
		return c.cfg.MaxRetryTime
	}
	return max(0, time.Until(since.Add(c.cfg.MaxRetryTime)))
}

// lastFailure is the failure of the driver's attempt: the driver wraps
// the failures of a transaction it gives up on in a
// TransactionExecutionLimit.
func lastFailure(err error) error {
	var tel *neo4j.TransactionExecutionLimit
	if errors.As(err, &tel) && len(tel.Errors) > 0 {
		return tel.Errors[len(tel.Errors)-1]
	}
	return err
}

// rawConnectionError reports whether err is the network's own error: the
// driver reports a connection that died under a transaction with the
// error it got (it wraps it in a ConnectivityError only when it retries
// itself).
func rawConnectionError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// connectionLost reports whether a driver error says that the connection
// was lost or could not be opened.
func connectionLost(err error) bool {
	last := lastFailure(err)
	return neo4j.IsConnectivityError(err) || neo4j.IsConnectivityError(last) || rawConnectionError(last)
}

// retryable reports whether a driver error is worth another attempt: a
// lost or refused connection (but not one lost during a commit, whose
// outcome is unknown), or a transient server error, as for the driver's
// own retries.
func retryable(err error) bool {
	last := lastFailure(err)
	if !neo4j.IsConnectivityError(last) && rawConnectionError(last) {
		return true
	}
	return neo4j.IsRetryable(last)
}

// retryDelays are the waits between attempts (the last one repeats), cut
// short by the end of the budget.
var retryDelays = []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}

// retry runs attempt (one driver call) until it succeeds, fails for good,
// or the retry budget is spent: at most MaxRetryTime after this call's
// first failure, and after the first failure of the connection since its
// last success. A call made once the budget is spent gets one attempt.
func (c *Conn) retry(ctx context.Context, attempt func() error) error {
	var first time.Time
	for n := 0; ; n++ {
		err := attempt()
		if err == nil {
			c.budget.succeeded()
			return nil
		}
		if ctx.Err() != nil || !retryable(err) {
			return err
		}
		now := time.Now()
		since := c.budget.failed(now)
		if first.IsZero() {
			first = now
		}
		start := first
		if since.Before(start) {
			start = since
		}
		left := start.Add(c.cfg.MaxRetryTime).Sub(now)
		if left <= 0 {
			return err
		}
		wait := min(retryDelays[min(n, len(retryDelays)-1)], left)
		c.log.Debug("retrying after a transient failure", "attempt", n+2, "after", wait.String(), "budget_left", left.Round(time.Millisecond).String(), "error", oneLine(err.Error()))
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return err
			case <-t.C:
			}
		}
	}
}

// query runs one statement in a transaction of its own (neo4j.ExecuteQuery)
// on the writer or a reader, with retries.
func (c *Conn) query(ctx context.Context, q string, params map[string]any, write bool) (*neo4j.EagerResult, error) {
	routing := neo4j.ExecuteQueryWithReadersRouting()
	if write {
		routing = neo4j.ExecuteQueryWithWritersRouting()
	}
	var res *neo4j.EagerResult
	err := c.retry(ctx, func() error {
		var err error
		res, err = neo4j.ExecuteQuery(ctx, c.driver, q, params, neo4j.EagerResultTransformer, c.queryOpts(routing)...)
		return err
	})
	return res, err
}

// readTx runs work in a read transaction of session s, with retries
// (work runs again on each attempt).
func (c *Conn) readTx(ctx context.Context, s neo4j.SessionWithContext, work neo4j.ManagedTransactionWork, configurers ...func(*neo4j.TransactionConfig)) (any, error) {
	var out any
	err := c.retry(ctx, func() error {
		var err error
		out, err = s.ExecuteRead(ctx, work, configurers...)
		return err
	})
	return out, err
}

// writeTx runs work in a write transaction of session s, with retries
// (work runs again on each attempt).
func (c *Conn) writeTx(ctx context.Context, s neo4j.SessionWithContext, work neo4j.ManagedTransactionWork, configurers ...func(*neo4j.TransactionConfig)) (any, error) {
	var out any
	err := c.retry(ctx, func() error {
		var err error
		out, err = s.ExecuteWrite(ctx, work, configurers...)
		return err
	})
	return out, err
}
