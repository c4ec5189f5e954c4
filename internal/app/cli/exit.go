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
	ExitMemory      = 7 // the estimated live memory exceeds max_memory
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
	err := CheckCommand(root, args)
	if err == nil {
		err = root.ExecuteContext(ctx)
	}
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
	}
	return ExitError
}

// CheckCommand returns the usage error of an unknown command in args.
// Cobra makes that error itself, in Command.Find, for a command that has
// subcommands and no Args check; asking Find first, as Execute will, makes
// it a usage error without reading its text. It also gives every Args
// check, cobra's own among them (the completion command's), the usage exit
// code (usageArgs). Unknown flags are usage errors through the root's
// SetFlagErrorFunc (SetupRoot). Shell completion requests are left to cobra.
func CheckCommand(root *cobra.Command, args []string) error {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		return nil
	}
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd(args...)
	usageArgs(root)
	if _, _, err := root.Find(args); err != nil {
		return WithCode(ExitUsage, fmt.Errorf("%w (see '%s --help')", err, root.CommandPath()))
	}
	return nil
}

// usageArgs makes the errors of c's Args check, and of its subcommands',
// usage errors.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			var ee *Error
			if err != nil && !errors.As(err, &ee) {
				err = WithCode(ExitUsage, err)
			}
			return err
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
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
