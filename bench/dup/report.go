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
		fmt.Fprintf(&b, "## Planted duplicates on the paper's graphs\n\n%.3g%% of the nodes (rounded, at least one), chosen among the nodes of degree 2+ (seed %d), each give a random half of their links (floor(degree/2)) to a new node; the engine scores the pairs of the graph with no names (graph evidence only). AUC: the planted pairs among the engine's candidates against the other candidates; \"with missing\": the planted pairs it does not propose ranked below every candidate. Jaccard: the Jaccard of neighbours (GDS nodeSimilarity) on the same candidates. The journal version (FONDUE-NDD, Appl. Sci. 2021) gives no number we have: neither ../shared/docs/fondue-paper.tex nor docs/ holds its table, so there is no column of theirs.\n\n", 100*r.Ratio, r.Seed)
		b.WriteString("| graph | nodes | edges | planted | candidates | planted proposed | AUC engine | AUC engine, with missing | AUC Jaccard | AUC Jaccard, with missing | time | peak more than at start | estimate |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, p := range r.Planted {
			if p.Error != "" {
				fmt.Fprintf(&b, "| %s | %d | %d | engine failed: %s | | | | | | | | | |\n", p.Name, p.Nodes, p.Edges, strings.ReplaceAll(p.Error, "|", "/"))
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s |\n", p.Name, p.Nodes, p.Edges, p.Engine.Planted, p.Engine.Candidates, p.Engine.Found,
				f3(p.Engine.AUC), f3(p.Engine.AUCMissing), f3(p.Jaccard.AUC), f3(p.Jaccard.AUCMissing), format.Seconds(p.Run.Seconds)+" s", mb(p.Run.PeakBytes-min(p.Run.PeakBytes, p.Run.StartBytes)), mb(uint64(p.Run.Estimate)))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
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
