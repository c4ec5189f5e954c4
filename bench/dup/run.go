package dup

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"sync"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/dedup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// Engine is the name of the engine's rows.
const Engine = "engine"

// Config is what a duplicates run does.
type Config struct {
	ACLDir   string                  // acl-dup's folder; "" = skip it
	Graphs   map[string]*graph.Graph // paper graphs for planted duplicates, by name
	Order    []string                // names of Graphs in report order
	Ratio    float64                 // share of nodes given a planted duplicate
	Seed     int64                   // engine seed; planting uses it too
	Seeds    int                     // planted duplicates: seeds Seed, Seed+1, ... (0 = 1)
	Overlap  float64                 // share of a planted duplicate's links the original keeps too
	Workers  int                     // engine workers, 0 = all cores
	Progress func(string)            // one line per step; nil = none
}

// Run is the engine's cost on one graph.
type Run struct {
	Seconds    float64 `json:"seconds"`
	PeakBytes  uint64  `json:"peak_bytes"`     // Go runtime memory, sampled during Find (total minus released)
	StartBytes uint64  `json:"start_bytes"`    // the same just before Find (the graph and what the bench holds)
	Estimate   int64   `json:"estimate"`       // dedup.Estimate with the candidates found (the graph not included)
	Guess      int64   `json:"estimate_guess"` // dedup.Estimate before knowing the candidates (its own guess)
	Candidates int     `json:"candidates"`
	Positives  int     `json:"positives"`
	Negatives  int     `json:"negatives"`
}

// Results are a duplicates run's numbers.
type Results struct {
	// ACL holds per half the rows per method (baselines, then Engine).
	ACL       map[string]map[string]Row `json:"acl,omitempty"`
	ACLRun    *Run                      `json:"acl_run,omitempty"`
	Baselines float64                   `json:"baseline_seconds,omitempty"`
	Weights   []dedup.Weight            `json:"weights,omitempty"`
	TopPairs  []ShownPair               `json:"top_pairs,omitempty"`
	Planted   []PlantedRow              `json:"planted,omitempty"`
	Ratio     float64                   `json:"ratio"`
	Seed      int64                     `json:"seed"`
	Seeds     int                       `json:"planted_seeds"` // planted: seeds Seed .. Seed+Seeds-1
	Overlap   float64                   `json:"planted_overlap"`
}

// ShownPair is one of the engine's best pairs on acl-dup with its reasons
// and its label in the truth.
type ShownPair struct {
	A       string   `json:"a"`
	B       string   `json:"b"`
	Score   float64  `json:"score"`
	Label   string   `json:"label"` // "surface", "variant", "no" (both labelled, not one person), "unlabelled"
	Reasons []string `json:"reasons"`
}

// PlantedRow is one paper graph with planted duplicates, over seeds.
type PlantedRow struct {
	Name  string        `json:"name"`
	Nodes int           `json:"nodes"`
	Edges int           `json:"edges"`
	Seeds []PlantedSeed `json:"seeds"`
	// AUC over the seeds the engine ran on, per method (Engine, the
	// baselines of PlantedBaselines), without and with the missing pairs
	AUC        map[string]metrics.Stat `json:"auc"`
	AUCMissing map[string]metrics.Stat `json:"auc_missing"`
}

// PlantedSeed is one seed's planting of one graph.
type PlantedSeed struct {
	Seed   int64                   `json:"seed"`
	Scores map[string]PlantedScore `json:"scores,omitempty"` // per method
	Run    Run                     `json:"run"`
	Error  string                  `json:"error,omitempty"` // the engine's error: no AUC
}

// Planted baselines, scored on the engine's candidates.
const (
	PlantedJaccard    = "jaccard"
	PlantedAdamicAdar = "adamic-adar"
)

// PlantedBaselines are the baselines of the planted table, in order.
var PlantedBaselines = []string{PlantedJaccard, PlantedAdamicAdar}

func (c Config) progress(format string, args ...any) {
	if c.Progress != nil {
		c.Progress(fmt.Sprintf(format, args...))
	}
}

// RunAll runs the acl-dup evaluation and the planted duplicates of c.
func RunAll(ctx context.Context, c Config) (*Results, error) {
	c.Seeds = max(1, c.Seeds)
	res := &Results{Ratio: c.Ratio, Seed: c.Seed, Seeds: c.Seeds, Overlap: c.Overlap}
	if c.ACLDir != "" {
		if err := runACL(ctx, c, res); err != nil {
			return nil, err
		}
	}
	for _, name := range c.Order {
		g := c.Graphs[name]
		row := PlantedRow{Name: name, Nodes: g.NumNodes(), Edges: g.NumEdges()}
		for k := range c.Seeds {
			seed := c.Seed + int64(k)
			ps, err := runPlanted(ctx, c, name, g, seed)
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			if err != nil { // recorded in the table: the other seeds and graphs still run
				ps = &PlantedSeed{Seed: seed, Error: err.Error()}
				c.progress("%s seed %d: %v", name, seed, err)
			}
			row.Seeds = append(row.Seeds, *ps)
		}
		row.AUC, row.AUCMissing = map[string]metrics.Stat{}, map[string]metrics.Stat{}
		for _, m := range append([]string{Engine}, PlantedBaselines...) {
			var auc, miss []float64
			for _, ps := range row.Seeds {
				if ps.Error == "" {
					auc, miss = append(auc, ps.Scores[m].AUC), append(miss, ps.Scores[m].AUCMissing)
				}
			}
			row.AUC[m], row.AUCMissing[m] = metrics.NewStat(auc), metrics.NewStat(miss)
		}
		res.Planted = append(res.Planted, row)
	}
	return res, nil
}

func runACL(ctx context.Context, c Config, res *Results) error {
	d, err := LoadACL(ctx, c.ACLDir)
	if err != nil {
		return err
	}
	var targets []int
	for i, ok := range d.KG.Targets {
		if ok {
			targets = append(targets, i)
		}
	}
	c.progress("acl-dup: %d nodes, %d edges, %d Authors; truth dev %d, test %d pairs", d.KG.Graph.NumNodes(), d.KG.Graph.NumEdges(), len(targets), d.Truth[HalfDev][""], d.Truth[HalfTest][""])
	start := time.Now()
	ranked := Baselines(d.KG.Graph, d.KG.Names, targets)
	res.Baselines = time.Since(start).Seconds()
	in := dedup.Input{Graph: d.KG.Graph, Names: d.KG.Names, Targets: targets, Context: d.KG.Context}
	r, run, err := find(ctx, in, dedup.Options{Seed: c.Seed, Workers: c.Workers})
	if err != nil {
		return fmt.Errorf("acl-dup: %w", err)
	}
	res.ACLRun, res.Weights = run, r.Weights
	ranked[Engine] = pairsOf(r.Pairs)
	c.progress("acl-dup: engine %d candidates in %.1f s", run.Candidates, run.Seconds)
	res.ACL = map[string]map[string]Row{}
	for _, h := range Halves {
		res.ACL[h] = map[string]Row{}
		for m, ps := range ranked {
			res.ACL[h][m] = d.Evaluate(ps, h)
		}
	}
	for _, p := range r.Pairs[:min(20, len(r.Pairs))] {
		sp := ShownPair{A: d.KG.Names[p.A], B: d.KG.Names[p.B], Score: p.Score, Label: d.label(p.A, p.B)}
		for _, why := range p.Reasons {
			sp.Reasons = append(sp.Reasons, why.Text)
		}
		res.TopPairs = append(res.TopPairs, sp)
	}
	return nil
}

// label says what the truth says of the pair a, b.
func (d *ACL) label(a, b int) string {
	if k, ok := d.Kind[[2]int{min(a, b), max(a, b)}]; ok {
		return k
	}
	if d.Person[a] >= 0 && d.Person[b] >= 0 {
		return "no"
	}
	return "unlabelled"
}

func runPlanted(ctx context.Context, c Config, name string, g *graph.Graph, seed int64) (*PlantedSeed, error) {
	p, err := Plant(g, c.Ratio, c.Overlap, uint64(seed))
	if err != nil {
		return nil, err
	}
	in := dedup.Input{Graph: p.Graph, Names: make([]string, p.Graph.NumNodes())}
	r, run, err := find(ctx, in, dedup.Options{Seed: seed, Workers: c.Workers})
	if err != nil {
		return nil, err
	}
	ps := &PlantedSeed{Seed: seed, Run: *run, Scores: map[string]PlantedScore{}}
	pairs := pairsOf(r.Pairs)
	ps.Scores[Engine] = ScorePlanted(p, pairs)
	for _, m := range PlantedBaselines {
		bl := make([]Pair, len(pairs))
		for k, q := range pairs {
			a, b := p.Graph.Neighbors(q.A), p.Graph.Neighbors(q.B)
			bl[k] = Pair{A: q.A, B: q.B, Score: jaccard(a, b)}
			if m == PlantedAdamicAdar {
				bl[k].Score = adamicAdar(p.Graph, a, b)
			}
		}
		ps.Scores[m] = ScorePlanted(p, bl)
	}
	e := ps.Scores[Engine]
	c.progress("%s seed %d: %d planted, %d candidates (%d planted among them), AUC %.3f (with missing %.3f) in %.1f s", name, seed, e.Planted, e.Candidates, e.Found, e.AUC, e.AUCMissing, run.Seconds)
	return ps, nil
}

// adamicAdar is the sum over the shared neighbours z of a and b (sorted
// lists) of 1 / log(degree of z); a shared neighbour has degree 2 or more.
func adamicAdar(g *graph.Graph, a, b []int32) float64 {
	s, i, j := 0.0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			s += 1 / math.Log(float64(g.Degree(int(a[i]))))
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return s
}

func pairsOf(ps []dedup.Pair) []Pair {
	out := make([]Pair, len(ps))
	for k, p := range ps {
		out[k] = Pair{A: p.A, B: p.B, Score: p.Score}
	}
	return out
}

// find runs dedup.Find with every candidate pair returned, timing it and
// sampling the Go runtime's memory (mapped minus released) every 10 ms.
func find(ctx context.Context, in dedup.Input, o dedup.Options) (*dedup.Result, *Run, error) {
	o.Top = 0
	debug.FreeOSMemory() // a collection, and the heap of earlier runs returned: the peak is this run's
	stop, peak := sampleMemory()
	startBytes := *peak
	start := time.Now()
	r, err := dedup.Find(ctx, in, o)
	secs := time.Since(start).Seconds()
	stop()
	if err != nil {
		return nil, nil, err
	}
	n, m, t := int64(in.Graph.NumNodes()), int64(in.Graph.NumEdges()), int64(len(in.Targets))
	if in.Targets == nil {
		t = n
	}
	est, _ := dedup.Estimate(n, m, t, int64(r.Candidates), o)
	guess, _ := dedup.Estimate(n, m, t, 0, o)
	return r, &Run{Seconds: secs, PeakBytes: *peak, StartBytes: startBytes, Estimate: est, Guess: guess,
		Candidates: r.Candidates, Positives: r.Positives, Negatives: r.Negatives}, nil
}

// sampleMemory samples the Go runtime's memory until stop is called (the
// first sample before it returns); peak is final once stop returns.
func sampleMemory() (stop func(), peak *uint64) {
	peak = new(uint64)
	samples := []rtmetrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	read := func() {
		rtmetrics.Read(samples)
		*peak = max(*peak, samples[0].Value.Uint64()-samples[1].Value.Uint64())
	}
	read()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			read()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait(); read() }, peak
}
