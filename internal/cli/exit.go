package cli

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
	"github.com/spf13/cobra"
)

// Exit codes. Scheduled jobs branch on them, so they are part of the interface.
const (
	ExitOK          = 0
	ExitError       = 1 // anything else
	ExitUsage       = 2 // bad flags, bad config, bad input file
	ExitAuth        = 3 // Neo4j rejected the credentials
	ExitUnreachable = 4 // Neo4j could not be reached
	ExitEmpty       = 5 // the selected subgraph has nothing to score
	ExitLocked      = 6 // another run holds the lock
	ExitMemory      = 7 // the estimated peak memory exceeds max_memory
	ExitInterrupted = 130
)

// Error carries an exit code with the one message the user sees.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// WithCode gives err the exit code; nil stays nil.
func WithCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// UsageErrorf is an error with the usage exit code.
func UsageErrorf(format string, args ...any) error {
	return WithCode(ExitUsage, fmt.Errorf(format, args...))
}

// ExactArgs is cobra.ExactArgs with the usage exit code.
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return UsageErrorf("%s needs %s (see '%s --help')", cmd.CommandPath(), what, cmd.CommandPath())
		}
		return nil
	}
}

// Run executes the command newRoot builds with args and returns the
// process exit code. A failure is one line on stderr, "name: message",
// never a panic or stack trace; a run stopped by ctx (Ctrl-C or SIGTERM)
// says "interrupted" and exits with 130.
func Run(ctx context.Context, name string, args []string, stderr io.Writer, newRoot func() *cobra.Command) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "%s: internal error: %v (please report this)\n", name, OneLine(fmt.Sprint(r)))
			code = ExitError
		}
	}()
	root := newRoot()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code = ExitCode(ctx, err)
	msg := err.Error()
	var we *fondue.WarmStartError
	switch {
	case code == ExitInterrupted:
		msg = "interrupted"
	case errors.As(err, &we):
		msg += "; delete it for a cold start, or use it anyway with --checkpoint-force (embedding.checkpoint_force)"
	}
	fmt.Fprintf(stderr, "%s: %s\n", name, OneLine(msg))
	return code
}

// ExitCode returns the exit code of a failed run.
func ExitCode(ctx context.Context, err error) int {
	var ee *Error
	var oe *fondue.OptionsError
	var we *fondue.WarmStartError
	switch {
	case ctx.Err() != nil:
		return ExitInterrupted
	case errors.As(err, &ee):
		return ee.Code
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &oe), errors.As(err, &we):
		return ExitUsage
	case errors.Is(err, fondue.ErrNothingToScore):
		return ExitEmpty
	case isUsageError(err):
		return ExitUsage
	}
	return ExitError
}

func isUsageError(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") ||
		strings.Contains(msg, "arg(s)")
}

// OneLine joins the lines of a message (errors.Join, wrapped driver
// errors) with "; ".
func OneLine(s string) string {
	lines := strings.FieldsFunc(strings.TrimSpace(s), func(r rune) bool { return r == '\n' || r == '\r' })
	for k := range lines {
		lines[k] = strings.TrimSpace(lines[k])
	}
	return strings.Join(lines, "; ")
}

// Main exits with the code run returns. run's context is cancelled by the
// first Ctrl-C or SIGTERM, so that the run stops cleanly; a second one
// kills the process at once (the default action).
func Main(run func(ctx context.Context) int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx)
	stop()
	os.Exit(code)
}
