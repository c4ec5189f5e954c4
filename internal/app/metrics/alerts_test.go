package metrics

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/toolcache"
)

// promtool returns the path of Prometheus' promtool, installing Debian's
// prometheus package once per machine when it is missing.
func promtool(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	present := func() bool { _, err := exec.LookPath("promtool"); return err == nil }
	if err := toolcache.AptInstall(ctx, present, t.Logf, "prometheus"); err != nil {
		t.Fatalf("the alert rules' test needs promtool: %v", err)
	}
	p, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// docRules returns the alert rules of docs/monitoring.md: its one YAML
// block that starts with "groups:".
func docRules(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../../docs/monitoring.md")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		if strings.HasPrefix(m[1], "groups:") {
			found = append(found, m[1])
		}
	}
	if len(found) != 1 {
		t.Fatalf("docs/monitoring.md has %d YAML blocks of rules, want 1", len(found))
	}
	return found[0]
}

// runPromtool runs promtool on rules (written as rules.yaml beside the
// unit tests of testdata/alerts_test.yaml) and returns its output and
// whether it succeeded.
func runPromtool(t *testing.T, bin, rules string, args ...string) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	tests, err := os.ReadFile("testdata/alerts_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"rules.yaml": rules, "alerts_test.yaml": string(tests)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// TestAlertRules: docs/monitoring.md's alert rules are valid (promtool
// check rules) and fire as they say on the series of a failed night, a
// first run that never succeeded and a slow run (promtool test rules,
// testdata/alerts_test.yaml); a rule broken or changed fails.
func TestAlertRules(t *testing.T) {
	bin := promtool(t)
	rules := docRules(t)
	if out, ok := runPromtool(t, bin, rules, "check", "rules", "rules.yaml"); !ok || !strings.Contains(out, "4 rules found") {
		t.Fatalf("promtool check rules:\n%s", out)
	}
	if out, ok := runPromtool(t, bin, rules, "test", "rules", "alerts_test.yaml"); !ok {
		t.Fatalf("promtool test rules:\n%s", out)
	}
	// The checks fail on a misspelled field and on a changed threshold.
	if out, ok := runPromtool(t, bin, strings.Replace(rules, "expr:", "exp:", 1), "check", "rules", "rules.yaml"); ok {
		t.Errorf("promtool check rules passed a misspelled field:\n%s", out)
	}
	if out, ok := runPromtool(t, bin, strings.Replace(rules, "> 26 * 3600", "> 28 * 3600", 1), "test", "rules", "alerts_test.yaml"); ok || !strings.Contains(out, "FondueNeo4jNoRecentSuccess") {
		t.Errorf("promtool test rules passed the no-success alert at 28 hours:\n%s", out)
	}
}
