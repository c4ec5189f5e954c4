package mergeplan

import (
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// Outcomes of merging one group.
const (
	OutcomeMerged  = "merged"  // done now
	OutcomeDone    = "done"    // already merged by this run (a re-run)
	OutcomeChanged = "changed" // a node's neighbourhood changed since the plan: left alone
	OutcomeMissing = "missing" // a node is gone or its key changed: left alone
	OutcomeFailed  = "failed"  // the transaction failed: rolled back
)

// GroupOutcome is what happened to one merge group.
type GroupOutcome struct {
	Keep    keys.Key   `json:"keep"`
	Merged  []keys.Key `json:"merged"`
	Outcome string     `json:"outcome"`
	Reason  string     `json:"reason,omitempty"`
	Moved   int        `json:"moved,omitempty"` // relationships moved to the survivor
}

// MergeStats summarize a merge run.
type MergeStats struct {
	RunID              string         `json:"runId"`
	Pairs              int            `json:"pairs"`  // accepted pairs
	Groups             int            `json:"groups"` // merge groups (survivors)
	Merged             int            `json:"merged"` // groups merged now
	AlreadyDone        int            `json:"alreadyDone"`
	Skipped            int            `json:"skipped"` // changed or missing
	Failed             int            `json:"failed"`
	NodesMerged        int            `json:"nodesMerged"` // nodes taken out of the graph now
	RelationshipsMoved int            `json:"relationshipsMoved"`
	Outcomes           []GroupOutcome `json:"outcomes"`
	Duration           time.Duration  `json:"-"`
}

// Count adds one group's outcome to the counts.
func (s *MergeStats) Count(o GroupOutcome) {
	switch o.Outcome {
	case OutcomeMerged:
		s.Merged++
		s.NodesMerged += len(o.Merged)
		s.RelationshipsMoved += o.Moved
	case OutcomeDone:
		s.AlreadyDone++
	case OutcomeChanged, OutcomeMissing:
		s.Skipped++
	case OutcomeFailed:
		s.Failed++
	}
	s.Outcomes = append(s.Outcomes, o)
}
