package syncjob

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// A run whose record is unfinished (Record.Unfinished) stopped mid-way:
// killed, OOMKilled, its store or its lock lost, interrupted. The next
// run of the same command, given no run id, finds it here and resumes
// it, undoes it or refuses to run (Options.Unfinished).

// Unfinished says what a run does with an unfinished split run of the
// same selection (Options.Unfinished).
type Unfinished string

const (
	// UnfinishedResume (the zero value) carries out the rest of the
	// unfinished run's stored plan, under its run id, and stops there: no
	// pull, no scoring (its scores were written before its first split).
	UnfinishedResume Unfinished = "resume"
	// UnfinishedUndo undoes the unfinished run's splits, forgets its
	// record, then runs as usual under a new run id.
	UnfinishedUndo Unfinished = "undo"
	// UnfinishedFail refuses to run (ErrUnfinished), naming the run.
	UnfinishedFail Unfinished = "fail"
)

// UnfinishedValues lists the values of Unfinished, the default first.
var UnfinishedValues = []string{string(UnfinishedResume), string(UnfinishedUndo), string(UnfinishedFail)}

// UnfinishedRun is an unfinished run that a run found (Summary.Unfinished).
type UnfinishedRun struct {
	RunID     string `json:"runId"`
	CreatedAt string `json:"createdAt,omitempty"` // when its plan was made
	// Split of Planned nodes were split when this run found it.
	Split   int `json:"split"`
	Planned int `json:"planned"`
	// Action is what this run did: "resumed", "undone", or "replaced" (it
	// had split no node yet: its record was forgotten, this run started
	// afresh).
	Action string `json:"action"`
}

// String says what happened, for logs and messages.
func (u UnfinishedRun) String() string {
	switch u.Action {
	case "resumed":
		return fmt.Sprintf("resuming run %s, which stopped after %d of %d splits", u.RunID, u.Split, u.Planned)
	case "undone":
		return fmt.Sprintf("undid run %s, which stopped after %d of %d splits", u.RunID, u.Split, u.Planned)
	case "replaced":
		return fmt.Sprintf("run %s stopped before its first split (0 of %d): its plan is forgotten, this run starts afresh", u.RunID, u.Planned)
	}
	return fmt.Sprintf("run %s stopped after %d of %d splits", u.RunID, u.Split, u.Planned)
}

// check refuses a value that is not one of UnfinishedValues.
func (u Unfinished) check() error {
	if u == "" || slices.Contains(UnfinishedValues, string(u)) {
		return nil
	}
	return Errorf(ErrInvalid, nil, "Options.Unfinished %q: want %s", string(u), strings.Join(UnfinishedValues, ", "))
}

// unfinishedRuns returns the plans of the unfinished runs, oldest first
// (by CreatedAt, then run id), split into those of o's selection (the same
// node labels, relationship types or Cypher projection, key property and
// marker label; not an approved plan's, which Apply resumes) and the
// others.
func unfinishedRuns(ctx context.Context, st Store, o *Options) (same, other []*splitplan.Plan, err error) {
	rs, err := st.Records(ctx)
	if err != nil {
		return nil, nil, err
	}
	marker := o.Pull.MarkerLabel
	if marker == "" {
		marker = DefaultMarkerLabel
	}
	for _, r := range rs {
		if !r.Unfinished {
			continue
		}
		p, err := LoadPlan(ctx, st, r.RunID)
		if err != nil || p == nil {
			return nil, nil, err
		}
		custom := o.Pull.Custom()
		if p.Approved == nil && p.MarkerLabel == marker && p.IDProperty == o.Pull.IDProperty && p.PulledOnly == custom &&
			(custom || slices.Equal(p.NodeLabels, o.Pull.NodeLabels) && slices.Equal(p.RelationshipTypes, o.Pull.RelationshipTypes)) {
			same = append(same, p)
		} else {
			other = append(other, p)
		}
	}
	oldest := func(a, b *splitplan.Plan) int {
		return strings.Compare(a.CreatedAt+"\x00"+a.RunID, b.CreatedAt+"\x00"+b.RunID)
	}
	slices.SortFunc(same, oldest)
	slices.SortFunc(other, oldest)
	return same, other, nil
}

// finishUnfinished deals with the unfinished runs before a run with Split
// and no run id given, under its lock, as o.Unfinished says. It returns
// the plan to resume (o.RunID is then its run id), or nil when the run
// goes on as usual. The runs found are listed in sum.Unfinished.
func finishUnfinished(ctx context.Context, st Store, o *Options, sum *Summary, log *slog.Logger) (*splitplan.Plan, error) {
	same, other, err := unfinishedRuns(ctx, st, o)
	if err != nil {
		return nil, err
	}
	for _, p := range other {
		n, err := CountSplit(ctx, st, p)
		if err != nil {
			return nil, err
		}
		msg := fmt.Sprintf("run %s stopped after %d of %d splits; its selection (node labels, relationship types, key, marker label) is not this run's, so it is left as it is: finish it with the same --run-id and its configuration, or undo it (fondue-neo4j undo --run-id %s)",
			p.RunID, n, len(p.Nodes), p.RunID)
		if p.Approved != nil {
			msg = fmt.Sprintf("run %s, which applies the approved plan %s, stopped after %d of %d splits; applying the same plan again finishes it (or undo it: fondue-neo4j undo --run-id %s)",
				p.RunID, p.Approved.File, n, len(p.Nodes), p.RunID)
		}
		log.Warn(msg, "phase", "split", "unfinished_run", p.RunID)
	}
	if len(same) == 0 {
		return nil, nil
	}
	found := make([]UnfinishedRun, len(same))
	for k, p := range same {
		n, err := CountSplit(ctx, st, p)
		if err != nil {
			return nil, err
		}
		found[k] = UnfinishedRun{RunID: p.RunID, CreatedAt: p.CreatedAt, Split: n, Planned: len(p.Nodes)}
	}
	switch o.Unfinished {
	case UnfinishedFail:
		return nil, &UnfinishedError{Run: found[0]}
	case UnfinishedUndo:
		// Newest first: a later run may have split a clone of an earlier one.
		for k := len(same) - 1; k >= 0; k-- {
			u := &found[k]
			uo := UndoOptions{RunID: u.RunID, MarkerLabel: same[k].MarkerLabel, Log: log}
			if _, err := undoHeld(ctx, st, uo, log); err != nil {
				return nil, err
			}
			u.Action = "undone"
			sum.Unfinished = append(sum.Unfinished, *u)
			log.Info(u.String(), "phase", "undo", "unfinished_run", u.RunID)
		}
		return nil, nil
	}
	// Resume the oldest; a later run resumes the next.
	p, u := same[0], found[0]
	if u.Split == 0 {
		u.Action = "replaced"
		sum.Unfinished = append(sum.Unfinished, u)
		log.Info(u.String(), "phase", "split", "unfinished_run", u.RunID)
		return nil, st.DeleteRecord(ctx, p.RunID)
	}
	u.Action = "resumed"
	sum.Unfinished = append(sum.Unfinished, u)
	o.RunID, o.Write.RunID = p.RunID, p.RunID
	sum.RunID = p.RunID
	return p, nil
}

// UnfinishedError refuses to run (UnfinishedFail): Run stopped mid-split.
type UnfinishedError struct{ Run UnfinishedRun }

func (e *UnfinishedError) Error() string {
	return fmt.Sprintf("%v: resume it (UnfinishedResume, or its run id) or undo it (UnfinishedUndo, or Undo)", e.Run)
}

// Is makes errors.Is(err, syncjob.ErrUnfinished) true.
func (e *UnfinishedError) Is(target error) bool { return target == ErrUnfinished }
