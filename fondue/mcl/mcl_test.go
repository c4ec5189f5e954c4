package mcl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/errs"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
)

func TestMCLKnownAnswers(t *testing.T) {
	cases := []struct {
		name  string
		n     int
		edges [][2]int
		want  [][]int32
	}{
		{"two disjoint triangles", 6, append(testkit.Clique(0, 1, 2), testkit.Clique(3, 4, 5)...),
			[][]int32{{0, 1, 2}, {3, 4, 5}}},
		{"two K4 joined by one edge", 8, append(append(testkit.Clique(0, 1, 2, 3), testkit.Clique(4, 5, 6, 7)...), [2]int{3, 4}),
			[][]int32{{0, 1, 2, 3}, {4, 5, 6, 7}}},
		{"interleaved K5s joined by one edge", 10, append(append(testkit.Clique(0, 2, 4, 6, 8), testkit.Clique(1, 3, 5, 7, 9)...), [2]int{8, 9}),
			[][]int32{{0, 2, 4, 6, 8}, {1, 3, 5, 7, 9}}},
		{"single clique", 6, testkit.Clique(0, 1, 2, 3, 4, 5), [][]int32{{0, 1, 2, 3, 4, 5}}},
		{"no edges", 4, nil, [][]int32{{0}, {1}, {2}, {3}}},
		{"triangle and isolated node", 4, testkit.Clique(1, 2, 3), [][]int32{{0}, {1, 2, 3}}},
		// The hub absorbs the flow of every leaf: one cluster around it.
		{"star", 6, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}}, [][]int32{{0, 1, 2, 3, 4, 5}}},
		{"empty ego net", 0, nil, [][]int32{}},
	}
	for _, c := range cases {
		e := testkit.Ego(c.n, c.edges)
		got := mustClusterMCL(t, e, Options{})
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: MCL = %v, want %v", c.name, got, c.want)
		}
		if ref := mclDenseReference(e, Options{}); !reflect.DeepEqual(ref, c.want) {
			t.Errorf("%s: dense reference = %v, want %v", c.name, ref, c.want)
		}
	}
}

func TestMCLConvergesOnSmallGraphs(t *testing.T) {
	var w Workspace
	if _, err := w.Cluster(testkit.Ego(8, append(append(testkit.Clique(0, 1, 2, 3), testkit.Clique(4, 5, 6, 7)...), [2]int{3, 4})), Options{}); err != nil {
		t.Fatal(err)
	}
	it, conv := w.Iterations()
	if !conv || it < 2 || it >= 100 {
		t.Fatalf("iterations %d converged %v", it, conv)
	}
	// MaxIter 1 stops before convergence; the result is still a partition.
	got, err := w.Cluster(testkit.Ego(8, append(append(testkit.Clique(0, 1, 2, 3), testkit.Clique(4, 5, 6, 7)...), [2]int{3, 4})), Options{MaxIter: 1})
	if err != nil {
		t.Fatal(err)
	}
	if it, conv := w.Iterations(); it != 1 || conv {
		t.Fatalf("MaxIter 1: iterations %d converged %v", it, conv)
	}
	mclCheckPartition(t, got, 8)
}

// mclCheckPartition checks that cl partitions 0..n-1 into sorted clusters
// ordered by smallest member.
func mclCheckPartition(t *testing.T, cl [][]int32, n int) {
	t.Helper()
	seen := make([]bool, n)
	prev := int32(-1)
	for _, c := range cl {
		if len(c) == 0 || !slices.IsSorted(c) || c[0] <= prev {
			t.Fatalf("bad cluster order or content: %v", cl)
		}
		prev = c[0]
		for _, v := range c {
			if seen[v] {
				t.Fatalf("node %d in two clusters: %v", v, cl)
			}
			seen[v] = true
		}
	}
	for v, s := range seen {
		if !s {
			t.Fatalf("node %d in no cluster: %v", v, cl)
		}
	}
}

func TestMCLMatchesDenseReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	opts := []Options{
		{},
		{Expansion: 3},
		{Inflation: 1.5},
		{Inflation: 3, LoopValue: 0.5},
		{LoopValue: -1},
		{PruneThreshold: -1, MaxIter: 30},
		{PruneThreshold: 0.05},
		{PruneThreshold: 0.4}, // often above a column's maximum: exercises keep-the-max
	}
	var w Workspace
	nontrivial := 0
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.IntN(40)
		p := []float64{0.05, 0.1, 0.2, 0.4, 0.7}[r.IntN(5)]
		var edges [][2]int
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if r.Float64() < p {
					edges = append(edges, [2]int{i, j})
				}
			}
		}
		e := testkit.Ego(n, edges)
		o := opts[trial%len(opts)]
		got, err := w.Cluster(e, o)
		if err != nil {
			t.Fatal(err)
		}
		mclCheckPartition(t, got, n)
		want := mclDenseReference(e, o)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d (n=%d p=%v opts %+v):\nsparse %v\ndense  %v", trial, n, p, o, got, want)
		}
		if len(got) > 1 && len(got) < n {
			nontrivial++
		}
		if again := mustClusterMCL(t, e, o); !reflect.DeepEqual(again, got) {
			t.Fatalf("trial %d: MCL and a reused workspace differ", trial)
		}
	}
	if nontrivial < 50 {
		t.Fatalf("only %d non-trivial partitions: the comparison is too weak", nontrivial)
	}
}

// Invalid options are refused with an *OptionsError, by Validate, by
// Cluster and by a workspace, and never panic.
func TestMCLInvalidOptions(t *testing.T) {
	for _, o := range []Options{{Expansion: 1}, {Expansion: -2}, {Inflation: 1}, {Inflation: 0.5}, {MaxIter: -1},
		{LoopValue: math.NaN()}, {LoopValue: math.Inf(1)}, {PruneThreshold: math.NaN()}} {
		var oe *errs.OptionsError
		if err := o.Validate(); !errors.As(err, &oe) {
			t.Errorf("options %+v: Validate = %v, want an *OptionsError", o, err)
		}
		if cl, err := clusterMCL(testkit.Ego(3, nil), o); !errors.As(err, &oe) || cl != nil {
			t.Errorf("options %+v: clusterMCL = %v, %v; want an *OptionsError", o, cl, err)
		}
		var w Workspace
		if cl, err := w.Cluster(testkit.Ego(3, [][2]int{{0, 1}}), o); !errors.As(err, &oe) || cl != nil {
			t.Errorf("options %+v: Cluster = %v, %v; want an *OptionsError", o, cl, err)
		}
	}
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("default options: %v", err)
	}
}

func mustClusterMCL(t testing.TB, e *graph.EgoNet, o Options) [][]int32 {
	t.Helper()
	cl, err := clusterMCL(e, o)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func TestMCLWorkspaceAllocations(t *testing.T) {
	g := testkit.ReadGraph(t, "netscience")
	var w Workspace
	var e graph.EgoNet
	cluster := func() {
		for i := 0; i < g.NumNodes(); i++ {
			if _, err := g.Ego(i, &e); err != nil {
				t.Fatal(err)
			}
			w.Cluster(&e, Options{})
		}
	}
	cluster()
	allocs := testing.AllocsPerRun(3, cluster)
	if allocs > 0 {
		t.Fatalf("%v allocations per pass over netscience, want 0", allocs)
	}
}

// mclDenseReference is a direct dense transcription of run_mcl followed by
// the partition rule documented at MCLWorkspace.Cluster. Sums run over rows
// (or k) in ascending order, as in the sparse code, so the two agree bit
// for bit and partitions can be compared exactly.
func mclDenseReference(e *graph.EgoNet, opts Options) [][]int32 {
	o, err := opts.mclResolved()
	if err != nil {
		panic(err)
	}
	n := e.NumNodes()
	newMat := func() [][]float64 {
		m := make([][]float64, n)
		for i := range m {
			m[i] = make([]float64, n)
		}
		return m
	}
	// m[i][j]: row i, column j.
	m := newMat()
	for j := 0; j < n; j++ {
		for _, i := range e.Neighbors(j) {
			m[i][j] = 1
		}
		m[j][j] = o.LoopValue
	}
	normalize := func(m [][]float64) {
		for j := 0; j < n; j++ {
			s := 0.0
			for i := 0; i < n; i++ {
				s += m[i][j]
			}
			if s != 0 {
				for i := 0; i < n; i++ {
					m[i][j] /= s
				}
			}
		}
	}
	mul := func(a, b [][]float64) [][]float64 {
		c := newMat()
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for k := 0; k < n; k++ {
					s += a[i][k] * b[k][j]
				}
				c[i][j] = s
			}
		}
		return c
	}
	normalize(m)
	for it := 0; it < o.MaxIter; it++ {
		last := m
		p := m
		for k := 1; k < o.Expansion; k++ {
			p = mul(m, p)
		}
		for i := range p {
			for j := range p[i] {
				if o.Inflation == 2 {
					p[i][j] *= p[i][j]
				} else {
					p[i][j] = math.Pow(p[i][j], o.Inflation)
				}
			}
		}
		normalize(p)
		if o.PruneThreshold > 0 {
			for j := 0; j < n; j++ {
				best := 0
				for i := 1; i < n; i++ {
					if p[i][j] > p[best][j] {
						best = i
					}
				}
				for i := 0; i < n; i++ {
					if i != best && p[i][j] < o.PruneThreshold {
						p[i][j] = 0
					}
				}
			}
		}
		m = p
		conv := true
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if math.Abs(m[i][j]-last[i][j]) > 1e-8+1e-5*math.Abs(last[i][j]) {
					conv = false
				}
			}
		}
		if conv {
			break
		}
	}
	// Attractors, grouped by the support of their rows.
	groupOf := map[string]int{}
	var rep []int
	attrGroup := make([]int, n)
	for a := 0; a < n; a++ {
		attrGroup[a] = -1
		if m[a][a] <= 0 {
			continue
		}
		key := ""
		for j := 0; j < n; j++ {
			if m[a][j] > 0 {
				key += fmt.Sprint(j, ",")
			}
		}
		g, ok := groupOf[key]
		if !ok {
			g = len(rep)
			groupOf[key] = g
			rep = append(rep, a)
		}
		attrGroup[a] = g
	}
	label := make([]int, n)
	for j := 0; j < n; j++ {
		bg, bv := -1, 0.0
		for a := 0; a < n; a++ {
			g := attrGroup[a]
			if g < 0 || m[a][j] <= 0 {
				continue
			}
			if bg < 0 || m[a][j] > bv || (m[a][j] == bv && rep[g] < rep[bg]) {
				bg, bv = g, m[a][j]
			}
		}
		label[j] = bg
	}
	out := [][]int32{}
	clusterOf := map[int]int{}
	for j := 0; j < n; j++ {
		if label[j] < 0 {
			out = append(out, []int32{int32(j)})
			continue
		}
		c, ok := clusterOf[label[j]]
		if !ok {
			c = len(out)
			clusterOf[label[j]] = c
			out = append(out, nil)
		}
		out[c] = append(out[c], int32(j))
	}
	return out
}

// mclBenchEgo is a 500-node ego net with planted communities: k groups, edge
// probability pin inside a group and pout across.
func mclBenchEgo(k int, pin, pout float64) *graph.EgoNet {
	const n = 500
	r := rand.New(rand.NewPCG(11, 12))
	var edges [][2]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			p := pout
			if i%k == j%k {
				p = pin
			}
			if r.Float64() < p {
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	return testkit.Ego(n, edges)
}

func benchmarkMCL(b *testing.B, e *graph.EgoNet) {
	var w Workspace
	cl, err := w.Cluster(e, Options{})
	if err != nil {
		b.Fatal(err)
	}
	it, _ := w.Iterations()
	for b.Loop() {
		w.Cluster(e, Options{})
	}
	b.ReportMetric(float64(len(cl)), "clusters")
	b.ReportMetric(float64(it), "iters")
	b.ReportMetric(float64(e.NumEdges()), "edges")
}

// Dense, unstructured: G(500, 0.3), about 37k edges.
func BenchmarkMCLDense500Random(b *testing.B) { benchmarkMCL(b, mclBenchEgo(1, 0.3, 0)) }

// Dense with 5 planted groups (p_in 0.5, p_out 0.05), about 37k edges.
func BenchmarkMCLDense500Communities(b *testing.B) { benchmarkMCL(b, mclBenchEgo(5, 0.5, 0.05)) }
