package fondue

import (
	"bytes"
	"context"
	"math"
	"runtime"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// goroutineID returns the calling goroutine's id, from its stack header.
func goroutineID() string {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	return string(b[:bytes.IndexByte(b, ' ')])
}

// Score reports progress within the scoring and splitting phases, not only
// their start and end: from the calling goroutine, in order, with the
// phase's total, and done rising from 0 to the total (through values in
// between: at every percent on one worker). The reports change no score and
// no split, on one worker or two.
func TestScoreReportsProgressWithinPhases(t *testing.T) {
	g := testkit.CommunityGraph(3000, 50, 1)
	mcl := split.Find(split.Splitters(), "mcl")
	for _, method := range []string{score.MethodCombined, score.MethodFONDUE, score.MethodNC, score.MethodCC} {
		for _, workers := range []int{1, 2} {
			opts := Options{Method: method, Seed: 3, Workers: workers, CNE: cne.Options{MaxEpochs: 30},
				Split: SplitOptions{Splitter: mcl, Top: 400}}
			quiet, err := Score(context.Background(), g, opts)
			if err != nil {
				t.Fatal(err)
			}
			caller := goroutineID()
			var reports []Progress
			opts.Progress = func(p Progress) {
				if id := goroutineID(); id != caller {
					t.Errorf("%s: a report from goroutine %s, not the caller's %s", method, id, caller)
				}
				reports = append(reports, p)
			}
			res, err := Score(context.Background(), g, opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range res.Scores {
				if math.Float64bits(res.Scores[i]) != math.Float64bits(quiet.Scores[i]) {
					t.Fatalf("%s, %d workers: node %d scores %v with progress reports, %v without", method, workers, i, res.Scores[i], quiet.Scores[i])
				}
			}
			for k := range res.Proposals {
				if len(res.Proposals[k].Groups) != len(quiet.Proposals[k].Groups) || res.Proposals[k].Node != quiet.Proposals[k].Node {
					t.Fatalf("%s: proposal %d differs with progress reports", method, k)
				}
			}
			for ph, total := range map[Phase]int{PhaseScoring: g.NumNodes(), PhaseSplitting: 400} {
				var done []int
				for _, p := range reports {
					if p.Phase == ph {
						if p.Total != total {
							t.Errorf("%s %s: total %d, want %d", method, ph, p.Total, total)
						}
						done = append(done, p.Done)
					}
				}
				between := 0
				for k, d := range done {
					if k > 0 && d < done[k-1] {
						t.Errorf("%s %s: done went back from %d to %d", method, ph, done[k-1], d)
					}
					if d > 0 && d < total {
						between++
					}
				}
				// One worker works on the calling goroutine, which reports
				// at every percent; with two, the caller reports when it
				// is woken, which a fast phase may outrun.
				if len(done) < 2 || done[0] != 0 || done[len(done)-1] != total || workers == 1 && between < 5 {
					t.Errorf("%s, %d workers, %s: reports %v; want 0, several in between, then %d", method, workers, ph, done, total)
				}
			}
		}
	}
}

// With Targets, the scoring phase counts the nodes scored, as the summary
// does, and says how many more are there as context only.
func TestScoringProgressCountsTargets(t *testing.T) {
	g := testkit.CommunityGraph(300, 10, 1)
	targets := make([]bool, g.NumNodes())
	want := 0
	for i := range targets {
		if i%3 == 0 {
			targets[i], want = true, want+1
		}
	}
	for _, method := range []string{score.MethodCombined, score.MethodNC} {
		var last Progress
		opts := Options{Method: method, Seed: 3, CNE: cne.Options{MaxEpochs: 10}, Targets: targets,
			Progress: func(p Progress) {
				if p.Phase == PhaseScoring {
					last = p
				}
			}}
		if _, err := Score(context.Background(), g, opts); err != nil {
			t.Fatal(err)
		}
		if last.Total != want || last.Done != want || last.Context != g.NumNodes()-want {
			t.Errorf("%s: scoring ends at %d of %d, context %d; want %d of %d, context %d", method, last.Done, last.Total, last.Context, want, want, g.NumNodes()-want)
		}
	}
}
