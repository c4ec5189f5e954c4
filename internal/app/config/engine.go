package config

import (
	"errors"
	"fmt"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// Options returns the engine's options that e sets: the one place where
// the keys seed, threads, method, random_splits, unnormalized, polish and
// embedding.* become fondue.Options. embedding.checkpoint,
// checkpoint_force, full and property are not options of the engine: the
// commands read them for the state, the warm start and the write. The splitter's keys are in
// Split. The error says which value cannot work, in the keys' words.
func (e *Engine) Options() (fondue.Options, error) {
	emb := e.Embedding
	o := fondue.Options{
		Seed:         e.Seed,
		Workers:      e.Threads,
		Method:       e.Method,
		RandomSplits: e.RandomSplits, // as in fondue.Options: negative is none
		Unnormalized: e.Unnormalized,
		Polish:       e.Polish,
		CNE: cne.Options{
			Dim:             emb.Dim,
			Sigma1:          emb.Sigma1,
			Sigma2:          emb.Sigma2,
			MaxEpochs:       emb.Epochs,
			LearningRate:    emb.LearningRate,
			NegRatio:        emb.NegRatio,
			Tol:             emb.Tol,
			NoiseStart:      emb.Start == "noise",
			NoStabilityStop: !emb.StabilityStop,
			ExactMaxNodes:   emb.ExactMaxNodes,
		},
	}
	if o.RandomSplits == 0 {
		// The default is 100, so a 0 was given on purpose; the library
		// reads 0 as the default: refuse it rather than silently run 100.
		return o, fmt.Errorf("random_splits 0: give -1 for no random splits, or leave it out for the default (%d)", score.DefaultRandomSplits)
	}
	var err error
	if o.CNE.Mode, err = cne.ParseMode(emb.Mode); err != nil {
		return o, fmt.Errorf("embedding.mode: %w", err)
	}
	if err := o.CNE.Validate(); err != nil {
		return o, errors.New("embedding: " + err.Error())
	}
	return o, nil
}
