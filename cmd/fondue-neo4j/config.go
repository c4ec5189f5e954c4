package main

import (
	"fmt"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/connector"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/spf13/viper"
)

// setDefaults gives every configuration key a default. Viper only sees
// environment variables for keys it knows, so every key must be here.
func setDefaults(v *viper.Viper) {
	v.SetDefault("log.level", "info")
	v.SetDefault("log.format", "")
	v.SetDefault("max_memory", "")
	v.SetDefault("seed", 1)
	v.SetDefault("threads", 0)
	v.SetDefault("method", fondue.DefaultMethod)
	v.SetDefault("random_splits", 100)
	v.SetDefault("unnormalized", false)
	v.SetDefault("polish", false)
	v.SetDefault("embedding.dim", 8)
	v.SetDefault("embedding.sigma1", 1.0)
	v.SetDefault("embedding.sigma2", 2.0)
	v.SetDefault("embedding.epochs", 2000)
	v.SetDefault("embedding.learning_rate", 0.1)
	v.SetDefault("embedding.neg_ratio", 5)
	v.SetDefault("embedding.mode", "auto")
	v.SetDefault("embedding.tol", 1e-2)
	v.SetDefault("embedding.exact_max_nodes", 1000)
	v.SetDefault("embedding.checkpoint", "")
	v.SetDefault("embedding.property", "")
	v.SetDefault("split.method", "")
	v.SetDefault("split.top", 0)
	v.SetDefault("split.min_ambiguity", 0.0)

	// sync and undo (Neo4j).
	v.SetDefault("neo4j.uri", "bolt://localhost:7687")
	v.SetDefault("neo4j.user", "neo4j")
	v.SetDefault("neo4j.password", "") // FONDUE_NEO4J_PASSWORD only: never a flag, never the config file
	v.SetDefault("neo4j.password_file", "")
	v.SetDefault("neo4j.database", "")
	v.SetDefault("neo4j.connect_timeout", "10s")
	v.SetDefault("neo4j.max_retry_time", "30s")
	v.SetDefault("graph.node_labels", []string{})
	v.SetDefault("graph.relationship_types", []string{})
	v.SetDefault("graph.node_query", "")
	v.SetDefault("graph.relationship_query", "")
	v.SetDefault("graph.id_property", "")
	v.SetDefault("graph.fetch_size", 10000)
	v.SetDefault("write.property", connector.DefaultWriteProperty)
	v.SetDefault("write.score_property", connector.DefaultScoreProperty)
	v.SetDefault("write.run_property", connector.DefaultRunProperty)
	v.SetDefault("write.batch_size", connector.DefaultBatchSize)
	v.SetDefault("write.concurrency", 1)
	v.SetDefault("split.enabled", false)
	v.SetDefault("split.marker_label", connector.DefaultMarkerLabel)
	v.SetDefault("split.skip_properties", []string{})
	v.SetDefault("lock.name", connector.DefaultLockName)
	v.SetDefault("lock.ttl", connector.DefaultLockTTL.String())
	v.SetDefault("run_id", "")
	v.SetDefault("output", "text")
}

// defaultSplitter is the splitter sync uses when split.method is empty.
func defaultSplitter() string { return fondue.DefaultSplitter }

// scoreOptions builds the engine's options from the configuration and checks
// every value, so that a bad one fails before any work starts.
func (a *app) scoreOptions() (fondue.Options, error) {
	v := a.v
	var o fondue.Options
	var err error
	get := func(key string, check func(float64) bool, want string) float64 {
		x := v.GetFloat64(key)
		if err == nil && !check(x) {
			err = usageErrorf("%s = %v: must be %s", key, v.Get(key), want)
		}
		return x
	}
	positive := func(x float64) bool { return x > 0 }
	integer := func(x float64) bool { return x == float64(int64(x)) }
	posInt := func(x float64) bool { return x >= 1 && integer(x) }
	nonNegInt := func(x float64) bool { return x >= 0 && integer(x) }

	seed := get("seed", nonNegInt, "a non-negative integer")
	o.Seed = uint64(seed)
	o.Workers = int(get("threads", nonNegInt, "a non-negative integer (0: all cores)"))
	o.Method = v.GetString("method")
	if err == nil && !slices.Contains(fondue.Methods, o.Method) {
		err = usageErrorf("method %q: want one of %v", o.Method, fondue.Methods)
	}
	rs := int(get("random_splits", nonNegInt, "a non-negative integer"))
	o.RandomSplits = rs
	if rs == 0 {
		o.RandomSplits = -1
	}
	o.Unnormalized = v.GetBool("unnormalized")
	o.Polish = v.GetBool("polish")
	o.CNE.Dim = int(get("embedding.dim", posInt, "a positive integer"))
	o.CNE.Sigma1 = get("embedding.sigma1", positive, "positive")
	o.CNE.Sigma2 = get("embedding.sigma2", positive, "positive")
	o.CNE.MaxEpochs = int(get("embedding.epochs", posInt, "a positive integer"))
	o.CNE.LearningRate = get("embedding.learning_rate", positive, "positive")
	o.CNE.NegRatio = int(get("embedding.neg_ratio", posInt, "a positive integer"))
	o.CNE.Tol = get("embedding.tol", positive, "positive")
	o.CNE.ExactMaxNodes = int(get("embedding.exact_max_nodes", nonNegInt, "a non-negative integer"))
	if err != nil {
		return o, err
	}
	if o.CNE.Mode, err = fondue.ParseMode(v.GetString("embedding.mode")); err != nil {
		return o, usageErrorf("embedding.mode: %v", err)
	}
	if err := o.CNE.Validate(); err != nil {
		return o, usageErrorf("embedding: %v", err)
	}
	o.Split.Method = v.GetString("split.method")
	if o.Split.Method != "" && !slices.Contains(fondue.Splitters, o.Split.Method) {
		return o, usageErrorf("split method %q: want one of %v", o.Split.Method, fondue.Splitters)
	}
	if fondue.SplitterNeedsEmbedding(o.Split.Method) && !fondue.MethodUsesEmbedding(o.Method) {
		return o, usageErrorf("split method %q needs method %q or %q, not %q", o.Split.Method, fondue.MethodCombined, fondue.MethodFONDUE, o.Method)
	}
	o.Split.Top = int(get("split.top", nonNegInt, "a non-negative integer"))
	o.Split.MinAmbiguity = get("split.min_ambiguity", func(x float64) bool { return x >= 0 && x <= 1 }, "between 0 and 1")
	if err != nil {
		return o, err
	}
	return o, nil
}

func describeOptions(o fondue.Options) string {
	return fmt.Sprintf("method=%s seed=%d dim=%d sigma1=%g sigma2=%g epochs<=%d lr=%g neg-ratio=%d",
		o.Method, o.Seed, o.CNE.Dim, o.CNE.Sigma1, o.CNE.Sigma2, o.CNE.MaxEpochs, o.CNE.LearningRate, o.CNE.NegRatio)
}
