package bench

import (
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
)

// summarize aggregates the seeds into cells, in the configured order.
// Cells with no seed are either skipped (q = 0) or not run yet.
func summarize(cfg Config, skipped map[[2]string]bool, seeds []*SeedResult) []CellSummary {
	var cells []CellSummary
	for _, name := range cfg.Datasets {
		for _, r := range cfg.Ratios {
			c := CellSummary{Dataset: name, Ratio: r}
			if skipped[[2]string{name, RatioKey(r)}] {
				c.Skipped = true
				cells = append(cells, c)
				continue
			}
			var mine []*SeedResult
			for _, s := range seeds {
				if s.Dataset == name && RatioKey(s.Ratio) == RatioKey(r) {
					mine = append(mine, s)
				}
			}
			slices.SortFunc(mine, func(a, b *SeedResult) int { return a.Seed - b.Seed })
			summarizeCell(&c, mine, cfg.Ties)
			cells = append(cells, c)
		}
	}
	return cells
}

// summarizeCell aggregates a cell's seeds; AUC follows ties (the journal's
// seeds may have been run under the other convention: both are stored).
func summarizeCell(c *CellSummary, seeds []*SeedResult, ties eval.TieMode) {
	var epochs []float64
	methods := map[string][]*MethodResult{}
	splits := map[string][]*SplitResult{}
	for _, s := range seeds {
		c.Ambiguous = s.Ambiguous
		if s.CNE != nil {
			epochs = append(epochs, float64(s.CNE.Epochs))
		}
		if s.Methods != nil {
			c.IdentSeeds++
		}
		if s.Splitters != nil {
			c.SplitSeeds++
		}
		for m, mr := range s.Methods {
			methods[m] = append(methods[m], mr)
		}
		for sp, r := range s.Splitters {
			splits[sp] = append(splits[sp], r)
		}
	}
	c.Epochs = metrics.NewStat(epochs)
	if len(methods) > 0 {
		c.Methods = map[string]*MethodSummary{}
	}
	for m, rs := range methods {
		c.Methods[m] = summarizeMethod(rs, ties)
	}
	if len(splits) > 0 {
		c.Splitters = map[string]*SplitSummary{}
	}
	for sp, rs := range splits {
		c.Splitters[sp] = summarizeSplitter(rs)
	}
}

// summarizeMethod aggregates one method's results over a cell's seeds.
func summarizeMethod(rs []*MethodResult, ties eval.TieMode) *MethodSummary {
	get := func(f func(*MethodResult) float64) metrics.Stat {
		xs := make([]float64, len(rs))
		for k, r := range rs {
			xs[k] = f(r)
		}
		return metrics.NewStat(xs)
	}
	var tops []*metrics.Top
	hubs := 0
	for _, r := range rs {
		if r.Top != nil {
			tops = append(tops, r.Top)
			if r.Top.Hubs() {
				hubs++
			}
		}
	}
	top := func(f func(*metrics.Top) float64) metrics.Stat {
		xs := make([]float64, len(tops))
		for k, t := range tops {
			xs[k] = f(t)
		}
		return metrics.NewStat(xs)
	}
	return &MethodSummary{
		P20:    top(func(t *metrics.Top) float64 { return t.P20 }),
		P100:   top(func(t *metrics.Top) float64 { return t.P100 }),
		P1:     top(func(t *metrics.Top) float64 { return t.P1 }),
		Random: top(func(t *metrics.Top) float64 { return t.Random }),
		Hubs:   hubs,
		AUC: get(func(r *MethodResult) float64 {
			if ties == eval.TiesAsLoss {
				return r.AUCLoss
			}
			return r.AUCAverage
		}),
		AUCAverage: get(func(r *MethodResult) float64 { return r.AUCAverage }),
		AUCLoss:    get(func(r *MethodResult) float64 { return r.AUCLoss }),
		NDCG:       get(func(r *MethodResult) float64 { return r.NDCG }),
		Seconds: Phases{
			Prior:     get(func(r *MethodResult) float64 { return r.Seconds.Prior }).Mean,
			Embedding: get(func(r *MethodResult) float64 { return r.Seconds.Embedding }).Mean,
			Scoring:   get(func(r *MethodResult) float64 { return r.Seconds.Scoring }).Mean,
			Total:     get(func(r *MethodResult) float64 { return r.Seconds.Total }).Mean,
		},
		ROC: averageROC(rs),
	}
}

// averageROC is the vertical average of the seeds' ROC grids (those with
// rocPoints points), or nil when none has one.
func averageROC(rs []*MethodResult) []float64 {
	var roc []float64
	nroc := 0
	for _, r := range rs {
		if len(r.ROC) != rocPoints {
			continue
		}
		if roc == nil {
			roc = make([]float64, rocPoints)
		}
		for k, v := range r.ROC {
			roc[k] += v
		}
		nroc++
	}
	for k := range roc {
		roc[k] /= float64(nroc)
	}
	return roc
}

// summarizeSplitter aggregates one splitter's results over a cell's seeds.
func summarizeSplitter(rs []*SplitResult) *SplitSummary {
	ss := &SplitSummary{}
	var means, nodes []float64
	groups, secs := 0.0, 0.0
	for _, r := range rs {
		if len(r.ARI) > 0 {
			means = append(means, r.MeanARI)
		}
		nodes = append(nodes, r.ARI...)
		ss.Nodes += len(r.ARI)
		ss.Skipped += r.Skipped
		ss.Neighbors += r.Neighbors
		ss.Shared += r.Shared
		groups += r.MeanGroups * float64(len(r.ARI))
		secs += r.Seconds
	}
	ss.ARI, ss.NodeARI = metrics.NewStat(means), metrics.NewStat(nodes)
	if ss.Nodes > 0 {
		ss.MeanGroups = groups / float64(ss.Nodes)
	}
	ss.Seconds = secs / float64(len(rs))
	return ss
}
