package memory

import (
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
)

func TestEstimateMemory(t *testing.T) {
	small := Predict(1000, 5000, Options{Workers: 2})
	big := Predict(1_000_000, 10_000_000, Options{Workers: 2})
	if len(big.Phases) != 3 || big.Peak <= big.Live || big.Live <= small.Live {
		t.Fatalf("estimate: %+v", big)
	}
	// Every phase is the sum of its parts; Live is the largest phase.
	largest := int64(0)
	for _, ph := range big.Phases {
		sum := int64(0)
		for _, p := range ph.Parts {
			sum += p.Bytes
		}
		if sum != ph.Bytes {
			t.Fatalf("phase %s: %d != sum of parts %d", ph.Phase, ph.Bytes, sum)
		}
		largest = max(largest, ph.Bytes)
	}
	if largest != big.Live {
		t.Fatalf("live %d, largest phase %d", big.Live, largest)
	}
	// Linear in size: ten times the graph, about ten times the memory.
	ten := Predict(10_000_000, 100_000_000, Options{Workers: 2})
	if r := float64(ten.Live) / float64(big.Live); r < 9 || r > 11 {
		t.Fatalf("10x graph needs %.2fx memory", r)
	}
	// The 1M-node, 10M-edge target fits in 4 GB with room to spare.
	if big.Peak > 2<<30 {
		t.Fatalf("1M nodes / 10M edges estimated at %s", sysmem.FormatBytes(big.Peak))
	}
	// Refused below the live data and the runtime's memory; between that
	// and the peak, accepted with the collector held to the limit.
	if rt := runtimeOverhead(2); big.Least != big.Live+rt || big.Peak != int64(float64(big.Live)*gcHeadroom)+rt {
		t.Fatalf("least %d, peak %d, live %d", big.Least, big.Peak, big.Live)
	}
	if err := big.CheckMemory(big.Least - 1); err == nil || !strings.Contains(err.Error(), "exceeds the limit") || big.HeldToLimit(big.Least-1) {
		t.Fatalf("CheckMemory below the least: %v", err)
	}
	for _, limit := range []int64{big.Least, big.Peak - 1} {
		if big.CheckMemory(limit) != nil || !big.HeldToLimit(limit) {
			t.Fatalf("limit %d: refused, or not held to the limit", limit)
		}
	}
	if big.CheckMemory(big.Peak) != nil || big.CheckMemory(0) != nil || big.HeldToLimit(big.Peak) || big.HeldToLimit(0) {
		t.Fatal("CheckMemory refused a run that fits, or held it")
	}
}

// A source's buffers count in the load phase only; what the caller holds
// counts in every phase, in its bytes as in its parts, and so in Live and
// Peak.
func TestPredictSourceLoadAndHeld(t *testing.T) {
	o := Options{Split: true}
	base := Predict(100000, 1000000, o)
	o.SourceLoad = []Part{{"source buffers", 7 << 20}}
	o.Held = []Part{{"held ids", 3 << 20}, {"held keys", 2 << 20}}
	got := Predict(100000, 1000000, o)
	if len(got.Phases) != len(base.Phases) {
		t.Fatalf("%d phases, want %d", len(got.Phases), len(base.Phases))
	}
	for i, ph := range got.Phases {
		want := base.Phases[i].Bytes + 5<<20
		if ph.Phase == "load" {
			want += 7 << 20
		}
		var sum int64
		for _, p := range ph.Parts {
			sum += p.Bytes
		}
		if ph.Bytes != want || sum != ph.Bytes {
			t.Errorf("phase %s: %d bytes (parts sum to %d), want %d", ph.Phase, ph.Bytes, sum, want)
		}
	}
	if got.Live < base.Live+5<<20 || got.Peak <= base.Peak {
		t.Errorf("live %d peak %d, want at least %d and above %d", got.Live, got.Peak, base.Live+5<<20, base.Peak)
	}
}

// What a sink holds after the engine makes a phase of its own: the fitted
// graph (CSR, keys, key index), the embedding (8nd), the prior (8n), the
// scores (49n), the sink's parts and what the caller holds; it sets Live
// when it is the largest.
func TestPredictSink(t *testing.T) {
	const n, m = 100000, 1000000
	o := Options{Split: true, Held: []Part{{"held ids", 3 << 20}}}
	base := Predict(n, m, o)
	o.Sink = []Part{{"plan", 50 << 20}, {"plan text", 20 << 20}}
	got := Predict(n, m, o)
	if len(got.Phases) != len(base.Phases)+1 {
		t.Fatalf("%d phases, want %d", len(got.Phases), len(base.Phases)+1)
	}
	sink := got.Phases[len(got.Phases)-1]
	want := int64(8*m+8*(n+1)) + 8*n + 40*n + 8*n*8 + 8*n + 49*n + 70<<20 + 3<<20
	if sink.Phase != "sink" || sink.Bytes != want {
		t.Fatalf("phase %s: %d bytes, want sink of %d", sink.Phase, sink.Bytes, want)
	}
	if got.Live != max(base.Live, want) {
		t.Errorf("live %d, want the larger of %d and %d", got.Live, base.Live, want)
	}
	o.Sink = []Part{{"plan", 500 << 20}}
	if big := Predict(n, m, o); big.Live != big.Phases[len(big.Phases)-1].Bytes || big.Peak <= got.Peak {
		t.Errorf("a large sink: live %d, peak %d; want the sink phase's bytes and a peak above %d", big.Live, big.Peak, got.Peak)
	}
}

// A method without an embedding has no embedding phase and holds no
// vectors or prior in the others: its estimate is the larger of the load
// and the scoring phase without them.
func TestPredictNoEmbedding(t *testing.T) {
	const n, m = 1000000, 10000000
	with := Predict(n, m, Options{MaxDegree: 500})
	without := Predict(n, m, Options{MaxDegree: 500, NoEmbedding: true})
	if len(without.Phases) != len(with.Phases)-1 {
		t.Fatalf("%d phases, want %d", len(without.Phases), len(with.Phases)-1)
	}
	for k, ph := range without.Phases {
		if ph.Phase == "embedding" {
			t.Fatalf("phase %d is the embedding's", k)
		}
		for _, p := range ph.Parts {
			if p.Name == "embedding" || p.Name == "prior multipliers" {
				t.Errorf("phase %s holds %s", ph.Phase, p.Name)
			}
		}
	}
	scoring := with.Phases[2].Bytes - 8*n*8 - 8*n // without the vectors (8nd) and the prior
	if got := without.Phases[1]; got.Phase != "scoring" || got.Bytes != scoring {
		t.Errorf("scoring phase %s of %d bytes, want %d", got.Phase, got.Bytes, scoring)
	}
	if without.Live != max(without.Phases[0].Bytes, scoring) || without.Peak >= with.Peak {
		t.Errorf("live %d, peak %d (with an embedding %d)", without.Live, without.Peak, with.Peak)
	}
}
