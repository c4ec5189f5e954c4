// Command fondue-neo4j finds ambiguous nodes in a graph (nodes that stand for
// several real-world entities) with the FONDUE method, from an edge list or
// from a Neo4j database, and can split them.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes. Scheduled jobs branch on them, so they are part of the interface.
const (
	exitOK          = 0
	exitError       = 1 // anything else
	exitUsage       = 2 // bad flags, bad config, bad input file
	exitAuth        = 3 // Neo4j rejected the credentials
	exitUnreachable = 4 // Neo4j could not be reached
	exitEmpty       = 5 // the selected subgraph has nothing to score
	exitLocked      = 6 // another run holds the lock
	exitMemory      = 7 // the estimated peak memory exceeds max_memory
	exitInterrupted = 130
)

// exitErr carries an exit code with the one message the user sees.
type exitErr struct {
	code int
	err  error
}

func (e *exitErr) Error() string { return e.err.Error() }
func (e *exitErr) Unwrap() error { return e.err }

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitErr{code: code, err: err}
}

func usageErrorf(format string, args ...any) error {
	return withCode(exitUsage, fmt.Errorf(format, args...))
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the CLI and returns the process exit code. Errors are printed
// as one line on stderr, never as a panic or stack trace.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "fondue-neo4j: internal error: %v (please report this)\n", r)
			code = exitError
		}
	}()
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "fondue-neo4j: %v\n", err)
	var ee *exitErr
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case isUsageError(err):
		return exitUsage
	}
	return exitError
}
