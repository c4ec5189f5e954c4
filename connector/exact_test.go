package connector

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// A dry run's plan carries the pull's selection, the display names of the
// nodes and neighbours, and the links between each node's neighbours: what
// a review page needs besides the plan.
func TestPlanNamesLinksSelection(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	c, _ := open(t)
	_, p := splitPlan(t, c, "run-n")
	if !slices.Equal(p.NodeLabels, []string{"Person", "Org"}) || !slices.Equal(p.RelationshipTypes, []string{"KNOWS", "WORKS_AT"}) ||
		!slices.Equal(p.DisplayProperties, []string{"name"}) || !p.NeighborLinks {
		t.Fatalf("plan header: %+v", p)
	}
	m := p.Nodes[0]
	if m.Name != "M" || !slices.Equal(m.Groups[0].Names, []string{"p1", "p2", "p3", "Acme"}) || !slices.Equal(m.Groups[1].Names, []string{"p11", "p12", "p13", "N"}) {
		t.Fatalf("names: %q %q %q", m.Name, m.Groups[0].Names, m.Groups[1].Names)
	}
	// Neighbours 0-3 are 1, 2, 3, 200; 4-7 are 11, 12, 13, 101.
	if want := [][2]int{{0, 1}, {0, 2}, {1, 2}, {4, 5}, {4, 6}, {5, 6}}; !slices.Equal(m.Links, want) || m.LinksOmitted != 0 {
		t.Fatalf("M's links %v, want %v", m.Links, want)
	}
	// Through JSON (what review --plan reads).
	b, _ := p.Marshal()
	q, err := splitplan.Unmarshal(b)
	if err != nil || !slices.Equal(q.Nodes[0].Links, m.Links) || q.Nodes[1].Name != "N" || !slices.Equal(q.NodeLabels, p.NodeLabels) {
		t.Fatalf("round trip: %v\n%s", err, b)
	}
}

// exactPlan is splitPlan as an approved plan is applied: exact neighbours.
func exactPlan(t *testing.T, c *Conn, runID string) *splitplan.Plan {
	t.Helper()
	_, p := splitPlan(t, c, runID)
	p.ExactNeighbors = true
	return p
}

// The whole-plan check of an exact plan names, per node, the neighbours
// added and removed since the plan (as the pull selects them: other
// labels, other types and a second relationship to a planned neighbour are
// no change); Split then leaves those nodes alone.
func TestExactPlanCheck(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	c, _ := open(t)
	p := exactPlan(t, c, "run-x")
	ctx := ctxT(t, 2*time.Minute)
	if bad, err := syncjob.Check(ctx, c, p); err != nil || len(bad) != 0 {
		t.Fatalf("unchanged graph: %+v %v", bad, err)
	}
	run(t, `MATCH (m:Person {uid: 100}), (p:Person {uid: 1})
		CREATE (m)-[:LIKES]->(:Person {uid: 16, name: 'p16'}), (m)-[:KNOWS]->(:Other {uid: 301}), (p)-[:KNOWS {again: true}]->(m)`, nil)
	if bad, err := syncjob.Check(ctx, c, p); err != nil || len(bad) != 0 {
		t.Fatalf("no change to the subgraph's neighbours: %+v %v", bad, err)
	}
	run(t, "MATCH (m:Person {uid: 100}), (x:Person {uid: 16}) CREATE (x)-[:KNOWS]->(m)", nil)
	run(t, "MATCH (:Person {uid: 100})-[r]-(:Person {uid: 12}) DELETE r", nil)
	run(t, "MATCH (:Person {uid: 101})-[r]-(n:Person) WHERE n.uid IN [4, 14] DELETE r", nil)
	before := dump(t)
	bad, err := syncjob.Check(ctx, c, p)
	want := []splitplan.NodeOutcome{
		{Key: keys.Int(100), Name: "M", Outcome: splitplan.OutcomeChanged, Reason: "added neighbour 16 (p16); removed 12 (p12)"},
		{Key: keys.Int(101), Name: "N", Outcome: splitplan.OutcomeChanged, Reason: "removed neighbours 14 (p14), 4 (p4)"},
	}
	if err != nil || !slices.Equal(bad, want) {
		t.Fatalf("check: %+v %v\nwant %+v", bad, err, want)
	}
	if d := dump(t); d != before {
		t.Fatalf("the check wrote:\n%s", diff(before, d))
	}
	st, err := syncjob.Split(ctx, c, p, splitTime, nil, nil)
	if err != nil || st.Split != 0 || st.Skipped != 2 || !slices.Equal(st.Nodes, want) {
		t.Fatalf("split: %+v %v", st, err)
	}
	if d := dump(t); d != before {
		t.Fatalf("a refused split wrote:\n%s", diff(before, d))
	}
	// A node that lost its label is no longer in the subgraph.
	run(t, "MATCH (n:Person {uid: 101}) REMOVE n:Person SET n:Gone", nil)
	if bad, err := syncjob.Check(ctx, c, p); err != nil || len(bad) != 2 || bad[1].Outcome != splitplan.OutcomeMissing ||
		bad[1].Reason != `it is no longer in the subgraph (its labels are now "Gone")` {
		t.Fatalf("relabelled node: %+v %v", bad, err)
	}
}

// The graph may change between the whole-plan check and a node's split:
// each node's transaction checks again, added neighbours included, and
// splits only what matches.
func TestExactPlanInTransaction(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	run(t, "CREATE (:Person {uid: 16, name: 'p16'}), (:Person {uid: 17, name: 'p17'})", nil)
	c, _ := open(t)
	p := exactPlan(t, c, "run-t")
	ctx := ctxT(t, 2*time.Minute)
	if bad, err := syncjob.Check(ctx, c, p); err != nil || len(bad) != 0 {
		t.Fatalf("check: %+v %v", bad, err)
	}
	// After the check, before the split: M gains a neighbour. While M is
	// split: N gains one.
	run(t, "MATCH (m:Person {uid: 100}), (x:Person {uid: 16}) CREATE (m)-[:WORKS_AT]->(x)", nil)
	st, err := syncjob.Split(ctx, c, p, splitTime, func(done, total int) {
		if done == 1 {
			run(t, "MATCH (n:Person {uid: 101}), (x:Person {uid: 17}) CREATE (n)-[:KNOWS]->(x)", nil)
		}
	}, nil)
	if err != nil || st.Split != 0 || st.Skipped != 2 || st.Nodes[0].Reason != "added neighbour 16 (p16)" || st.Nodes[1].Reason != "added neighbour 17 (p17)" {
		t.Fatalf("split: %+v %v", st, err)
	}
	if n := run(t, "MATCH (s:FondueSplit) RETURN count(s)", nil)[0].Values[0]; n != int64(0) {
		t.Fatalf("%v clones after refused splits", n)
	}
	// Without the additions the plan applies; the check of a split run
	// finds its nodes done, not changed, and a re-run changes nothing.
	run(t, "MATCH (:Person)-[r]->(x:Person) WHERE x.uid IN [16, 17] DELETE r", nil)
	st, err = syncjob.Split(ctx, c, p, splitTime, nil, nil)
	if err != nil || st.Split != 2 {
		t.Fatalf("split: %+v %v", st, err)
	}
	after := dump(t)
	if bad, err := syncjob.Check(ctx, c, p); err != nil || len(bad) != 0 {
		t.Fatalf("check after the split: %+v %v", bad, err)
	}
	if st, err := syncjob.Split(ctx, c, p, splitTime, nil, nil); err != nil || st.AlreadyDone != 2 {
		t.Fatalf("re-run: %+v %v", st, err)
	}
	if d := dump(t); d != after {
		t.Fatalf("re-run changed the graph:\n%s", diff(after, d))
	}
}

// An approved plan reviewed from an edge list names nodes by key only:
// ResolveKeys finds them among the selected nodes (an integer key of the
// graph matches its text too). Keys no selected node has are reported by
// the check, as a missing node or a removed neighbour.
func TestResolveKeys(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	c, _ := open(t)
	ref := exactPlan(t, c, "run-k")
	strip := func() *splitplan.Plan {
		b, _ := ref.Marshal()
		p, err := splitplan.Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.Nodes {
			n := &p.Nodes[i]
			n.ID, n.Key = keys.Key{}, keys.String(n.Key.Text()) // "100"
			for _, g := range n.Groups {
				for j := range g.Neighbors {
					g.NeighborIDs[j] = keys.Key{}
				}
			}
		}
		return p
	}
	ctx := ctxT(t, 2*time.Minute)
	p := strip()
	if err := syncjob.ResolveKeys(ctx, c, p); err != nil {
		t.Fatal(err)
	}
	a, _ := ref.Marshal()
	b, _ := p.Marshal()
	if string(a) != string(b) {
		t.Fatalf("resolved plan differs:\n%s\n%s", a, b)
	}
	p = strip()
	p.Nodes[0].Groups[1].Neighbors[0], p.Nodes[0].Groups[1].Names[0] = keys.Int(999), "" // instead of 11
	p.Nodes[1].Key = keys.Int(555)
	if err := syncjob.ResolveKeys(ctx, c, p); err != nil {
		t.Fatal(err)
	}
	bad, err := syncjob.Check(ctx, c, p)
	if err != nil || len(bad) != 2 || bad[0].Reason != "added neighbour 11 (p11); removed 999" || bad[1].Outcome != splitplan.OutcomeMissing ||
		bad[1].Reason != "no node of the subgraph has uid = 555" {
		t.Fatalf("unknown keys: %+v %v", bad, err)
	}
	// Other labels are not selected; keys must be unique; a key property is needed.
	run(t, "CREATE (:Other {uid: 555})", nil)
	p = strip()
	p.Nodes[1].Key = keys.Int(555)
	if err := syncjob.ResolveKeys(ctx, c, p); err != nil || !p.Nodes[1].ID.IsZero() {
		t.Fatalf("a node of another label was found: %v %v", p.Nodes[1].ID, err)
	}
	run(t, "CREATE (:Org {uid: 100})", nil)
	if err := syncjob.ResolveKeys(ctx, c, strip()); !errors.Is(err, syncjob.ErrInvalid) || !strings.Contains(err.Error(), `have the same uid = 100 (key property "uid"): keys must be unique`) {
		t.Fatalf("duplicate key: %v", err)
	}
	p = strip()
	p.IDProperty = ""
	if err := syncjob.ResolveKeys(ctx, c, p); !errors.Is(err, syncjob.ErrInvalid) {
		t.Fatalf("no key property: %v", err)
	}
}

// A plan that applies an approved plan is stored with a pointer to it on
// the run's node; its run id resumes that approved plan only.
func TestApprovedPlanStore(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	c, _ := open(t)
	p := exactPlan(t, c, "run-ap")
	p.Approved = &splitplan.ApprovedRef{File: "approved.json", ReviewedAt: "2025-01-02T03:04:05.000Z", Fingerprint: "sha256:" + strings.Repeat("ab", 32), Source: "neo4j"}
	ctx := ctxT(t, time.Minute)
	stored, err := syncjob.StorePlan(ctx, c, p)
	if err != nil || stored.Approved == nil || *stored.Approved != *p.Approved || !stored.ExactNeighbors {
		t.Fatalf("store: %+v %v", stored, err)
	}
	r := run(t, "MATCH (r:FondueRun {run_id: 'run-ap'}) RETURN r.approved_plan, r.reviewed_at", nil)
	if len(r) != 1 || r[0].Values[0] != p.Approved.Fingerprint || r[0].Values[1] != p.Approved.ReviewedAt {
		t.Fatalf("run node: %v", r)
	}
	// The same approved plan again: resumed.
	if again, err := syncjob.StorePlan(ctx, c, p); err != nil || again.Approved.Fingerprint != p.Approved.Fingerprint {
		t.Fatalf("same approved plan: %v", err)
	}
	// Another approved plan, or one under the run id of a scheduled run: refused.
	other := *p
	other.Approved = &splitplan.ApprovedRef{ReviewedAt: "2025-01-03T00:00:00.000Z", Fingerprint: "sha256:" + strings.Repeat("cd", 32)}
	if _, err := syncjob.StorePlan(ctx, c, &other); !errors.Is(err, syncjob.ErrInvalid) ||
		err.Error() != "run id run-ap already holds another split plan (approved plan sha256:abababababab reviewed at 2025-01-02T03:04:05.000Z (approved.json)), not approved plan sha256:cdcdcdcdcdcd: apply it under a run id of its own (--run-id)" {
		t.Fatalf("other approved plan: %v", err)
	}
	_, sched := splitPlan(t, c, "run-s")
	if _, err := syncjob.StorePlan(ctx, c, sched); err != nil {
		t.Fatal(err)
	}
	other.RunID = "run-s"
	if _, err := syncjob.StorePlan(ctx, c, &other); !errors.Is(err, syncjob.ErrInvalid) || !strings.Contains(err.Error(), "(the plan of a sync --split of 2025-01-02T03:04:05.000Z)") {
		t.Fatalf("approved plan under a scheduled run's id: %v", err)
	}
	// A scheduled run's plan resumes whatever its run id stored.
	sched.RunID = "run-ap"
	if got, err := syncjob.StorePlan(ctx, c, sched); err != nil || got.Approved == nil {
		t.Fatalf("scheduled plan under an approved run id: %v", err)
	}
	if r := run(t, "MATCH (r:FondueRun {run_id: 'run-s'}) RETURN r.approved_plan", nil); r[0].Values[0] != nil {
		t.Fatalf("a scheduled run's node records an approved plan: %v", r[0].Values[0])
	}
}

// A relationship that another transaction adds to a node while the node's
// split is under way cannot be committed between the split's reading of
// the neighbours and its commit: the split takes the node's write lock
// before reading, so the writer waits for the split (the relationship then
// joins the original, after the split). Here the split is held mid-way by
// a third transaction that holds the unique key its clone needs.
func TestSplitLocksNodeBeforeReading(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	run(t, "CREATE (:Person {uid: 16, name: 'p16'})", nil)
	c, _ := open(t)
	p := exactPlan(t, c, "run-w")
	p.Nodes = p.Nodes[:1] // M
	ctx := ctxT(t, 2*time.Minute)
	if err := c.EnsureConstraint(ctx, syncjob.DefaultMarkerLabel, splitplan.PropSplitKey); err != nil {
		t.Fatal(err)
	}
	d, err := srv.Driver()
	if err != nil {
		t.Fatal(err)
	}
	begin := func(q string) (neo4j.ExplicitTransaction, func()) {
		sess := d.NewSession(ctx, neo4j.SessionConfig{})
		tx, err := sess.BeginTransaction(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tx.Run(ctx, q, nil)
		if err == nil {
			_, err = res.Consume(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		return tx, func() { sess.Close(ctx) }
	}
	// The holder: the clone's key, uncommitted.
	holder, closeHolder := begin("CREATE (:FondueSplit {fondue_split_key: 'run-w/100/1'})")
	defer closeHolder()
	type result struct {
		st  splitplan.SplitStats
		err error
		at  time.Time
	}
	split := make(chan result, 1)
	go func() {
		st, err := syncjob.Split(ctx, c, p, splitTime, nil, nil)
		split <- result{st, err, time.Now()}
	}()
	time.Sleep(time.Second) // the split has read M's neighbours and waits for the key
	// The writer: a new neighbour of M, committed at once if it can be.
	type written struct {
		err error
		at  time.Time
	}
	writer := make(chan written, 1)
	go func() {
		err := func() error {
			sess := d.NewSession(ctx, neo4j.SessionConfig{})
			defer sess.Close(ctx)
			tx, err := sess.BeginTransaction(ctx)
			if err != nil {
				return err
			}
			res, err := tx.Run(ctx, "MATCH (m:Person {uid: 100}), (x:Person {uid: 16}) CREATE (x)-[:KNOWS]->(m)", nil)
			if err == nil {
				_, err = res.Consume(ctx)
			}
			if err == nil {
				err = tx.Commit(ctx)
			}
			return err
		}()
		writer <- written{err, time.Now()}
	}()
	select {
	case w := <-writer:
		t.Fatalf("the writer committed a neighbour of M in the middle of M's split (%v)", w.err)
	case <-time.After(1500 * time.Millisecond):
	}
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-split
	w := <-writer
	if r.err != nil || r.st.Split != 1 {
		t.Fatalf("split: %+v %v", r.st, r.err)
	}
	switch {
	case w.err == nil && w.at.Before(r.at.Add(-time.Second)):
		t.Fatalf("the writer committed at %s, the split returned at %s", w.at, r.at)
	case w.err != nil && !neo4j.IsRetryable(w.err):
		t.Fatalf("writer: %v", w.err)
	case w.err == nil:
		// After the split, the new neighbour is the original's.
		if n := run(t, "MATCH (:Person {uid: 16})-[:KNOWS]->(m:Person {uid: 100}) RETURN count(*)", nil)[0].Values[0]; n != int64(1) {
			t.Fatalf("the writer's relationship: %v", n)
		}
	}
}
