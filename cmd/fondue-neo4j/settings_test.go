package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"go.yaml.in/yaml/v3"
)

// Every setting has the flags, environment variable and YAML key that the
// table of internal/app/config declares, on the commands it declares, and no
// command has another setting's flag; shell completion offers the values
// the table says.
func TestSettingsAsDeclared(t *testing.T) {
	root := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}).rootCmd()
	if err := cli.CheckFlags(root, config.CmdEvery); err != nil {
		t.Error(err)
	}
	cmds := map[string]config.Commands{"score": config.CmdScore, "review": config.CmdReview, "sync": config.CmdSync,
		"undo": config.CmdUndo, "estimate": config.CmdEstimate, "duplicates": config.CmdDuplicates,
		"plan list": config.CmdPlan, "plan accept": config.CmdPlan, "plan reject": config.CmdPlan}
	for name, on := range cmds {
		cmd, _, err := root.Find(strings.Fields(name))
		if err != nil {
			t.Fatal(err)
		}
		if err := cli.CheckFlags(cmd, on); err != nil {
			t.Error(err)
		}
	}
	for _, s := range config.Settings() {
		// Completion, on every command that has a flag of s.
		for name, on := range cmds {
			f, ok := s.FlagOn(on | config.CmdEvery)
			if !ok {
				continue
			}
			for _, flag := range []string{f.Name, f.Old} {
				if flag == "" {
					continue
				}
				_, out, _ := runCLI(t, "", append(append([]string{"__complete"}, strings.Fields(name)...), "--"+flag+"=")...)
				lines := strings.Split(strings.TrimSpace(out), "\n")
				var got []string
				for _, l := range lines[:len(lines)-1] { // the last is cobra's directive
					got = append(got, strings.TrimPrefix(l, "--"+flag+"="))
				}
				if !slices.Equal(got, f.Complete) {
					t.Errorf("%s --%s completes %q, the table says %q", name, flag, got, f.Complete)
				}
			}
		}
		// The environment variables (empty: known, and unset).
		for _, key := range append([]string{s.Key}, s.Aliases...) {
			if _, err := config.ReadEnv([]string{config.EnvName(key) + "="}); err != nil {
				t.Errorf("%s: %v", config.EnvName(key), err)
			}
		}
		// The YAML key, with the default as its value.
		doc := map[string]any{}
		m := doc
		parts := strings.Split(s.Key, ".")
		for _, p := range parts[:len(parts)-1] {
			sub := map[string]any{}
			m[p] = sub
			m = sub
		}
		m[parts[len(parts)-1]] = s.Default
		data, err := yaml.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		vals, err := config.ReadFile("f.yaml", data)
		switch {
		case s.NotInFile != "":
			if err == nil || !strings.Contains(err.Error(), s.NotInFile) {
				t.Errorf("%s in a file: %v, want %q", s.Key, err, s.NotInFile)
			}
		case err != nil || vals[s.Key].Source.Kind != config.FromFile:
			t.Errorf("%s in a file (%q): %v %v", s.Key, data, vals, err)
		}
	}
}
