//go:build epochs

package cne_test

// The epochs measurement of issue 11 (bench/EPOCHS.md): per graph and
// lever, the epochs of CNE, the CPU and wall seconds of the whole Score
// and the FONDUE and combined AUCs of the planted nodes (contraction at
// 10%), averaged over seeds. Run as
//
//	EPOCHS_LEVERS=old,smooth,stop EPOCHS_SEEDS=1001-1005 \
//	  go test -tags epochs -run TestEpochs -v -timeout 0 ./fondue/cne/
//
// Levers: old (plain noise, gradient test only: the behaviour of 6c9321f),
// smooth (smoothed start, gradient test only), stop (the default: smoothed
// start and ranking-stability stop), noisestop (plain noise with the stop),
// and stop:e=EVERY:s=SAMPLE:o=OVERLAP for other stop settings. Graphs:
// EPOCHS_GRAPHS (default the nine bench graphs), read from $FONDUE_DATASETS
// (default ../shared/datasets beside the repository). Workers 1.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/eval"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func parseSeeds(t *testing.T, s string) []uint64 {
	var out []uint64
	for _, part := range strings.Split(s, ",") {
		lo, hi, ok := strings.Cut(part, "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		b := a
		if ok {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil {
				t.Fatal(err)
			}
		}
		for s := a; s <= b; s++ {
			out = append(out, s)
		}
	}
	return out
}

// leverOptions returns the CNE options of a lever, the stop's parameters
// included.
func leverOptions(t *testing.T, lever string) cne.Options {
	name, params, _ := strings.Cut(lever, ":")
	var o cne.Options
	every, sample, top, overlap := 20, 1000, 0.10, 0.95
	sweep := false
	for _, kv := range strings.Split(params, ":") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("lever %q: %v", lever, err)
		}
		switch k {
		case "e":
			every = int(f)
		case "s":
			sample = int(f)
		case "t":
			top = f
		case "o":
			overlap = f
		case "sweep":
			sweep = f != 0
		default:
			t.Fatalf("lever %q: unknown parameter %q", lever, k)
		}
	}
	switch name {
	case "old":
		o.NoiseStart, o.NoStabilityStop = true, true
	case "smooth":
		o.NoStabilityStop = true
	case "stop":
	case "noisestop":
		o.NoiseStart = true
	default:
		t.Fatalf("unknown lever %q", lever)
	}
	return cne.WithStabilityStop(o, every, sample, top, overlap, sweep)
}

func TestEpochs(t *testing.T) {
	levers := strings.Split(envOr("EPOCHS_LEVERS", "old,stop"), ",")
	seeds := parseSeeds(t, envOr("EPOCHS_SEEDS", "1001-1005"))
	graphs := strings.Split(envOr("EPOCHS_GRAPHS", "lesmis,polbooks,netscience,email,grqc,fb-sc,fb-pp,condmat05,astroph"), ",")
	dir := envOr("FONDUE_DATASETS", "../../../shared/datasets")
	type acc struct{ epochs, cpu, wall, auc, comb float64 }
	totals := make([]acc, len(levers))
	fmt.Printf("%-11s %-22s %7s %8s %8s %7s %7s\n", "graph", "lever", "epochs", "cpu_s", "wall_s", "fondue", "comb")
	for _, name := range graphs {
		g, _, err := edgelist.ReadFile(filepath.Join(dir, name+".edges"), edgelist.HeaderAuto)
		if err != nil {
			t.Fatal(err)
		}
		for li, lever := range levers {
			var a acc
			for _, seed := range seeds {
				c, err := eval.Contract(g, 0.1, seed)
				if err != nil {
					t.Fatal(err)
				}
				cne := leverOptions(t, lever)
				cpu0, wall0 := cpuSeconds(), time.Now()
				res, err := fondue.Score(context.Background(), c.Graph, fondue.Options{Method: score.MethodFONDUE, Seed: seed, Workers: 1, CNE: cne})
				cpu, wall := cpuSeconds()-cpu0, time.Since(wall0).Seconds()
				if err != nil {
					t.Fatal(err)
				}
				comb, err := fondue.ScoreEmbedding(context.Background(), c.Graph, res.Embedding, fondue.Options{Method: score.MethodCombined, Seed: seed, Workers: 1})
				if err != nil {
					t.Fatal(err)
				}
				fauc, err1 := eval.AUC(res.Scores, c.Ambiguous, eval.TiesAverage)
				cauc, err2 := eval.AUC(comb, c.Ambiguous, eval.TiesAverage)
				if err := errors.Join(err1, err2); err != nil {
					t.Fatal(err)
				}
				k := float64(len(seeds))
				a.epochs += float64(res.CNE.Epochs) / k
				a.cpu += cpu / k
				a.wall += wall / k
				a.auc += fauc / k
				a.comb += cauc / k
				if os.Getenv("EPOCHS_VERBOSE") != "" {
					fmt.Printf("  %s %s seed %d: %d epochs (stable %v) cpu %.2f fondue %.4f\n", name, lever, seed, res.CNE.Epochs, res.CNE.Stable, cpu, fauc)
				}
			}
			fmt.Printf("%-11s %-22s %7.1f %8.2f %8.2f %7.4f %7.4f\n", name, lever, a.epochs, a.cpu, a.wall, a.auc, a.comb)
			k := float64(len(graphs))
			totals[li].epochs += a.epochs / k
			totals[li].cpu += a.cpu
			totals[li].auc += a.auc / k
			totals[li].comb += a.comb / k
		}
	}
	for li, lever := range levers {
		fmt.Printf("%-11s %-22s %7.1f %8.2f %8s %7.4f %7.4f  (mean epochs, total cpu, mean AUCs)\n", "ALL", lever, totals[li].epochs, totals[li].cpu, "", totals[li].auc, totals[li].comb)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
