package connector

import (
	"context"
	"fmt"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The runs' records (syncjob.Recorder): a (:FondueRun {run_id}) node per
// run, with its plan and review decisions as JSON text, and unfinished =
// true until the run's loop completes.

// AddRecord stores r in a (:FondueRun {run_id}) node unless the run has
// one, and returns the stored record when it is another.
func (c *Conn) AddRecord(ctx context.Context, r syncjob.Record) (*syncjob.Record, error) {
	q, err := c.render("plan_store", cypher.Vars{Label: syncjob.RunLabel})
	if err != nil {
		return nil, err
	}
	params := map[string]any{"run": r.RunID, "plan": string(r.Plan), "at": r.CreatedAt, "approved": nil, "reviewedAt": nil, "decisions": nil, "unfinished": nil}
	if r.Unfinished {
		params["unfinished"] = true
	}
	if r.Decisions != nil {
		params["decisions"] = string(r.Decisions)
	}
	if r.Approved != "" {
		params["approved"], params["reviewedAt"] = r.Approved, r.ReviewedAt
	}
	res, err := c.query(ctx, q, params, true)
	if err != nil {
		return nil, c.classify(err, "store the split plan")
	}
	// Null: the stored plan is r's.
	text, isNull, err := neo4j.GetRecordValue[string](res.Records[0], "plan")
	if err != nil {
		return nil, fmt.Errorf("store the split plan: %w", err)
	}
	if isNull {
		return nil, nil
	}
	return &syncjob.Record{RunID: r.RunID, Plan: []byte(text)}, nil
}

// Record returns the record of a run with its plan, or nil.
func (c *Conn) Record(ctx context.Context, runID string) (*syncjob.Record, error) {
	q, err := c.render("plan_load", cypher.Vars{Label: syncjob.RunLabel})
	if err != nil {
		return nil, err
	}
	res, err := c.query(ctx, q, map[string]any{"run": runID}, false)
	if err != nil {
		return nil, c.classify(err, "read the split plan of run "+runID)
	}
	if len(res.Records) == 0 {
		return nil, nil
	}
	s, _, err := neo4j.GetRecordValue[string](res.Records[0], "plan")
	if err != nil {
		return nil, fmt.Errorf("split plan of run %s: %w", runID, err)
	}
	return &syncjob.Record{RunID: runID, Plan: []byte(s)}, nil
}

// Records returns every record without its plan, by run id.
func (c *Conn) Records(ctx context.Context) ([]syncjob.Record, error) {
	q, err := c.render("records_list", cypher.Vars{Label: syncjob.RunLabel})
	if err != nil {
		return nil, err
	}
	res, err := c.query(ctx, q, nil, false)
	if err != nil {
		return nil, c.classify(err, "read the runs' records")
	}
	out := make([]syncjob.Record, 0, len(res.Records))
	for _, r := range res.Records {
		run, _ := r.Values[0].(string)
		rec := syncjob.Record{RunID: run}
		if ds, ok := r.Values[1].(string); ok {
			rec.Decisions = []byte(ds)
		}
		rec.CreatedAt, _ = r.Values[2].(string)
		rec.Unfinished, _ = r.Values[3].(bool)
		out = append(out, rec)
	}
	return out, nil
}

// FinishRecord marks the record of a run finished, in a write transaction
// that checks the lock first.
func (c *Conn) FinishRecord(ctx context.Context, runID string) error {
	return c.fenced(ctx, "record_finish", map[string]any{"run": runID}, "marking run "+runID+" finished", "mark run "+runID+" finished")
}

// DeleteRecord deletes the record of a run, in a write transaction that
// checks the lock first.
func (c *Conn) DeleteRecord(ctx context.Context, runID string) error {
	return c.fenced(ctx, "plan_delete", map[string]any{"run": runID}, "forgetting the record of run "+runID, "delete the record of run "+runID)
}

// ClearDecisions removes the review decisions of run runID ("": of every
// run) from the records, in a write transaction that checks the lock
// first.
func (c *Conn) ClearDecisions(ctx context.Context, runID string) error {
	var run any
	if runID != "" {
		run = runID
	}
	return c.fenced(ctx, "decisions_forget", map[string]any{"run": run}, "forgetting review decisions", "forget the review decisions")
}

// fenced runs statement stmt on the records in a write transaction that
// checks the lock first.
func (c *Conn) fenced(ctx context.Context, stmt string, params map[string]any, doing, what string) error {
	q, err := c.render(stmt, cypher.Vars{Label: syncjob.RunLabel})
	if err != nil {
		return err
	}
	s := c.session(ctx, neo4j.AccessModeWrite)
	defer s.Close(context.WithoutCancel(ctx))
	_, err = c.writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
		if err := c.checkFence(ctx, tx, doing); err != nil {
			return nil, err
		}
		res, err := tx.Run(ctx, q, params)
		if err != nil {
			return nil, err
		}
		return res.Consume(ctx)
	})
	return c.classify(err, what)
}
