package cli

import (
	"reflect"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
)

// Every key of the settings table that sets the engine's section of the
// configuration (config.Engine, and the splitter's split.method, split.top
// and split.min_ambiguity) must reach the engine's options: some value of
// it changes what EngineOptions returns. A key added to the table and to
// config.Engine but forgotten in config.Engine.Options fails here.
func TestEveryEngineKeyReachesTheEngine(t *testing.T) {
	// The warm start's node property, force and full are read by the
	// commands, not by the engine's options (the file sets KeepState).
	commands := []string{"embedding.checkpoint_force", "embedding.full", "embedding.property"}
	splitKeys := []string{"split.method", "split.top", "split.min_ambiguity"}
	def, err := config.Merge(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := EngineOptions(def)
	if err != nil {
		t.Fatal(err)
	}
	var engineKeys []string
	for _, s := range config.Settings() {
		engine, reached := slices.Contains(splitKeys, s.Key), false
		for _, set := range otherValues(s) {
			c := *def
			set(s.Field(&c))
			if !reflect.DeepEqual(c.Engine, def.Engine) {
				engine = true
			}
			if got, err := EngineOptions(&c); err == nil && !reflect.DeepEqual(got, want) {
				reached = true
			}
		}
		if !engine {
			continue
		}
		engineKeys = append(engineKeys, s.Key)
		switch {
		case slices.Contains(commands, s.Key) && reached:
			t.Errorf("%s reaches the engine's options: take it off the list of the commands' keys", s.Key)
		case !slices.Contains(commands, s.Key) && !reached:
			t.Errorf("%s is an engine key, but no value of it changes the engine's options (config.Engine.Options)", s.Key)
		}
	}
	for _, k := range []string{"seed", "threads", "method", "embedding.dim", "embedding.stability_stop", "split.method"} {
		if !slices.Contains(engineKeys, k) {
			t.Errorf("%s not found among the engine keys %v", k, engineKeys)
		}
	}
}

// otherValues returns functions that set a setting's field (a pointer, as
// Setting.Field gives it) to values other than its default.
func otherValues(s config.Setting) []func(any) {
	var out []func(any)
	add := func(f func(any)) { out = append(out, f) }
	add(func(p any) {
		switch p := p.(type) {
		case *uint64:
			*p++
		case *int:
			*p++
		case *float64:
			*p = *p*1.25 + 0.5
		case *bool:
			*p = !*p
		case *string:
			*p += "x"
		}
	})
	for _, v := range s.Values { // an Enum's other values
		add(func(p any) {
			if p, ok := p.(*string); ok {
				*p = v
			}
		})
	}
	return out
}
