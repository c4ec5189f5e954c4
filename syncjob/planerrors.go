package syncjob

import (
	"fmt"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// StaleError refuses an approved plan: some of its nodes changed since
// the review. Nothing was split by this run.
type StaleError struct {
	File    string                  // the approved plan's file
	RunID   string                  // the run id the plan was applied under
	Planned int                     // nodes in the plan
	Changed []splitplan.NodeOutcome // the nodes that changed, with the reason
	// Resumed: an earlier run of the same run id split some nodes, which
	// stay split.
	Resumed bool
}

func (e *StaleError) Error() string {
	if e.Resumed {
		return fmt.Sprintf("approved plan %s no longer matches the graph (%d of its %d nodes changed); nothing more was split (nodes split by the earlier run of run id %s stay split: fondue-neo4j undo --run-id %s): %s",
			e.File, len(e.Changed), e.Planned, e.RunID, e.RunID, changes(e.Changed))
	}
	return fmt.Sprintf("approved plan %s no longer matches the graph (%d of its %d nodes changed since the review); nothing was split: %s",
		e.File, len(e.Changed), e.Planned, changes(e.Changed))
}

// Is makes errors.Is(err, syncjob.ErrStalePlan) true.
func (e *StaleError) Is(target error) bool { return target == ErrStalePlan }

// IncompleteError says that planned splits were not made: for an approved
// plan, nodes that changed after the whole-plan check (Skipped); else
// nodes whose transaction failed and was rolled back (Failed).
type IncompleteError struct {
	RunID    string
	Approved bool
	Stats    *splitplan.SplitStats
}

func (e *IncompleteError) Error() string {
	sp := e.Stats
	if e.Approved {
		var skipped []splitplan.NodeOutcome
		for _, n := range sp.Nodes {
			if n.Outcome == splitplan.OutcomeChanged || n.Outcome == splitplan.OutcomeMissing {
				skipped = append(skipped, n)
			}
		}
		return fmt.Sprintf("%d of %d approved splits were not made: the graph changed after the check (the others were made; re-run to retry, or undo them: fondue-neo4j undo --run-id %s): %s",
			sp.Skipped, sp.Planned, e.RunID, changes(skipped))
	}
	for _, n := range sp.Nodes {
		if n.Outcome == splitplan.OutcomeFailed {
			return fmt.Sprintf("%d of %d splits failed and were rolled back; first: node %v: %s", sp.Failed, sp.Planned, n.Key, n.Reason)
		}
	}
	return fmt.Sprintf("%d of %d splits failed and were rolled back", sp.Failed, sp.Planned)
}

// Is makes errors.Is(err, syncjob.ErrIncomplete) true.
func (e *IncompleteError) Is(target error) bool { return target == ErrIncomplete }

// changes lists changed nodes for one line: "node 11 (Valjean): added
// neighbour 77; removed 26 (Cosette); node 48 ...", the first five.
func changes(nodes []splitplan.NodeOutcome) string {
	const most = 5
	var parts []string
	for _, n := range nodes[:min(len(nodes), most)] {
		parts = append(parts, "node "+n.Key.DescribeNode(n.Name)+": "+n.Reason)
	}
	s := strings.Join(parts, "; ")
	if len(nodes) > most {
		s += fmt.Sprintf("; and %d more nodes", len(nodes)-most)
	}
	return s
}
