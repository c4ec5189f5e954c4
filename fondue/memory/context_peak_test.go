package memory

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/neo4jcsv"
)

// writeKG writes the import files of a knowledge graph shaped like the
// scale bench's (bench/scale/kg.go): authors in blocks of 100, each paper
// written by two authors mostly of one block, published in one of its
// block's venues, with one of 4 keywords shared by all and a year.
func writeKG(t *testing.T, authors, papers int) (nodes, rels string) {
	dir := t.TempDir()
	nodes, rels = filepath.Join(dir, "nodes.csv"), filepath.Join(dir, "rels.csv")
	nf, err := os.Create(nodes)
	if err != nil {
		t.Fatal(err)
	}
	rf, err := os.Create(rels)
	if err != nil {
		t.Fatal(err)
	}
	nw, rw := bufio.NewWriter(nf), bufio.NewWriter(rf)
	fmt.Fprintln(nw, "uid:ID,year:int,:LABEL")
	fmt.Fprintln(rw, ":START_ID,:END_ID,:TYPE")
	for a := range authors {
		fmt.Fprintf(nw, "a%d,,Author\n", a)
	}
	blocks := authors / 100
	for b := range blocks {
		fmt.Fprintf(nw, "v%d,,Venue\n", b)
	}
	for k := range 4 {
		fmt.Fprintf(nw, "k%d,,Keyword\n", k)
	}
	r := rng.SplitMix{S: 7}
	for p := range papers {
		b := int(r.Intn(uint32(blocks)))
		u := b*100 + int(r.Intn(100))
		v := b*100 + int(r.Intn(100))
		if r.Intn(10) == 0 {
			v = int(r.Intn(uint32(authors)))
		}
		fmt.Fprintf(nw, "p%d,%d,Paper\n", p, 1990+b%30+p%3)
		fmt.Fprintf(rw, "a%d,p%d,WROTE\n", u, p)
		if v != u {
			fmt.Fprintf(rw, "a%d,p%d,WROTE\n", v, p)
		}
		fmt.Fprintf(rw, "p%d,v%d,PUBLISHED_IN\np%d,k%d,HAS_KEYWORD\n", p, b, p, p%4)
	}
	for _, err := range []error{nw.Flush(), rw.Flush(), nf.Close(), rf.Close()} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return nodes, rels
}

// On a knowledge graph the estimate (ForGraph: the context, the
// structural graph, the pieces) holds the Go heap that Score allocates at
// its highest, measured. Without the structural graph and the pieces
// (sync's count before: connector.PullMemory had the kinds and the values
// only) it falls below.
func TestContextEstimateAboveMeasuredPeak(t *testing.T) {
	nodes, rels := writeKG(t, 20_000, 80_000)
	kg, err := neo4jcsv.Read(context.Background(), neo4jcsv.Options{Nodes: []string{nodes}, Relationships: []string{rels},
		ScoreLabels: []string{"Author"}, EvidenceProperties: []string{"year"}})
	if err != nil {
		t.Fatal(err)
	}
	g := kg.Graph
	opts := fondue.Options{Workers: 2, Seed: 1, CNE: cne.Options{MaxEpochs: 3}, RandomSplits: 10,
		Targets: kg.Targets, Context: kg.Context}
	mo := ForGraph(g, opts)
	e := Predict(int64(g.NumNodes()), int64(g.NumEdges()), mo)
	mo.Held = HeldByContext(g, opts) // sync's count before: the kinds and the values only
	eOld := Predict(int64(g.NumNodes()), int64(g.NumEdges()), mo)

	// The collector at 10% over the live heap: what is measured is the
	// live data, nearly, not the garbage of the moment. The engine's own
	// is the peak over the heap before Score (the graph, the context and
	// what the reader keeps); the estimate's is its largest phase less the
	// parts that exist before Score.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	base := liveNow()
	stop := livePeak()
	res, err := fondue.Score(context.Background(), g, opts)
	measured := stop() - base
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(res)
	runtime.KeepAlive(kg)
	engine, engineOld := engineBytes(e), engineBytes(eOld)
	t.Logf("%d nodes, %d links: Score's heap peak %s over the %s before; estimate %s (live %s), without the structural graph and the pieces %s (live %s)",
		g.NumNodes(), g.NumEdges(), sysmem.FormatBytes(measured), sysmem.FormatBytes(base), sysmem.FormatBytes(engine), sysmem.FormatBytes(e.Live),
		sysmem.FormatBytes(engineOld), sysmem.FormatBytes(eOld.Live))
	if float64(engine)*1.1 < float64(measured) {
		t.Errorf("Score's heap peaked %d bytes over the start, above 1.1 times the estimate's %d", measured, engine)
	}
	if float64(engineOld)*1.1 >= float64(measured) {
		t.Errorf("without the structural graph and the pieces the estimate (%d) still holds the measured %d: the test shows nothing", engineOld, measured)
	}
}

// liveNow is the live heap now: after a collection, what it marked.
func liveNow() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// livePeak samples the heap the collector marked live (runtime/metrics'
// /gc/heap/live) every 100µs until stop is called, with the collector at
// 10% growth, and once more after a collection at the end; it returns the
// largest value seen: the live data's peak within a tenth, what the
// estimate's phases count. Unlike heapPeak (the heap in use) it never
// counts the garbage that a collector slowed by a busy machine has not
// reached yet.
func livePeak() (stop func() int64) {
	gc := debug.SetGCPercent(10)
	stopSampling := sampledPeak(liveNow)
	return func() int64 {
		runtime.GC() // the last sample reads what it marked
		peak := stopSampling()
		debug.SetGCPercent(gc)
		return peak
	}
}

// engineBytes is e's largest phase less the parts that exist before
// Score starts: the graph and the context's kinds and values.
func engineBytes(e Estimate) int64 {
	before := map[string]bool{"adjacency (CSR)": true, "node keys": true, "key index": true,
		"context: the nodes' kinds": true, "context: evidence properties": true}
	var most int64
	for _, ph := range e.Phases {
		b := ph.Bytes
		for _, p := range ph.Parts {
			if before[p.Name] {
				b -= p.Bytes
			}
		}
		most = max(most, b)
	}
	return most
}
