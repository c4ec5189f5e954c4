// Package splitplan is the split plan of a sync run and what a Store needs
// to carry it out: the Plan (for each chosen node, its groups of
// neighbours; stored before the first split so that a re-run resumes it,
// read back with Unmarshal), the decision for one node (Plan.Examine,
// Plan.Assign: split, done, changed or missing), the provenance properties
// a split writes (so that Undo needs no local state), and the outcomes
// and counts a split reports (NodeOutcome, SplitStats). Its errors say
// what is wrong, not which setting: the callers name it (package syncjob's
// ErrInvalid).
//
// Package syncjob makes plans (syncjob.NewPlan) and runs them (Sync,
// Apply, Undo) through a Store; connector and memstore implement the
// Store's side with the methods here.
package splitplan
