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
	"strings"
	"syscall"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
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
	go func() {
		// After the first Ctrl-C or SIGTERM the run stops cleanly; a second
		// one kills the process at once (the default action).
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the CLI and returns the process exit code. A failure is one
// line on stderr, never a panic or stack trace; a run stopped by ctx (Ctrl-C
// or SIGTERM) says "interrupted" and exits with 130.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "fondue-neo4j: internal error: %v (please report this)\n", oneLine(fmt.Sprint(r)))
			code = exitError
		}
	}()
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	err := checkCommand(root, args)
	if err == nil {
		err = root.ExecuteContext(ctx)
	}
	if err == nil {
		return exitOK
	}
	code = exitCodeOf(ctx, err)
	msg := err.Error()
	var we *fondue.WarmStartError
	switch {
	case code == exitInterrupted:
		msg = "interrupted"
	case errors.As(err, &we):
		msg += "; delete it for a cold start, or use it anyway with --checkpoint-force (embedding.checkpoint_force)"
	}
	fmt.Fprintf(stderr, "fondue-neo4j: %s\n", oneLine(msg))
	return code
}

// exitCodeOf returns the exit code of a failed run.
func exitCodeOf(ctx context.Context, err error) int {
	var ee *exitErr
	var oe *fondue.OptionsError
	var we *fondue.WarmStartError
	switch {
	case ctx.Err() != nil:
		return exitInterrupted
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &oe), errors.As(err, &we):
		return exitUsage
	case errors.Is(err, fondue.ErrNothingToScore):
		return exitEmpty
	}
	return exitError
}

// oneLine joins the lines of a message (errors.Join, wrapped driver
// errors) with "; ".
func oneLine(s string) string {
	lines := strings.FieldsFunc(strings.TrimSpace(s), func(r rune) bool { return r == '\n' || r == '\r' })
	for k := range lines {
		lines[k] = strings.TrimSpace(lines[k])
	}
	return strings.Join(lines, "; ")
}
