package real

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/format"
	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/bench/research"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// splitARI scores a proposed split of one name against the truth: the
// adjusted Rand index of the groups against the persons over the name's
// neighbours that appear with exactly one person (those with several or
// none are left out). A neighbour missing from the groups counts as a group
// of its own. It also returns the number of neighbours evaluated and of
// distinct persons among them; ok is false when they span fewer than two
// persons (the name is not evaluated).
func splitARI(neighbours []LabelledNeighbour, groupOf map[string]int) (ari float64, evaluated, persons int, ok bool) {
	var truth, pred []int
	personIndex := map[string]int{}
	for k, nb := range neighbours {
		if len(nb.Persons) != 1 {
			continue
		}
		p, seen := personIndex[nb.Persons[0]]
		if !seen {
			p = len(personIndex)
			personIndex[nb.Persons[0]] = p
		}
		g, in := groupOf[nb.Neighbour]
		if !in {
			g = -1 - k // a group of its own
		}
		truth, pred = append(truth, p), append(pred, g)
	}
	if len(personIndex) < 2 {
		return math.NaN(), len(truth), len(personIndex), false
	}
	ari, _ = eval.ARI(truth, pred) // a label of each per neighbour: no error
	return ari, len(truth), len(personIndex), true
}

// meanInts is the mean of xs (NaN for none).
func meanInts(xs []int) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0
	for _, x := range xs {
		s += x
	}
	return float64(s) / float64(len(xs))
}

// meanFloats is the mean of xs (NaN for none).
func meanFloats(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// precisionK is the k of the precision metric.
const precisionK = 100

// detection computes the detection metrics of scores (graph-indexed) per half.
func (ev *setEval) detection(scores []float64) map[string]Metrics {
	out := map[string]Metrics{}
	for _, h := range halfOrder {
		var s, s2 []float64
		var pos, pos2 []bool
		var deg []int
		for _, e := range ev.elig {
			if !inHalf(h, e.dev) {
				continue
			}
			x := scores[e.node]
			s, pos, deg = append(s, x), append(pos, e.pos), append(deg, e.degree)
			if !e.pos || e.ln.Persons == 2 {
				s2, pos2 = append(s2, x), append(pos2, e.pos)
			}
		}
		// A label per score in both lists: AUC has no error to report.
		auc, _ := eval.AUC(s, pos, eval.TiesAverage)
		auc2, _ := eval.AUC(s2, pos2, eval.TiesAverage)
		top := metrics.TopOf(s, pos, deg)
		hubs := math.NaN() // no positive: no degree to compare with
		if top.PosDeg > 0 {
			hubs = top.Deg100 / top.PosDeg
		}
		out[h] = Metrics{
			MetricP20:     Num(top.P20),
			MetricP1:      Num(top.P1),
			MetricRandom:  Num(top.Random),
			MetricHubs:    Num(hubs),
			MetricAUC:     Num(auc),
			MetricAUCBins: Num(metrics.AUCWithinBins(s, pos, deg)),
			MetricAUC2:    Num(auc2),
			MetricP100:    Num(metrics.PrecisionAt(s, pos, precisionK)),
		}
	}
	return out
}

// splitting computes a splitter's metrics per half from its proposals (in
// the order of ev.split), and records each name's ARI and groups.
func (ev *setEval) splitting(splitter string, props []fondue.Proposal) map[string]Metrics {
	g := ev.set.Graph
	ari := make([]float64, len(ev.split))
	groups := make([]int, len(ev.split))
	for j, sn := range ev.split {
		groupOf := map[string]int{}
		for gi, grp := range props[j].Groups {
			for _, v := range grp {
				groupOf[g.Key(int(v))] = gi
			}
		}
		ari[j], _, _, _ = splitARI(sn.nb, groupOf)
		groups[j] = len(props[j].Groups)
		rec := &ev.result.Splits[j]
		rec.ARI[splitter] = append(rec.ARI[splitter], format.Round6(ari[j]))
		rec.Groups[splitter] = append(rec.Groups[splitter], groups[j])
	}
	out := map[string]Metrics{}
	for _, h := range halfOrder {
		var all, two, more []float64
		var est, truth []int
		for j, sn := range ev.split {
			if !inHalf(h, sn.dev) {
				continue
			}
			all = append(all, ari[j])
			if sn.ln.Persons == 2 {
				two = append(two, ari[j])
			} else {
				more = append(more, ari[j])
			}
			est, truth = append(est, groups[j]), append(truth, sn.ln.Persons)
		}
		exact, mae := metrics.CountErrors(est, truth)
		out[h] = Metrics{
			MetricARI: Num(meanFloats(all)), MetricARI2: Num(meanFloats(two)), MetricARI3: Num(meanFloats(more)),
			MetricGroups: Num(meanInts(est)), MetricPersons: Num(meanInts(truth)),
			MetricGroupsExact: Num(exact), MetricGroupsMAE: Num(mae),
		}
	}
	return out
}

// entities measures the estimators of the number of entities: the
// default method's Result.Entities and the component splitters' numbers of
// groups (computed once), over the split-evaluated and all eligible names.
func (ev *setEval) entities(ctx context.Context, def *fondue.Result, seed *Seed) error {
	g := ev.set.Graph
	if ev.components == nil {
		ev.components = map[string][]int{}
		nodes := make([]int, len(ev.elig))
		for j, e := range ev.elig {
			nodes[j] = e.node
		}
		for _, name := range estimators[1:] {
			o := ev.options(1)
			o.Context = nil // the component baselines: the links of the whole graph
			o.Split = fondue.SplitOptions{Splitter: split.Find(research.Splitters(), name)}
			props, err := fondue.ProposeSplits(ctx, g, nil, nodes, o)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			counts := make([]int, len(props))
			for j, p := range props {
				counts[j] = len(p.Groups)
			}
			ev.components[name] = counts
		}
	}
	splitIDs := map[string]bool{}
	for _, sn := range ev.split {
		splitIDs[sn.ln.ID] = true
	}
	for _, name := range estimators {
		est := ev.components[name]
		if name == EstimatorEntities {
			est = make([]int, len(ev.elig))
			if def.Entities != nil {
				for j, e := range ev.elig {
					est[j] = def.Entities[e.node]
				}
			}
		}
		per := map[string]Metrics{}
		for _, h := range halfOrder {
			var sEst, sTrue, aEst, aTrue []int
			for j, e := range ev.elig {
				if !inHalf(h, e.dev) {
					continue
				}
				aEst, aTrue = append(aEst, est[j]), append(aTrue, e.ln.Persons)
				if splitIDs[e.ln.ID] {
					sEst, sTrue = append(sEst, est[j]), append(sTrue, e.ln.Persons)
				}
			}
			se, sm := metrics.CountErrors(sEst, sTrue)
			ae, am := metrics.CountErrors(aEst, aTrue)
			per[h] = Metrics{MetricSplitExact: Num(se), MetricSplitMAE: Num(sm), MetricSplitMean: Num(meanInts(sEst)),
				MetricAllExact: Num(ae), MetricAllMAE: Num(am), MetricAllMean: Num(meanInts(aEst))}
		}
		seed.Entities[name] = per
	}
	return nil
}

// topN is the number of names in SetResult.Top.
const topN = 10

// top returns the default method's topN highest-scored eligible names.
func (ev *setEval) top(scores []float64, entities []int) []TopName {
	order := make([]int, 0, len(ev.elig))
	for j, e := range ev.elig {
		if !math.IsNaN(scores[e.node]) {
			order = append(order, j)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		sa, sb := scores[ev.elig[a].node], scores[ev.elig[b].node]
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	var out []TopName
	for r, j := range order[:min(topN, len(order))] {
		e := ev.elig[j]
		t := TopName{Rank: r + 1, ID: e.ln.ID, Name: ev.set.DisplayName(e.ln), Persons: e.ln.Persons, Foreign: e.ln.Foreign,
			Degree: e.degree, Score: format.Round6(scores[e.node]), Dev: e.dev}
		if entities != nil {
			t.Entities = entities[e.node]
		}
		out = append(out, t)
	}
	return out
}

// summarize aggregates the seeds: mean and spread of every metric.
func summarize(seeds []*Seed) *SetSummary {
	agg := func(get func(*Seed) map[string]map[string]Metrics) map[string]map[string]map[string]metrics.Stat {
		out := map[string]map[string]map[string]metrics.Stat{}
		vals := map[[3]string][]float64{}
		for _, s := range seeds {
			for m, halves := range get(s) {
				for h, ms := range halves {
					for k, v := range ms {
						key := [3]string{m, h, k}
						vals[key] = append(vals[key], float64(v))
					}
				}
			}
		}
		for key, xs := range vals {
			if out[key[0]] == nil {
				out[key[0]] = map[string]map[string]metrics.Stat{}
			}
			if out[key[0]][key[1]] == nil {
				out[key[0]][key[1]] = map[string]metrics.Stat{}
			}
			out[key[0]][key[1]][key[2]] = metrics.NewStat(xs)
		}
		return out
	}
	sum := &SetSummary{
		Detection: agg(func(s *Seed) map[string]map[string]Metrics { return s.Detection }),
		Splitting: agg(func(s *Seed) map[string]map[string]Metrics { return s.Splitting }),
		Entities:  agg(func(s *Seed) map[string]map[string]Metrics { return s.Entities }),
		Seconds:   map[string]float64{},
	}
	for _, s := range seeds {
		for k, v := range s.Seconds {
			sum.Seconds[k] += v / float64(len(seeds))
		}
	}
	return sum
}

// statMean returns the mean over seeds of a metric of a summary table
// (name, half, metric), NaN when absent.
func statMean(table map[string]map[string]map[string]metrics.Stat, name, half, metric string) float64 {
	if st, ok := table[name][half][metric]; ok && st.N > 0 {
		return st.Mean
	}
	return math.NaN()
}
