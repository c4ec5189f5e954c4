package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// flatten lists the dotted keys of a YAML document's leaves.
func flatten(prefix string, m map[string]any, out *[]string) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			flatten(key, sub, out)
			continue
		}
		*out = append(*out, key)
	}
}

// config.example.yaml documents every configuration key, and nothing else.
func TestConfigExampleDocumentsEveryKey(t *testing.T) {
	data, err := os.ReadFile("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var inFile []string
	flatten("", doc, &inFile)
	var keys []string
	for _, s := range config.Settings() {
		keys = append(keys, s.Key)
	}
	for _, k := range keys {
		if k == "neo4j.password" {
			if slices.Contains(inFile, k) {
				t.Error("config.example.yaml must not hold neo4j.password")
			}
			if !strings.Contains(string(data), "FONDUE_NEO4J_PASSWORD") {
				t.Error("config.example.yaml does not say where the password comes from")
			}
			continue
		}
		if !slices.Contains(inFile, k) {
			t.Errorf("config.example.yaml does not document %s", k)
		}
	}
	for _, k := range inFile {
		if !slices.Contains(keys, k) {
			t.Errorf("config.example.yaml has %s, which is not a configuration key", k)
		}
	}
	root := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}).rootCmd()
	for _, cmd := range append(root.Commands(), root) {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if key, ok := cli.KeyOf(f); ok && !slices.Contains(keys, key) {
				t.Errorf("%s --%s is bound to %s, which has no default", cmd.Name(), f.Name, key)
			}
		})
	}
}

// The values of config.example.yaml are the settings' defaults, but the
// password file of the demo (its comment says so).
func TestConfigExampleDefaults(t *testing.T) {
	data, err := os.ReadFile("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	vals, err := config.ReadFile("config.example.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range config.Settings() {
		v, ok := vals[s.Key]
		switch {
		case s.Key == "neo4j.password_file":
			if !ok || v.Value != "docker/neo4j-password.txt" {
				t.Errorf("config.example.yaml: neo4j.password_file = %#v, want the demo's docker/neo4j-password.txt", v.Value)
			}
		case !ok:
			if s.NotInFile == "" {
				t.Errorf("config.example.yaml has no %s", s.Key)
			}
		case s.Kind == config.Duration:
			got, _ := time.ParseDuration(v.Value.(string))
			if want, _ := time.ParseDuration(s.Default.(string)); got != want {
				t.Errorf("config.example.yaml: %s = %s, the default is %s", s.Key, got, want)
			}
		case !reflect.DeepEqual(v.Value, s.Default):
			t.Errorf("config.example.yaml: %s = %#v, the default is %#v", s.Key, v.Value, s.Default)
		}
	}
}

// The example configuration is valid as it is (run from the repository
// root, as the README says), and reads the demo password file.
func TestConfigExampleLoads(t *testing.T) {
	wd, _ := os.Getwd()
	t.Chdir(filepath.Join(wd, "../.."))
	os.Unsetenv("FONDUE_NEO4J_PASSWORD")
	var out, errb strings.Builder
	a := newApp(strings.NewReader(""), &out, &errb)
	root := a.rootCmd()
	sc, _, _ := root.Find([]string{"sync"})
	var got *syncSettings
	sc.RunE = func(cmd *cobra.Command, _ []string) error {
		s, err := a.syncSettings()
		got = s
		return err
	}
	root.SetArgs([]string{"sync", "--config", "config.example.yaml"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	pw, _ := os.ReadFile("docker/neo4j-password.txt")
	if got.conn.URI != "bolt://localhost:7687" || got.conn.Password != strings.TrimSpace(string(pw)) || got.split {
		t.Fatalf("%+v", got.conn)
	}
	compose, err := os.ReadFile("docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Environment map[string]string `yaml:"environment"`
			Volumes     []string          `yaml:"volumes"`
			Healthcheck struct {
				Test []string `yaml:"test"`
			} `yaml:"healthcheck"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(compose, &c); err != nil {
		t.Fatal(err)
	}
	n := c.Services["neo4j"]
	if !strings.HasPrefix(n.Image, "neo4j:5.26.") || !strings.HasSuffix(n.Image, "-community") || len(n.Healthcheck.Test) != 2 || !strings.Contains(n.Healthcheck.Test[1], "/seed/seed.cypher") ||
		!strings.Contains(n.Environment["NEO4J_AUTH"], strings.TrimSpace(string(pw))) {
		t.Fatalf("docker-compose.yml: %+v", n)
	}
	for _, v := range n.Volumes {
		if src, _, ok := strings.Cut(v, ":"); ok && strings.HasPrefix(src, "./") {
			if _, err := os.Stat(src); err != nil {
				t.Errorf("volume %s: %v", v, err)
			}
		}
	}
}
