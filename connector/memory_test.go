package connector

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// heapAlloc is the live heap after a collection.
func heapAlloc() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// heapPeak runs f and returns the largest live heap while it ran: the heap
// the collector marked live (runtime/metrics' /gc/heap/live), sampled
// every millisecond with the collector running at 10% growth, and once
// more after a collection at the end. So it counts the live data's peak
// within a tenth, and never the garbage a collector slowed by a busy
// machine has not reached yet (the estimate's headroom covers that).
func heapPeak(f func()) int64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	var peak atomic.Int64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if h := live(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-sampled
	runtime.GC()
	return max(peak.Load(), live())
}

// loadGenerated loads a generated graph of 20,000 nodes (10
// relationships a node on average; testgraph.Generated) as
// (:Node {uid})-[:LINK]->(:Node) into an empty database, and returns a
// connection and the options that pull it.
func loadGenerated(t *testing.T) (*Conn, syncjob.PullOptions) {
	t.Helper()
	reset(t)
	g, err := testgraph.Generated()
	if err != nil {
		t.Fatal(err)
	}
	d, err := srv.Driver()
	if err != nil {
		t.Fatal(err)
	}
	if err := testgraph.Load(ctxT(t, 5*time.Minute), d, g, "Node", "LINK", "uid"); err != nil {
		t.Fatal(err)
	}
	c, _ := open(t)
	return c, syncjob.PullOptions{NodeLabels: []string{"Node"}, RelationshipTypes: []string{"LINK"}, IDProperty: "uid"}
}

// The sum of the k largest degrees, and the links bound, against sorting.
func TestTopDegrees(t *testing.T) {
	g, err := testgraph.Generated()
	if err != nil {
		t.Fatal(err)
	}
	deg := make([]int, g.NumNodes())
	for i := range deg {
		deg[i] = g.Degree(i)
	}
	slices.Sort(deg)
	slices.Reverse(deg)
	// Links between the neighbours of each node, counted pair by pair,
	// and their bound.
	bound := make([]int64, g.NumNodes())
	for i := range bound {
		nb := map[int32]bool{}
		for _, j := range g.Neighbors(i) {
			nb[j] = true
		}
		var links, s int64
		for _, j := range g.Neighbors(i) {
			s += int64(g.Degree(int(j)))
			for _, x := range g.Neighbors(int(j)) {
				if nb[x] && x > j {
					links++
				}
			}
		}
		d := int64(g.Degree(i))
		bound[i] = min(4000, d*(d-1)/2, (s-d)/2)
		if links > bound[i] {
			t.Fatalf("node %d: %d links between its neighbours, above the bound %d", i, links, bound[i])
		}
	}
	slices.Sort(bound)
	slices.Reverse(bound)
	for _, k := range []int{0, 1, 7, 100, 19999, 20000} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			var sum, links int64
			for _, d := range deg[:k] {
				sum += int64(d)
			}
			for _, b := range bound[:k] {
				links += b
			}
			if got := topDegreeSum(g, k); got != sum {
				t.Errorf("got top degree sum %d, want %d", got, sum)
			}
			if got := topLinks(g, k); got != links {
				t.Errorf("got links %d, want %d", got, links)
			}
		})
	}
}

// SplitMemory bounds a real split plan of a pulled graph and what storing
// and carrying it out allocate: the plan's heap and its text (a stored
// plan's and a dry run's, with links and relationship counts), within
// 12 times (its bound takes the largest degrees, while the nodes split are
// the most ambiguous, which the ranking no longer lets the hubs be), and
// the live heap's peak while the plan is stored and the nodes split.
func TestSplitMemoryEstimate(t *testing.T) {
	c, o := loadGenerated(t)
	sg, err := c.Pull(ctxT(t, time.Minute), o)
	if err != nil {
		t.Fatal(err)
	}
	const top = 300
	res, err := fondue.Score(ctxT(t, 5*time.Minute), sg.Graph, fondue.Options{Seed: 1,
		Split: fondue.SplitOptions{Splitter: split.Splitters()[0], Top: top}})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, got, bound int64) {
		t.Helper()
		t.Logf("%s: %.2f MB, bound %.2f MB (%.2fx)", what, float64(got)/(1<<20), float64(bound)/(1<<20), float64(bound)/float64(got))
		if got > bound || bound > 12*got {
			t.Errorf("%s: %d bytes, bound %d: want the bound above, and within 12 times", what, got, bound)
		}
	}
	for _, dry := range []bool{false, true} {
		parts := SplitMemory(sg.Graph, SplitMemoryOptions{Top: top, DryRun: dry}, o)
		base := heapAlloc()
		p, err := syncjob.NewPlan(sg, res, syncjob.PlanOptions{RunID: "mem", NeighborLinks: dry})
		if err != nil {
			t.Fatal(err)
		}
		if dry {
			if err := syncjob.Describe(ctxT(t, time.Minute), c, p); err != nil {
				t.Fatal(err)
			}
		}
		planBytes := heapAlloc() - base
		text, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		name := map[bool]string{false: "stored plan", true: "dry run's plan"}[dry]
		check(name, planBytes, parts[0].Bytes)
		textBytes := int64(len(text))
		if !dry {
			textBytes *= 2 // the parameter and the driver's message
		}
		check(name+" as text", textBytes, parts[1].Bytes)
		if dry {
			continue
		}
		// Storing and splitting, over the heap with the plan.
		withPlan := heapAlloc()
		peak := heapPeak(func() {
			stored, err := syncjob.StorePlan(ctxT(t, time.Minute), c, p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := syncjob.Split(ctxT(t, 5*time.Minute), c, stored, time.Now(), nil, nil); err != nil {
				t.Fatal(err)
			}
		})
		est := memory.Predict(int64(sg.Graph.NumNodes()), int64(sg.Graph.NumEdges()), memory.Options{MaxDegree: int64(sg.Graph.MaxDegree()), Split: true, Sink: parts})
		sink := est.Phases[len(est.Phases)-1]
		t.Logf("storing and splitting: heap peak %.2f MB over the heap with the plan (%.2f MB); sink parts %.2f MB, phase %.2f MB",
			float64(peak-withPlan)/(1<<20), float64(withPlan-base)/(1<<20), float64(parts[0].Bytes+parts[1].Bytes)/(1<<20), float64(sink.Bytes)/(1<<20))
		if sink.Phase != "sink" || float64(peak-base) > 1.1*float64(parts[0].Bytes+parts[1].Bytes) {
			t.Errorf("storing and splitting: the heap peaked %d bytes over the start, above 1.1 times the sink's parts (%d) of phase %q",
				peak-base, parts[0].Bytes+parts[1].Bytes, sink.Phase)
		}
		runtime.KeepAlive(p)
	}
	runtime.KeepAlive(res)
}
