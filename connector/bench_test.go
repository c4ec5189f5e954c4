package connector

import (
	"context"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
)

// The speed of pull and write on CondMat05 (36,458 nodes, 171,736
// relationships) against each test server, beside GDS doing the same on
// the same server (gds.graph.project of the same subgraph; gds.degree.write
// writing one property on the same nodes):
//
//	go test -run '^$' -bench Condmat05 -benchtime 3x -count 3 ./connector/
//
// (BENCH_DATASETS names the datasets directory; default ../../shared/datasets.)
// BenchmarkCondmat05Sync times one whole sync (pull, score with the default
// engine settings, write) and reports the share of Neo4j I/O.

var (
	condmatMu     sync.Mutex
	condmatLoaded = map[*neo4jtest.Server]bool{}
)

// condmat loads condmat05 once per server (the benchmarks share it and do
// not reset the database).
func condmat(b *testing.B) (*Conn, syncjob.PullOptions) {
	dir := os.Getenv("BENCH_DATASETS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "datasets")
	}
	if _, err := os.Stat(filepath.Join(dir, "condmat05.edges")); err != nil {
		b.Skipf("no condmat05.edges in %s: set BENCH_DATASETS to the datasets directory to run this benchmark", dir)
	}
	condmatMu.Lock()
	defer condmatMu.Unlock()
	if !condmatLoaded[srv] {
		condmatLoaded[srv] = true
		reset(b)
		t0 := time.Now()
		g := loadEdgeList(b, filepath.Join(dir, "condmat05.edges"), "Author", "COAUTHOR", "uid")
		b.Logf("loaded condmat05 (%d nodes, %d relationships) in %s", g.NumNodes(), g.NumEdges(), time.Since(t0).Round(time.Millisecond))
		if g.NumNodes() != 36458 || g.NumEdges() != 171736 {
			b.Fatal("condmat05.edges is not the expected graph")
		}
	}
	c, _ := open(b, func(c *Config) { c.MaxRetryTime = time.Minute })
	return c, syncjob.PullOptions{NodeLabels: []string{"Author"}, RelationshipTypes: []string{"COAUTHOR"}, IDProperty: "uid"}
}

func BenchmarkCondmat05Pull(b *testing.B) {
	c, o := condmat(b)
	ctx := context.Background()
	sg, err := c.Pull(ctx, o) // untimed warm-up
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if sg, err = c.Pull(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
	s := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(sg.Graph.NumNodes())/s, "nodes/s")
	b.ReportMetric(float64(sg.Stats.RelationshipRows)/s, "rels/s")
}

func benchWrite(b *testing.B, concurrency int) { benchWriteProps(b, concurrency, true) }

// benchWriteProps times WriteScores; all: the three default properties
// (ambiguity, ambiguity_score, fondue_run), else ambiguity alone (the same
// work as GDS's write mode writing one property).
func benchWriteProps(b *testing.B, concurrency int, all bool) {
	c, o := condmat(b)
	ctx := context.Background()
	sg, err := c.Pull(ctx, o)
	if err != nil {
		b.Fatal(err)
	}
	// The scores do not change the cost of writing them: use the degree.
	res, err := fondue.Score(ctx, sg.Graph, fondue.Options{Method: score.MethodDegree})
	if err != nil {
		b.Fatal(err)
	}
	wo := syncjob.WriteOptions{Property: syncjob.DefaultWriteProperty, ScoreProperty: syncjob.DefaultScoreProperty, RunProperty: syncjob.DefaultRunProperty,
		RunID: "bench", BatchSize: syncjob.DefaultBatchSize, Concurrency: concurrency}
	if !all {
		wo.ScoreProperty, wo.RunProperty = "", ""
	}
	// One untimed write warms up the server (JIT, plan cache, page cache),
	// so that the order of the benchmarks does not matter.
	if _, err := syncjob.WriteScores(ctx, c, sg, res, wo, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := syncjob.WriteScores(ctx, c, sg, res, wo, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(sg.Graph.NumNodes())/(b.Elapsed().Seconds()/float64(b.N)), "nodes/s")
}

func BenchmarkCondmat05Write(b *testing.B)             { benchWrite(b, 1) }
func BenchmarkCondmat05WriteConcurrency2(b *testing.B) { benchWrite(b, 2) }
func BenchmarkCondmat05WriteOneProperty(b *testing.B)  { benchWriteProps(b, 1, false) }
func BenchmarkCondmat05WriteOnePropertyConcurrency4(b *testing.B) {
	benchWriteProps(b, 4, false) // GDS's write mode writes with 4 threads
}

func BenchmarkCondmat05Sync(b *testing.B) {
	c, o := condmat(b)
	ctx := context.Background()
	var pull, compute, write time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		sg, err := c.Pull(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		res, err := fondue.Score(ctx, sg.Graph, fondue.Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if _, err := syncjob.WriteScores(ctx, c, sg, res, syncjob.WriteOptions{RunID: "bench", ScoreProperty: syncjob.DefaultScoreProperty, RunProperty: syncjob.DefaultRunProperty}, nil); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		pull, compute, write = pull+t1.Sub(t0), compute+t2.Sub(t1), write+t3.Sub(t2)
	}
	total := (pull + compute + write).Seconds()
	n := float64(b.N)
	b.ReportMetric(pull.Seconds()/n, "pull-s")
	b.ReportMetric(compute.Seconds()/n, "compute-s")
	b.ReportMetric(write.Seconds()/n, "write-s")
	b.ReportMetric(100*(pull+write).Seconds()/total, "io-%")
	b.ReportMetric(100*compute.Seconds()/total, "compute-%")
}

// BenchmarkCondmat05GDSProject: GDS's projection of the same subgraph into
// its in-memory catalog (dropped after each run), for comparison with
// BenchmarkCondmat05Pull. rels/s counts stored relationships read.
func BenchmarkCondmat05GDSProject(b *testing.B) {
	condmat(b)
	gdsProject := func() (nodes, rels int64) {
		r := run(b, "CALL gds.graph.project('bench', 'Author', {COAUTHOR: {orientation: 'NATURAL'}}) YIELD nodeCount, relationshipCount RETURN nodeCount, relationshipCount", nil)
		nodes, rels = r[0].Values[0].(int64), r[0].Values[1].(int64)
		run(b, "CALL gds.graph.drop('bench') YIELD graphName RETURN graphName", nil)
		return nodes, rels
	}
	nodes, rels := gdsProject() // untimed warm-up
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		gdsProject()
	}
	s := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(nodes)/s, "nodes/s")
	b.ReportMetric(float64(rels)/s, "rels/s")
}

// BenchmarkCondmat05GDSWrite: GDS's write mode writing one property on the
// same nodes (gds.degree.write on a projected graph; the projection is not
// timed), for comparison with BenchmarkCondmat05Write.
func BenchmarkCondmat05GDSWrite(b *testing.B) {
	condmat(b)
	run(b, "CALL gds.graph.project('bench-write', 'Author', {COAUTHOR: {orientation: 'UNDIRECTED'}}) YIELD nodeCount RETURN nodeCount", nil)
	defer run(b, "CALL gds.graph.drop('bench-write') YIELD graphName RETURN graphName", nil)
	write := func() int64 {
		r := run(b, "CALL gds.degree.write('bench-write', {writeProperty: 'gds_degree'}) YIELD nodePropertiesWritten RETURN nodePropertiesWritten", nil)
		return r[0].Values[0].(int64)
	}
	written := write() // untimed warm-up
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		write()
	}
	b.ReportMetric(float64(written)/(b.Elapsed().Seconds()/float64(b.N)), "nodes/s")
}
