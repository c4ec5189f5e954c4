package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/spf13/cobra"
)

func TestExitCode(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()
	cases := []struct {
		ctx  context.Context
		err  error
		want int
	}{
		{bg, errors.New("boom"), ExitError},
		{bg, fmt.Errorf("run: %w", WithCode(ExitLocked, errors.New("held"))), ExitLocked},
		{bg, UsageErrorf("--top %d", -1), ExitUsage},
		{bg, fmt.Errorf("score: %w", &fondue.OptionsError{Msg: "dim"}), ExitUsage},
		{bg, fmt.Errorf("score: %w", fondue.ErrNothingToScore), ExitEmpty},
		// No message is read: an untyped error is a plain error, whatever it says.
		{bg, errors.New(`unknown flag: --x`), ExitError},
		{bg, context.Canceled, ExitInterrupted},
		{cancelled, WithCode(ExitUsage, errors.New("late")), ExitInterrupted},
	}
	for _, c := range cases {
		if got := ExitCode(c.ctx, c.err); got != c.want {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if WithCode(ExitUsage, nil) != nil {
		t.Error("WithCode(code, nil) is not nil")
	}
}

// Run prints one line named after the command, and turns a panic into an
// internal error with exit code 1.
func TestRun(t *testing.T) {
	root := func(run func() error) func() *cobra.Command {
		return func() *cobra.Command {
			c := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return run() }}
			SetupRoot(c, &bytes.Buffer{}, &bytes.Buffer{})
			return c
		}
	}
	var stderr bytes.Buffer
	code := Run(context.Background(), "fondue-x", nil, &stderr, root(func() error { return errors.Join(errors.New("a"), UsageErrorf("b")) }))
	if code != ExitUsage || stderr.String() != "fondue-x: a; b\n" {
		t.Errorf("exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	code = Run(context.Background(), "fondue-x", nil, &stderr, root(func() error { panic("oops\nat line 2") }))
	if code != ExitError || stderr.String() != "fondue-x: internal error: oops; at line 2 (please report this)\n" {
		t.Errorf("panic: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	code = Run(context.Background(), "fondue-x", []string{"--nope"}, &stderr, root(func() error { return nil }))
	if code != ExitUsage || stderr.String() != "fondue-x: unknown flag: --nope (see 'x --help')\n" {
		t.Errorf("bad flag: exit %d, %q", code, stderr.String())
	}
	// Unknown commands and wrong argument counts are usage errors without
	// reading cobra's messages (CheckCommand).
	withSub := func() *cobra.Command {
		c := &cobra.Command{Use: "x"}
		SetupRoot(c, &bytes.Buffer{}, &bytes.Buffer{})
		c.AddCommand(&cobra.Command{Use: "sub", Args: cobra.ExactArgs(1), RunE: func(*cobra.Command, []string) error { return nil }})
		return c
	}
	for _, args := range [][]string{{"frob"}, {"sub"}, {"sub", "a", "b"}} {
		stderr.Reset()
		if code := Run(context.Background(), "fondue-x", args, &stderr, withSub); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d (%q)", args, code, ExitUsage, stderr.String())
		}
	}
	stderr.Reset()
	if code := Run(context.Background(), "fondue-x", []string{"sub", "a"}, &stderr, withSub); code != ExitOK {
		t.Errorf("sub a: exit %d (%q)", code, stderr.String())
	}
}
