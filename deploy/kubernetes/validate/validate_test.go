package validate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManifests: the manifests of deploy/kubernetes validate.
func TestManifests(t *testing.T) {
	m, err := Dir("..")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.CronJobs) != 1 || len(m.ConfigMaps) != 1 || len(m.Secrets) != 1 || len(m.PVCs) != 1 || len(m.Kustomizations) != 1 {
		t.Errorf("read %d CronJobs, %d ConfigMaps, %d Secrets, %d PersistentVolumeClaims, %d Kustomizations; want one each",
			len(m.CronJobs), len(m.ConfigMaps), len(m.Secrets), len(m.PVCs), len(m.Kustomizations))
	}
}

// TestBrokenManifests: each change below breaks a copy of the manifests,
// and validation fails saying why.
func TestBrokenManifests(t *testing.T) {
	for _, c := range []struct {
		name, file, old, new, want string
	}{
		{"misspelled field", "cronjob.yaml", "concurrencyPolicy:", "concurencyPolicy:", `unknown field "spec.concurencyPolicy"`},
		{"misspelled nested field", "cronjob.yaml", "activeDeadlineSeconds:", "activeDeadlineSecond:", `unknown field "spec.jobTemplate.spec.activeDeadlineSecond"`},
		{"field at the wrong level", "cronjob.yaml", "          restartPolicy: Never", "          template_restartPolicy: Never", "unknown field"},
		{"wrong type", "cronjob.yaml", "backoffLimit: 4", "backoffLimit: four", "backoffLimit"},
		{"bad quantity", "cronjob.yaml", "memory: 2Gi\n                limits:", "memory: 2 gigs\n                limits:", "quantities must match"},
		{"duplicate key", "cronjob.yaml", "  timeZone: Etc/UTC", "  timeZone: Etc/UTC\n  timeZone: UTC", "already set"},
		{"concurrency allowed", "cronjob.yaml", "concurrencyPolicy: Forbid", "concurrencyPolicy: Allow", "want Forbid"},
		{"no starting deadline", "cronjob.yaml", "startingDeadlineSeconds: 3600", "", "startingDeadlineSeconds missing"},
		{"no active deadline", "cronjob.yaml", "activeDeadlineSeconds: 21600", "", "activeDeadlineSeconds missing"},
		{"secret not defined", "cronjob.yaml", "secretName: neo4j-auth", "secretName: neo4j-pass", `Secret "neo4j-pass", which the manifests do not define`},
		{"password file not mounted", "cronjob.yaml", "value: /secrets/neo4j/password", "value: /etc/password", "FONDUE_NEO4J_PASSWORD_FILE /etc/password is not a key of a mounted Secret"},
		{"literal password", "cronjob.yaml", "- name: FONDUE_NEO4J_PASSWORD_FILE\n                  value: /secrets/neo4j/password",
			"- name: FONDUE_NEO4J_PASSWORD\n                  value: hunter2", "literal value"},
		{"config not in the ConfigMap", "cronjob.yaml", "/config/fondue.yaml", "/config/fondue.yml", "--config /config/fondue.yml is not a key of a mounted ConfigMap"},
		{"no memory limit", "cronjob.yaml", "                limits:\n                  memory: 2Gi\n", "", "no memory limit"},
		{"no Pushgateway", "cronjob.yaml", "FONDUE_METRICS_PUSHGATEWAY_URL", "FONDUE_METRICS_PUSHGATEWAY", "no Pushgateway"},
		{"misspelled ConfigMap field", "configmap.yaml", "\ndata:", "\ndatas:", `unknown field "datas"`},
		{"missing resource", "kustomization.yaml", "- cronjob.yaml", "- cron.yaml", "resource cron.yaml"},
		{"unknown kind", "configmap.yaml", "kind: ConfigMap", "kind: ConfigMapp", "not a kind these manifests use"},
		{"state not kept", "configmap.yaml", "checkpoint: /state/nightly.state", "checkpoint: /tmp/nightly.state", "embedding.checkpoint /tmp/nightly.state is not on a PersistentVolumeClaim"},
		{"claim not defined", "cronjob.yaml", "claimName: fondue-state", "claimName: state", `PersistentVolumeClaim "state", which the manifests do not define`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files, err := filepath.Glob("../*.yaml")
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				s := string(data)
				if filepath.Base(f) == c.file {
					if !strings.Contains(s, c.old) {
						t.Fatalf("%s does not hold %q", c.file, c.old)
					}
					s = strings.Replace(s, c.old, c.new, 1)
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err = Dir(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}
