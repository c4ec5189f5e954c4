package cne

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

func TestCheckpointRoundTrip(t *testing.T) {
	g := readTestGraph(t, "karate")
	p := fitTestPrior(t, g)
	emb, _, err := Fit(context.Background(), g, p, Options{MaxEpochs: 30}, Run{Seed: 1, KeepState: true})
	if err != nil {
		t.Fatal(err)
	}
	c := NewCheckpoint(g, emb, Options{Sigma2: 3})
	if c.M == nil || c.Step != 30 || len(c.History) != 30 {
		t.Fatalf("state not kept: M %v step %d history %d", c.M != nil, c.Step, len(c.History))
	}
	path := filepath.Join(t.TempDir(), "emb.ck")
	if err := c.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCheckpointFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Dim != c.Dim || back.Sigma2 != 3 || back.Step != c.Step || back.Peak != c.Peak || c.Peak <= 0 || !slices.Equal(back.Keys, c.Keys) ||
		!slices.Equal(back.X, c.X) || !slices.Equal(back.M, c.M) || !slices.Equal(back.V, c.V) || !slices.Equal(back.History, c.History) {
		t.Fatal("checkpoint changed in the round trip")
	}
	// Without optimizer state.
	c.M, c.V = nil, nil
	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err = ReadCheckpoint(bytes.NewReader(buf.Bytes()))
	if err != nil || back.M != nil || !slices.Equal(back.X, c.X) {
		t.Fatalf("vectors-only checkpoint: %v", err)
	}
	// Truncated and foreign files fail with a clear error, never a panic.
	for _, bad := range [][]byte{nil, []byte("hello world, not a checkpoint at all"), buf.Bytes()[:buf.Len()/2]} {
		if _, err := ReadCheckpoint(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "checkpoint") {
			t.Fatalf("bad input accepted or unclear error: %v", err)
		}
	}
}

// TestReadCheckpointSize reads arrays larger than the reserve: whole
// when the size holds them, grown by append without it or when the size
// is too small for the count (as for a corrupt count); the same values.
func TestReadCheckpointSize(t *testing.T) {
	g := readTestGraph(t, "karate")
	p := fitTestPrior(t, g)
	emb, _, err := Fit(context.Background(), g, p, Options{MaxEpochs: 5}, Run{Seed: 1, KeepState: true})
	if err != nil {
		t.Fatal(err)
	}
	c := NewCheckpoint(g, emb, Options{})
	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		t.Fatal(err)
	}
	defer func(r uint64) { readReserve = r }(readReserve)
	readReserve = 16 // fewer values than the 34 nodes hold
	for _, tc := range []struct {
		size  int64
		whole bool
	}{{-1, false}, {int64(buf.Len()), true}, {int64(buf.Len()) / 100, false}} {
		back, err := ReadCheckpointSize(bytes.NewReader(buf.Bytes()), tc.size)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back.X, c.X) || !slices.Equal(back.M, c.M) || !slices.Equal(back.V, c.V) || !slices.Equal(back.Keys, c.Keys) {
			t.Fatalf("size %d: values changed", tc.size)
		}
		if whole := cap(back.X) == len(back.X) && cap(back.V) == len(back.V); whole != tc.whole {
			t.Fatalf("size %d: arrays made whole %v, want %v (cap %d, len %d)", tc.size, whole, tc.whole, cap(back.X), len(back.X))
		}
	}
}

func TestWarmStartMapping(t *testing.T) {
	// Saved: path a-b-c. New graph: b-c-d plus d-b; a is gone, d is new.
	var b1 graph.Builder
	b1.AddEdge("a", "b")
	b1.AddEdge("b", "c")
	g1 := b1.Build()
	emb := &Embedding{Dim: 2, X: []float64{1, 1, 2, 2, 4, 8}} // a, b, c in key order
	c := NewCheckpoint(g1, emb, Options{Dim: 2})
	var b2 graph.Builder
	b2.AddEdge("b", "c")
	b2.AddEdge("c", "d")
	b2.AddEdge("d", "b")
	b2.AddNode("e")
	g2 := b2.Build()
	init, ws, err := c.WarmStart(g2, Options{Dim: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ws != (WarmStats{Reused: 2, New: 2, NearNeighbors: 1, Dropped: 1}) {
		t.Fatalf("stats %+v", ws)
	}
	ib, _ := g2.Index("b")
	id, _ := g2.Index("d")
	if !slices.Equal(init.Row(ib), []float64{2, 2}) {
		t.Fatalf("b starts at %v, want its saved vector", init.Row(ib))
	}
	// d starts near the mean of b and c, (3, 5), with noise of sd 0.1.
	if x := init.Row(id); math.Abs(x[0]-3) > 0.5 || math.Abs(x[1]-5) > 0.5 {
		t.Fatalf("new node d starts at %v, want near (3, 5)", x)
	}
	if _, _, err := c.WarmStart(g2, Options{Dim: 8}, 0); err == nil {
		t.Fatal("dimension mismatch accepted")
	}
	// The saved rows in another order than the graph's: the same start.
	rev := &Checkpoint{Dim: 2, Keys: []string{"c", "b", "a"}, X: []float64{4, 8, 2, 2, 1, 1}}
	init2, ws2, err := rev.WarmStart(g2, Options{Dim: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ws2 != ws || !slices.Equal(init2.X, init.X) {
		t.Fatalf("rows in reverse: %+v %v, want %+v %v", ws2, init2.X, ws, init.X)
	}
}
