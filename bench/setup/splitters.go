package setup

import (
	"github.com/fondue-neo4j/fondue-neo4j/fondue/research"
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
