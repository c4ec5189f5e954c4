package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"go.yaml.in/yaml/v3"
)

// deployCronJob is the part of deploy/kubernetes/cronjob.yaml that the
// command reads. (The manifests' Kubernetes schema is checked by the
// module deploy/kubernetes/validate.)
type deployCronJob struct {
	Spec struct {
		JobTemplate struct {
			Spec struct {
				BackoffLimit int `yaml:"backoffLimit"`
				Template     struct {
					Spec struct {
						Containers []struct {
							Args []string `yaml:"args"`
							Env  []struct {
								Name  string `yaml:"name"`
								Value string `yaml:"value"`
							} `yaml:"env"`
							Resources struct {
								Limits map[string]string `yaml:"limits"`
							} `yaml:"resources"`
						} `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		} `yaml:"jobTemplate"`
	} `yaml:"spec"`
}

// The Kubernetes manifests speak fondue-neo4j: the CronJob's arguments are
// a command and flags it has, its FONDUE_* variables are settings with
// valid values, the ConfigMap's fondue.yaml is a valid configuration, and
// the memory limit holds the estimate that the manifest's comment runs
// (with the CronJob's threads).
func TestDeployManifests(t *testing.T) {
	data, err := os.ReadFile("../../deploy/kubernetes/cronjob.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cj deployCronJob
	if err := yaml.Unmarshal(data, &cj); err != nil {
		t.Fatal(err)
	}
	cs := cj.Spec.JobTemplate.Spec.Template.Spec.Containers
	if len(cs) != 1 || len(cs[0].Args) == 0 {
		t.Fatalf("cronjob.yaml: want one container with arguments, got %+v", cs)
	}
	c := cs[0]

	// The arguments: a command and its flags.
	root := newRootCmd(strings.NewReader(""), os.Stdout, os.Stderr)
	cmd, rest, err := root.Find(c.Args)
	if err != nil || cmd == root {
		t.Fatalf("cronjob.yaml's args %q: no command (%v)", c.Args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("cronjob.yaml's args %q: %v", c.Args, err)
	}

	// The environment: settings, with valid values.
	var environ []string
	threads := ""
	for _, e := range c.Env {
		environ = append(environ, e.Name+"="+e.Value)
		if e.Name == "FONDUE_THREADS" {
			threads = e.Value
		}
	}
	env, err := config.ReadEnv(environ)
	if err == nil {
		_, err = config.Merge(nil, env, nil)
	}
	if err != nil {
		t.Errorf("cronjob.yaml's environment: %v", err)
	}

	// The ConfigMap's fondue.yaml.
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	cmData, err := os.ReadFile("../../deploy/kubernetes/configmap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(cmData, &cm); err != nil || cm.Data["fondue.yaml"] == "" {
		t.Fatalf("configmap.yaml: no fondue.yaml (%v)", err)
	}
	file, err := config.ReadFile("fondue.yaml", []byte(cm.Data["fondue.yaml"]))
	var cfg *config.Config
	if err == nil {
		cfg, err = config.Merge(nil, env, file)
	}
	if err != nil {
		t.Fatalf("configmap.yaml's fondue.yaml: %v", err)
	}

	// A crashed run's lock expires before the last retry starts: Kubernetes
	// re-creates a failed pod after 10s, 20s, 40s, ... (doubling, capped at
	// 6m), so retry b starts at least 10s * (2^b - 1) after the crash.
	var last time.Duration
	for b, delay := 0, 10*time.Second; b < cj.Spec.JobTemplate.Spec.BackoffLimit; b, delay = b+1, min(2*delay, 6*time.Minute) {
		last += delay
	}
	if ttl := cfg.Lock.TTL; last <= ttl {
		t.Errorf("cronjob.yaml's backoffLimit %d starts its last retry %s after a crash, within the ConfigMap's lock.ttl %s: every retry may exit 6",
			cj.Spec.JobTemplate.Spec.BackoffLimit, last, ttl)
	}

	// The memory limit holds the estimate of the comment's command.
	m := regexp.MustCompile(`(?m)^#\s+fondue-neo4j (estimate .*)$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("cronjob.yaml's comment gives no fondue-neo4j estimate command")
	}
	args := strings.Fields(string(m[1]))
	if !strings.Contains(string(m[1]), "--threads "+threads) || threads == "" {
		t.Errorf("the estimate (%s) and the CronJob (FONDUE_THREADS=%q) use different threads", m[1], threads)
	}
	code, out, stderr := runCLI(t, "", append(args, "--output", "json", "--max-memory", "none")...)
	var est struct {
		BytesPeak int64 `json:"bytesPeak"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &est) != nil || est.BytesPeak == 0 {
		t.Fatalf("%s: exit %d, %s%s", m[1], code, out, stderr)
	}
	lim := c.Resources.Limits["memory"]
	limit, err := sysmem.ParseBytes(strings.TrimSuffix(lim, "i") + map[bool]string{true: "iB"}[strings.HasSuffix(lim, "i")])
	if err != nil {
		t.Fatalf("cronjob.yaml's memory limit %q: %v", lim, err)
	}
	if est.BytesPeak > limit {
		t.Errorf("cronjob.yaml's memory limit %s (%d bytes) is below the estimate of %q (%d bytes)", lim, limit, m[1], est.BytesPeak)
	}
}

// TestKubernetesSchema runs the schema validation of deploy/kubernetes,
// a module of its own (k8s.io/api stays out of this module's build list),
// so that the test command checks the manifests too.
func TestKubernetesSchema(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to validate deploy/kubernetes: %v", err)
	}
	cmd := exec.Command(goBin, "test", "-count=1", "./...")
	cmd.Dir = filepath.Join("..", "..", "deploy", "kubernetes", "validate")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("validating deploy/kubernetes: %v\n%s", err, out)
	}
}
