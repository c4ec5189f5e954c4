package neo4jtests

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"gonum.org/v1/gonum/stat"
)

// nightSummary is what the incremental tests read of sync's summary.
type nightSummary struct {
	syncSummary
	NodesWritten   int `json:"nodesWritten"`
	NodesUnchanged int `json:"nodesUnchanged"`
	Incremental    *struct {
		Mode          string `json:"mode"`
		Reason        string `json:"reason"`
		NodesChanged  int    `json:"nodesChanged"`
		NodesRescored int    `json:"nodesRescored"`
		NodesReused   int    `json:"nodesReused"`
	} `json:"incremental"`
}

// Nightly runs with a state file (--checkpoint), live: the first night is
// full and writes every node; an unchanged night writes nothing; after 1%
// of the relationships changed (half deleted, as many added), the next
// night is incremental, writes far fewer nodes than a full run, and its
// written top 1% is nearly a full run's on the same graph.
func TestIncrementalNight(t *testing.T) {
	reset(t)
	g := load(t, netscience, "Author", "COAUTHOR", "id")
	state := filepath.Join(t.TempDir(), "nightly.state")
	night := func(runID string, more ...string) nightSummary {
		t.Helper()
		args := append(syncArgs("sync", "--node-labels", "Author", "--id-property", "id", "--output", "json",
			"--checkpoint", state, "--run-id", runID), more...)
		code, out, stderr := runCLI(t, "", args...)
		var sum nightSummary
		if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil {
			t.Fatalf("sync %s: exit %d %v: %s %s", runID, code, err, out, stderr)
		}
		t.Logf("%s: %d nodes written, %d unchanged, %d properties; incremental %+v; compute %d ms",
			runID, sum.NodesWritten, sum.NodesUnchanged, sum.NodePropertiesWritten, sum.Incremental, sum.ComputeMillis)
		return sum
	}
	scored := func(sum nightSummary) int { return sum.Scored.Nodes + sum.UnscoredNodes }

	n1 := night("night-1")
	if n1.NodesWritten != g.NumNodes() || n1.NodesUnchanged != 0 || n1.Incremental == nil || n1.Incremental.Mode != "full" {
		t.Fatalf("night 1 (no state yet) wrote %d of %d nodes, %+v", n1.NodesWritten, g.NumNodes(), n1.Incremental)
	}

	before := dump(t)
	n0 := night("unchanged")
	if n0.NodesWritten != 0 || n0.NodePropertiesWritten != 0 || n0.NodesUnchanged != scored(n0) ||
		n0.Incremental == nil || n0.Incremental.Mode != "incremental" || n0.Incremental.NodesRescored != 0 {
		t.Fatalf("an unchanged night wrote %d nodes (%d unchanged), %+v", n0.NodesWritten, n0.NodesUnchanged, n0.Incremental)
	}
	if d := dump(t); d != before {
		t.Fatalf("an unchanged night changed the graph")
	}

	// 1% of the relationships change: 0.5% deleted, as many added between
	// nodes not linked yet (a fixed seed: the same each run).
	k := max(g.NumEdges()/200, 1)
	rng := rand.New(rand.NewPCG(41, 1))
	var del, add []any
	for _, e := range rng.Perm(g.NumEdges())[:k] {
		u, v := edgeAt(g, e)
		del = append(del, []any{u, v})
	}
	for len(add) < k {
		a, b := rng.IntN(g.NumNodes()), rng.IntN(g.NumNodes())
		if a == b || g.HasEdge(a, b) {
			continue
		}
		ka, _ := g.IntKey(a)
		kb, _ := g.IntKey(b)
		add = append(add, []any{ka, kb})
	}
	cypher(t, `UNWIND $pairs AS p MATCH (a:Author {id: p[0]})-[r:COAUTHOR]-(b:Author {id: p[1]}) DELETE r`, map[string]any{"pairs": del})
	cypher(t, `UNWIND $pairs AS p MATCH (a:Author {id: p[0]}), (b:Author {id: p[1]}) CREATE (a)-[:COAUTHOR]->(b)`, map[string]any{"pairs": add})

	n2 := night("night-2")
	inc := ambiguities(t)
	// Night 2 wrote whatever moved: night 3, on the same graph, computes
	// the same values and finds every node holding them already.
	if n3 := night("night-3"); n3.NodesWritten != 0 || n3.NodesUnchanged != scored(n3) {
		t.Fatalf("night 3 on night 2's graph wrote %d nodes: night 2 left them stale", n3.NodesWritten)
	}
	full := night("full", "--full")
	exact := ambiguities(t)
	if n2.Incremental == nil || n2.Incremental.Mode != "incremental" || n2.Incremental.NodesChanged == 0 ||
		n2.Incremental.NodesRescored >= scored(n2) {
		t.Fatalf("night 2 after 1%% changed: %+v", n2.Incremental)
	}
	if full.Incremental == nil || full.Incremental.Mode != "full" || full.NodesWritten != scored(full) {
		t.Fatalf("--full: wrote %d of %d, %+v", full.NodesWritten, scored(full), full.Incremental)
	}
	if n2.NodesWritten+n2.NodesUnchanged != scored(n2) || n2.NodesWritten < n2.Incremental.NodesChanged {
		t.Errorf("night 2 wrote %d nodes, left %d, of %d scored (%d changed)", n2.NodesWritten, n2.NodesUnchanged, scored(n2), n2.Incremental.NodesChanged)
	}
	overlap, rho := compareTop(inc, exact, 0.01)
	t.Logf("night 2 against a full run: top 1%% overlap %.3f, Spearman %.4f; written %d nodes (%d properties) against %d (%d)",
		overlap, rho, n2.NodesWritten, n2.NodePropertiesWritten, full.NodesWritten, full.NodePropertiesWritten)
	// Loose bounds, against a broken incremental run (unrelated scores
	// give about 0.01 and 0): the bench measures the closeness at scale.
	if overlap < 0.5 || rho < 0.95 {
		t.Errorf("night 2's scores stray from a full run's: top 1%% overlap %.3f (want >= 0.5), Spearman %.4f (want >= 0.95)", overlap, rho)
	}
}

// edgeAt returns the keys of the ends of edge e of g (edges numbered as
// their smaller end's adjacency list lists them).
func edgeAt(g *graph.Graph, e int) (int64, int64) {
	for i := range g.NumNodes() {
		for _, j := range g.Neighbors(i) {
			if int(j) <= i {
				continue
			}
			if e == 0 {
				a, _ := g.IntKey(i)
				b, _ := g.IntKey(int(j))
				return a, b
			}
			e--
		}
	}
	panic("edgeAt: no such edge")
}

// ambiguities reads every Author's written ambiguity, by id.
func ambiguities(t *testing.T) map[int64]float64 {
	t.Helper()
	out := map[int64]float64{}
	for _, r := range cypher(t, "MATCH (a:Author) WHERE a.ambiguity IS NOT NULL RETURN a.id, a.ambiguity", nil) {
		out[r.Values[0].(int64)] = r.Values[1].(float64)
	}
	return out
}

// compareTop returns the share of b's top fraction (the nodes of the
// largest values) that is in a's, and Spearman's rank correlation of a
// and b over the nodes of both.
func compareTop(a, b map[int64]float64, frac float64) (overlap, rho float64) {
	var ids []int64
	for id := range b {
		if _, ok := a[id]; ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	top := func(m map[int64]float64) map[int64]bool {
		s := slices.Clone(ids)
		sort.SliceStable(s, func(i, j int) bool { return m[s[i]] > m[s[j]] })
		k := max(int(math.Ceil(frac*float64(len(s)))), 1)
		set := map[int64]bool{}
		for _, id := range s[:k] {
			set[id] = true
		}
		return set
	}
	ta, tb := top(a), top(b)
	hit := 0
	for id := range tb {
		if ta[id] {
			hit++
		}
	}
	rank := func(m map[int64]float64) []float64 {
		s := slices.Clone(ids)
		sort.SliceStable(s, func(i, j int) bool { return m[s[i]] < m[s[j]] })
		r := make(map[int64]float64, len(s))
		for i := 0; i < len(s); {
			j := i
			for j < len(s) && m[s[j]] == m[s[i]] {
				j++
			}
			for k := i; k < j; k++ {
				r[s[k]] = float64(i+j-1) / 2 // ties share their mean rank
			}
			i = j
		}
		out := make([]float64, len(ids))
		for k, id := range ids {
			out[k] = r[id]
		}
		return out
	}
	return float64(hit) / float64(len(tb)), stat.Correlation(rank(a), rank(b), nil)
}
