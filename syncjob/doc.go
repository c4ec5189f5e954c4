// Package syncjob is the sync job as a library: take the lock, pull a
// subgraph from a Store, score it with fondue.Score, write the scores
// back, and optionally plan and carry out the split of the most ambiguous
// nodes, under a run id that resumes and undoes it. The CLI
// (cmd/fondue-neo4j sync, undo) is flag parsing and printing around it.
// Its reading and scoring half, Score (pull, state, memory guard,
// fondue.Score), runs on any Source: score and review run it on files
// (package filesource) and print.
//
// # The store gives primitives, this package the loops
//
// A Store is Locker (Lock), Source (Pull), Sink (WriteBatch), Recorder
// (AddRecord, Record, Records, FinishRecord, DeleteRecord, ClearDecisions:
// the run's record, its plan, review decisions and whether it finished)
// and Graph (Read, Write, Unique),
// whose transactions (Tx) read nodes (Nodes, Find), relationships (Rels),
// and change the graph (Lock, Create, Move, Set, Delete). No primitive
// loops over a plan: the loops are written once here, for every store:
// WriteScores (writeloop.go), Split, Check, Describe, ResolveKeys
// (splitloop.go), UndoSplits (undoloop.go), the records (records.go).
// Package connector implements the primitives on Neo4j, package memstore
// in memory; package storetest checks that both give the same answers,
// and the loops are tested once, on memstore.
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
// Each node is its own Write: a transaction fenced by the lock, all or
// nothing (a kill -9 leaves a node split or not, and the re-run resumes
// at the first node not done). A Tx answers ErrChanged when the graph is
// not what the loop read (a relationship gone, a node deleted): the node
// is then reported as changed, never half done.
//
// # A merge loop from the same primitives
//
// Merging duplicates (issue 40: node B into survivor A, and its exact
// undo) is one more loop here, one Write per merge, with no new
// primitive:
//
//   - merge: Lock A and B; Nodes reads B's labels. Create(B, nil,
//     [FondueMerged], {provenance: run, A's id, B's labels}) makes the
//     store copy B's properties itself: the copy is B's properties with
//     their types as the store has them (dates, points, lists, integers
//     apart from floats), never converted or sent through JSON. Rels(B)
//     lists B's relationships; Move moves each to A (B's self-loop
//     becomes A's; a relationship between A and B becomes a self-loop of
//     A) and returns their ids after the move. Delete(B).
//   - the run's record (AddRecord) keeps, per merge, A's and the copy's
//     ids and each moved relationship: its id after the move, type,
//     direction from B's side and other end: ids, names and booleans
//     only, so the record's JSON loses nothing. Property values stay in
//     the graph, in the copy (FondueMerged is left out of pulls, as
//     FondueRun is).
//   - undo: Create(copy, [provenance], B's labels, {}) makes B again,
//     properties exact; Move brings each recorded relationship back from
//     A (a former self-loop of B by both ends; a relationship between A
//     and B by B's end only: OneEnd for one B started, an incoming move
//     for one B ended); Delete(copy). A keeps its own properties; a
//     merge that fills in those A lacks from B records their names, and
//     the undo removes them (Set with nil values), which is exact.
//
// storetest's MergeByPrimitives does exactly this on both stores and
// finds the graph as before. The restored B has a new id (a store gives
// ids): the record maps B's old id to the new one for later runs.
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
