package generate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"testing"
)

// The same options give the same graph, with about the asked average degree.
func TestSBMDeterministic(t *testing.T) {
	o := SBMOptions{Nodes: 5000, AvgDegree: 10, Seed: 3}
	a, err := SBM(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := SBM(o)
	if err != nil {
		t.Fatal(err)
	}
	if a.NumNodes() != 5000 || a.NumEdges() != b.NumEdges() {
		t.Fatalf("nodes %d, edges %d and %d", a.NumNodes(), a.NumEdges(), b.NumEdges())
	}
	for i := range a.NumNodes() {
		if !slices.Equal(a.Neighbors(i), b.Neighbors(i)) {
			t.Fatalf("node %d: neighbours differ", i)
		}
	}
	if avg := 2 * float64(a.NumEdges()) / 5000; math.Abs(avg-10) > 0.5 {
		t.Fatalf("average degree %.2f, want about 10", avg)
	}
}

func TestSBMOptionsErrors(t *testing.T) {
	for _, o := range []SBMOptions{{Nodes: 1, AvgDegree: 1}, {Nodes: 100, AvgDegree: 0}, {Nodes: 100, AvgDegree: 5, Mixing: 2}, {Nodes: 100, AvgDegree: 5, MinCommunity: 50, MaxCommunity: 10}} {
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			if _, err := SBM(o); err == nil {
				t.Error("got no error, want one")
			}
		})
	}
	if _, err := SBM(SBMOptions{Nodes: 100, AvgDegree: 5, Mixing: NoMixing}); err != nil {
		t.Errorf("NoMixing: got error %v, want none", err)
	}
}

// sbmPins are SHA-256 digests of the adjacency of small seeded graphs, taken
// from SBM before it was split into named steps (issue 9): a refactor must
// leave every drawn graph identical.
var sbmPins = []struct {
	o    SBMOptions
	want string
}{
	{SBMOptions{Nodes: 2000, AvgDegree: 8, Seed: 1}, "e1977eb0303f4d8915eaa50b2b0f3fa39ef06b0fe7364cb2f605e3cbc7c5b517"},
	{SBMOptions{Nodes: 500, AvgDegree: 20, Seed: 7, Mixing: NoMixing}, "46762fcfe912accd3716890293b792afb47ce9113968a3f4e59fc8373003d01d"},
	{SBMOptions{Nodes: 300, AvgDegree: 6, Seed: 42, Mixing: 0.5, MinCommunity: 7, MaxCommunity: 40, DegreeExponent: 2.1, DegreeRange: 50, SizeExponent: 2}, "c67a9dde9ea2b08ebb847896ffae593351e1bed16162544c94c4b14dfb0658d3"},
	{SBMOptions{Nodes: 45, AvgDegree: 40, Seed: 9, MinCommunity: 20, MaxCommunity: 30}, "2171ae3bae85db1c7319b7f566c90fefe6983a6494efa8d6d1bf2c6ae11db801"},
}

func TestSBMPinned(t *testing.T) {
	for _, p := range sbmPins {
		g, err := SBM(p.o)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		var buf [4]byte
		for i := range g.NumNodes() {
			binary.LittleEndian.PutUint32(buf[:], uint32(g.Degree(i)))
			h.Write(buf[:])
			for _, j := range g.Neighbors(i) {
				binary.LittleEndian.PutUint32(buf[:], uint32(j))
				h.Write(buf[:])
			}
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != p.want {
			t.Errorf("%+v: %d edges, digest %s, want %s", p.o, g.NumEdges(), got, p.want)
		}
	}
}
