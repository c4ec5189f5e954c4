// Package syncjob is the sync job as a library: take the lock, pull a
// subgraph from a Store, score it with fondue.Score, write the scores
// back, and optionally plan and carry out the split of the most ambiguous
// nodes, under a run id that resumes and undoes it. The CLI
// (cmd/fondue-neo4j sync, undo) is flag parsing and printing around it.
//
// A Store is small: Lock, Pull, WriteScores, and the split plan's
// StorePlan, LoadPlan, ForgetPlan, CountSplit, Describe, ResolveKeys,
// TakenKeys, Check, Split, Undo, SplitRuns and LaterSplits, and the review
// decisions later runs remember (Decisions, ForgetDecisions).
// Package connector implements it on Neo4j, package memstore in memory;
// package storetest checks that both behave alike.
//
//	st := memstore.New() // or: conn, err := connector.Open(ctx, cfg)
//	// ... seed st with nodes and relationships ...
//	sum, err := syncjob.Sync(ctx, st, syncjob.Options{
//		Pull:  syncjob.PullOptions{NodeLabels: []string{"Person"}, IDProperty: "uid"},
//		Split: true,
//		Score: fondue.Options{Split: fondue.SplitOptions{Top: 10}},
//	})
//	switch {
//	case syncjob.IsLocked(err): // another run is writing
//	case err != nil:
//	}
//	// later: syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: sum.RunID})
//
// Approved plans (a person's decisions on a dry run's plan, see package
// internal/app/review) are carried out by Apply, refused whole with a
// *StaleError when the graph changed since the review.
//
// The plan, its nodes and what a split reports are package splitplan's;
// the helpers on node keys and property values package keys'.
//
// Errors a caller branches on are of the kinds in errors.go; test them
// with the Is... helpers or errors.Is.
package syncjob
