package memory

import (
	"context"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
)

// SinceParts by hand: 1,000 rows of integer keys (4 digits: 8 bytes), 3,000
// links, dimension 2.
func TestSinceParts(t *testing.T) {
	want := []Part{
		{"saved state: keys", 1000 * (16 + 8)},
		{"saved state: embedding and optimizer state", 24 * 2 * 1000},
		{"saved state: fingerprints, terms, entities, degrees", 40 * 1000},
		{"saved state: links", 8 * 3000},
		{"warm start: embedding and moments", 24*2*1000 + 8*1000},
		{"incremental plan", 43 * 1000},
	}
	if got := SinceParts(1000, 3000, 2, false, 0); !slices.Equal(got, want) {
		t.Errorf("SinceParts = %v, want %v", got, want)
	}
	if got := SinceParts(1000, 3000, 2, true, 20)[0].Bytes; got != 1000*36 {
		t.Errorf("string keys of 20 bytes: %d, want %d", got, 1000*36)
	}
	// Past the reader's reserve of an unknown size (2^24 values) too: a
	// state file is read into whole arrays.
	if got := SinceParts(1e7, 0, 8, false, 0)[1].Bytes; got != 24*8e7 {
		t.Errorf("vectors at 8e7 values: %d, want %d", got, int64(24*8e7))
	}
	// Predict adds them to every phase, to the load only the state read,
	// and not to a method without an embedding.
	o := Options{Dim: 2, Workers: 1, MaxDegree: 10, KeepState: true}
	base := Predict(1000, 3000, o)
	o.Since = true
	with := Predict(1000, 3000, o)
	var sum, read int64
	for k, p := range SinceParts(1000, 3000, 2, false, 0) {
		sum += p.Bytes
		if strings.HasPrefix(p.Name, "saved state") {
			read += p.Bytes
			if k >= savedStateParts {
				t.Errorf("part %q is read with the state, after the first %d", p.Name, savedStateParts)
			}
		}
	}
	for k, ph := range with.Phases {
		add := sum
		if ph.Phase == "load" {
			add = read
		}
		if ph.Bytes != base.Phases[k].Bytes+add {
			t.Errorf("phase %s: %d bytes, want %d + %d", ph.Phase, ph.Bytes, base.Phases[k].Bytes, add)
		}
	}
	o.NoEmbedding = true
	if a, b := Predict(1000, 3000, o).Live, Predict(1000, 3000, Options{Dim: 2, Workers: 1, MaxDegree: 10, KeepState: true, NoEmbedding: true}).Live; a != b {
		t.Errorf("no embedding: Since adds %d bytes", a-b)
	}
}

// An incremental night (a state read, then Score from it on a graph with
// some links added) allocates no more Go heap than the estimate with
// Since, measured; without Since (the count before) the estimate falls
// below it.
func TestSinceEstimateAboveMeasuredPeak(t *testing.T) {
	const n = 20_000
	r := rng.SplitMix{S: 5}
	edges := make([][2]int, 0, 4*n+n/50)
	for range 4 * n {
		edges = append(edges, [2]int{int(r.Intn(n)), int(r.Intn(n))})
	}
	g0 := testkit.NewGraph(n, edges)
	for range n / 50 { // a night's new links
		edges = append(edges, [2]int{int(r.Intn(n)), int(r.Intn(n))})
	}
	g := testkit.NewGraph(n, edges)
	opts := fondue.Options{Workers: 2, Seed: 1, CNE: cne.Options{MaxEpochs: 3}, RandomSplits: 10, KeepState: true}
	res, err := fondue.Score(context.Background(), g0, opts)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "state")
	if err := res.State(g0, opts).WriteFile(file); err != nil {
		t.Fatal(err)
	}
	res, g0 = nil, nil

	mo := ForGraph(g, opts)
	mo.Since = true
	e := Predict(int64(g.NumNodes()), int64(g.NumEdges()), mo)
	mo.Since = false
	eOld := Predict(int64(g.NumNodes()), int64(g.NumEdges()), mo)

	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	base := liveNow()
	stop := livePeak()
	st, err := fondue.ReadStateFile(file)
	if err != nil {
		t.Fatal(err)
	}
	opts.Since = st
	res, err = fondue.Score(context.Background(), g, opts)
	measured := stop() - base
	if err != nil {
		t.Fatal(err)
	}
	if inc := res.Incremental; inc == nil || inc.Full || inc.Changed == 0 {
		t.Fatalf("not an incremental run with changes: %+v", inc)
	}
	runtime.KeepAlive(res)
	runtime.KeepAlive(st)
	engine, engineOld := engineBytes(e), engineBytes(eOld)
	t.Logf("%d nodes, %d links: state read and incremental Score peak %s over the %s before; estimate %s, without the state %s",
		g.NumNodes(), g.NumEdges(), sysmem.FormatBytes(measured), sysmem.FormatBytes(base),
		sysmem.FormatBytes(engine), sysmem.FormatBytes(engineOld))
	if float64(engine)*1.1 < float64(measured) {
		t.Errorf("the heap peaked %d bytes over the start, above 1.1 times the estimate's %d", measured, engine)
	}
	if float64(engine) > 3*float64(measured) {
		t.Errorf("the estimate %d is over 3 times the measured %d", engine, measured)
	}
	if float64(engineOld)*1.1 >= float64(measured) {
		t.Errorf("without the state the estimate (%d) still holds the measured %d: the test shows nothing", engineOld, measured)
	}
}
