package syncjob_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/memstore"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// lesmis loads testdata/lesmis.edges as (:Character {id}) nodes and
// APPEARS_WITH relationships, and returns the store and the ids by key.
func lesmis(t *testing.T) (*memstore.Store, map[int64]string) {
	t.Helper()
	g, _, err := edgelist.ReadFile("../testdata/lesmis.edges", edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	s := memstore.New()
	ids := map[int64]string{}
	for i := range g.NumNodes() {
		k, _ := g.IntKey(i)
		ids[k] = s.AddNode([]string{"Character"}, map[string]any{"id": k})
	}
	for i := range g.NumNodes() {
		for _, j := range g.Neighbors(i) {
			if int(j) > i {
				a, _ := g.IntKey(i)
				b, _ := g.IntKey(int(j))
				s.AddRel(ids[a], ids[b], "APPEARS_WITH", nil)
			}
		}
	}
	return s, ids
}

func options(runID string) syncjob.Options {
	return syncjob.Options{RunID: runID,
		Pull:  syncjob.PullOptions{NodeLabels: []string{"Character"}, IDProperty: "id"},
		Write: syncjob.WriteOptions{ScoreProperty: syncjob.DefaultScoreProperty, RunProperty: syncjob.DefaultRunProperty},
		Score: fondue.Options{Seed: 1, Split: fondue.SplitOptions{Top: 3}}, Split: true}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// The scores written are those of fondue.Score on the same graph (read
// from the edge list), and the three most ambiguous nodes are split.
func TestSyncLesMiserables(t *testing.T) {
	s, _ := lesmis(t)
	before := s.Dump("id")
	sum, err := syncjob.Sync(ctx(t), s, options("r1"))
	if err != nil {
		t.Fatal(err)
	}
	g, _, _ := edgelist.ReadFile("../testdata/lesmis.edges", edgelist.HeaderAuto)
	res, err := fondue.Score(context.Background(), g, fondue.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.NodeCount != 77 || sum.RelationshipCount != 254 || sum.NodePropertiesWritten != 2*77 || sum.Epochs != res.CNE.Epochs {
		t.Fatalf("summary %+v", sum)
	}
	byKey := map[int64]float64{}
	for i := range g.NumNodes() {
		k, _ := g.IntKey(i)
		byKey[k] = res.Ambiguity[i]
	}
	for _, n := range s.Nodes() {
		if k, ok := n.Props["id"].(int64); ok && !slices.Contains(n.Labels, syncjob.DefaultMarkerLabel) && n.Props["ambiguity"] != byKey[k] {
			t.Fatalf("node %d: ambiguity %v, want %v", k, n.Props["ambiguity"], byKey[k])
		}
	}
	sp := sum.Split
	if sp == nil || sp.Planned != 3 || sp.Split != 3 || sp.NodesCreated < 3 {
		t.Fatalf("split %+v", sp)
	}
	top, _ := g.IntKey(res.Ranking()[0])
	if sp.Nodes[0].Key != keys.Int(top) {
		t.Fatalf("first split node %v, want the most ambiguous, %d", sp.Nodes[0].Key, top)
	}
	// The stored plan, which a re-run and undo read, lists no links
	// between neighbours (a dry run's plan, for a review page, does).
	stored, err := syncjob.LoadPlan(ctx(t), s, "r1")
	if err != nil || stored == nil || len(stored.Nodes) != 3 || stored.NeighborLinks {
		t.Fatalf("stored plan %v: %+v", err, stored)
	}
	for _, pn := range stored.Nodes {
		if len(pn.Links) != 0 || pn.LinksOmitted != 0 {
			t.Fatalf("stored plan node %v lists %d links", pn.Key, len(pn.Links))
		}
	}
	us, err := syncjob.Undo(ctx(t), s, syncjob.UndoOptions{RunID: "r1"})
	if err != nil || us.Restored != 3 {
		t.Fatalf("undo %+v %v", us, err)
	}
	// The graph is the one from before, plus the scores.
	if got := strings.Count(s.Dump("id"), "\n"); got != strings.Count(before, "\n") {
		t.Fatalf("%d lines after undo, want %d", got, strings.Count(before, "\n"))
	}
}

func ctx(t *testing.T) context.Context { return ctxT(t) }

// A dry run takes no lock and writes nothing; it describes the plan.
func TestSyncDryRun(t *testing.T) {
	s, _ := lesmis(t)
	l, err := s.Lock(ctx(t), syncjob.LockOptions{RunID: "other"}) // held by another run
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx(t))
	o := options("dry")
	o.DryRun = true
	o.Write.EntitiesProperty = syncjob.DefaultEntitiesProperty
	sum, err := syncjob.Sync(ctx(t), s, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.Writes() != 0 || !sum.DryRun || sum.Plan == nil || len(sum.Plan.Nodes) != 3 || sum.Split != nil {
		t.Fatalf("writes %d, summary %+v", s.Writes(), sum)
	}
	n := sum.Plan.Nodes[0]
	total := 0
	for _, g := range n.Groups {
		for _, rc := range g.Relationships {
			total += rc.Count
		}
	}
	if !slicesEqual(n.Labels, []string{"Character"}) || total == 0 {
		t.Fatalf("not described: %+v", n)
	}
	// A review page draws the links between the neighbours.
	if !sum.Plan.NeighborLinks || len(n.Links) == 0 {
		t.Fatalf("the dry run's plan lists no links: %+v", n)
	}
	// The write properties are not copied to clones.
	if !slicesEqual(sum.Plan.SkipProperties, []string{"ambiguity", "ambiguity_score", "ambiguity_entities", "fondue_run"}) {
		t.Fatalf("skip %v", sum.Plan.SkipProperties)
	}
	// Each planned node carries its estimated number of entities.
	g, _, _ := edgelist.ReadFile("../testdata/lesmis.edges", edgelist.HeaderAuto)
	res, err := fondue.Score(context.Background(), g, fondue.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, pn := range sum.Plan.Nodes {
		i, _ := g.Index(pn.Key.Text())
		if pn.Entities < 1 || pn.Entities != res.Entities[i] {
			t.Fatalf("plan node %v: entities %d, want %d", pn.Key, pn.Entities, res.Entities[i])
		}
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// Another run's lock: a typed error, nothing written.
func TestSyncLocked(t *testing.T) {
	s, _ := lesmis(t)
	l, err := s.Lock(ctx(t), syncjob.LockOptions{RunID: "other"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx(t))
	_, err = syncjob.Sync(ctx(t), s, options("r1"))
	if !syncjob.IsLocked(err) || !errors.Is(err, syncjob.ErrLocked) || s.Writes() != 0 {
		t.Fatalf("%v (%d writes)", err, s.Writes())
	}
}

// The memory guard is Sync's: a run whose estimated memory cannot fit in
// the limit is refused before anything is scored or written, one that
// fits only with the collector held to the limit runs; the zero
// value guards with the memory available to the process; a negative limit
// none.
func TestSyncMemoryGuard(t *testing.T) {
	s, _ := lesmis(t)
	o := options("mem-1")
	var peak, limit int64
	o.Memory = syncjob.MemoryGuard{Limit: 1 << 20, Estimated: func(e memory.Estimate, l int64) { peak, limit = e.Peak, l }}
	_, err := syncjob.Sync(ctx(t), s, o)
	if !errors.Is(err, syncjob.ErrMemory) || !strings.Contains(err.Error(), "exceeds the limit of 1.0 MiB") || s.Writes() != 0 {
		t.Fatalf("limit 1 MiB: %v (%d writes)", err, s.Writes())
	}
	if limit != 1<<20 || peak <= limit {
		t.Fatalf("estimate %d against %d", peak, limit)
	}
	// Given the estimate's least, below its peak, the run goes on with
	// the collector held to the limit, and says so.
	var est memory.Estimate
	o.Memory.Estimated = func(e memory.Estimate, l int64) { est, limit = e, l }
	if _, err := syncjob.Sync(ctx(t), s, o); !errors.Is(err, syncjob.ErrMemory) || est.Least <= limit || est.Least >= est.Peak {
		t.Fatalf("limit 1 MiB: %v, estimate %+v", err, est)
	}
	o.Memory.Limit = est.Least
	if _, err := syncjob.Sync(ctx(t), s, o); err != nil || limit != est.Least || !est.HeldToLimit(limit) {
		t.Fatalf("limit at the least %d: %v (limit %d)", est.Least, err, limit)
	}
	o.RunID, o.Memory.Limit = "mem-1b", 0
	// The available memory changes from one reading to the next.
	if _, err := syncjob.Sync(ctx(t), s, o); err != nil || (limit <= 0) != (memory.Available() <= 0) {
		t.Fatalf("zero value: %v, limit %d, want the available memory (now %d)", err, limit, memory.Available())
	}
	o.RunID, o.Memory.Limit = "mem-2", -1
	if _, err := syncjob.Sync(ctx(t), s, o); err != nil || limit != 0 {
		t.Fatalf("no limit: %v, limit %d", err, limit)
	}
}

// A night with a state file counts the saved state only when Prepare
// read one: the first night (no file yet) is estimated as a full run,
// a night whose Prepare set Score.Since with the state's parts.
func TestSyncMemoryCountsStateOnlyWhenRead(t *testing.T) {
	stateParts := func(state *fondue.State) (parts int, est memory.Estimate) {
		s, _ := lesmis(t)
		o := options("mem-state")
		o.OnlyChanged = true
		o.Prepare = func(_ *syncjob.Subgraph, opts *fondue.Options) error {
			opts.Since = state
			return nil
		}
		o.Memory = syncjob.MemoryGuard{Limit: -1, Estimated: func(e memory.Estimate, _ int64) { est = e }}
		if _, err := syncjob.Sync(ctx(t), s, o); err != nil {
			t.Fatal(err)
		}
		for _, ph := range est.Phases {
			for _, p := range ph.Parts {
				if strings.HasPrefix(p.Name, "saved state") {
					parts++
				}
			}
		}
		return parts, est
	}
	none, first := stateParts(nil)
	// An empty state: the engine runs in full, but the guard counts what
	// Prepare handed it.
	some, night := stateParts(&fondue.State{})
	if none != 0 || some == 0 || night.Least <= first.Least {
		t.Fatalf("saved-state parts: %d without a state, %d with one; least %d and %d", none, some, first.Least, night.Least)
	}
}

// Undo takes its lock from its options, as Sync and Apply do: a lock of
// another name does not hold it back, one of its name does.
func TestUndoLockOption(t *testing.T) {
	s, _ := lesmis(t)
	l, err := s.Lock(ctx(t), syncjob.LockOptions{Name: "nightly", RunID: "other"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx(t))
	_, err = syncjob.Undo(ctx(t), s, syncjob.UndoOptions{RunID: "r1", Lock: syncjob.LockOptions{Name: "nightly"}})
	if !syncjob.IsLocked(err) {
		t.Fatalf("undo under the held lock's name: %v, want a lock error", err)
	}
	_, err = syncjob.Undo(ctx(t), s, syncjob.UndoOptions{RunID: "r1", Lock: syncjob.LockOptions{Name: "weekly"}})
	if syncjob.IsLocked(err) || !syncjob.IsUnknownRun(err) {
		t.Fatalf("undo under another lock's name: %v, want unknown run r1", err)
	}
}

// A lock lost mid-run stops it with a typed error, before it writes.
func TestSyncLockLost(t *testing.T) {
	s, _ := lesmis(t)
	o := options("r1")
	o.Prepare = func(*syncjob.Subgraph, *fondue.Options) error {
		s.Steal(syncjob.DefaultLockName)
		return nil
	}
	_, err := syncjob.Sync(ctx(t), s, o)
	if !syncjob.IsLocked(err) || !strings.HasPrefix(err.Error(), "stopped: the lock was lost") || s.Writes() != 0 {
		t.Fatalf("%v (%d writes)", err, s.Writes())
	}
}

// Prepare refuses (a memory limit): nothing is scored or written; the
// lock is released. Scored sees the result.
func TestSyncHooks(t *testing.T) {
	s, _ := lesmis(t)
	refuse := errors.New("too big")
	o := options("r1")
	scored := false
	o.Prepare = func(sg *syncjob.Subgraph, _ *fondue.Options) error {
		if sg.Graph.NumNodes() != 77 {
			t.Errorf("%d nodes", sg.Graph.NumNodes())
		}
		return refuse
	}
	o.Scored = func(*syncjob.Subgraph, *fondue.Result, fondue.Options, *syncjob.Summary) error {
		scored = true
		return nil
	}
	if _, err := syncjob.Sync(ctx(t), s, o); !errors.Is(err, refuse) || scored || s.Writes() != 0 {
		t.Fatalf("%v, scored %v, %d writes", err, scored, s.Writes())
	}
	o.Prepare = nil
	var phases []fondue.Phase
	o.Progress = func(p fondue.Progress) {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
	}
	if _, err := syncjob.Sync(ctx(t), s, o); err != nil || !scored {
		t.Fatalf("%v, scored %v", err, scored)
	}
	if n := len(phases); n < 3 || phases[n-2] != "write" || phases[n-1] != "split" {
		t.Fatalf("phases %v", phases)
	}
}

func TestSyncEmpty(t *testing.T) {
	s, _ := lesmis(t)
	o := options("r1")
	o.Pull.NodeLabels = []string{"Nobody"}
	if _, err := syncjob.Sync(ctx(t), s, o); !syncjob.IsEmpty(err) {
		t.Fatal(err)
	}
}

// The embedding written by one run warm-starts the next.
func TestSyncWarmStart(t *testing.T) {
	s, _ := lesmis(t)
	o := options("r1")
	o.Split = false
	o.Pull.EmbeddingProperty, o.Write.EmbeddingProperty = "emb", "emb"
	sum, err := syncjob.Sync(ctx(t), s, o)
	if err != nil || sum.WarmStartNodes != 0 {
		t.Fatalf("%+v %v", sum, err)
	}
	o.RunID = "r2"
	if sum, err = syncjob.Sync(ctx(t), s, o); err != nil || sum.WarmStartNodes != 77 {
		t.Fatalf("second run: warm start of %d nodes, %v", sum.WarmStartNodes, err)
	}
}

// An approved plan: applied, resumed, refused under another plan's run
// id; its undo fails, with a typed error, for a node deleted since.
func TestApplyAndUndo(t *testing.T) {
	s, ids := lesmis(t)
	o := options("dry")
	o.DryRun = true
	dry, err := syncjob.Sync(ctx(t), s, o)
	if err != nil {
		t.Fatal(err)
	}
	plan := dry.Plan
	plan.RunID, plan.ExactNeighbors = "approved-1", true
	plan.Approved = &splitplan.ApprovedRef{File: "a.json", ReviewedAt: "2025-01-01T00:00:00.000Z", Fingerprint: "sha256:1111111111111111"}
	sum, err := syncjob.Apply(ctx(t), s, plan, syncjob.ApplyOptions{})
	if err != nil || sum.Split.Split != 3 || sum.Resumed {
		t.Fatalf("apply: %+v %v", sum, err)
	}
	sum, err = syncjob.Apply(ctx(t), s, plan, syncjob.ApplyOptions{})
	if err != nil || !sum.Resumed || sum.Split.AlreadyDone != 3 {
		t.Fatalf("re-apply: %+v %v", sum, err)
	}
	other := *plan
	other.Approved = &splitplan.ApprovedRef{ReviewedAt: "2025-01-02T00:00:00.000Z", Fingerprint: "sha256:2222222222222222"}
	if _, err := syncjob.Apply(ctx(t), s, &other, syncjob.ApplyOptions{}); !syncjob.IsInvalid(err) {
		t.Fatalf("another plan under the run id: %v", err)
	}
	uid, _ := plan.Nodes[0].Key.Int64()
	s.DeleteNode(ids[uid])
	us, err := syncjob.Undo(ctx(t), s, syncjob.UndoOptions{RunID: "approved-1"})
	if !errors.Is(err, syncjob.ErrIncomplete) || us.Restored != 2 || len(us.Failed) != 1 || !strings.Contains(err.Error(), "1 of 3 split nodes could not be restored") {
		t.Fatalf("undo: %+v %v", us, err)
	}
}

func TestIncompleteError(t *testing.T) {
	sp := &splitplan.SplitStats{Planned: 2, Split: 1, Skipped: 1, Nodes: []splitplan.NodeOutcome{
		{Key: keys.Int(48), Name: "Gavroche", Outcome: splitplan.OutcomeSplit},
		{Key: keys.Int(11), Name: "Valjean", Outcome: splitplan.OutcomeChanged, Reason: "added neighbour 77 (Newcomer)"},
	}}
	err := error(&syncjob.IncompleteError{RunID: "r1", Approved: true, Stats: sp})
	want := "1 of 2 approved splits were not made: the graph changed after the check (the others were made; re-run to retry, or undo them: fondue-neo4j undo --run-id r1): node 11 (Valjean): added neighbour 77 (Newcomer)"
	if err.Error() != want || !errors.Is(err, syncjob.ErrIncomplete) {
		t.Fatalf("%v\nwant %s", err, want)
	}
	sp.Skipped, sp.Failed, sp.Nodes[1].Outcome, sp.Nodes[1].Reason = 0, 1, splitplan.OutcomeFailed, "constraint"
	err = &syncjob.IncompleteError{RunID: "r1", Stats: sp}
	if err.Error() != "1 of 2 splits failed and were rolled back; first: node 11: constraint" {
		t.Fatal(err)
	}
}

// The nightly default: the scores' run saves each node's embedding in a
// property and the next night resumes it, saying how many nodes it reused
// and how many are new; two stores fed alike night after night get the
// same scores.
func TestSyncWarmStartNightly(t *testing.T) {
	nights := func() (*syncjob.Summary, *memstore.Store) {
		s, ids := lesmis(t)
		o := syncjob.Options{Pull: syncjob.PullOptions{NodeLabels: []string{"Character"}, IDProperty: "id", EmbeddingProperty: "fondue_embedding"},
			Write: syncjob.WriteOptions{EmbeddingProperty: "fondue_embedding"}, Score: fondue.Options{Seed: 1}}
		o.RunID = "night-1"
		sum, err := syncjob.Sync(ctx(t), s, o)
		if err != nil || sum.WarmStartFrom != "" || sum.WarmStartNodes != 0 {
			t.Fatalf("night 1 (cold): %+v %v", sum, err)
		}
		n := s.AddNode([]string{"Character"}, map[string]any{"id": int64(500)})
		s.AddRel(n, ids[11], "APPEARS_WITH", nil)
		s.AddRel(n, ids[48], "APPEARS_WITH", nil)
		o.RunID = "night-2"
		if sum, err = syncjob.Sync(ctx(t), s, o); err != nil {
			t.Fatal(err)
		}
		return sum, s
	}
	sum, s := nights()
	if sum.WarmStartFrom != "property" || sum.WarmStartNodes != 77 || sum.WarmStartNewNodes != 1 {
		t.Fatalf("night 2: warm start from %q, %d reused, %d new; want property, 77, 1", sum.WarmStartFrom, sum.WarmStartNodes, sum.WarmStartNewNodes)
	}
	_, again := nights()
	if a, b := s.Dump("id"), again.Dump("id"); a != b {
		t.Fatal("two stores fed alike got different scores on the second night")
	}
}
