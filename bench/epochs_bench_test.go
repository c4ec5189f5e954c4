package bench

// The epochs measurement of issue 11 (EPOCHS.md): per graph and lever, the
// epochs of CNE, the CPU seconds of the whole Score and the FONDUE and
// combined AUCs of the planted nodes (contraction at 10%), averaged over
// seeds. A benchmark, not a test: it reports and asserts nothing. Run as
//
//	EPOCHS_LEVERS=old,stop EPOCHS_SEEDS=1001-1005 GOMAXPROCS=1 \
//	  go test -run '^$' -bench Epochs -benchtime 1x -timeout 0 ./bench/
//
// Levers: old (plain noise, gradient test only: the behaviour of 6c9321f),
// smooth (smoothed start, gradient test only), stop (the default: smoothed
// start and ranking-stability stop), noisestop (plain noise with the
// stop). Graphs: EPOCHS_GRAPHS (default the nine bench graphs), read from
// the datasets folder (setup.FindDataDir). Workers 1.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

func BenchmarkEpochs(b *testing.B) {
	levers := strings.Split(envOr("EPOCHS_LEVERS", "old,stop"), ",")
	seeds, err := parseSeeds(envOr("EPOCHS_SEEDS", "1001-1005"))
	if err != nil {
		b.Fatalf("EPOCHS_SEEDS: %v", err)
	}
	graphs := strings.Split(envOr("EPOCHS_GRAPHS", "lesmis,polbooks,netscience,email,grqc,fb-sc,fb-pp,condmat05,astroph"), ",")
	dir, err := setup.FindDataDir("")
	if err != nil {
		b.Skip(err)
	}
	for _, name := range graphs {
		g, _, err := edgelist.ReadFile(filepath.Join(dir, name+".edges"), edgelist.HeaderAuto)
		if err != nil {
			b.Fatal(err)
		}
		for _, lever := range levers {
			o, err := leverOptions(lever)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(name+"/"+lever, func(b *testing.B) {
				for range b.N {
					var epochs, cpu, fondueAUC, combAUC float64
					k := float64(len(seeds))
					for _, seed := range seeds {
						c, err := eval.Contract(g, 0.1, seed)
						if err != nil {
							b.Fatal(err)
						}
						cpu0 := cpuTime()
						res, err := fondue.Score(context.Background(), c.Graph, fondue.Options{Method: score.MethodFONDUE, Seed: seed, Workers: 1, CNE: o})
						cpuS := (cpuTime() - cpu0).Seconds()
						if err != nil {
							b.Fatal(err)
						}
						comb, err := fondue.ScoreEmbedding(context.Background(), c.Graph, res.Embedding, fondue.Options{Method: score.MethodCombined, Seed: seed, Workers: 1})
						if err != nil {
							b.Fatal(err)
						}
						fauc, err1 := eval.AUC(res.Scores, c.Ambiguous, eval.TiesAverage)
						cauc, err2 := eval.AUC(comb, c.Ambiguous, eval.TiesAverage)
						if err := errors.Join(err1, err2); err != nil {
							b.Fatal(err)
						}
						epochs += float64(res.CNE.Epochs) / k
						cpu += cpuS / k
						fondueAUC += fauc / k
						combAUC += cauc / k
						if os.Getenv("EPOCHS_VERBOSE") != "" {
							b.Logf("%s %s seed %d: %d epochs (stable %v) cpu %.2f fondue %.4f", name, lever, seed, res.CNE.Epochs, res.CNE.Stable, cpuS, fauc)
						}
					}
					b.ReportMetric(epochs, "epochs")
					b.ReportMetric(cpu, "cpu-s/score")
					b.ReportMetric(fondueAUC, "fondue-auc")
					b.ReportMetric(combAUC, "combined-auc")
				}
			})
		}
	}
}

// leverOptions returns the CNE options of a lever.
func leverOptions(lever string) (cne.Options, error) {
	var o cne.Options
	switch lever {
	case "old":
		o.NoiseStart, o.NoStabilityStop = true, true
	case "smooth":
		o.NoStabilityStop = true
	case "stop":
	case "noisestop":
		o.NoiseStart = true
	default:
		return o, fmt.Errorf("EPOCHS_LEVERS: unknown lever %q (want old, smooth, stop or noisestop)", lever)
	}
	return o, nil
}

// parseSeeds reads a list of seeds and ranges: "1,4-6" is 1, 4, 5, 6.
func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, part := range strings.Split(s, ",") {
		lo, hi, ok := strings.Cut(part, "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, err
		}
		b := a
		if ok {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil {
				return nil, err
			}
		}
		for s := a; s <= b; s++ {
			out = append(out, s)
		}
	}
	return out, nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
