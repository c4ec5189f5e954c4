package main

import (
	"context"
	"log/slog"
	"strings"
)

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
