package scale

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
	"github.com/fondue-neo4j/fondue-neo4j/bench/generate"
)

// A KG case (kg:NODES:DEGREE) is a block model turned into the shape of
// (:Author)-[:WROTE]->(:Paper)-[:PUBLISHED_IN]->(:Venue), with
// (:Paper)-[:HAS_KEYWORD]->(:Keyword):
//
//   - the model's NODES nodes, contracted like an sbm case (planted
//     ambiguous pairs), are the authors, the scored targets;
//   - each of its links is a paper written by its two ends (a link
//     within a merged pair is dropped);
//   - each paper is in a venue of its first author's block, one venue per
//     kgPapersPerVenue papers of that block (shared within the block);
//   - each paper has one of kgHubs keywords, shared by all blocks (hubs
//     that say nothing);
//   - each paper has a year, its block's plus a few: the evidence property.
//
// Venues and keywords are context: neither an author nor an author's
// neighbour. A graph of NODES authors and degree d has about
// NODES (1 + d/2 + d/100) + kgHubs nodes.
const (
	kgPapersPerVenue = 50
	kgHubs           = 4
)

// writeKG writes a KG case's import files and its planted ambiguous
// authors (p.labels last: it marks the files complete).
func writeKG(c Case, cfg Config, p *prepared) error {
	g, comm, err := generate.SBMCommunities(c.sbmOptions(cfg.Seed))
	if err != nil {
		return err
	}
	ct, err := eval.Contract(g, cfg.Ratio, cfg.Seed)
	if err != nil {
		return err
	}
	cg := ct.Graph
	// A paper per link of the model, between the contracted ends, in the
	// block of its first original end: a merged pair's papers keep the
	// venues and years of both original authors.
	type paper struct{ u, v, block int32 }
	var papers []paper
	perBlock := map[int32]int{}
	for a := range g.NumNodes() {
		for _, b := range g.Neighbors(a) {
			if u, v := ct.NewIndex[a], ct.NewIndex[b]; int(b) > a && u != v {
				papers = append(papers, paper{u, v, comm[a]})
				perBlock[comm[a]]++
			}
		}
	}
	nf, err := os.Create(p.kgNodes)
	if err != nil {
		return err
	}
	defer nf.Close()
	nw := bufio.NewWriterSize(nf, 1<<20)
	fmt.Fprintln(nw, "uid:ID,year:int,:LABEL")
	for u := range cg.NumNodes() {
		fmt.Fprintf(nw, "%s,,Author\n", cg.Key(u))
	}
	seen := map[string]bool{}
	venue := func(k int, pp paper) string {
		return fmt.Sprintf("v%d.%d", pp.block, k%max(1, perBlock[pp.block]/kgPapersPerVenue))
	}
	for k, pp := range papers {
		fmt.Fprintf(nw, "p%d,%d,Paper\n", k, 1980+int(pp.block)%40+k%3)
		if v := venue(k, pp); !seen[v] {
			seen[v] = true
			fmt.Fprintf(nw, "%s,,Venue\n", v)
		}
	}
	for h := range kgHubs {
		fmt.Fprintf(nw, "k%d,,Keyword\n", h)
	}
	if err := nw.Flush(); err != nil {
		return err
	}
	if err := nf.Close(); err != nil {
		return err
	}
	rf, err := os.Create(p.kgRels)
	if err != nil {
		return err
	}
	defer rf.Close()
	rw := bufio.NewWriterSize(rf, 1<<20)
	fmt.Fprintln(rw, ":START_ID,:END_ID,:TYPE")
	for k, pp := range papers {
		fmt.Fprintf(rw, "%s,p%d,WROTE\n%s,p%d,WROTE\np%d,%s,PUBLISHED_IN\np%d,k%d,HAS_KEYWORD\n",
			cg.Key(int(pp.u)), k, cg.Key(int(pp.v)), k, k, venue(k, pp), k, k%kgHubs)
	}
	if err := rw.Flush(); err != nil {
		return err
	}
	if err := rf.Close(); err != nil {
		return err
	}
	var sb strings.Builder
	for i, amb := range ct.Ambiguous {
		if amb {
			sb.WriteString(cg.Key(i) + "\n")
		}
	}
	return os.WriteFile(p.labels, []byte(sb.String()), 0o644)
}
