package dup

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/format"
	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
)

// Issue40 are the baselines' test-half numbers as issue 40 gives them:
// P@100, AP, variant AP, R@P.9, cluster F1.
var Issue40 = map[string][5]float64{
	BaselineFold:    {.880, .323, 0, 0, .518},
	BaselineJW:      {.988, .496, .103, .345, .527},
	BaselineJaccard: {.456, .196, .102, 0, .417},
	BaselineMean:    {.540, .394, .164, .005, .601},
}

// Targets are issue 40's targets for the engine (test half): P@100, AP,
// variant AP, R@P.9, cluster F1.
var Targets = [5]float64{.98, .80, .50, .45, .78}

// Report is what RESULTS.md and results.json hold.
type Report struct {
	*Results
	Machine setup.Machine `json:"machine"`
	Command string        `json:"command"`
	Date    string        `json:"date"`
	Seconds float64       `json:"seconds"`
	PeakRSS uint64        `json:"peak_rss_bytes,omitempty"` // the process's peak resident memory (Linux), 0 = unknown
}

// PeakRSS reads the process's peak resident memory from /proc/self/status
// (VmHWM); 0 where there is none.
func PeakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// WriteJSON writes the report as indented JSON, scores and weights to 6
// digits.
func (r *Report) WriteJSON(w io.Writer) error {
	for k := range r.TopPairs {
		r.TopPairs[k].Score = format.Round6(r.TopPairs[k].Score)
	}
	for k := range r.Weights {
		r.Weights[k].Weight = format.Round6(r.Weights[k].Weight)
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

func mb(b uint64) string { return fmt.Sprintf("%.0f MB", float64(b)/(1<<20)) }

// WriteMarkdown writes RESULTS.md.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Duplicates: `fondue-bench duplicates`\n\nCommand: `%s`\n\nMachine: %s. Run %s, %s s wall, peak resident memory of the process %s.\n\n", r.Command, r.Machine, r.Date, format.Seconds(r.Seconds), mb(r.PeakRSS))
	b.WriteString("What every number is: bench/README.md, section \"Duplicates\"; the truth: acl-dup's README. Engine: `fondue/dedup` `Find`, no labels, every candidate pair returned (`Top` 0)")
	fmt.Fprintf(&b, ", seed %d.\n\n", r.Seed)
	if r.ACL != nil {
		methods := append(append([]string{}, BaselineNames...), Engine)
		for _, h := range Halves {
			fmt.Fprintf(&b, "## acl-dup, %s half\n\n", map[string]string{HalfDev: "development", HalfTest: "test (held-out)"}[h])
			t := r.ACL[h][Engine]
			fmt.Fprintf(&b, "%d truth pairs (%d variant); a pair counts in this half when both its nodes are of persons of the half, or one or both of a person with a single string.\n\n", t.Truth, t.Variants)
			b.WriteString("| method | P@100 | AP | variant AP | R@P.9 | cluster F1 (threshold) | pairs ranked | truth pairs reached |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
			for _, m := range methods {
				row, ok := r.ACL[h][m]
				if !ok {
					continue
				}
				name := BaselineText[m]
				if m == Engine {
					name = "**engine** (`dedup.Find`, no labels)"
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s (%s) | %d | %d (%.0f%%) |\n", name, f3(row.P100), f3(row.AP), f3(row.VariantAP),
					f3(row.RAtP90), f3(row.Cluster.F1), threshold(row.Cluster.Threshold), row.Ranked, row.Reached, 100*float64(row.Reached)/float64(max(1, row.Truth)))
			}
			if h == HalfTest {
				b.WriteString("\nThe issue's numbers for the baselines on this half, and its targets for the engine:\n\n| method | P@100 | AP | variant AP | R@P.9 | cluster F1 |\n|---|---:|---:|---:|---:|---:|\n")
				for _, m := range BaselineNames {
					x := Issue40[m]
					fmt.Fprintf(&b, "| %s (issue) | %s | %s | %s | %s | %s |\n", BaselineText[m], format.F3(x[0]), format.F3(x[1]), format.F3(x[2]), format.F3(x[3]), format.F3(x[4]))
				}
				x := Targets
				fmt.Fprintf(&b, "| target (issue) | ≥ %s | ≥ %s | ≥ %s | ≥ %s | ≥ %s |\n", format.F3(x[0]), format.F3(x[1]), format.F3(x[2]), format.F3(x[3]), format.F3(x[4]))
			}
			b.WriteString("\n")
		}
		if run := r.ACLRun; run != nil {
			fmt.Fprintf(&b, "Engine on acl-dup: %s s; Go memory %s before `Find` (the graph, the bench's baselines), peak %s during it: %s more, against `dedup.Estimate` %s with the candidates found (%s with its own guess of them; the graph not included; Estimate is the live heap, the measure also holds garbage not yet collected). %d candidate pairs scored, fitted on %d positives (split nodes) and %d negatives. The four baselines together: %s s.\n\n",
				format.Seconds(run.Seconds), mb(run.StartBytes), mb(run.PeakBytes), mb(run.PeakBytes-min(run.PeakBytes, run.StartBytes)), mb(uint64(run.Estimate)), mb(uint64(run.Guess)),
				run.Candidates, run.Positives, run.Negatives, format.Seconds(r.Baselines))
		}
		if len(r.Weights) > 0 {
			b.WriteString("Learned weights: ")
			for k, wt := range r.Weights {
				if k > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%s %.3g", wt.Feature, wt.Weight)
			}
			b.WriteString(".\n\n")
		}
		if len(r.TopPairs) > 0 {
			b.WriteString("The engine's 20 best pairs (label: the truth's kind, `no` = two labelled persons, `unlabelled` = a string of no curated person):\n\n| a | b | score | label | reasons |\n|---|---|---:|---|---|\n")
			for _, p := range r.TopPairs {
				fmt.Fprintf(&b, "| %s | %s | %.2f | %s | %s |\n", p.A, p.B, p.Score, p.Label, strings.Join(p.Reasons, "; "))
			}
			b.WriteString("\n")
		}
	}
	if len(r.Planted) > 0 {
		seeds := fmt.Sprintf("seed %d", r.Seed)
		if r.Seeds > 1 {
			seeds = fmt.Sprintf("seeds %d to %d", r.Seed, r.Seed+int64(r.Seeds)-1)
		}
		overlap, sameBaselines := "", ": the two pieces of a node share no neighbour, so both give every planted pair 0, and their AUC is half the share of candidates that share no neighbour either (the two columns agree)"
		if r.Overlap > 0 {
			overlap = fmt.Sprintf(", of which %.3g%% (rounded) stay linked to the node too: the two share these neighbours", 100*r.Overlap)
			sameBaselines = ""
		}
		fmt.Fprintf(&b, "## Planted duplicates on the paper's graphs\n\n"+
			"Per seed (%s; the seed plants and seeds the engine), %.3g%% of the nodes (rounded, at least one), chosen among the nodes of degree 2+, each give a random half of their links (floor(degree/2)) to a new node%s; the engine scores the pairs of the graph with no names (graph evidence only). "+
			"AUC: the planted pairs among the engine's candidates against the other candidates (ties by average rank); \"with missing\": the planted pairs it does not propose ranked below every candidate. "+
			"Jaccard (GDS nodeSimilarity) and Adamic-Adar of neighbours score the same candidates%s. "+
			"Mean ± sample standard deviation over the seeds; candidates and time are means, memory the largest seed. "+
			"The journal version (FONDUE-NDD, Appl. Sci. 2021) plants one duplicate per trial on lesmis, polbooks and netscience, 100 trials, varying the balance of the split, a minimum degree (0, 20, 30) and an overlap of neighbours (0, 20, 30; ../shared/docs/method.md); our planting is its balanced case, minimum degree 2, with the overlap above (none unless said). Its AUC numbers are not in ../shared/docs (only excerpts of the paper were reachable) nor docs/, so there is no column of theirs.\n\n", seeds, 100*r.Ratio, overlap, sameBaselines)
		b.WriteString("| graph | nodes | edges | planted per seed | candidates | planted proposed | AUC engine | AUC engine, with missing | AUC Jaccard | with missing | AUC Adamic-Adar | with missing | time | peak more than at start | estimate |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		var failed []string
		for _, p := range r.Planted {
			var planted, found, ok int
			var cands, secs float64
			var peak, est uint64
			for _, ps := range p.Seeds {
				if ps.Error != "" {
					failed = append(failed, fmt.Sprintf("%s seed %d: %s", p.Name, ps.Seed, ps.Error))
					continue
				}
				e := ps.Scores[Engine]
				ok++
				planted, found = e.Planted, found+e.Found
				cands += float64(e.Candidates)
				secs += ps.Run.Seconds
				peak = max(peak, ps.Run.PeakBytes-min(ps.Run.PeakBytes, ps.Run.StartBytes))
				est = max(est, uint64(ps.Run.Estimate))
			}
			if ok == 0 {
				fmt.Fprintf(&b, "| %s | %d | %d | engine failed | | | | | | | | | | | |\n", p.Name, p.Nodes, p.Edges)
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %.0f | %d of %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p.Name, p.Nodes, p.Edges, planted, cands/float64(ok), found, planted*ok,
				pm(p.AUC[Engine]), pm(p.AUCMissing[Engine]), pm(p.AUC[PlantedJaccard]), pm(p.AUCMissing[PlantedJaccard]),
				pm(p.AUC[PlantedAdamicAdar]), pm(p.AUCMissing[PlantedAdamicAdar]), format.Seconds(secs/float64(ok))+" s", mb(peak), mb(est))
		}
		b.WriteString("\n")
		for _, f := range failed {
			fmt.Fprintf(&b, "- engine failed on %s\n", strings.ReplaceAll(f, "|", "/"))
		}
		if len(failed) > 0 {
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// pm is mean ± sd over seeds ("-" with none; the mean alone for one).
func pm(s metrics.Stat) string {
	switch s.N {
	case 0:
		return "-"
	case 1:
		return f3(s.Mean)
	}
	return f3(s.Mean) + " ± " + f3(s.SD)
}

func f3(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return format.F3(x)
}

func threshold(x float64) string {
	if math.Abs(x) >= 10 {
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.3f", x)
}

// nullNaN is a number JSON can hold: null for NaN.
func nullNaN(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return format.Round6(x)
}

// MarshalJSON writes NaN (no positive or no negative) as null.
func (s PlantedScore) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"auc": nullNaN(s.AUC), "auc_missing": nullNaN(s.AUCMissing), "found": s.Found, "planted": s.Planted, "candidates": s.Candidates})
}

// MarshalJSON writes NaN (nothing ranked) as null.
func (r Row) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"p100": nullNaN(r.P100), "ap": nullNaN(r.AP), "variant_ap": nullNaN(r.VariantAP), "r_at_p90": nullNaN(r.RAtP90),
		"cluster": metrics.Clustering{F1: format.Round6(r.Cluster.F1), Precision: format.Round6(r.Cluster.Precision), Recall: format.Round6(r.Cluster.Recall),
			Threshold: format.Round6(r.Cluster.Threshold), Pairs: r.Cluster.Pairs}, "ranked": r.Ranked, "reached": r.Reached, "truth": r.Truth, "variants": r.Variants})
}
