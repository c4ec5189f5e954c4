package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/generate"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// Benchmarks of the engine's hot paths. The shared datasets are used when
// BENCH_DATASETS points at them; generated graphs otherwise:
//
//	BENCH_DATASETS=/work/shared/datasets go test -run X -bench 'CNEEpoch|Pipeline' ./bench

var benchGraphs sync.Map

// cpuTime returns the user+system CPU time of the whole process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchGraph(b *testing.B, name string) *graph.Graph {
	b.Helper()
	if g, ok := benchGraphs.Load(name); ok {
		return g.(*graph.Graph)
	}
	var g *graph.Graph
	var err error
	switch name {
	case "sbm100k":
		g, err = generate.SBM(generate.SBMOptions{Nodes: 100_000, AvgDegree: 10, Seed: 1})
	case "sbm1m":
		g, err = generate.SBM(generate.SBMOptions{Nodes: 1_000_000, AvgDegree: 20, Seed: 1})
	default:
		dir := os.Getenv("BENCH_DATASETS")
		if dir == "" {
			b.Skip("BENCH_DATASETS not set")
		}
		g, _, err = edgelist.ReadFile(filepath.Join(dir, name+".edges"), edgelist.HeaderAuto)
	}
	if err != nil {
		b.Fatal(err)
	}
	benchGraphs.Store(name, g)
	return g
}

// BenchmarkCNEEpoch times one sampled epoch (gradient and Adam step).
func BenchmarkCNEEpoch(b *testing.B) {
	for _, name := range []string{"condmat05", "sbm100k", "sbm1m"} {
		b.Run(name, func(b *testing.B) {
			g := benchGraph(b, name)
			p, err := cne.FitPrior(context.Background(), g, cne.PriorOptions{})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			_, st, err := cne.Fit(context.Background(), g, p, cne.Options{Mode: cne.ModeSampled, MaxEpochs: b.N, Tol: 1e-300}, cne.Run{Seed: 1})
			if err != nil || st.Epochs != b.N {
				b.Fatalf("epochs %d, err %v", st.Epochs, err)
			}
			pairs := float64(b.N) * float64(12*g.NumEdges())
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/pairs, "ns/pair")
			// CPU time is less distorted than wall time on a shared machine.
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/pairs, "cpu-ns/pair")
		})
	}
}

// BenchmarkCNESubset times a fit of 20 epochs that trains a share of the
// rows (every k-th node) with the rest frozen (cne.Run.Trainable, the
// incremental night's re-fit): its cost per pair should be the full
// epoch's (BenchmarkCNEEpoch), so that the cost follows the subset, not
// the graph.
//
//	go test -run X -bench CNESubset ./bench
func BenchmarkCNESubset(b *testing.B) {
	for _, name := range []string{"sbm100k", "sbm1m"} {
		b.Run(name, func(b *testing.B) {
			g := benchGraph(b, name)
			p, err := cne.FitPrior(context.Background(), g, cne.PriorOptions{})
			if err != nil {
				b.Fatal(err)
			}
			init, _, err := cne.Fit(context.Background(), g, p, cne.Options{Mode: cne.ModeSampled, MaxEpochs: 1}, cne.Run{Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			for _, every := range []int{1000, 100, 10, 1} {
				var rows []int32
				links := 0
				for i := 0; i < g.NumNodes(); i += every {
					rows = append(rows, int32(i))
					links += g.Degree(i)
				}
				b.Run(fmt.Sprintf("1in%d", every), func(b *testing.B) {
					const epochs = 20
					cpu0 := cpuTime()
					for range b.N {
						_, st, err := cne.Fit(context.Background(), g, p, cne.Options{Mode: cne.ModeSampled, MaxEpochs: epochs, Tol: 1e-300},
							cne.Run{Seed: 1, Init: init, Trainable: rows})
						if err != nil || st.Epochs != epochs {
							b.Fatalf("epochs %d, err %v", st.Epochs, err)
						}
					}
					pairs := float64(b.N) * epochs * float64(6*links)
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/pairs, "ns/pair")
					b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/pairs, "cpu-ns/pair")
					b.ReportMetric(float64(len(rows)), "rows")
				})
			}
		})
	}
}

// BenchmarkPipeline times fondue.Score end to end (prior, CNE to convergence, scores).
func BenchmarkPipeline(b *testing.B) {
	for _, name := range []string{"condmat05"} {
		b.Run(name, func(b *testing.B) {
			g := benchGraph(b, name)
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				res, err := fondue.Score(context.Background(), g, fondue.Options{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(res.CNE.Epochs), "epochs")
				b.ReportMetric(res.Timings.Embedding.Seconds(), "cne-s")
			}
		})
	}
}

func BenchmarkScoreEmbedding(b *testing.B) {
	g := benchGraph(b, "sbm100k")
	emb := &cne.Embedding{Dim: 8, X: randomRows(g.NumNodes(), 8, 1)}
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		if _, err := fondue.ScoreEmbedding(context.Background(), g, emb, fondue.Options{Method: score.MethodFONDUE, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadEdgeList times reading an edge list file into a graph:
// condmat05 from BENCH_DATASETS, and a generated 1M-node SBM graph
// (benchGraph's sbm1m) written to a temporary file.
func BenchmarkReadEdgeList(b *testing.B) {
	for _, name := range []string{"condmat05", "sbm1m"} {
		b.Run(name, func(b *testing.B) {
			var path string
			if name == "condmat05" {
				dir := os.Getenv("BENCH_DATASETS")
				if dir == "" {
					b.Skip("BENCH_DATASETS not set")
				}
				path = filepath.Join(dir, name+".edges")
			} else {
				path = filepath.Join(b.TempDir(), name+".edges")
				if err := writeEdgeList(path, benchGraph(b, name)); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			for k := 0; k < b.N; k++ {
				if _, _, err := edgelist.ReadFile(path, edgelist.HeaderAuto); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// writeEdgeList writes g as "u v" lines, each edge once.
func writeEdgeList(path string, g *graph.Graph) error {
	var sb []byte
	for i := 0; i < g.NumNodes(); i++ {
		for _, j := range g.Neighbors(i) {
			if int(j) > i {
				sb = append(sb, g.Key(i)...)
				sb = append(sb, ' ')
				sb = append(sb, g.Key(int(j))...)
				sb = append(sb, '\n')
			}
		}
	}
	return os.WriteFile(path, sb, 0o644)
}

// BenchmarkScoreCombined times the default method's scoring (FONDUE
// quotient, disconnection of its split, rank combination and percentiles)
// of a random embedding; sbm1m is benchGraph's 1M-node graph, where the
// scores grow faster than the edges.
func BenchmarkScoreCombined(b *testing.B) {
	for _, name := range []string{"condmat05", "sbm200k", "sbm1m"} {
		b.Run(name, func(b *testing.B) {
			var g *graph.Graph
			if name == "sbm200k" {
				var err error
				if g, err = generate.SBM(generate.SBMOptions{Nodes: 200_000, AvgDegree: 10, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			} else {
				g = benchGraph(b, name)
			}
			emb := &cne.Embedding{Dim: 8, X: randomRows(g.NumNodes(), 8, 1)}
			b.ResetTimer()
			cpu0 := cpuTime()
			for k := 0; k < b.N; k++ {
				if _, err := fondue.ScoreEmbedding(context.Background(), g, emb, fondue.Options{Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// randomRows returns n rows of d N(0,1) values drawn from seed: a random
// embedding to time the scores on.
func randomRows(n, d int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0))
	x := make([]float64, n*d)
	for k := range x {
		x[k] = r.NormFloat64()
	}
	return x
}
