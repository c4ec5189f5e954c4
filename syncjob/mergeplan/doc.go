// Package mergeplan is the merge plan of a sync run: pairs of nodes that
// are one entity (Pair: the node to keep, the node merged into it, the
// score and reasons of the duplicate finder, a person's decision), read
// from and written to the JSON a dry run prints, the review page and
// "plan accept|reject" change, and "sync --merge --plan F" applies
// (Parse, Marshal, Decide); the components a merge carries out together
// (Plan.Groups: chains A~B, B~C merge into one survivor); the
// provenance properties a merge writes, so that undo needs no local
// state; and the decisions later runs remember.
//
// Package syncjob carries plans out (syncjob.Merge) and undoes them
// (syncjob.Undo) through its narrow store.
package mergeplan
