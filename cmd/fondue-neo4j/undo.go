package main

import (
	"context"
	"errors"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/connector"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/runid"
	"github.com/fondue-neo4j/fondue-neo4j/text/plural"
	"github.com/spf13/cobra"
)

func newUndoCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "undo --run-id ID",
		Short: "Reverse every split of a sync run",
		Long: `undo reverses every split made by the sync run with the given id: the
relationships of each new node move back to the node it was split from (same
type, direction and properties), the new nodes are deleted and the split marks
removed. Afterwards the graph is the graph from before the split. Everything
undo needs is in the database, the marker label of the split nodes included
(from the run's record; --marker-label is only for runs recorded without
one); undoing a run twice changes nothing. The scores written by the run
stay (the next sync overwrites them).

undo --forget-decisions forgets the review decisions that later runs
remember (nodes rejected, splits with edited groups; of --run-id, or of
every run) and undoes no split.

Exit codes: 0 ok, 1 some splits could not be reversed (the run's record is
kept: undo again), 2 bad configuration, or a later run split this run's
new nodes again (undo that run first: it is named), 3 authentication failed, 4 Neo4j
unreachable, 5 nothing to undo (no record of the run and no node split by
it: a mistyped run id, or a run undone already; the closest run ids are
named), 6 another run holds the lock, 130 interrupted.`,
		Example: `  fondue-neo4j undo --run-id 20250101T020000Z-1a2b3c --config fondue.yaml
  fondue-neo4j undo --forget-decisions --config fondue.yaml`,
		Args: exactArgs(0, "no arguments (the run is --run-id ID)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			runID := a.cfg.RunID
			if a.cfg.ForgetDecisions {
				if runID != "" && !runid.Valid(runID) {
					return usageErrorf("--run-id %q is not a run id", runID)
				}
				return a.forgetDecisions(cmd.Context(), runID)
			}
			if runID == "" {
				return usageErrorf("undo needs --run-id ID (the runId of the sync to undo)")
			}
			if !runid.Valid(runID) {
				return usageErrorf("--run-id %q is not a run id", runID)
			}
			return a.withMetrics(cmd.Context(), "undo", func() error { return a.undo(cmd.Context(), runID) })
		},
	}
	cli.AddFlags(cmd, config.CmdUndo)
	return cmd
}

type undoSummary struct {
	RunID string `json:"runId"`
	syncjob.UndoStats
	UndoMillis int64 `json:"undoMillis"`
}

// openForUndo reads the output format and connects to Neo4j, as undo and
// forgetDecisions both need.
func (a *app) openForUndo(ctx context.Context) (conn *connector.Conn, asJSON bool, err error) {
	cfg, err := a.neo4jConfig()
	if err != nil {
		return nil, false, err
	}
	if asJSON, err = a.outputJSON(); err != nil {
		return nil, false, err
	}
	if conn, err = connector.Open(ctx, cfg); err != nil {
		return nil, false, exitCode(err)
	}
	return conn, asJSON, nil
}

func (a *app) undo(ctx context.Context, runID string) error {
	conn, asJSON, err := a.openForUndo(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	t0 := time.Now()
	pr := newProgress(a)
	st, err := syncjob.Undo(ctx, conn, syncjob.UndoOptions{RunID: runID, MarkerLabel: a.cfg.Split.MarkerLabel,
		Progress: func(done, total int) { pr.report(fondue.Progress{Phase: "undo", Done: done, Total: total}) },
		Lock:     syncjob.LockOptions{Name: a.cfg.Lock.Name, TTL: a.cfg.Lock.TTL}, Log: a.log})
	pr.finish()
	a.ran.Undo = &st
	if err != nil && !errors.Is(err, syncjob.ErrIncomplete) {
		return exitCode(err)
	}
	sum := undoSummary{RunID: runID, UndoStats: st, UndoMillis: millis(time.Since(t0))}
	switch {
	case asJSON:
		if err := a.printJSON(sum); err != nil {
			return err
		}
	case st.Originals == 0 && err == nil:
		a.log.Info("undo done: the run split no node; its record is forgotten", "run_id", runID)
	case a.tty:
		if st.Unmerged > 0 {
			printf(a.stderr, "undo %s: %s restored from %s, %s moved back\n", runID, plural.N(st.Unmerged, "merged node"),
				plural.N(st.Restored, "survivor"), plural.N(st.RelationshipsMoved, "relationship"))
			break
		}
		printf(a.stderr, "undo %s: %s restored, %s deleted, %s moved back\n", runID, plural.N(st.Restored, "node"),
			plural.N(st.ClonesDeleted, "split node"), plural.N(st.RelationshipsMoved, "relationship"))
	default:
		a.log.Info("undo done", "run_id", runID, "restored", st.Restored, "clones_deleted", st.ClonesDeleted,
			"relationships_moved", st.RelationshipsMoved, "unmerged", st.Unmerged, "undoMillis", sum.UndoMillis)
	}
	return err
}

// forgetDecisions forgets the remembered review decisions of a run, or
// of every run ("").
func (a *app) forgetDecisions(ctx context.Context, runID string) error {
	conn, asJSON, err := a.openForUndo(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	n, err := syncjob.ForgetDecisions(ctx, conn, runID, syncjob.LockOptions{Name: a.cfg.Lock.Name, TTL: a.cfg.Lock.TTL}, a.log)
	if err != nil {
		return exitCode(err)
	}
	if asJSON {
		return a.printJSON(map[string]any{"runId": runID, "decisionsForgotten": n})
	}
	a.log.Info("review decisions forgotten: later runs may propose those nodes again", "run_id", runID, "decisions", n)
	return nil
}
