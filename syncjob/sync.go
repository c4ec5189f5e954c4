package syncjob

import (
	"context"
	"errors"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	scoring "github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/runid"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// Options configure Sync. The zero value scores every node of the store
// with fondue's defaults, writes the scores under a new run id and splits
// nothing.
type Options struct {
	// RunID names the run (default runid.New()): the scores' run property,
	// the lock's holder, the split plan and its undo. Re-running a run id
	// with Split resumes its stored plan instead of scoring again; without
	// a RunID, a run with Split first looks for an unfinished run of the
	// same selection (see Unfinished).
	RunID string
	// Unfinished says what a run with Split and no RunID does when a run
	// of the same selection stopped mid-split (killed, its store lost):
	// resume it (the zero value), undo it first, or fail. See Unfinished.
	Unfinished Unfinished
	// Pull chooses the subgraph.
	Pull PullOptions
	// Write says where the scores go; its RunID is Options.RunID.
	Write WriteOptions
	// Lock names the lock (its RunID is Options.RunID).
	Lock LockOptions
	// Score are the engine's options. With Split, Score.Split chooses the
	// nodes to split (Top or MinAmbiguity) and the splitter (nil: the
	// default, split.Named("")); without, Score.Split is ignored.
	Score fondue.Options
	// Split plans and carries out the split of the chosen nodes, after the
	// scores are written. A run id whose stored plan split some nodes
	// resumes it; a stored plan none of whose nodes was split yet is
	// replaced.
	Split bool
	// CloneKey is the scheme of split clones' keys with Pull.IDProperty
	// (split.clone_key; see splitplan.AssignCloneKeys): empty is
	// splitplan.DefaultCloneKey, splitplan.NoCloneKey gives no keys.
	CloneKey string
	// SkipProperties are not copied to split clones; the write properties
	// are added to them (a clone's score is unknown until the next run).
	SkipProperties []string
	// Duplicates, when set, finds the nodes that may be one entity and
	// writes them as relationships instead of scoring the ambiguity (see
	// DuplicateOptions); Split must then be false.
	Duplicates *DuplicateOptions
	// DryRun writes nothing and takes no lock: the summary holds the split
	// plan (described from the store) when Split is set, the pairs found
	// with Duplicates.
	DryRun bool
	// OnlyChanged makes the pull read the written values back, and the
	// write leave alone the nodes that hold their values already
	// (AmbiguityTolerance; Summary.NodesUnchanged): the incremental
	// nights of a job with a state file (Score.Since). A node left alone
	// keeps its RunProperty, the run that last changed its values.
	// Without it, every node is written.
	OnlyChanged bool
	// Full rewrites every node (WriteOptions.All), whatever it holds, even
	// with OnlyChanged. The caller also leaves Score.Since unset for a
	// full run (sync --full).
	Full bool
	// TopNodes is the number of most ambiguous nodes the summary lists
	// (Summary.Scored.Top): 0 means DefaultTopNodes, a negative number none.
	TopNodes int

	// Memory guards the run's memory: after the pull, a run whose
	// estimated peak exceeds the limit is refused before scoring. The zero
	// value guards with the memory available to the process.
	Memory MemoryGuard
	// Prepare, when set, runs after the pull and before the memory guard
	// and scoring, with the engine's options to adjust: it may refuse the
	// graph or set a warm start or a saved state (a checkpoint file),
	// which the guard then counts. Without a warm start, embeddings saved
	// in node properties (Pull.EmbeddingProperty) are used.
	Prepare func(sg *Subgraph, o *fondue.Options) error
	// Scored, when set, runs after scoring (e.g. to save a checkpoint or
	// log the result); its error stops the run.
	Scored func(sg *Subgraph, res *fondue.Result, o fondue.Options, sum *Summary) error
	// Written, when set, runs once the scores are written (never in a dry
	// run), before any split: e.g. to save the engine's state for the next
	// run, which must describe what the database holds; its error fails
	// the run.
	Written func(sg *Subgraph, res *fondue.Result, o fondue.Options, sum *Summary) error
	// Progress, when set, receives the engine's progress and that of the
	// write, split and undo phases ("write", "split", "undo").
	Progress func(fondue.Progress)
	// Log receives what the run does (default: nothing).
	Log *slog.Logger
}

// Summary is the result of a sync in GDS write mode's vocabulary, plus
// the run id and the split's counts. Configuration and Neo4jVersion are
// the caller's to fill, for its report.
type Summary struct {
	RunID                 string `json:"runId"`
	NodeCount             int    `json:"nodeCount"`
	RelationshipCount     int    `json:"relationshipCount"`
	NodePropertiesWritten int    `json:"nodePropertiesWritten"`
	// NodesWritten counts the nodes written; NodesUnchanged those left
	// alone because they hold their values already (AmbiguityTolerance):
	// an unchanged night writes nothing.
	NodesWritten   int `json:"nodesWritten"`
	NodesUnchanged int `json:"nodesUnchanged"`
	// Incremental says how the scores were computed: in full or around
	// the changes since the last run, and why (nil: no saved state asked
	// for, or a method that keeps none).
	Incremental         *Incremental `json:"incremental,omitempty"`
	PreProcessingMillis int64        `json:"preProcessingMillis"`
	ComputeMillis       int64        `json:"computeMillis"`
	WriteMillis         int64        `json:"writeMillis"`
	SplitMillis         int64        `json:"splitMillis"`
	UnscoredNodes       int          `json:"unscoredNodes"`
	// Scored says what was scored: how many nodes per label, and the most
	// ambiguous ones (nil when nothing was scored: an approved plan).
	Scored         *Scored `json:"scored,omitempty"`
	Epochs         int     `json:"epochs"`                   // CNE epochs run
	WarmStartNodes int     `json:"warmStartNodes,omitempty"` // nodes that resumed a saved embedding
	// WarmStartNewNodes counts the nodes of a warm start that had no saved
	// embedding (new since it was saved), and WarmStartFrom says where the
	// embedding came from: "checkpoint" or "property" (empty: a cold start).
	WarmStartNewNodes int                   `json:"warmStartNewNodes,omitempty"`
	WarmStartFrom     string                `json:"warmStartFrom,omitempty"`
	NodesNotFound     int                   `json:"nodesNotFound"`
	NodesNotFoundKeys []keys.Key            `json:"nodesNotFoundKeys,omitempty"` // some of them (at most 100)
	Configuration     map[string]any        `json:"configuration"`
	Split             *splitplan.SplitStats `json:"split,omitempty"`
	Resumed           bool                  `json:"resumed,omitempty"`
	// Unfinished lists the runs that had stopped mid-split which this run
	// found, and what it did with them (Options.Unfinished).
	Unfinished []UnfinishedRun `json:"unfinished,omitempty"`
	DryRun     bool            `json:"dryRun,omitempty"`
	Plan       *splitplan.Plan `json:"plan,omitempty"`
	// ApprovedPlan is the approved plan applied (Apply).
	ApprovedPlan *splitplan.ApprovedRef `json:"approvedPlan,omitempty"`
	// Remembered are the nodes not proposed for a split because of a
	// review decision on their unchanged neighbourhood (with Split).
	Remembered []splitplan.Decision `json:"remembered,omitempty"`
	// Duplicates are the pairs found and written (Options.Duplicates);
	// MergePlan, in a dry run, the merge plan of the pairs kept, to review.
	Duplicates   *Duplicates     `json:"duplicates,omitempty"`
	MergePlan    *mergeplan.Plan `json:"mergePlan,omitempty"`
	Neo4jVersion string          `json:"neo4jVersion"`
}

// Incremental describes how a run's scores were computed
// (fondue.IncrementalStats): Mode "full" or "incremental", Reason why a
// run was full (no state yet, --full, a state of other options, of
// another dimension, of too few shared nodes, without scores); the nodes
// new or whose neighbours changed since the state was saved, those
// trained, re-scored, and those whose saved terms were reused.
type Incremental struct {
	Mode          string `json:"mode"`
	Reason        string `json:"reason,omitempty"`
	NodesChanged  int    `json:"nodesChanged"`
	NodesTrained  int    `json:"nodesTrained"`
	NodesRescored int    `json:"nodesRescored"`
	NodesReused   int    `json:"nodesReused"`
}

// The modes of Incremental.
const (
	ModeFull        = "full"
	ModeIncremental = "incremental"
)

// Scored describes the nodes a run scored. Isolated nodes get no score:
// they are counted apart (Summary.UnscoredNodes, LabelCount.Unscored), and
// so are the context nodes (PullOptions.WriteNodeLabels).
type Scored struct {
	// Nodes counts the scored nodes.
	Nodes int `json:"nodes"`
	// Context counts the pulled nodes that are context, not scored
	// (PullOptions.WriteNodeLabels).
	Context int `json:"context,omitempty"`
	// Labels counts the nodes of each label (a node counts under each of
	// its labels); nil when the labels are unknown (a Cypher projection
	// whose node query returns no column labels).
	Labels map[string]LabelCount `json:"labels,omitempty"`
	// Top are the most ambiguous nodes, most ambiguous first (ties in the
	// order of the nodes: by key with graph.id_property).
	Top []TopNode `json:"top"`
	// Sure says how far the top 1% and the top 100 stand above chance
	// (fondue.Result.Sure); nil for the methods other than the default.
	Sure []scoring.Sure `json:"sure,omitempty"`
}

// LabelCount counts the nodes of one label.
type LabelCount struct {
	Scored   int `json:"scored"`             // nodes scored
	Unscored int `json:"unscored,omitempty"` // isolated nodes to score: no score
	Context  int `json:"context,omitempty"`  // context nodes: not to score (PullOptions.WriteNodeLabels)
}

// TopNode is one of the most ambiguous nodes of a run.
type TopNode struct {
	Key       keys.Key `json:"key"`            // key property value, or the element id
	ID        keys.Key `json:"id"`             // element id
	Labels    []string `json:"labels"`         // nil when unknown
	Name      string   `json:"name,omitempty"` // its display property (graph.display_property)
	Ambiguity float64  `json:"ambiguity"`
	Score     float64  `json:"score"`
}

// newScored describes the scores res of sg: the scored nodes per label
// and the top most ambiguous nodes (fewer when fewer were scored).
func newScored(sg *Subgraph, res *fondue.Result, top int) *Scored {
	sc := &Scored{Top: []TopNode{}, Sure: res.Sure}
	for i := range sg.Graph.NumNodes() {
		if !sg.IsTarget(i) {
			sc.Context++
		}
	}
	if sg.LabelSet != nil {
		sc.Labels = map[string]LabelCount{}
		perSet := make([][3]int, len(sg.LabelSets)) // scored, unscored, context per label set
		for i, set := range sg.LabelSet {
			switch {
			case !sg.IsTarget(i):
				perSet[set][2]++
			case math.IsNaN(res.Scores[i]):
				perSet[set][1]++
			default:
				perSet[set][0]++
			}
		}
		for k, labels := range sg.LabelSets {
			for _, l := range labels {
				c := sc.Labels[l]
				c.Scored += perSet[k][0]
				c.Unscored += perSet[k][1]
				c.Context += perSet[k][2]
				sc.Labels[l] = c
			}
		}
	}
	rank := res.Ranking()
	sc.Nodes = len(rank)
	for _, i := range rank[:min(max(top, 0), len(rank))] {
		tn := TopNode{Key: sg.Key(i), ID: sg.Key(i), Labels: sg.NodeLabels(i), Ambiguity: res.Ambiguity[i], Score: res.Scores[i]}
		if sg.IDs != nil {
			tn.ID = sg.IDs[i]
		}
		if sg.Names != nil {
			tn.Name = sg.Names[i]
		}
		sc.Top = append(sc.Top, tn)
	}
	return sc
}

func (o *Options) defaults() {
	if o.RunID == "" {
		o.RunID = runid.New()
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Write.Property == "" {
		o.Write.Property = DefaultWriteProperty
	}
	o.Write.RunID, o.Lock.RunID = o.RunID, o.RunID
	o.Write.All = o.Write.All || o.Full || !o.OnlyChanged
	if !o.Write.All && o.Duplicates == nil && !o.DryRun {
		// Read back what the last run wrote: only changes are written.
		o.Pull.ReadBack = nil
		for _, p := range []string{o.Write.Property, o.Write.ScoreProperty, o.Write.EntitiesProperty} {
			if p != "" {
				o.Pull.ReadBack = append(o.Pull.ReadBack, p)
			}
		}
	}
	if d := o.Duplicates; d != nil {
		d.defaults()
		o.Pull.DisplayProperties = slices.Insert(slices.DeleteFunc(slices.Clone(o.Pull.DisplayProperties),
			func(p string) bool { return p == d.NameProperty }), 0, d.NameProperty)
		if !slices.Contains(o.Pull.ExcludeTypes, d.Type) {
			o.Pull.ExcludeTypes = append(slices.Clone(o.Pull.ExcludeTypes), d.Type)
		}
	}
	o.splitDefaults()
}

// splitDefaults makes Score.Split what the run splits with: the default
// splitter with Split, nothing without.
func (o *Options) splitDefaults() {
	if !o.Split {
		o.Score.Split = fondue.SplitOptions{}
	} else if o.Score.Split.Splitter == nil {
		o.Score.Split.Splitter = split.Named("")
	}
}

// skip is SkipProperties and the write properties, each once.
func (o *Options) skip() []string {
	var out []string
	for _, p := range append(slices.Clone(o.SkipProperties), o.Write.Property, o.Write.ScoreProperty, o.Write.EntitiesProperty, o.Write.RunProperty, o.Write.EmbeddingProperty) {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Sync runs the sync job on st: take the lock, pull the subgraph, score
// it, write the scores and, with Split, store the split plan and carry it
// out. A run id whose plan is stored already resumes that plan (no pull,
// no scoring), unless none of its nodes was split yet: then the run starts
// afresh and its plan replaces the stored one. Given no run id, a run with
// Split first resumes (or undoes, or fails on: Options.Unfinished) a run
// of the same selection that stopped mid-split, whose record says it did
// not finish (Summary.Unfinished says so). With DryRun nothing is
// written and no lock is taken. Every name of o (labels, types,
// properties) is checked first (NameChecker), in the dry run too.
//
// The summary is returned with every error once the run got that far.
// Splits that were planned but not made give an *IncompleteError (the
// summary is complete). A lost lock gives an error for which IsLocked (or,
// when the store could not be reached, IsUnreachable) is true.
func Sync(ctx context.Context, st Store, o Options) (*Summary, error) {
	given := o.RunID != ""
	o.defaults()
	log := o.Log.With("run_id", o.RunID)
	t0 := time.Now()
	sum := &Summary{RunID: o.RunID, DryRun: o.DryRun}
	if err := checkNames(st, o.names()); err != nil {
		return sum, err
	}
	if err := o.Pull.CheckWriteLabels(); err != nil {
		return sum, err
	}
	if err := splitplan.CheckCloneKey(o.CloneKey); err != nil {
		return sum, Errorf(ErrInvalid, err, "Options.CloneKey %v", err)
	}
	if err := o.Unfinished.check(); err != nil {
		return sum, err
	}

	if d := o.Duplicates; d != nil {
		switch {
		case o.Split:
			return sum, Errorf(ErrInvalid, nil, "Options.Duplicates: a run finds duplicates or splits, not both")
		case slices.Contains(o.Pull.RelationshipTypes, d.Type):
			return sum, Errorf(ErrInvalid, nil, "DuplicateOptions.Type %q is one of PullOptions.RelationshipTypes: the relationships a run writes are never pulled", d.Type)
		}
	}
	if !o.DryRun {
		lockCtx, release, err := hold(ctx, st, o.Lock, log)
		if err != nil {
			return sum, err
		}
		defer release()
		ctx = lockCtx
		if o.Split {
			// A run id that already stored a split plan resumes it: the
			// graph is (partly) split, so it is not scored again. Without
			// a run id, so does an unfinished run of the same selection.
			plan, err := LoadPlan(ctx, st, o.RunID)
			if err != nil {
				return sum, lockError(ctx, err)
			}
			if plan != nil {
				plan, err = replaceUnstarted(ctx, st, plan, log)
			} else if !given {
				if plan, err = finishUnfinished(ctx, st, &o, sum, log); plan != nil {
					log = o.Log.With("run_id", o.RunID)
				}
			}
			if err != nil {
				return sum, lockError(ctx, err)
			}
			if plan != nil {
				if given {
					log.Info("resuming the split plan of this run id", "phase", "split", "nodes", len(plan.Nodes))
				} else {
					log.Info(sum.Unfinished[0].String(), "phase", "split", "nodes", len(plan.Nodes))
				}
				sum.Resumed = true
				if err := runSplit(ctx, st, plan, sum, o, log); err != nil {
					return sum, lockError(ctx, err)
				}
				return sum, incomplete(sum)
			}
		}
	}

	sg, err := pull(ctx, st, o, sum, t0, log)
	if err != nil {
		return sum, lockError(ctx, err)
	}
	if o.Duplicates != nil {
		return sum, lockError(ctx, duplicates(ctx, st, sg, o, sum, log))
	}
	res, scored, err := score(ctx, st, sg, o, sum, log)
	if err != nil {
		return sum, lockError(ctx, err)
	}

	var plan *splitplan.Plan
	if o.Split {
		ds, err := Decisions(ctx, st)
		if err != nil {
			return sum, lockError(ctx, err)
		}
		res = remember(sg, res, ds, sum, log)
		plan, err = NewPlan(sg, res, PlanOptions{RunID: o.RunID, Splitter: o.Score.Split.Splitter.Name(),
			MarkerLabel: o.Pull.MarkerLabel, SkipProperties: o.skip(), NeighborLinks: o.DryRun, CloneKey: o.CloneKey})
		if err != nil {
			return sum, lockError(ctx, err)
		}
	}
	if o.DryRun {
		if plan != nil {
			if err := Describe(ctx, st, plan); err != nil {
				return sum, err
			}
			sum.Plan = plan
		}
		return sum, nil
	}

	if err := writeScores(ctx, st, sg, res, o, sum, log); err != nil {
		return sum, lockError(ctx, err)
	}
	if o.Written != nil {
		if err := o.Written(sg, res, scored, sum); err != nil {
			return sum, err
		}
	}
	if plan != nil {
		stored, err := StorePlan(ctx, st, plan)
		if err != nil {
			return sum, lockError(ctx, err)
		}
		if err := runSplit(ctx, st, stored, sum, o, log); err != nil {
			return sum, lockError(ctx, err)
		}
	}
	return sum, incomplete(sum)
}

// remember drops the split proposals of res that a remembered review
// decision covers: a node rejected, or split with edited groups, whose
// neighbourhood (splitplan.Fingerprint of its key and its neighbours'
// keys in sg) is the one decided on. A node whose neighbours changed is
// proposed again. The decisions applied are listed in sum.Remembered.
func remember(sg *Subgraph, res *fondue.Result, ds []splitplan.Decision, sum *Summary, log *slog.Logger) *fondue.Result {
	if len(ds) == 0 {
		return res
	}
	byKey := map[string][]splitplan.Decision{}
	for _, d := range ds {
		if mergeplan.IsMergeDecision(d) {
			continue // a pair's, for sync --duplicates
		}
		byKey[d.Key.Text()] = append(byKey[d.Key.Text()], d)
	}
	kept := make([]fondue.Proposal, 0, len(res.Proposals))
	for _, pr := range res.Proposals {
		key := sg.Key(pr.Node).Text()
		var hit *splitplan.Decision
		if cands := byKey[key]; len(cands) > 0 && len(pr.Groups) >= 2 {
			nbs := sg.Graph.Neighbors(pr.Node)
			texts := make([]string, len(nbs))
			for k, j := range nbs {
				texts[k] = sg.Key(int(j)).Text()
			}
			fp := splitplan.Fingerprint(key, texts)
			for k := range cands {
				if cands[k].Fingerprint == fp {
					hit = &cands[k]
				}
			}
		}
		if hit == nil {
			kept = append(kept, pr)
			continue
		}
		sum.Remembered = append(sum.Remembered, *hit)
		log.Info("not proposed: a review decision on its unchanged neighbourhood", "phase", "split",
			"node", key, "decision", hit.Kind, "decided_in_run", hit.RunID)
	}
	if len(kept) == len(res.Proposals) {
		return res
	}
	r := *res
	r.Proposals = kept
	return &r
}

// ForgetDecisions forgets the remembered review decisions of run runID
// ("": of every run), under the lock, and returns how many it forgot.
func ForgetDecisions(ctx context.Context, st Store, runID string, lock LockOptions, log *slog.Logger) (int, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lock.RunID = "forget decisions " + runID
	ctx, release, err := hold(ctx, st, lock, log)
	if err != nil {
		return 0, err
	}
	defer release()
	n, err := clearDecisions(ctx, st, runID)
	return n, lockError(ctx, err)
}

// replaceUnstarted returns the stored plan of a run, to resume, or nil
// after forgetting it when none of its nodes was split yet (an earlier
// attempt of the run stopped before its first split): the run then starts
// afresh, with today's configuration.
func replaceUnstarted(ctx context.Context, st Store, plan *splitplan.Plan, log *slog.Logger) (*splitplan.Plan, error) {
	n, err := CountSplit(ctx, st, plan)
	if err != nil || n > 0 {
		return plan, err
	}
	log.Info("the stored split plan of this run id split no node yet: this run replaces it", "phase", "split",
		"nodes", len(plan.Nodes), "created_at", plan.CreatedAt)
	return nil, st.DeleteRecord(ctx, plan.RunID)
}

// namedValue is a label, type or property name and what it is: its
// option's Go name, or the plan's field in words.
type namedValue struct {
	what string
	name string
}

// names lists every label, type and property name that the run may use,
// with its option's Go name ("" names are unset and left out).
func (o *Options) names() []namedValue {
	var out []namedValue
	add := func(what string, names ...string) {
		for _, n := range names {
			if n != "" {
				out = append(out, namedValue{what, n})
			}
		}
	}
	add("PullOptions.NodeLabels", o.Pull.NodeLabels...)
	add("PullOptions.WriteNodeLabels", o.Pull.WriteNodeLabels...)
	add("PullOptions.RelationshipTypes", o.Pull.RelationshipTypes...)
	add("PullOptions.ExcludeTypes", o.Pull.ExcludeTypes...) // the types excluded are the duplicates'
	add("PullOptions.IDProperty", o.Pull.IDProperty)
	add("PullOptions.DisplayProperties", o.Pull.DisplayProperties...)
	add("PullOptions.EvidenceProperties", o.Pull.EvidenceProperties...)
	add("PullOptions.EmbeddingProperty", o.Pull.EmbeddingProperty)
	add("WriteOptions.EmbeddingProperty", o.Write.EmbeddingProperty)
	add("PullOptions.MarkerLabel", o.Pull.MarkerLabel)
	add("WriteOptions.Property", o.Write.Property)
	add("WriteOptions.ScoreProperty", o.Write.ScoreProperty)
	add("WriteOptions.EntitiesProperty", o.Write.EntitiesProperty)
	add("WriteOptions.RunProperty", o.Write.RunProperty)
	add("Options.SkipProperties", o.SkipProperties...)
	if d := o.Duplicates; d != nil {
		add("DuplicateOptions.Type", d.Type)
		add("DuplicateOptions.NameProperty", d.NameProperty)
	}
	return out
}

// planNames lists the label, type and property names of plan p, with
// what they are.
func planNames(p *splitplan.Plan) []namedValue {
	var out []namedValue
	add := func(what string, names ...string) {
		for _, n := range names {
			if n != "" {
				out = append(out, namedValue{what, n})
			}
		}
	}
	add("approved plan's node label", p.NodeLabels...)
	add("approved plan's relationship type", p.RelationshipTypes...)
	add("approved plan's key property", p.IDProperty)
	add("approved plan's display property", p.DisplayProperties...)
	add("approved plan's marker label", p.MarkerLabel)
	add("approved plan's skip property", p.SkipProperties...)
	return out
}

// checkNames checks names with st's NameChecker, if it has one: the first
// bad one is an ErrInvalid error saying what it is.
func checkNames(st Store, names []namedValue) error {
	nc, ok := st.(NameChecker)
	if !ok {
		return nil
	}
	for _, n := range names {
		if err := nc.CheckName(n.name); err != nil {
			return Errorf(ErrInvalid, err, "%s: %v", n.what, err)
		}
	}
	return nil
}

// Scoring is a scored subgraph (Score).
type Scoring struct {
	Subgraph *Subgraph
	Result   *fondue.Result
	Options  fondue.Options // the engine's, as scored with
	Summary  *Summary
}

// Score is the half of a job that reads and scores, which Sync runs
// before it writes: pull the subgraph from src, check its evidence,
// Prepare, check its memory (Memory), warm start, fondue.Score, Scored. The
// commands that score files (package filesource) run it and print.
// Lock, Write, DryRun, Duplicates and the split plan play no part; the
// summary counts what was pulled and scored. An error comes with a nil
// Scoring.
func Score(ctx context.Context, src Source, o Options) (*Scoring, error) {
	if o.Duplicates != nil {
		return nil, Errorf(ErrInvalid, nil, "Score does not find duplicates: use Sync")
	}
	o.defaults()
	sum := &Summary{RunID: o.RunID}
	sg, err := pull(ctx, src, o, sum, time.Now(), o.Log)
	if err != nil {
		return nil, err
	}
	res, opts, err := score(ctx, src, sg, o, sum, o.Log)
	if err != nil {
		return nil, err
	}
	return &Scoring{Subgraph: sg, Result: res, Options: opts, Summary: sum}, nil
}

// pull reads the subgraph from src and counts it in sum (t0: when the
// run started).
func pull(ctx context.Context, src Source, o Options, sum *Summary, t0 time.Time, log *slog.Logger) (*Subgraph, error) {
	sg, err := src.Pull(ctx, o.Pull)
	if err != nil {
		return nil, err
	}
	g := sg.Graph
	sum.NodeCount, sum.RelationshipCount = g.NumNodes(), g.NumEdges()
	sum.PreProcessingMillis = time.Since(t0).Milliseconds()
	log.Info("pulled the subgraph", "phase", "pull", "nodes", g.NumNodes(), "relationships", g.NumEdges(),
		"rows", sg.Stats.RelationshipRows, "self_loops", sg.Stats.SelfLoops, "parallel", sg.Stats.Parallel,
		"dangling", sg.Stats.Dangling, "keyless_clones", sg.Stats.KeylessClones, "seconds", round3(sg.Stats.Duration.Seconds()))
	if u := sg.Unnamed; u != nil {
		attrs := []any{"nodes", u.Nodes, "labels", u.Labels, "properties", u.Properties}
		if len(u.Properties) > 0 {
			attrs = append(attrs, "try", strings.Join(append(slices.Clone(o.Pull.DisplayProperties), u.Properties[0]), ","))
		}
		log.Warn("nodes with none of the display properties are shown by key; properties they have could name them", attrs...)
	}
	return sg, nil
}

// score scores the pulled graph: the evidence check, Prepare, the memory
// check, the warm start from saved embeddings, fondue.Score, Scored.
// It returns the engine's options as scored with.
func score(ctx context.Context, src Source, sg *Subgraph, o Options, sum *Summary, log *slog.Logger) (*fondue.Result, fondue.Options, error) {
	g := sg.Graph
	opts := o.Score
	if err := CheckEvidence(sg.Context); err != nil {
		return nil, opts, err
	}
	if o.Prepare != nil {
		if err := o.Prepare(sg, &opts); err != nil {
			return nil, opts, err
		}
	}
	// The run as prepared: it holds a saved state only if Prepare read one.
	prepared := o
	prepared.Score = opts
	if _, err := o.Memory.check(src, sg, prepared, log); err != nil {
		return nil, opts, err
	}
	from := "checkpoint"
	if opts.WarmStart == nil && sg.Embeddings != nil {
		opts.WarmStart, from = vectorCheckpoint(g, sg.Embeddings, opts.CNE), "property"
		log.Debug("saved embeddings read from node properties", "property", o.Pull.EmbeddingProperty,
			"nodes", sg.Stats.Embeddings, "not_lists_of_numbers", sg.Stats.BadEmbeddings)
	}
	opts.Progress = o.Progress
	opts.Targets = sg.Targets
	opts.Context = sg.Context
	t1 := time.Now()
	res, err := fondue.Score(ctx, g, opts)
	if err != nil {
		return nil, opts, err
	}
	sum.ComputeMillis = time.Since(t1).Milliseconds()
	sum.UnscoredNodes = len(res.Unscored(sg.Targets)) // isolated targets
	top := o.TopNodes
	if top == 0 {
		top = DefaultTopNodes
	}
	sum.Scored = newScored(sg, res, top)
	if res.Warm != nil {
		sum.WarmStartNodes, sum.WarmStartNewNodes, sum.WarmStartFrom = res.Warm.Reused, res.Warm.New, from
		log.Info("warm start: reused the saved embedding", "phase", "embedding", "from", from,
			"reused", res.Warm.Reused, "new", res.Warm.New, "dropped", res.Warm.Dropped, "epochs", res.CNE.Epochs)
	}
	sum.Epochs = res.CNE.Epochs
	if in := res.Incremental; in != nil {
		sum.Incremental = &Incremental{Mode: ModeIncremental, Reason: in.Reason, NodesChanged: in.Changed,
			NodesTrained: in.Trained, NodesRescored: in.Rescored, NodesReused: in.Reused}
		if in.Full {
			sum.Incremental.Mode = ModeFull
			log.Info("a full run: the saved state does not fit", "phase", "compute", "reason", in.Reason)
		} else {
			log.Info("an incremental run: only what changed is scored again", "phase", "compute", "changed", in.Changed,
				"trained", in.Trained, "rescored", in.Rescored, "reused", in.Reused)
		}
	}
	if o.Scored != nil {
		if err := o.Scored(sg, res, opts, sum); err != nil {
			return nil, opts, err
		}
	}
	return res, opts, nil
}

func writeScores(ctx context.Context, st Store, sg *Subgraph, res *fondue.Result, o Options, sum *Summary, log *slog.Logger) error {
	t2 := time.Now()
	wo := o.Write
	wo.Progress = phaseProgress(o.Progress, "write")
	ws, err := WriteScores(ctx, st, sg, res, wo, log)
	if err != nil {
		return err
	}
	sum.NodePropertiesWritten = ws.PropertiesWritten
	sum.NodesWritten, sum.NodesUnchanged = ws.Nodes, ws.Unchanged
	sum.NodesNotFound, sum.NodesNotFoundKeys = ws.Missing, ws.MissingKeys
	sum.WriteMillis = time.Since(t2).Milliseconds()
	attrs := []any{"phase", "write", "nodes", ws.Nodes, "unchanged", ws.Unchanged, "properties", ws.PropertiesWritten,
		"batches", ws.Batches, "missing", ws.Missing, "seconds", round3(ws.Duration.Seconds())}
	if !ws.Compared {
		attrs = append(attrs, "all", true) // --full, or the values could not be read back
	}
	log.Info("wrote the scores", attrs...)
	return nil
}

// runSplit carries out a stored plan; the summary gets its counts even
// when it fails.
func runSplit(ctx context.Context, st Store, plan *splitplan.Plan, sum *Summary, o Options, log *slog.Logger) error {
	t0 := time.Now()
	ss, err := Split(ctx, st, plan, time.Now(), phaseProgress(o.Progress, "split"), log)
	sum.SplitMillis = time.Since(t0).Milliseconds()
	sum.Split = &ss
	if err != nil {
		return err // the record stays unfinished: the next run resumes it
	}
	if err := st.FinishRecord(ctx, plan.RunID); err != nil {
		return err
	}
	log.Info("split", "phase", "split", "planned", ss.Planned, "split", ss.Split,
		"already_done", ss.AlreadyDone, "skipped", ss.Skipped, "failed", ss.Failed,
		"nodes_created", ss.NodesCreated, "relationships_moved", ss.RelationshipsMoved)
	return nil
}

// incomplete is the error of a run whose planned splits were not all
// made: an approved plan is carried out whole (a node whose neighbours
// changed after the whole-plan check was left alone), and a failed split
// fails the run.
func incomplete(sum *Summary) error {
	sp := sum.Split
	switch {
	case sp == nil:
		return nil
	case sum.ApprovedPlan != nil && sp.Skipped > 0:
		return &IncompleteError{RunID: sum.RunID, Approved: true, Stats: sp}
	case sp.Failed > 0:
		return &IncompleteError{RunID: sum.RunID, Stats: sp}
	}
	return nil
}

func phaseProgress(p func(fondue.Progress), phase fondue.Phase) func(done, total int) {
	if p == nil {
		return nil
	}
	return func(done, total int) { p(fondue.Progress{Phase: phase, Done: done, Total: total}) }
}

// hold takes the run's lock. The returned context is cancelled if the lock
// is lost; release (to defer) gives the lock back, and only warns if it
// cannot: the lock then expires after its TTL.
func hold(ctx context.Context, st Locker, o LockOptions, log *slog.Logger) (context.Context, func(), error) {
	lock, err := st.Lock(ctx, o)
	if err != nil {
		return ctx, nil, err
	}
	release := func() {
		if err := lock.Release(ctx); err != nil {
			log.Warn("could not release the lock (it expires after its TTL)", "error", err.Error())
		}
	}
	return lock.Context(), release, nil
}

// lockError maps the cancellation of a lost lock to its cause: an error
// for which IsLocked is true, or, when the store could not be reached to
// refresh the lock, one for which IsUnreachable is.
func lockError(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, ErrUnreachable):
		return cause
	case errors.Is(cause, ErrLockLost):
		return Errorf(ErrLocked, ErrLockLost, "stopped: the lock was lost (not refreshed within its TTL, or taken over by another run); another run may be writing (raise the lock TTL if the database is slow to answer)")
	}
	return err
}

// vectorCheckpoint turns embeddings saved in node properties into a
// checkpoint (vectors only: a property cannot hold the optimizer state).
// Vectors of another dimension than o's are ignored; nil when none is
// usable.
func vectorCheckpoint(g *graph.Graph, vecs [][]float64, o cne.Options) *cne.Checkpoint {
	o.Dim = o.WithDefaults().Dim
	ck := &cne.Checkpoint{Dim: o.Dim, Sigma1: o.Sigma1, Sigma2: o.Sigma2}
	for i, v := range vecs {
		if len(v) == o.Dim {
			ck.Keys = append(ck.Keys, g.Key(i))
			ck.X = append(ck.X, v...)
		}
	}
	if ck.Len() == 0 {
		return nil
	}
	return ck
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
