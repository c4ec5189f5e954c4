package scale

// Nights (LiveConfig.Nights): the nightly job with a state file, live. A
// first night (no state: a full cold run, every value written), then
// second nights after 0%, 0.1% and 1% of the relationships changed (half
// deleted, as many added between nodes not linked; cumulative), each
// incremental from the state the night before saved, and a last night
// with --full on the last graph (as nights were before). Each changed
// night's written top 1% is compared with score's on the same graph (a
// full cold run): their overlap, and Spearman's rank correlation over
// every node.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"gonum.org/v1/gonum/stat"
)

// NightFractions are the shares of the relationships changed before each
// second night, in order (cumulative).
var NightFractions = []float64{0, 0.001, 0.01}

// NightRun is one night of the nightly scenario.
type NightRun struct {
	Case   string `json:"case"`
	Server string `json:"server"`
	// Night is "first", or the share of relationships changed before it
	// ("0%", "0.1%", "1%"); Changed counts them (deleted plus added).
	Night    string  `json:"night"`
	Changed  int     `json:"relationships_changed"`
	WallS    float64 `json:"wall_s"`
	PullS    float64 `json:"pull_s"`
	ComputeS float64 `json:"compute_s"`
	WriteS   float64 `json:"write_s"`
	// ComputeShare and WallShare are this night's over the first's.
	ComputeShare float64 `json:"compute_share"`
	WallShare    float64 `json:"wall_share"`
	// What the summary says: full or incremental and why, the nodes
	// changed and re-scored, written and left unchanged.
	Mode              string  `json:"mode"`
	Reason            string  `json:"reason,omitempty"`
	NodesChanged      int     `json:"nodes_changed"`
	NodesRescored     int     `json:"nodes_rescored"`
	NodesWritten      int     `json:"nodes_written"`
	NodesUnchanged    int     `json:"nodes_unchanged"`
	PropertiesWritten int     `json:"properties_written"`
	JobPeakRSSMB      float64 `json:"job_peak_rss_mb"`
	// Top1Overlap is the share of score's top 1% (a full cold run on the
	// same graph) among the night's written top 1%; Spearman the rank
	// correlation of the written ambiguity and score's. RefS is the wall
	// time of that score run.
	// Compared is false for the nights before any change (no score run).
	Compared    bool    `json:"compared"`
	Top1Overlap float64 `json:"top1_overlap"`
	Spearman    float64 `json:"spearman"`
	RefS        float64 `json:"ref_s"`
	// On the full night: the overlap and Spearman's rho of its written
	// ambiguity with the incremental night's before it, on the same graph.
	Top1OverlapPrev float64 `json:"top1_overlap_prev,omitempty"`
	SpearmanPrev    float64 `json:"spearman_prev,omitempty"`
}

// nightsPlan is what the nights loop (runNightsPlan) needs of a case: the
// relationships it changes (E: their two ends), how it draws one to add,
// applies the changes, reads the written ambiguity back, and scores the
// graph as changed for comparison.
type nightsPlan[E comparable] struct {
	what  string // the relationships changed, for the log ("relationships", "WROTE")
	edges []E
	// draw draws the ends of a relationship to add; false: draw again
	// (the same node twice).
	draw    func(r *rand.Rand) (E, bool)
	params  func(E) []any // the ends as query parameters
	change  func(ctx context.Context, del, add []any) error
	written func(ctx context.Context) (map[string]float64, error)
	// score, when set, scores the graph as changed (edges but the
	// deleted, plus added): the full run each changed night is compared
	// with, and its wall time. nil: no comparison.
	score func(ctx context.Context, name string, deleted []bool, added []E) (liveRef, float64, error)
}

// runNights runs the nightly scenario on a server whose graph is case c's
// edge list (ref: score's on it). The written properties exist (the
// first sync wrote them).
func runNights(ctx context.Context, cfg Config, srv *neo4jtest.Server, d neo4j.DriverWithContext, c Case, p *prepared, ref liveRef,
	res *Results, logf func(string, ...any)) error {
	g, _, err := edgelist.ReadFile(p.edges, edgelist.HeaderAuto)
	if err != nil {
		return err
	}
	var edges [][2]int64 // the graph's, smaller key first
	for i := range g.NumNodes() {
		a, _ := g.IntKey(i)
		for _, j := range g.Neighbors(i) {
			if b, _ := g.IntKey(int(j)); a < b {
				edges = append(edges, [2]int64{a, b})
			}
		}
	}
	keys := make([]int64, g.NumNodes())
	for i := range keys {
		keys[i], _ = g.IntKey(i)
	}
	bin := [2]string{BinaryMain, cfg.Binary}
	plan := nightsPlan[[2]int64]{what: "relationships", edges: edges,
		draw: func(r *rand.Rand) ([2]int64, bool) {
			a, b := keys[r.IntN(len(keys))], keys[r.IntN(len(keys))]
			return [2]int64{min(a, b), max(a, b)}, a != b
		},
		params: func(e [2]int64) []any { return []any{e[0], e[1]} },
		change: func(ctx context.Context, del, add []any) error { return changeRels(ctx, d, del, add) },
		written: func(ctx context.Context) (map[string]float64, error) {
			w := map[string]float64{}
			err := readLive(ctx, d, func(key int64, amb, _, _ any) {
				if a, ok := amb.(float64); ok {
					w[strconv.FormatInt(key, 10)] = a
				}
			})
			return w, err
		},
		score: func(ctx context.Context, name string, deleted []bool, added [][2]int64) (liveRef, float64, error) {
			// score on the graph as it is now: the full run to compare with.
			path := filepath.Join(cfg.CacheDir, fmt.Sprintf("nights-%s-%s.edges", c.Name, name))
			if err := writeChangedEdges(path, edges, deleted, added); err != nil {
				return nil, 0, err
			}
			p2 := *p
			p2.edges = path
			r, out, err := runScoreOut(ctx, cfg, c, &p2, bin, 0, []string{"--output", "json"})
			os.Remove(path)
			if err != nil {
				return nil, 0, fmt.Errorf("score after %s changed: %w", name, err)
			}
			ref, err := parseScoreJSON(out)
			return ref, r.WallS, err
		}}
	// The first night overwrites every value, as after another night.
	if err := scrambleProps(ctx, d, scoreProps...); err != nil {
		return err
	}
	return runNightsPlan(ctx, cfg, srv, c, plan, ref, res, logf)
}

// runNightsPlan runs the nights of a plan: the first night (compared with
// ref when not nil), a night after each of NightFractions of the
// relationships changed (half deleted, as many added where there was
// none; cumulative), each compared with plan.score's full run, and a last
// night with --full on the last graph (warm-started, every value written,
// as every night was before incremental runs), compared with the
// incremental night before it.
func runNightsPlan[E comparable](ctx context.Context, cfg Config, srv *neo4jtest.Server, c Case, plan nightsPlan[E], ref liveRef,
	res *Results, logf func(string, ...any)) error {
	v := srv.Version().Neo4j
	state := filepath.Join(cfg.CacheDir, fmt.Sprintf("nights-%s-%s.state", c.Name, v))
	os.Remove(state)
	defer os.Remove(state)
	edges := plan.edges
	has := make(map[E]bool, len(edges))
	for _, e := range edges {
		has[e] = true
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 41))
	bin := [2]string{BinaryMain, cfg.Binary}

	var first NightRun
	var last map[string]float64 // the written ambiguity after the last night
	night := func(name string, changed int, ref liveRef, refS float64, extra ...string) error {
		lr, sum, err := runNight(ctx, cfg, srv, c, bin, "night-"+strings.TrimSuffix(name, "%"), state, extra...)
		if err != nil {
			return fmt.Errorf("night %s: %w", name, err)
		}
		nr := NightRun{Case: c.Name, Server: v, Night: name, Changed: changed, WallS: lr.WallS, PullS: lr.PullS, ComputeS: lr.ComputeS,
			WriteS: lr.WriteS, NodesWritten: sum.NodesWritten, NodesUnchanged: sum.NodesUnchanged, PropertiesWritten: lr.Properties,
			JobPeakRSSMB: lr.JobPeakRSSMB, RefS: refS}
		if in := sum.Incremental; in != nil {
			nr.Mode, nr.Reason, nr.NodesChanged, nr.NodesRescored = in.Mode, in.Reason, in.NodesChanged, in.NodesRescored
		}
		if name == "first" {
			first = nr
		}
		nr.ComputeShare, nr.WallShare = nr.ComputeS/first.ComputeS, nr.WallS/first.WallS
		written, err := plan.written(ctx)
		if err != nil {
			return err
		}
		cmp := ""
		if name == "full" && last != nil {
			nr.Top1OverlapPrev, nr.SpearmanPrev = compareTop(written, last, 0.01)
			cmp = fmt.Sprintf("; against the incremental night before, on the same graph: top 1%% overlap %.4f, Spearman %.5f",
				nr.Top1OverlapPrev, nr.SpearmanPrev)
		}
		last = written
		if ref != nil {
			exact := map[string]float64{}
			for k, r := range ref {
				if r.Ambiguity != nil {
					exact[k] = *r.Ambiguity
				}
			}
			nr.Top1Overlap, nr.Spearman = compareTop(written, exact, 0.01)
			nr.Compared = true
			cmp += fmt.Sprintf("; against score: top 1%% overlap %.4f, Spearman %.5f", nr.Top1Overlap, nr.Spearman)
		}
		logf("%s on %s, night %s (%d %s changed): %s%s, wall %.1fs (%.0f%% of the first), compute %.1fs (%.0f%%), write %.1fs; "+
			"%d nodes changed, %d re-scored, %d written, %d unchanged%s",
			c.Name, v, name, changed, plan.what, nr.Mode, reasonNote(nr.Reason), nr.WallS, 100*nr.WallShare, nr.ComputeS, 100*nr.ComputeShare, nr.WriteS,
			nr.NodesChanged, nr.NodesRescored, nr.NodesWritten, nr.NodesUnchanged, cmp)
		res.Nights = append(res.Nights, nr)
		return nil
	}
	if err := night("first", 0, ref, 0); err != nil {
		return err
	}
	deleted := make([]bool, len(edges))
	var added []E
	for _, frac := range NightFractions {
		name := strconv.FormatFloat(100*frac, 'f', -1, 64) + "%"
		k := int(math.Round(frac * float64(len(edges)) / 2))
		var del, add []any
		for len(del) < k {
			e := rng.IntN(len(edges))
			if !deleted[e] {
				deleted[e] = true
				del = append(del, plan.params(edges[e]))
			}
		}
		for len(add) < k {
			e, ok := plan.draw(rng)
			if !ok || has[e] {
				continue
			}
			has[e] = true
			added = append(added, e)
			add = append(add, plan.params(e))
		}
		if err := plan.change(ctx, del, add); err != nil {
			return err
		}
		nref, refS := ref, 0.0
		if k > 0 && plan.score != nil {
			var err error
			if nref, refS, err = plan.score(ctx, name, deleted, added); err != nil {
				return err
			}
		}
		if err := night(name, len(del)+len(add), nref, refS); err != nil {
			return err
		}
		ref = nref
	}
	return night("full", 0, ref, 0, "--full")
}

func reasonNote(r string) string {
	if r == "" {
		return ""
	}
	return " (" + r + ")"
}

// nightSummary is what the nights read of sync's summary besides
// syncSummary.
type nightSummary struct {
	NodesWritten   int `json:"nodesWritten"`
	NodesUnchanged int `json:"nodesUnchanged"`
	Incremental    *struct {
		Mode          string `json:"mode"`
		Reason        string `json:"reason"`
		NodesChanged  int    `json:"nodesChanged"`
		NodesRescored int    `json:"nodesRescored"`
	} `json:"incremental"`
}

// runNight runs one sync with the state file, no split.
func runNight(ctx context.Context, cfg Config, srv *neo4jtest.Server, c Case, bin [2]string, runID, state string, extra ...string) (LiveRun, nightSummary, error) {
	var sum nightSummary
	args := append(append([]string{"--checkpoint", state}, extra...), cfg.Live.SyncArgs...)
	lr, err := runSync(ctx, cfg, srv, c, bin, 0, runID, args, true)
	if err != nil {
		return lr, sum, err
	}
	sum = lr.night
	return lr, sum, nil
}

// changeRels deletes the relationships between the pairs of del and
// creates one between each pair of add, in batches.
func changeRels(ctx context.Context, d neo4j.DriverWithContext, del, add []any) error {
	if err := runPairs(ctx, d, fmt.Sprintf("UNWIND $pairs AS p MATCH (:%[1]s {%[2]s: p[0]})-[r:%[3]s]-(:%[1]s {%[2]s: p[1]}) DELETE r", liveLabel, liveProperty, liveType), del); err != nil {
		return err
	}
	return runPairs(ctx, d, fmt.Sprintf("UNWIND $pairs AS p MATCH (a:%[1]s {%[2]s: p[0]}), (b:%[1]s {%[2]s: p[1]}) CREATE (a)-[:%[3]s]->(b)", liveLabel, liveProperty, liveType), add)
}

// runPairs runs q with $pairs bound to batches of pairs.
func runPairs(ctx context.Context, d neo4j.DriverWithContext, q string, pairs []any) error {
	const batch = 5000
	for lo := 0; lo < len(pairs); lo += batch {
		_, err := neo4j.ExecuteQuery(ctx, d, q, map[string]any{"pairs": pairs[lo:min(lo+batch, len(pairs))]}, neo4j.EagerResultTransformer)
		if err != nil {
			return err
		}
	}
	return nil
}

// writeChangedEdges writes the edge list of the graph as changed.
func writeChangedEdges(path string, edges [][2]int64, deleted []bool, added [][2]int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for k, e := range edges {
		if !deleted[k] {
			fmt.Fprintf(w, "%d %d\n", e[0], e[1])
		}
	}
	for _, e := range added {
		fmt.Fprintf(w, "%d %d\n", e[0], e[1])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// compareTop returns the share of b's top fraction (largest values) that
// is in a's, and Spearman's rank correlation of a and b over the keys of
// both (ties share their mean rank).
func compareTop(a, b map[string]float64, frac float64) (overlap, rho float64) {
	var ids []string
	for id := range b {
		if _, ok := a[id]; ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(ids)
	order := func(m map[string]float64) []string {
		s := slices.Clone(ids)
		sort.SliceStable(s, func(i, j int) bool { return m[s[i]] > m[s[j]] })
		return s
	}
	k := max(int(math.Ceil(frac*float64(len(ids)))), 1)
	top := map[string]bool{}
	for _, id := range order(a)[:k] {
		top[id] = true
	}
	hit := 0
	for _, id := range order(b)[:k] {
		if top[id] {
			hit++
		}
	}
	rank := func(m map[string]float64) []float64 {
		s := order(m)
		r := make(map[string]float64, len(s))
		for i := 0; i < len(s); {
			j := i
			for j < len(s) && m[s[j]] == m[s[i]] {
				j++
			}
			for x := i; x < j; x++ {
				r[s[x]] = float64(i+j-1) / 2
			}
			i = j
		}
		out := make([]float64, len(ids))
		for x, id := range ids {
			out[x] = r[id]
		}
		return out
	}
	return float64(hit) / float64(k), stat.Correlation(rank(a), rank(b), nil)
}

// WriteNightsMarkdown writes the nights' table (nothing without nights).
func WriteNightsMarkdown(w io.Writer, nights []NightRun) {
	if len(nights) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Incremental nights\n\n")
	fmt.Fprintf(w, "| case | server | night | relationships changed | mode | wall s | compute s | write s | wall / first | compute / first | nodes changed | re-scored | written | unchanged | top 1%% overlap | Spearman |\n")
	fmt.Fprintf(w, "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, n := range nights {
		cmp := func(x float64) string {
			if !n.Compared {
				return "-"
			}
			return strconv.FormatFloat(x, 'f', 4, 64)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %.1f | %.1f | %.1f | %.0f%% | %.0f%% | %d | %d | %d | %d | %s | %s |\n",
			n.Case, n.Server, n.Night, n.Changed, n.Mode, n.WallS, n.ComputeS, n.WriteS, 100*n.WallShare, 100*n.ComputeShare,
			n.NodesChanged, n.NodesRescored, n.NodesWritten, n.NodesUnchanged, cmp(n.Top1Overlap), cmp(n.Spearman))
	}
}
