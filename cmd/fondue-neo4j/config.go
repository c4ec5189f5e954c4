package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/research"
	"github.com/fondue-neo4j/fondue-neo4j/internal/config"
	"github.com/spf13/viper"
)

// setDefaults gives every configuration key its default (the settings of
// internal/config).
func setDefaults(v *viper.Viper) {
	for _, s := range config.Settings {
		v.SetDefault(s.Key, s.Default)
	}
}

// defaultSplitter is the splitter sync uses when split.method is empty.
func defaultSplitter() fondue.Splitter { return fondue.Splitters()[0] }

// splitterNames lists the splitters of score, review and sync, the default
// first.
func splitterNames() []string {
	var names []string
	for _, s := range fondue.Splitters() {
		names = append(names, s.Name())
	}
	return names
}

// isSplitterName reports whether name is a splitter of fondue or of
// fondue/research (which splitterNamed refuses with an explanation).
func isSplitterName(name string) bool {
	return slices.Contains(splitterNames(), name) || research.IsSplitter(name)
}

// splitterNamed returns fondue's splitter called name, nil for "". A
// research splitter is refused: it is evaluated by the bench only.
func splitterNamed(name string) (fondue.Splitter, error) {
	if name == "" {
		return nil, nil
	}
	if s := fondue.FindSplitter(fondue.Splitters(), name); s != nil {
		return s, nil
	}
	if research.IsSplitter(name) {
		return nil, usageErrorf("splitter %q is a research splitter, available in the bench command (bench --splitters %s); this command offers %s",
			name, name, strings.Join(splitterNames(), ", "))
	}
	return nil, usageErrorf("unknown splitter %q (want one of %s)", name, strings.Join(splitterNames(), ", "))
}

// scoreOptions builds the engine's options from the configuration. setup
// has checked each value on its own; this checks how they go together, so
// that a bad combination fails before any work starts.
func (a *app) scoreOptions() (fondue.Options, error) {
	v := a.v
	var o fondue.Options
	o.Seed = v.GetUint64("seed")
	o.Workers = v.GetInt("threads")
	o.Method = v.GetString("method")
	o.RandomSplits = v.GetInt("random_splits") // as in fondue.Options: 0 the default, negative none
	o.Unnormalized = v.GetBool("unnormalized")
	o.Polish = v.GetBool("polish")
	o.CNE.Dim = v.GetInt("embedding.dim")
	o.CNE.Sigma1 = v.GetFloat64("embedding.sigma1")
	o.CNE.Sigma2 = v.GetFloat64("embedding.sigma2")
	o.CNE.MaxEpochs = v.GetInt("embedding.epochs")
	o.CNE.LearningRate = v.GetFloat64("embedding.learning_rate")
	o.CNE.NegRatio = v.GetInt("embedding.neg_ratio")
	o.CNE.Tol = v.GetFloat64("embedding.tol")
	o.CNE.ExactMaxNodes = v.GetInt("embedding.exact_max_nodes")
	var err error
	if o.CNE.Mode, err = fondue.ParseMode(v.GetString("embedding.mode")); err != nil {
		return o, usageErrorf("embedding.mode: %v", err)
	}
	if err := o.CNE.Validate(); err != nil {
		return o, usageErrorf("embedding: %v", err)
	}
	sp, err := splitterNamed(v.GetString("split.method"))
	if err != nil {
		return o, err
	}
	if sp != nil && sp.NeedsEmbedding() && !fondue.MethodUsesEmbedding(o.Method) {
		return o, usageErrorf("split method %q needs method %q or %q, not %q", sp.Name(), fondue.MethodCombined, fondue.MethodFONDUE, o.Method)
	}
	o.Split.Splitter = sp
	o.Split.Top = v.GetInt("split.top")
	o.Split.MinAmbiguity = v.GetFloat64("split.min_ambiguity")
	return o, nil
}

func describeOptions(o fondue.Options) string {
	return fmt.Sprintf("method=%s seed=%d dim=%d sigma1=%g sigma2=%g epochs<=%d lr=%g neg-ratio=%d",
		o.Method, o.Seed, o.CNE.Dim, o.CNE.Sigma1, o.CNE.Sigma2, o.CNE.MaxEpochs, o.CNE.LearningRate, o.CNE.NegRatio)
}
