package syncjob

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/dedup"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// Defaults of DuplicateOptions.
const (
	// DefaultDuplicateType is the type of the relationships that join the
	// nodes that may be one entity (as GDS writes SIMILAR). A relationship
	// type, not an environment variable (typed: the harness's check of
	// FONDUE_* variables reads untyped constants).
	DefaultDuplicateType string = "FONDUE_DUPLICATE"
	// DefaultNameProperty holds the names compared.
	DefaultNameProperty = "name"
	// DefaultMinProbability keeps the pairs more likely one entity than
	// not (score > 0).
	DefaultMinProbability = 0.5
)

// DuplicateOptions configure the duplicates of a sync (Options.Duplicates):
// instead of scoring the ambiguity, the run finds the pairs of write-label
// nodes that may be one entity (dedup.Find) and writes each as a
// relationship of Type from the pair's first node to its second, with
// properties score (log-odds, as the duplicates command prints it),
// probability (1/(1+e^-score)), reasons (texts) and the run id
// (WriteOptions.RunProperty). The relationships of Type of earlier runs
// are deleted once this run's are written: a run that stopped half way
// leaves both, and the next run deletes what is not its own.
type DuplicateOptions struct {
	// Type is the relationship type (default DefaultDuplicateType). Pulls
	// never read it (PullOptions.ExcludeTypes).
	Type string
	// NameProperty holds the names compared (default "name"): the pull
	// reads it as the first display property, so a node without it is
	// named by the next one that it has.
	NameProperty string
	// MinProbability: pairs less likely are not written. 0 means
	// DefaultMinProbability; a negative value keeps every pair.
	MinProbability float64
	// Find are the engine's options: Find.Top keeps the best pairs only.
	Find dedup.Options
}

func (d *DuplicateOptions) defaults() {
	if d.Type == "" {
		d.Type = DefaultDuplicateType
	}
	if d.NameProperty == "" {
		d.NameProperty = DefaultNameProperty
	}
	if d.MinProbability == 0 {
		d.MinProbability = DefaultMinProbability
	}
}

// minScore is the least score (log-odds) written.
func (d *DuplicateOptions) minScore() float64 {
	if d.MinProbability <= 0 {
		return math.Inf(-1)
	}
	if d.MinProbability >= 1 {
		return math.Inf(1)
	}
	return math.Log(d.MinProbability / (1 - d.MinProbability))
}

// Duplicates describe the duplicates a run found and wrote.
type Duplicates struct {
	RelationshipType string `json:"relationshipType"`
	Compared         int    `json:"compared"`   // nodes compared (write labels)
	Candidates       int    `json:"candidates"` // candidate pairs scored
	// Pairs are the pairs kept (Find.Top, MinProbability), best first;
	// RelationshipsWritten those written (a pair whose node is gone since
	// the pull is not), RelationshipsDeleted those of earlier runs deleted.
	Pairs []DuplicatePair `json:"pairs"`
	// Remembered counts the pairs left out because a review rejected them
	// (mergeplan.Remembered).
	Remembered           int   `json:"remembered,omitempty"`
	RelationshipsWritten int   `json:"relationshipsWritten"`
	RelationshipsDeleted int   `json:"relationshipsDeleted"`
	FindMillis           int64 `json:"findMillis"`
	// MemoryEstimate is the run's estimated peak memory in bytes, which
	// the memory guard checked: the duplicates command's formula
	// (dedup.Predict, as estimate --duplicates gives it) on the pulled graph.
	MemoryEstimate int64 `json:"memoryEstimateBytes"`
}

// DuplicatePair is a pair of nodes that may be one entity: the
// relationship goes from A to B.
type DuplicatePair struct {
	A           DuplicateNode `json:"a"`
	B           DuplicateNode `json:"b"`
	Score       float64       `json:"score"`       // log-odds: higher is more likely one entity
	Probability float64       `json:"probability"` // 1/(1+e^-score)
	Reasons     []string      `json:"reasons"`
}

// DuplicateNode is one node of a pair.
type DuplicateNode struct {
	Key  keys.Key `json:"key"` // key property value, or the element id
	ID   keys.Key `json:"id"`  // element id
	Name string   `json:"name,omitempty"`
}

// findDuplicates finds the pairs of sg's targets that may be one entity
// and keeps those o says but the remembered ones (a review rejected them:
// mergeplan.Remembered); with plan, it also makes the merge plan of the
// pairs kept (every pair undecided).
func findDuplicates(ctx context.Context, sg *Subgraph, o Options, remembered map[string]splitplan.Decision, plan *mergeplan.Plan, log *slog.Logger) (*Duplicates, error) {
	do := o.Duplicates
	names := sg.Names
	if names == nil {
		names = make([]string, sg.Graph.NumNodes())
	}
	in := dedup.NewInput(sg.Graph, slices.Clone(names), nil, sg.Targets, sg.Context)
	compared, named := in.Compared()
	switch {
	case compared < 2:
		return nil, Errorf(ErrEmpty, nil, "nothing to compare: %d node(s) selected (the write node labels), duplicates need two", compared)
	case named == 0:
		return nil, Errorf(ErrInvalid, nil, "none of the %d nodes compared has the name property %q (or its value is empty)", compared, do.NameProperty)
	}
	t0 := time.Now()
	res, err := dedup.Find(ctx, in, do.Find)
	if errors.Is(err, dedup.ErrInput) {
		return nil, Errorf(ErrEmpty, err, "nothing to compare: %v", err)
	}
	if err != nil {
		return nil, err
	}
	d := &Duplicates{RelationshipType: do.Type, Compared: compared, Candidates: res.Candidates, Pairs: []DuplicatePair{},
		FindMillis: time.Since(t0).Milliseconds()}
	low := do.minScore()
	node := func(i int) DuplicateNode {
		n := DuplicateNode{Key: sg.Key(i), ID: sg.IDs[i]}
		if sg.Names != nil {
			n.Name = sg.Names[i]
		}
		return n
	}
	for _, p := range res.Pairs {
		if p.Score < low {
			break // best first
		}
		dp := DuplicatePair{A: node(p.A), B: node(p.B), Score: p.Score, Probability: 1 / (1 + math.Exp(-p.Score)), Reasons: []string{}}
		if _, ok := remembered[mergeplan.PairFingerprint(dp.A.Key, dp.B.Key)]; ok {
			d.Remembered++
			continue
		}
		for _, r := range p.Reasons {
			dp.Reasons = append(dp.Reasons, r.Text)
		}
		d.Pairs = append(d.Pairs, dp)
		if plan != nil {
			plan.Pairs = append(plan.Pairs, mergePair(sg, p))
		}
	}
	log.Info("found duplicates", "phase", "duplicates", "compared", compared, "candidates", res.Candidates,
		"kept", len(d.Pairs), "remembered", d.Remembered, "min_probability", do.MinProbability, "seconds", round3(time.Since(t0).Seconds()))
	return d, nil
}

// newMergePlan is the empty merge plan of a run with Options.Duplicates:
// its selection is the pull's.
func newMergePlan(o Options) *mergeplan.Plan {
	p := mergeplan.New(o.RunID, splitplan.ISOTime(time.Now()))
	p.IDProperty, p.NodeLabels, p.RelationshipTypes = o.Pull.IDProperty, o.Pull.NodeLabels, o.Pull.RelationshipTypes
	p.DisplayProperties, p.CandidateType = o.Pull.DisplayProperties, o.Duplicates.Type
	return p
}

// mergePair is a pair of the merge plan, undecided: the node with more
// neighbours is kept (the first on a tie), each node pinned by its
// neighbourhood (mergeplan.NodeFingerprint).
func mergePair(sg *Subgraph, p dedup.Pair) mergeplan.Pair {
	keep, gone := p.A, p.B
	if sg.Graph.Degree(p.B) > sg.Graph.Degree(p.A) {
		keep, gone = p.B, p.A
	}
	fp := func(i int) string {
		nbs := sg.Graph.Neighbors(i)
		ks := make([]keys.Key, len(nbs))
		for k, j := range nbs {
			ks[k] = sg.Key(int(j))
		}
		return mergeplan.NodeFingerprint(sg.Key(i), ks)
	}
	mp := mergeplan.Pair{Keep: sg.Key(keep), Merge: sg.Key(gone), KeepID: sg.IDs[keep], MergeID: sg.IDs[gone], Score: p.Score,
		Decision: mergeplan.DecisionUndecided, KeepFingerprint: fp(keep), MergeFingerprint: fp(gone)}
	if sg.Names != nil {
		mp.KeepName, mp.MergeName = sg.Names[keep], sg.Names[gone]
	}
	for _, r := range p.Reasons {
		mp.Reasons = append(mp.Reasons, splitplan.Reason{Kind: r.Kind, Value: r.Text, Weight: r.Weight})
	}
	return mp
}

// WriteDuplicates writes d's pairs as relationships of d.RelationshipType
// with their score, probability, reasons and run id (property runProp),
// in transactions of batch pairs, then deletes the relationships of that
// type that are not this run's, batch at a time. Written again with the
// same run id, it gives the same graph.
func WriteDuplicates(ctx context.Context, st Graph, d *Duplicates, runProp, runID string, batch int, progress func(done, total int)) error {
	if batch <= 0 {
		batch = DefaultBatchSize
	}
	typ := d.RelationshipType
	d.RelationshipsWritten, d.RelationshipsDeleted = 0, 0
	nb := (len(d.Pairs) + batch - 1) / batch
	for b := 0; b*batch < len(d.Pairs); b++ {
		part := d.Pairs[b*batch : min((b+1)*batch, len(d.Pairs))]
		ls := make([]Link, len(part))
		for k, p := range part {
			ls[k] = Link{From: p.A.ID, To: p.B.ID, Props: map[string]any{
				"score": p.Score, "probability": p.Probability, "reasons": p.Reasons, runProp: runID}}
		}
		var n int
		err := st.Write(ctx, fmt.Sprintf("writing %s relationships, batch %d of %d", typ, b+1, nb), func(tx Tx) error {
			var err error
			n, err = tx.Link(typ, ls)
			return err
		})
		if err != nil {
			return err
		}
		d.RelationshipsWritten += n
		if progress != nil {
			progress(b*batch+len(part), len(d.Pairs))
		}
	}
	for {
		var n int
		err := st.Write(ctx, fmt.Sprintf("deleting the %s relationships of earlier runs", typ), func(tx Tx) error {
			var err error
			n, err = tx.Unlink(typ, runProp, runID, batch)
			return err
		})
		if err != nil {
			return err
		}
		d.RelationshipsDeleted += n
		if n < batch {
			return nil
		}
	}
}

// duplicates is the rest of a run with Options.Duplicates after the pull:
// the memory guard, find the pairs, write them (unless DryRun).
func duplicates(ctx context.Context, st Store, sg *Subgraph, o Options, sum *Summary, log *slog.Logger) error {
	if err := CheckEvidence(sg.Context); err != nil {
		return err
	}
	est, err := o.Memory.check(st, sg, o, log)
	if err != nil {
		return err
	}
	ds, err := Decisions(ctx, st)
	if err != nil {
		return err
	}
	var plan *mergeplan.Plan
	if o.DryRun {
		plan = newMergePlan(o)
	}
	d, err := findDuplicates(ctx, sg, o, mergeplan.Remembered(ds), plan, log)
	if err != nil {
		return err
	}
	d.MemoryEstimate = est.Peak
	sum.Duplicates, sum.MergePlan = d, plan
	sum.ComputeMillis = d.FindMillis
	if o.DryRun {
		return nil
	}
	runProp := o.Write.RunProperty
	if runProp == "" {
		runProp = DefaultRunProperty
	}
	t0 := time.Now()
	err = WriteDuplicates(ctx, st, d, runProp, o.RunID, o.Write.BatchSize, phaseProgress(o.Progress, "write"))
	sum.WriteMillis = time.Since(t0).Milliseconds()
	if err != nil {
		return err
	}
	log.Info("wrote the duplicates", "phase", "write", "type", d.RelationshipType, "written", d.RelationshipsWritten,
		"pairs", len(d.Pairs), "deleted_of_earlier_runs", d.RelationshipsDeleted, "seconds", round3(time.Since(t0).Seconds()))
	return nil
}
