package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// bench is its own command now: "fondue-neo4j bench ..." says how to run
// it, with the same arguments, and reads no configuration first.
func TestBenchMoved(t *testing.T) {
	t.Setenv("FONDUE_CONFIG", "/nonexistent/fondue.yaml")
	for _, c := range []struct{ args, want string }{
		{"bench --quick --out x", `"go run ./bench/cmd/fondue-bench --quick --out x"`},
		{"bench scale --cases sbm:10000:10", `"go run ./bench/cmd/fondue-bench scale --cases sbm:10000:10"`},
	} {
		code, out, stderr := runCLI(t, "", strings.Fields(c.args)...)
		if code != exitUsage || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %q, want %s", c.args, code, stderr, c.want)
		}
	}
	code, out, _ := runCLI(t, "", "--help")
	if code != 0 || regexp.MustCompile(`(?m)^\s+bench\b`).MatchString(out) {
		t.Errorf("--help lists bench:\n%s", out)
	}
}

// The scheduled job's binary links no plotting code (gonum/plot, fonts,
// PDF, SVG, LaTeX): that is fondue-bench's.
func TestNoPlottingLinked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the binary's packages: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 || !strings.Contains(string(out), "github.com/spf13/cobra") {
		t.Fatalf("go list -deps listed %d packages, without cobra: is the command right?", len(deps))
	}
	plotting := regexp.MustCompile(`gonum\.org/v1/plot|fonts|latex|fpdf|svgo|freetype`)
	for _, p := range deps {
		if plotting.MatchString(p) {
			t.Errorf("fondue-neo4j links %s", p)
		}
	}
}
