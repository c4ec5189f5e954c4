package memory

import (
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/sysmem"
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
	if err := big.CheckMemory(big.Peak - 1); err == nil || !strings.Contains(err.Error(), "exceeds the limit") {
		t.Fatalf("CheckMemory: %v", err)
	}
	if big.CheckMemory(big.Peak) != nil || big.CheckMemory(0) != nil {
		t.Fatal("CheckMemory refused a run that fits")
	}
}
