// Package validate checks fondue-neo4j's Kubernetes manifests without a
// cluster and without the network: every YAML document is decoded
// strictly (an unknown or misspelled field, a value of the wrong type, a
// bad quantity or a duplicate key is an error) into the Kubernetes API's
// own Go types (k8s.io/api), and the CronJob is checked against what the
// nightly job needs: Forbid, deadlines, a retry limit, the password from a
// Secret, the configuration from a ConfigMap, memory requests and limits,
// a Pushgateway. It is a module of its own so that fondue-neo4j does not
// depend on k8s.io; .ci/run runs its test.
package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Kustomization is the part of kustomize's file that the manifests use.
type Kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace,omitempty"`
	Resources  []string `json:"resources"`
}

// Manifests are the objects of a folder of manifests.
type Manifests struct {
	CronJobs       []*batchv1.CronJob
	ConfigMaps     map[string]*corev1.ConfigMap
	Secrets        map[string]*corev1.Secret
	PVCs           map[string]*corev1.PersistentVolumeClaim
	Kustomizations []*Kustomization
}

var docSep = regexp.MustCompile(`(?m)^---[ \t]*$`)

// Dir reads and checks every .yaml file of dir.
func Dir(dir string) (*Manifests, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no .yaml files", dir)
	}
	m := &Manifests{ConfigMaps: map[string]*corev1.ConfigMap{}, Secrets: map[string]*corev1.Secret{}, PVCs: map[string]*corev1.PersistentVolumeClaim{}}
	var errs []error
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		for i, doc := range docSep.Split(string(data), -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			if err := m.add(doc); err != nil {
				errs = append(errs, fmt.Errorf("%s (document %d): %w", filepath.Base(name), i+1, err))
			}
		}
	}
	if len(errs) == 0 {
		errs = append(errs, m.check(dir)...)
	}
	return m, errors.Join(errs...)
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// strict decodes JSON into v as the API server does with
// fieldValidation=Strict (sigs.k8s.io/json, which names a field by its
// path): an unknown field or a duplicate one is an error.
func strict(data []byte, v any) error {
	strictErrs, err := kjson.UnmarshalStrict(data, v)
	if err != nil {
		return err
	}
	return errors.Join(strictErrs...)
}

// add decodes one YAML document by its apiVersion and kind.
func (m *Manifests) add(doc string) error {
	js, err := yaml.YAMLToJSONStrict([]byte(doc))
	if err != nil {
		return err
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(js, &head); err != nil {
		return err
	}
	switch head.APIVersion + " " + head.Kind {
	case "batch/v1 CronJob":
		cj := &batchv1.CronJob{}
		if err := strict(js, cj); err != nil {
			return fmt.Errorf("CronJob: %w", err)
		}
		m.CronJobs = append(m.CronJobs, cj)
	case "v1 ConfigMap":
		cm := &corev1.ConfigMap{}
		if err := strict(js, cm); err != nil {
			return fmt.Errorf("ConfigMap: %w", err)
		}
		m.ConfigMaps[cm.Name] = cm
	case "v1 Secret":
		s := &corev1.Secret{}
		if err := strict(js, s); err != nil {
			return fmt.Errorf("Secret: %w", err)
		}
		m.Secrets[s.Name] = s
	case "v1 PersistentVolumeClaim":
		pvc := &corev1.PersistentVolumeClaim{}
		if err := strict(js, pvc); err != nil {
			return fmt.Errorf("PersistentVolumeClaim: %w", err)
		}
		m.PVCs[pvc.Name] = pvc
	case "kustomize.config.k8s.io/v1beta1 Kustomization":
		k := &Kustomization{}
		if err := strict(js, k); err != nil {
			return fmt.Errorf("Kustomization: %w", err)
		}
		m.Kustomizations = append(m.Kustomizations, k)
	default:
		return fmt.Errorf("apiVersion %q kind %q: not a kind these manifests use", head.APIVersion, head.Kind)
	}
	return nil
}

var dnsName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// check checks the objects against each other and the CronJob against
// what the nightly job needs.
func (m *Manifests) check(dir string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, k := range m.Kustomizations {
		for _, r := range k.Resources {
			if _, err := os.Stat(filepath.Join(dir, r)); err != nil {
				bad("kustomization: resource %s: %v", r, err)
			}
		}
	}
	for name := range m.ConfigMaps {
		if !dnsName.MatchString(name) {
			bad("ConfigMap %q: not a valid name", name)
		}
	}
	if len(m.CronJobs) != 1 {
		bad("%d CronJobs, want one", len(m.CronJobs))
		return errs
	}
	cj := m.CronJobs[0]
	if !dnsName.MatchString(cj.Name) || len(cj.Name) > 52 {
		bad("CronJob %q: not a valid CronJob name (lower case, at most 52 characters)", cj.Name)
	}
	s := cj.Spec
	if f := strings.Fields(s.Schedule); len(f) != 5 && !strings.HasPrefix(s.Schedule, "@") {
		bad("CronJob: schedule %q: want five cron fields", s.Schedule)
	}
	if s.ConcurrencyPolicy != batchv1.ForbidConcurrent {
		bad("CronJob: concurrencyPolicy %q, want Forbid (one run at a time)", s.ConcurrencyPolicy)
	}
	if s.StartingDeadlineSeconds == nil || *s.StartingDeadlineSeconds < 10 {
		bad("CronJob: startingDeadlineSeconds missing or under 10")
	}
	js := s.JobTemplate.Spec
	if js.ActiveDeadlineSeconds == nil || *js.ActiveDeadlineSeconds <= 0 {
		bad("CronJob: jobTemplate.spec.activeDeadlineSeconds missing: a hung run would never end")
	}
	if js.BackoffLimit == nil {
		bad("CronJob: jobTemplate.spec.backoffLimit missing")
	}
	pod := js.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever && pod.RestartPolicy != corev1.RestartPolicyOnFailure {
		bad("CronJob: restartPolicy %q, want Never or OnFailure", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		bad("CronJob: %d containers, want one", len(pod.Containers))
		return errs
	}
	c := pod.Containers[0]
	if c.Image == "" {
		bad("CronJob: the container has no image")
	}
	mounts := map[string]corev1.Volume{} // mount path -> volume
	writable := map[string]bool{}        // mount paths of claims, read-write
	for _, vm := range c.VolumeMounts {
		i := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == vm.Name })
		if i < 0 {
			bad("CronJob: volumeMount %q names no volume", vm.Name)
			continue
		}
		v := pod.Volumes[i]
		switch {
		case v.ConfigMap != nil && m.ConfigMaps[v.ConfigMap.Name] == nil:
			bad("CronJob: volume %q mounts ConfigMap %q, which the manifests do not define", v.Name, v.ConfigMap.Name)
		case v.Secret != nil && m.Secrets[v.Secret.SecretName] == nil:
			bad("CronJob: volume %q mounts Secret %q, which the manifests do not define", v.Name, v.Secret.SecretName)
		case v.PersistentVolumeClaim != nil && m.PVCs[v.PersistentVolumeClaim.ClaimName] == nil:
			bad("CronJob: volume %q mounts PersistentVolumeClaim %q, which the manifests do not define", v.Name, v.PersistentVolumeClaim.ClaimName)
		}
		if v.PersistentVolumeClaim != nil && !vm.ReadOnly {
			writable[strings.TrimSuffix(vm.MountPath, "/")] = true
		}
		mounts[strings.TrimSuffix(vm.MountPath, "/")] = v
	}
	// fileIn is the ConfigMap or Secret key a file path of the container
	// reads (via a mount), or false.
	fileIn := func(path string) (corev1.Volume, string, bool) {
		dir, file := filepath.Split(path)
		v, ok := mounts[strings.TrimSuffix(dir, "/")]
		if !ok {
			return v, "", false
		}
		key := file
		var items []corev1.KeyToPath
		if v.Secret != nil {
			items = v.Secret.Items
		} else if v.ConfigMap != nil {
			items = v.ConfigMap.Items
		}
		if len(items) > 0 {
			i := slices.IndexFunc(items, func(it corev1.KeyToPath) bool { return it.Path == file })
			if i < 0 {
				return v, "", false
			}
			key = items[i].Key
		}
		return v, key, true
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	// The password: an environment variable from a Secret, or a file
	// mounted from one; never a literal.
	pw, pwFile := env["FONDUE_NEO4J_PASSWORD"], env["FONDUE_NEO4J_PASSWORD_FILE"]
	switch {
	case pw.Value != "":
		bad("CronJob: FONDUE_NEO4J_PASSWORD is a literal value: take it from a Secret (valueFrom.secretKeyRef)")
	case pw.ValueFrom != nil:
		ref := pw.ValueFrom.SecretKeyRef
		if ref == nil {
			bad("CronJob: FONDUE_NEO4J_PASSWORD does not come from a Secret")
		} else if s := m.Secrets[ref.Name]; s == nil || !hasKey(s, ref.Key) {
			bad("CronJob: FONDUE_NEO4J_PASSWORD comes from Secret %q key %q, which the manifests do not define", ref.Name, ref.Key)
		}
	case pwFile.Value != "":
		v, key, ok := fileIn(pwFile.Value)
		if !ok || v.Secret == nil || !hasKey(m.Secrets[v.Secret.SecretName], key) {
			bad("CronJob: FONDUE_NEO4J_PASSWORD_FILE %s is not a key of a mounted Secret", pwFile.Value)
		}
	default:
		bad("CronJob: no password: set FONDUE_NEO4J_PASSWORD from a secretKeyRef or FONDUE_NEO4J_PASSWORD_FILE to a mounted Secret")
	}
	// The configuration: --config FILE from a mounted ConfigMap.
	cfg := ""
	for i, a := range c.Args {
		if a == "--config" && i+1 < len(c.Args) {
			cfg = c.Args[i+1]
		} else if v, ok := strings.CutPrefix(a, "--config="); ok {
			cfg = v
		}
	}
	if cfg == "" {
		bad("CronJob: the container's args give no --config")
	} else if v, key, ok := fileIn(cfg); !ok || v.ConfigMap == nil || m.ConfigMaps[v.ConfigMap.Name].Data[key] == "" {
		bad("CronJob: --config %s is not a key of a mounted ConfigMap", cfg)
	} else {
		// The state file must outlive the pod: on a claim mounted
		// read-write (the root file system is read-only).
		var conf struct {
			Embedding struct {
				Checkpoint string `json:"checkpoint"`
			} `json:"embedding"`
		}
		if err := yaml.Unmarshal([]byte(m.ConfigMaps[v.ConfigMap.Name].Data[key]), &conf); err != nil {
			bad("CronJob: --config %s: %v", cfg, err)
		} else if ck := conf.Embedding.Checkpoint; ck != "" && !writable[strings.TrimSuffix(filepath.Dir(ck), "/")] {
			bad("CronJob: embedding.checkpoint %s is not on a PersistentVolumeClaim mounted read-write: the next night would find no state", ck)
		}
	}
	if env["FONDUE_METRICS_PUSHGATEWAY_URL"].Value == "" && !slices.Contains(c.Args, "--pushgateway-url") {
		bad("CronJob: no Pushgateway (FONDUE_METRICS_PUSHGATEWAY_URL): the runs would not be watched")
	}
	// Memory: requested and limited, the request no more than the limit.
	req, lim := c.Resources.Requests.Memory(), c.Resources.Limits.Memory()
	switch {
	case c.Resources.Limits == nil || lim.IsZero():
		bad("CronJob: no memory limit (resources.limits.memory, from fondue-neo4j estimate)")
	case c.Resources.Requests == nil || req.IsZero():
		bad("CronJob: no memory request (resources.requests.memory)")
	case req.Cmp(*lim) > 0:
		bad("CronJob: memory request %s above the limit %s", req, lim)
	}
	sc := c.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		bad("CronJob: the container is not runAsNonRoot (the image runs as uid 65532)")
	}
	return errs
}

func hasKey(s *corev1.Secret, key string) bool {
	if s == nil {
		return false
	}
	_, a := s.Data[key]
	_, b := s.StringData[key]
	return a || b
}
