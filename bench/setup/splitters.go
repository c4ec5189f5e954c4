package setup

import (
	"fmt"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/bench/research"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// Splitters returns the splitters the bench can evaluate: fondue's
// (split.Splitters, the default first) and the research candidates
// (research.Splitters).
func Splitters() []split.Splitter {
	return append(split.Splitters(), research.Splitters()...)
}

// SplitterNames returns the names of Splitters.
func SplitterNames() []string {
	var names []string
	for _, s := range Splitters() {
		names = append(names, s.Name())
	}
	return names
}

// Choose returns the methods and splitters of a run: those given, after
// checking that score and Splitters know them, or all of them when nil
// (score.Methods(), SplitterNames()).
func Choose(methods, splitters []string) ([]string, []string, error) {
	if methods == nil {
		methods = score.Methods()
	}
	for _, m := range methods {
		if !slices.Contains(score.Methods(), m) {
			return nil, nil, fmt.Errorf("unknown method %q (want one of %v)", m, score.Methods())
		}
	}
	if splitters == nil {
		splitters = SplitterNames()
	}
	for _, s := range splitters {
		if split.Find(Splitters(), s) == nil {
			return nil, nil, fmt.Errorf("unknown splitter %q (want one of %v)", s, SplitterNames())
		}
	}
	return methods, splitters, nil
}

// Reference reports whether a splitter is a research candidate rather than
// one of fondue's: the benches measure those as they are, without the cap
// of ProposeSplits (see Measured).
func Reference(name string) bool {
	return split.Find(split.Splitters(), name) == nil
}

// Measured returns the result the benches propose splits from with the
// named splitter: res itself for fondue's splitters, and for a research
// candidate (Reference) a copy without the entity estimates, which
// ProposeSplits would otherwise cap the groups by (fondue.GroupCap).
func Measured(res *fondue.Result, splitter string) *fondue.Result {
	if res == nil || !Reference(splitter) {
		return res
	}
	r := *res
	r.Entities = nil
	return &r
}
