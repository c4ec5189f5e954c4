package connector

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
)

// The speed of pull and write on CondMat05 (36,458 nodes, 171,736
// relationships) against the test server (Neo4j 3.1 behind the Bolt proxy):
//
//	FONDUE_DATASETS=/work/shared/datasets go test -run '^$' -bench Condmat05 -benchtime 3x ./connector/
//
// BenchmarkCondmat05Sync times one whole sync (pull, score with the default
// engine settings, write) and reports the share of Neo4j I/O.

var (
	condmatOnce sync.Once
	condmatErr  string
)

// condmat loads condmat05 once per process (the benchmarks share it and
// do not reset the database).
func condmat(b *testing.B) (*Conn, PullOptions) {
	dir := os.Getenv("FONDUE_DATASETS")
	if dir == "" {
		b.Skip("set FONDUE_DATASETS to the datasets directory (with condmat05.edges) to run this benchmark")
	}
	condmatOnce.Do(func() {
		reset(b)
		t0 := time.Now()
		g := loadEdgeList(b, filepath.Join(dir, "condmat05.edges"), "Author", "COAUTHOR", "uid")
		b.Logf("loaded condmat05 (%d nodes, %d relationships) in %s", g.NumNodes(), g.NumEdges(), time.Since(t0).Round(time.Millisecond))
		if g.NumNodes() != 36458 || g.NumEdges() != 171736 {
			condmatErr = "condmat05.edges is not the expected graph"
		}
	})
	if condmatErr != "" {
		b.Fatal(condmatErr)
	}
	c, _ := open(b, func(c *Config) { c.MaxRetryTime = time.Minute })
	return c, PullOptions{NodeLabels: []string{"Author"}, RelationshipTypes: []string{"COAUTHOR"}, IDProperty: "uid"}
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

func benchWrite(b *testing.B, concurrency int) {
	c, o := condmat(b)
	ctx := context.Background()
	sg, err := c.Pull(ctx, o)
	if err != nil {
		b.Fatal(err)
	}
	// The scores do not change the cost of writing them: use the degree.
	res, err := fondue.Score(ctx, sg.Graph, fondue.Options{Method: fondue.MethodDegree})
	if err != nil {
		b.Fatal(err)
	}
	wo := WriteOptions{Property: DefaultWriteProperty, ScoreProperty: DefaultScoreProperty, RunProperty: DefaultRunProperty,
		RunID: "bench", BatchSize: DefaultBatchSize, Concurrency: concurrency}
	// One untimed write warms up the server (JIT, plan cache, page cache),
	// so that the order of the benchmarks does not matter.
	if _, err := c.WriteScores(ctx, sg, res, wo); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.WriteScores(ctx, sg, res, wo); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(sg.Graph.NumNodes())/(b.Elapsed().Seconds()/float64(b.N)), "nodes/s")
}

func BenchmarkCondmat05Write(b *testing.B)             { benchWrite(b, 1) }
func BenchmarkCondmat05WriteConcurrency2(b *testing.B) { benchWrite(b, 2) }

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
		if _, err := c.WriteScores(ctx, sg, res, WriteOptions{RunID: "bench", ScoreProperty: DefaultScoreProperty, RunProperty: DefaultRunProperty}); err != nil {
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
