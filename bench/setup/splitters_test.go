package setup

import (
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/bench/research"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// The splitters are fondue's, the default first, then the research
// candidates; Choose defaults to all methods and splitters and refuses
// unknown ones.
func TestChoose(t *testing.T) {
	names := SplitterNames()
	if len(names) != len(split.Splitters())+len(research.Splitters()) || names[0] != split.Default || !slices.Contains(names, research.EgoComponents) {
		t.Fatalf("splitter names %v", names)
	}
	m, s, err := Choose(nil, nil)
	if err != nil || !slices.Equal(m, score.Methods()) || !slices.Equal(s, names) {
		t.Fatalf("defaults: %v %v %v", m, s, err)
	}
	m, s, err = Choose([]string{score.MethodDegree}, []string{split.MCL, research.TwoHopComponents})
	if err != nil || !slices.Equal(m, []string{score.MethodDegree}) || !slices.Equal(s, []string{split.MCL, research.TwoHopComponents}) {
		t.Fatalf("chosen: %v %v %v", m, s, err)
	}
	if _, _, err := Choose([]string{"nope"}, nil); err == nil || !strings.Contains(err.Error(), `unknown method "nope"`) {
		t.Errorf("unknown method: %v", err)
	}
	if _, _, err := Choose(nil, []string{"nope"}); err == nil || !strings.Contains(err.Error(), `unknown splitter "nope"`) {
		t.Errorf("unknown splitter: %v", err)
	}
}

func TestReference(t *testing.T) {
	for _, s := range split.Splitters() {
		if Reference(s.Name()) {
			t.Errorf("fondue's splitter %s counted as a reference", s.Name())
		}
	}
	for _, s := range research.Splitters() {
		if !Reference(s.Name()) {
			t.Errorf("research's splitter %s not counted as a reference", s.Name())
		}
	}
}
