package dup

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// Planted is a graph with planted duplicates: for each chosen node a new
// node (index n, n+1, ... after the n original ones) took a random half of
// its links.
type Planted struct {
	Graph *graph.Graph
	Pairs [][2]int // (original node, its new duplicate), original ascending
}

// Plant chooses round(ratio·n) nodes (at least 1) among the nodes of
// degree >= 2, with seed, and moves floor(degree/2) of each one's links,
// chosen at random, to a new node; of those, round(overlap·floor(degree/2))
// stay with the node too, so the two share these neighbours (the journal
// version's "edge overlap"; 0 = none). Nodes are chosen and links moved in
// one pass in node order, so a link between two chosen nodes moves with
// the first and may move again with the second.
func Plant(g *graph.Graph, ratio, overlap float64, seed uint64) (*Planted, error) {
	if overlap < 0 || overlap > 1 {
		return nil, fmt.Errorf("plant: overlap %v, want 0 to 1", overlap)
	}
	n := g.NumNodes()
	var eligible []int
	for i := range n {
		if g.Degree(i) >= 2 {
			eligible = append(eligible, i)
		}
	}
	k := max(1, int(math.Round(ratio*float64(n))))
	if k > len(eligible) {
		return nil, fmt.Errorf("plant %d duplicates: only %d nodes of degree 2 or more", k, len(eligible))
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	rng.Shuffle(len(eligible), func(i, j int) { eligible[i], eligible[j] = eligible[j], eligible[i] })
	chosen := eligible[:k]
	slices.Sort(chosen)
	adj := make([]map[int]bool, n+k)
	for i := range n {
		adj[i] = map[int]bool{}
		for _, j := range g.Neighbors(i) {
			adj[i][int(j)] = true
		}
	}
	p := &Planted{}
	for c, v := range chosen {
		dup := n + c
		adj[dup] = map[int]bool{}
		links := make([]int, 0, len(adj[v]))
		for u := range adj[v] {
			links = append(links, u)
		}
		slices.Sort(links)
		rng.Shuffle(len(links), func(i, j int) { links[i], links[j] = links[j], links[i] })
		moved := links[:len(links)/2]
		shared := int(math.Round(overlap * float64(len(moved))))
		for k, u := range moved {
			if k >= shared {
				delete(adj[v], u)
				delete(adj[u], v)
			}
			adj[dup][u], adj[u][dup] = true, true
		}
		p.Pairs = append(p.Pairs, [2]int{v, dup})
	}
	var edges [][2]int
	for i, nb := range adj {
		for j := range nb {
			if i < j {
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	slices.SortFunc(edges, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	var err error
	p.Graph, err = graph.NewGraph(n+k, edges)
	return p, err
}

// PlantedScore is how a ranking of candidate pairs finds planted duplicates.
type PlantedScore struct {
	AUC        float64 `json:"auc"`         // planted pairs among the candidates against the other candidates
	AUCMissing float64 `json:"auc_missing"` // the same with the planted pairs not proposed ranked below every candidate
	Found      int     `json:"found"`       // planted pairs among the candidates
	Planted    int     `json:"planted"`
	Candidates int     `json:"candidates"`
}

// ScorePlanted measures pairs against the planted pairs of p (ROC AUC,
// ties by average rank).
func ScorePlanted(p *Planted, pairs []Pair) PlantedScore {
	planted := map[[2]int]bool{}
	for _, q := range p.Pairs {
		planted[q] = true
	}
	s := PlantedScore{Planted: len(p.Pairs), Candidates: len(pairs)}
	scores := make([]float64, 0, len(pairs)+len(p.Pairs))
	labels := make([]bool, 0, cap(scores))
	low := math.Inf(1)
	for _, q := range pairs {
		pos := planted[[2]int{min(q.A, q.B), max(q.A, q.B)}]
		if pos {
			s.Found++
		}
		scores, labels = append(scores, q.Score), append(labels, pos)
		low = min(low, q.Score)
	}
	s.AUC, _ = eval.AUC(scores, labels, eval.TiesAverage) // equal lengths, a known tie mode: no error
	for range s.Planted - s.Found {
		scores, labels = append(scores, low-1), append(labels, true)
	}
	s.AUCMissing, _ = eval.AUC(scores, labels, eval.TiesAverage)
	return s
}
