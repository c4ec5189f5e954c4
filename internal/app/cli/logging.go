package cli

import (
	"context"
	"io"
	"log/slog"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
)

// NewLogger returns the logger the configuration asks for, writing to w;
// the format defaults to text when w is a terminal (tty), JSON otherwise.
func NewLogger(l config.Log, w io.Writer, tty bool) (*slog.Logger, error) {
	var level slog.Level
	switch lv := strings.ToLower(l.Level); lv {
	case "", "info":
		level = slog.LevelInfo
	case "debug":
		level = slog.LevelDebug
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		return nil, UsageErrorf("log level %q: want debug, info, warn or error", lv)
	}
	opts := &slog.HandlerOptions{Level: level}
	format := strings.ToLower(l.Format)
	if format == "" {
		format = "json"
		if tty {
			format = "text"
		}
	}
	switch format {
	case "text":
		return slog.New(quietDriver{slog.NewTextHandler(w, opts)}), nil
	case "json":
		return slog.New(quietDriver{slog.NewJSONHandler(w, opts)}), nil
	}
	return nil, UsageErrorf("log format %q: want text or json", format)
}

// quietDriver lowers the Neo4j driver's warnings (the connector logs them
// as "neo4j driver: ...", e.g. each failed connection attempt) to debug
// level: when the run fails, its one error line says what went wrong, and
// when a retry succeeds there is nothing to warn about. --log-level debug
// shows them.
type quietDriver struct{ slog.Handler }

func (h quietDriver) Enabled(ctx context.Context, l slog.Level) bool {
	// A warning may be lowered to debug: let Handle decide.
	return h.Handler.Enabled(ctx, l) || l == slog.LevelWarn && h.Handler.Enabled(ctx, slog.LevelDebug)
}

func (h quietDriver) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn && strings.HasPrefix(r.Message, "neo4j driver:") {
		r.Level = slog.LevelDebug
	}
	if !h.Handler.Enabled(ctx, r.Level) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietDriver) WithAttrs(as []slog.Attr) slog.Handler {
	return quietDriver{h.Handler.WithAttrs(as)}
}

func (h quietDriver) WithGroup(name string) slog.Handler {
	return quietDriver{h.Handler.WithGroup(name)}
}
