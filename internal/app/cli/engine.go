package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
)

// EngineOptions builds the engine's options from the configuration: the
// engine's settings (config.Engine.Options) and the splitter's. Load has
// checked each value on its own; this checks how they go together, so
// that a bad combination fails before any work starts.
func EngineOptions(c *config.Config) (fondue.Options, error) {
	o, err := c.Engine.Options()
	if err != nil {
		return o, UsageErrorf("%v", err)
	}
	sp, err := SplitterNamed(c.Split.Method)
	if err != nil {
		return o, err
	}
	if err := fondue.CheckSplitter(sp, o.Method); err != nil {
		return o, UsageErrorf("%v", err)
	}
	o.Split.Splitter = sp
	o.Split.Top = c.Split.Top
	o.Split.MinAmbiguity = c.Split.MinAmbiguity
	// A checkpoint keeps the optimizer's state (the fit of the methods
	// that embed; the memory estimate counts it).
	o.KeepState = c.Engine.Embedding.Checkpoint != ""
	return o, nil
}

// SplitterNames lists the splitters of score, review and sync, the default
// first.
func SplitterNames() []string {
	var names []string
	for _, s := range split.Splitters() {
		names = append(names, s.Name())
	}
	return names
}

// IsSplitterName reports whether name is one of fondue's splitters.
func IsSplitterName(name string) bool { return slices.Contains(SplitterNames(), name) }

// SplitterNamed returns fondue's splitter called name, the default for
// "" (split.Named).
func SplitterNamed(name string) (split.Splitter, error) {
	if s := split.Named(name); s != nil {
		return s, nil
	}
	return nil, UsageErrorf("unknown splitter %q (want one of %s)", name, strings.Join(SplitterNames(), ", "))
}

// DescribeOptions summarises the engine's options for a debug log line.
func DescribeOptions(o fondue.Options) string {
	return fmt.Sprintf("method=%s seed=%d dim=%d sigma1=%g sigma2=%g epochs<=%d lr=%g neg-ratio=%d",
		o.Method, o.Seed, o.CNE.Dim, o.CNE.Sigma1, o.CNE.Sigma2, o.CNE.MaxEpochs, o.CNE.LearningRate, o.CNE.NegRatio)
}
