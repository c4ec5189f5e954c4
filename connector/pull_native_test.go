package connector

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// The element-id index finds every node read, by a table when the ids are
// a shared prefix and a canonical number not much larger than the count,
// else by a map; and nothing else: another prefix, a number written
// otherwise ("007", "+7"), a number beyond the table, a gap in it.
func TestIDIndex(t *testing.T) {
	for _, c := range []struct {
		name  string
		ids   []string
		table bool
	}{
		{"dense", []string{"4:db:5", "4:db:0", "4:db:12", "4:db:3"}, true},
		{"other prefix", []string{"4:db:5", "4:xx:0"}, false},
		{"not a number", []string{"4:db:5", "4:db:a"}, false},
		{"leading zero", []string{"4:db:5", "4:db:07"}, false},
		{"too sparse", []string{"4:db:5", fmt.Sprintf("4:db:%d", 1<<40)}, false},
		{"no colon", []string{"abc", "abd"}, false},
	} {
		x := newIDIndex(c.ids)
		if (x.table != nil) != c.table {
			t.Errorf("%s: table %v, want %v", c.name, x.table != nil, c.table)
		}
		for k, id := range c.ids {
			if i, ok := x.lookup(id); !ok || int(i) != k {
				t.Errorf("%s: lookup(%q) = %d %v, want %d", c.name, id, i, ok, k)
			}
		}
		for _, miss := range []string{"4:db:1", "4:db:4", "4:db:13", "4:db:99999999", "4:db:007", "4:db:+5", "4:db:", "5:db:5", "4:db:5x", ""} {
			if i, ok := x.lookup(miss); ok {
				t.Errorf("%s: lookup(%q) = %d, want none", c.name, miss, i)
			}
		}
	}
}

// The memory a native pull needs (PullMemory, with the load phase of
// fondue's estimate) bounds what it uses: the live heap's peak during a
// pull of a generated graph, and what the subgraph keeps afterwards.
func TestPullMemoryEstimate(t *testing.T) {
	c, o := loadGenerated(t)
	base := heapAlloc()
	var sg *syncjob.Subgraph
	var err error
	peak := heapPeak(func() { sg, err = c.Pull(ctxT(t, time.Minute), o) })
	if err != nil {
		t.Fatal(err)
	}
	kept := heapAlloc() - base
	n, m := int64(sg.Graph.NumNodes()), int64(sg.Graph.NumEdges())
	load, held := PullMemory(n, int64(sg.Stats.RelationshipRows), o, false, DefaultReadConcurrency, sg.Stats.EvidenceTextBytes)
	est := memory.Predict(n, m, memory.Options{MaxDegree: int64(sg.Graph.MaxDegree()), SourceLoad: load, Held: held})
	var loadBytes, graphAndHeld int64
	for _, p := range est.Phases[0].Parts {
		loadBytes += p.Bytes
	}
	for _, p := range slices.Concat(est.Phases[0].Parts[:3:3], held, contextHeld(sg)) { // the graph (CSR, keys, index) and what sync holds
		graphAndHeld += p.Bytes
	}
	t.Logf("%d nodes, %d edges: heap peak %.1f MB over the start (load phase %.1f MB); kept %.1f MB (graph and held %.1f MB)",
		n, m, float64(peak-base)/(1<<20), float64(loadBytes)/(1<<20), float64(kept)/(1<<20), float64(graphAndHeld)/(1<<20))
	if got := peak - base; float64(got) > 1.1*float64(loadBytes) {
		t.Errorf("the pull's heap peaked %d bytes over the start, above 1.1 times the estimate's load phase (%d)", got, loadBytes)
	}
	if kept > graphAndHeld {
		t.Errorf("the subgraph keeps %d bytes, above the estimate's graph and held parts (%d)", kept, graphAndHeld)
	}
	runtime.KeepAlive(sg)
}

// The memory of a pull with evidence properties (text and numbers, some
// nodes without them) bounds what it uses, as TestPullMemoryEstimate.
func TestPullMemoryEstimateEvidence(t *testing.T) {
	c, o := loadGenerated(t)
	run(t, `MATCH (n:Node) WHERE n.uid % 5 <> 0
		SET n.title = 'On the ' + toString(n.uid * 7919 % 100003) + ' graphs of ' + toString(n.uid) + ' nodes in large networks',
		    n.year = 1990 + n.uid % 30`, nil)
	o.EvidenceProperties = []string{"title", "year"}
	o.WriteNodeLabels = []string{"Node"}
	base := heapAlloc()
	var sg *syncjob.Subgraph
	var err error
	peak := heapPeak(func() { sg, err = c.Pull(ctxT(t, time.Minute), o) })
	if err != nil {
		t.Fatal(err)
	}
	kept := heapAlloc() - base
	if sg.Context == nil || len(sg.Context.Properties) != 2 || sg.Context.Properties[0].Numeric || !sg.Context.Properties[1].Numeric || sg.Stats.EvidenceTextBytes < 40*16000 {
		t.Fatalf("context %v, text bytes %d", sg.Context != nil, sg.Stats.EvidenceTextBytes)
	}
	n, m := int64(sg.Graph.NumNodes()), int64(sg.Graph.NumEdges())
	load, held := PullMemory(n, int64(sg.Stats.RelationshipRows), o, false, DefaultReadConcurrency, sg.Stats.EvidenceTextBytes)
	est := memory.Predict(n, m, memory.Options{MaxDegree: int64(sg.Graph.MaxDegree()), SourceLoad: load, Held: held})
	var loadBytes, graphAndHeld int64
	for _, p := range est.Phases[0].Parts {
		loadBytes += p.Bytes
	}
	for _, p := range slices.Concat(est.Phases[0].Parts[:3:3], held, contextHeld(sg)) {
		graphAndHeld += p.Bytes
	}
	t.Logf("%d nodes, %d edges, %d bytes of text: heap peak %.1f MB over the start (load phase %.1f MB); kept %.1f MB (graph and held %.1f MB)",
		n, m, sg.Stats.EvidenceTextBytes, float64(peak-base)/(1<<20), float64(loadBytes)/(1<<20), float64(kept)/(1<<20), float64(graphAndHeld)/(1<<20))
	if got := peak - base; float64(got) > 1.1*float64(loadBytes) {
		t.Errorf("the pull's heap peaked %d bytes over the start, above 1.1 times the estimate's load phase (%d)", got, loadBytes)
	}
	if kept > graphAndHeld {
		t.Errorf("the subgraph keeps %d bytes, above the estimate's graph and held parts (%d)", kept, graphAndHeld)
	}
	runtime.KeepAlive(sg)
}

// contextHeld is what the pulled context holds, its kinds and evidence
// values (memory.HeldByContext).
func contextHeld(sg *syncjob.Subgraph) []memory.Part {
	return memory.HeldByContext(sg.Graph, fondue.Options{Targets: sg.Targets, Context: sg.Context})
}
