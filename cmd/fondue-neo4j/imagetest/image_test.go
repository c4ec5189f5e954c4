package imagetest

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/toolcache"
	"go.yaml.in/yaml/v3"
	"golang.org/x/sys/unix"
)

var (
	// srv is the server of the current run (the suite runs once per version).
	srv *neo4jtest.Server
	// repoRoot is the module's root directory.
	repoRoot string
	// storageConf is the containers-storage.conf of the private storage
	// that every podman command uses (CONTAINERS_STORAGE_CONF).
	storageConf string
	// build is the image build, started by TestMain while the servers
	// start; image waits for it.
	build = make(chan struct{})
	built struct {
		name, version, commit string
		err                   error
	}
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
		return 1
	}
	var err error
	if repoRoot, err = filepath.Abs("../../.."); err != nil {
		return fail("%v", err)
	}
	if _, err := os.Stat(filepath.Join(repoRoot, "go.mod")); err != nil {
		return fail("the repository's root: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	if err := ensurePodman(ctx, logf); err != nil {
		return fail("%v", err)
	}
	dir, err := os.MkdirTemp("", "fondue-imagetest-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(dir)
	storageConf = filepath.Join(dir, "storage.conf")
	conf := fmt.Sprintf("[storage]\ndriver = \"vfs\"\ngraphroot = %q\nrunroot = %q\n",
		filepath.Join(dir, "root"), filepath.Join(dir, "runroot"))
	if err := os.WriteFile(storageConf, []byte(conf), 0o644); err != nil {
		return fail("%v", err)
	}
	go func() {
		defer close(build)
		built.name, built.version, built.commit, built.err = buildImage(ctx)
	}()
	defer func() { <-build }() // never remove the storage under a running build
	return neo4jtest.Run(m, neo4jtest.Options{}, func(s *neo4jtest.Server) { srv = s })
}

// ensurePodman installs podman and runc with apt-get if either is missing
// (once per machine, under toolcache's apt lock).
func ensurePodman(ctx context.Context, logf func(string, ...any)) error {
	present := func() bool {
		for _, tool := range []string{"podman", "runc"} {
			if _, err := exec.LookPath(tool); err != nil {
				return false
			}
		}
		return true
	}
	if err := toolcache.AptInstall(ctx, present, logf, "podman", "runc"); err != nil {
		return fmt.Errorf("the image tests need podman and runc: %w", err)
	}
	return nil
}

// buildImage runs the build command of docs/deploy.md
// (docker/build-image.sh with its image name) with podman into the private storage, and
// returns the image's name and the version and commit the script stamps by
// default.
func buildImage(ctx context.Context) (name, version, commit string, err error) {
	deploy, err := os.ReadFile(filepath.Join(repoRoot, "docs", "deploy.md"))
	if err != nil {
		return "", "", "", err
	}
	args, err := docBuildArgs(string(deploy))
	if err != nil {
		return "", "", "", err
	}
	name = args[0]
	version, commit = gitOr(ctx, "devel", "describe", "--tags", "--always", "--dirty"), gitOr(ctx, "unknown", "rev-parse", "HEAD")
	cmd := exec.CommandContext(ctx, filepath.Join(repoRoot, "docker", "build-image.sh"), args...)
	cmd.Dir = repoRoot
	cmd.Env = append(environ("VERSION", "COMMIT", "GOARCH", "CA_BUNDLE", "CONTAINER_TOOL"),
		"CONTAINER_TOOL=podman", "CONTAINERS_STORAGE_CONF="+storageConf)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", "", "", fmt.Errorf("docker/build-image.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return name, version, commit, nil
}

// docBuildArgs returns the arguments of the one command line of
// docs/deploy.md that runs docker/build-image.sh.
func docBuildArgs(doc string) ([]string, error) {
	var found []string
	for _, block := range codeBlocks(doc, "") {
		for _, line := range strings.Split(block, "\n") {
			if rest, ok := strings.CutPrefix(line, "docker/build-image.sh "); ok {
				found = append(found, strings.TrimSpace(strings.Split(rest, "#")[0]))
			}
		}
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("docs/deploy.md has %d command lines that start with docker/build-image.sh, want 1: %q", len(found), found)
	}
	args := strings.Fields(found[0])
	if len(args) != 1 {
		return nil, fmt.Errorf("docs/deploy.md's build command takes %q, want one image name", found[0])
	}
	return args, nil
}

// gitOr is the output of git args in the repository, or def if git fails
// (as docker/build-image.sh does).
func gitOr(ctx context.Context, def string, args ...string) string {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		return def
	}
	return strings.TrimSpace(string(out))
}

// environ is the test's environment without the given variables.
func environ(drop ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(drop, k) && k != "CONTAINERS_STORAGE_CONF" {
			env = append(env, kv)
		}
	}
	return env
}

// image returns the built image's name, failing the test if the build
// failed.
func image(t *testing.T) string {
	t.Helper()
	select {
	case <-build:
	case <-time.After(20 * time.Minute):
		t.Fatal("the image build did not finish within 20 minutes")
	}
	if built.err != nil {
		t.Fatalf("the image was not built: %v", built.err)
	}
	return built.name
}

// podman returns a podman command on the private storage. It runs
// containers with runc: crun, Debian's default, refuses the hybrid cgroup
// layout (cgroup v1 beside a cgroup2 mount that holds a controller) of the
// CI machines, and runc works on every layout.
func podman(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "podman", append([]string{"--runtime", "runc", "--cgroup-manager", "cgroupfs"}, args...)...)
	cmd.Env = append(environ(), "CONTAINERS_STORAGE_CONF="+storageConf)
	return cmd
}

// runArgs start "podman run": remove the container afterwards, never pull,
// the host's network (the test server listens on loopback), and resource
// limits no higher than the test's own. By default podman gives a container
// an open-file and a process limit of about a million; raising a hard limit
// needs CAP_SYS_RESOURCE, which the CI machines (Firecracker VMs) do not
// grant even to root, so the container would not start ("setrlimit
// RLIMIT_NOFILE: operation not permitted").
func runArgs(t *testing.T) []string {
	t.Helper()
	limit := func(resource int) int {
		var rl unix.Rlimit
		if err := unix.Getrlimit(resource, &rl); err != nil {
			t.Fatal(err)
		}
		return int(min(rl.Max, 4096))
	}
	nofile, nproc := limit(unix.RLIMIT_NOFILE), limit(unix.RLIMIT_NPROC)
	return []string{"run", "--rm", "--pull", "never", "--network", "host",
		"--ulimit", fmt.Sprintf("nofile=%d:%d", nofile, nofile), "--ulimit", fmt.Sprintf("nproc=%d:%d", nproc, nproc)}
}

// runCmd runs a command and returns its exit code, stdout and stderr.
func runCmd(t *testing.T, cmd *exec.Cmd) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, errb.String())
	return 0, "", ""
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// imageConfig is the part of "podman image inspect" the tests check.
type imageConfig struct {
	Config struct {
		User       string            `json:"User"`
		Entrypoint []string          `json:"Entrypoint"`
		Labels     map[string]string `json:"Labels"`
	} `json:"Config"`
	Os           string `json:"Os"`
	Architecture string `json:"Architecture"`
}

func inspect(t *testing.T) imageConfig {
	t.Helper()
	code, out, stderr := runCmd(t, podman(ctxT(t, time.Minute), "image", "inspect", image(t)))
	var cfgs []imageConfig
	if code != 0 || json.Unmarshal([]byte(out), &cfgs) != nil || len(cfgs) != 1 {
		t.Fatalf("podman image inspect: exit %d, %q\n%s", code, out, stderr)
	}
	return cfgs[0]
}

// imageFiles returns the regular files of the image's file system (from
// "podman export" of a container that never runs).
func imageFiles(t *testing.T) map[string][]byte {
	t.Helper()
	ctx := ctxT(t, 2*time.Minute)
	code, id, stderr := runCmd(t, podman(ctx, "create", "--pull", "never", image(t)))
	if code != 0 {
		t.Fatalf("podman create: exit %d\n%s", code, stderr)
	}
	id = strings.TrimSpace(id)
	defer runCmd(t, podman(ctx, "rm", id))
	cmd := podman(ctx, "export", id)
	var tarball, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &tarball, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("podman export: %v\n%s", err, errb.String())
	}
	files := map[string][]byte{}
	tr := tar.NewReader(&tarball)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files["/"+strings.TrimPrefix(h.Name, "/")] = b
		} else if h.Typeflag != tar.TypeDir {
			t.Errorf("the image holds %s (tar type %c): want only the binary and the CA bundle", h.Name, h.Typeflag)
		}
	}
	return files
}

const binaryPath = "/usr/local/bin/fondue-neo4j"

// TestImageContents: the image holds two files, a static Linux binary and
// the build host's CA bundle (for neo4j+s://), runs the binary as its
// entrypoint as a numeric non-root user, and carries the stamped version and
// commit as labels.
func TestImageContents(t *testing.T) {
	cfg := inspect(t)
	if uid, _, _ := strings.Cut(cfg.Config.User, ":"); uid == "" || uid == "0" || strings.Trim(uid, "0123456789") != "" {
		t.Errorf("the image's user is %q, want a numeric non-root uid (Kubernetes' runAsNonRoot)", cfg.Config.User)
	}
	if !slices.Equal(cfg.Config.Entrypoint, []string{binaryPath}) {
		t.Errorf("entrypoint %q, want [%s]", cfg.Config.Entrypoint, binaryPath)
	}
	if cfg.Os != "linux" {
		t.Errorf("os %q, want linux", cfg.Os)
	}
	for k, want := range map[string]string{"org.opencontainers.image.version": built.version, "org.opencontainers.image.revision": built.commit} {
		if got := cfg.Config.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	files := imageFiles(t)
	var names []string
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	const caPath = "/etc/ssl/certs/ca-certificates.crt"
	if want := []string{caPath, binaryPath}; !slices.Equal(names, want) {
		t.Fatalf("the image's files: %q, want %q", names, want)
	}
	hostCA, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(files[caPath], hostCA) || bytes.Count(hostCA, []byte("BEGIN CERTIFICATE")) < 50 {
		t.Errorf("the image's CA bundle (%d bytes) is not the build host's (%d bytes, %d certificates)",
			len(files[caPath]), len(hostCA), bytes.Count(hostCA, []byte("BEGIN CERTIFICATE")))
	}
	bin, err := elf.NewFile(bytes.NewReader(files[binaryPath]))
	if err != nil {
		t.Fatalf("the binary: %v", err)
	}
	defer bin.Close()
	libs, _ := bin.ImportedLibraries()
	for _, p := range bin.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary is dynamically linked (%s; libraries %q)", p.Type, libs)
		}
	}
}

// TestImageVersion: --version in the container prints the version and the
// commit that docker/build-image.sh stamps by default (git describe, the
// HEAD commit).
func TestImageVersion(t *testing.T) {
	img := image(t)
	code, out, stderr := runCmd(t, podman(ctxT(t, 2*time.Minute), append(runArgs(t), img, "--version")...))
	commit := built.commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	want := regexp.MustCompile(`^fondue-neo4j ` + regexp.QuoteMeta(built.version) + ` \(commit ` + regexp.QuoteMeta(commit) + `; go1\.[0-9.]+\)\n$`)
	if code != 0 || !want.MatchString(out) {
		t.Fatalf("--version in the container: exit %d, %q (stderr %q), want %s", code, out, stderr, want)
	}
}

// readmeFirstCommand returns the arguments of the README's first command
// ("go run ./cmd/fondue-neo4j score testdata/lesmis.edges ...").
func readmeFirstCommand(t *testing.T) []string {
	t.Helper()
	for _, block := range codeBlocks(readRepoFile(t, "README.md"), "") {
		for _, line := range strings.Split(block, "\n") {
			if rest, ok := strings.CutPrefix(line, "go run ./cmd/fondue-neo4j "); ok {
				if strings.ContainsAny(rest, `"'\$`) {
					t.Fatalf("the README's first command %q has quotes or variables: the test splits it on spaces", line)
				}
				return strings.Fields(rest)
			}
		}
	}
	t.Fatal("README.md has no command line that starts with go run ./cmd/fondue-neo4j")
	return nil
}

// TestImageReadmeFirstCommand: the README's first command (score the
// bundled Les Misérables graph) in the container, with testdata mounted in
// its working directory, prints --top rows, exactly what the same binary
// prints on the host.
func TestImageReadmeFirstCommand(t *testing.T) {
	img := image(t)
	args := readmeFirstCommand(t)
	ctx := ctxT(t, 5*time.Minute)
	run := append(runArgs(t), "--volume", filepath.Join(repoRoot, "testdata")+":/work/testdata:ro", "--workdir", "/work", img)
	code, out, stderr := runCmd(t, podman(ctx, append(run, args...)...))
	if code != 0 {
		t.Fatalf("fondue-neo4j %s in the container: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	// The same binary on the host, from the image.
	bin := filepath.Join(t.TempDir(), "fondue-neo4j")
	if err := os.WriteFile(bin, imageFiles(t)[binaryPath], 0o755); err != nil {
		t.Fatal(err)
	}
	host := exec.CommandContext(ctx, bin, args...)
	host.Dir = repoRoot
	host.Env = []string{"PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(t.TempDir(), "none")}
	hcode, hout, hstderr := runCmd(t, host)
	if hcode != 0 {
		t.Fatalf("fondue-neo4j %s on the host: exit %d\n%s", strings.Join(args, " "), hcode, hstderr)
	}
	if out != hout {
		t.Errorf("the container printed\n%s\nthe host\n%s", out, hout)
	}
	top := 0
	for i, a := range args {
		if a == "--top" && i+1 < len(args) {
			top, _ = strconv.Atoi(args[i+1])
		}
	}
	// Off a terminal there is no header line (print_header: auto).
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if top == 0 || len(lines) != top {
		t.Fatalf("want %d rows (--top), got:\n%s", top, out)
	}
	for _, l := range lines {
		if strings.Count(l, "\t") < 4 {
			t.Errorf("row %q: want tab-separated columns", l)
		}
	}
}

// cronJob is the part of a Kubernetes CronJob the test runs.
type cronJob struct {
	Kind string `yaml:"kind"`
	Spec struct {
		JobTemplate struct {
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Name  string   `yaml:"name"`
							Image string   `yaml:"image"`
							Args  []string `yaml:"args"`
							Env   []struct {
								Name  string `yaml:"name"`
								Value string `yaml:"value"`
							} `yaml:"env"`
							VolumeMounts []struct {
								Name      string `yaml:"name"`
								MountPath string `yaml:"mountPath"`
								ReadOnly  bool   `yaml:"readOnly"`
							} `yaml:"volumeMounts"`
							SecurityContext struct {
								RunAsNonRoot             bool  `yaml:"runAsNonRoot"`
								ReadOnlyRootFilesystem   bool  `yaml:"readOnlyRootFilesystem"`
								AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
								Capabilities             struct {
									Drop []string `yaml:"drop"`
								} `yaml:"capabilities"`
							} `yaml:"securityContext"`
						} `yaml:"containers"`
						Volumes []volume `yaml:"volumes"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		} `yaml:"jobTemplate"`
	} `yaml:"spec"`
}

type volume struct {
	Name      string `yaml:"name"`
	ConfigMap *struct {
		Name string `yaml:"name"`
	} `yaml:"configMap"`
	Secret *struct {
		SecretName string `yaml:"secretName"`
		Items      []struct {
			Key  string `yaml:"key"`
			Path string `yaml:"path"`
		} `yaml:"items"`
	} `yaml:"secret"`
	PersistentVolumeClaim *struct {
		ClaimName string `yaml:"claimName"`
	} `yaml:"persistentVolumeClaim"`
}

// deployStateFile is the state file (embedding.checkpoint) of the
// ConfigMap of deploy/kubernetes, which the nightly job keeps on a claim.
func deployStateFile(t *testing.T) string {
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	if err := yaml.Unmarshal([]byte(readRepoFile(t, "deploy/kubernetes/configmap.yaml")), &cm); err != nil {
		t.Fatalf("deploy/kubernetes/configmap.yaml: %v", err)
	}
	var cfg struct {
		Embedding struct {
			Checkpoint string `yaml:"checkpoint"`
		} `yaml:"embedding"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["fondue.yaml"]), &cfg); err != nil || cfg.Embedding.Checkpoint == "" {
		t.Fatalf("deploy/kubernetes/configmap.yaml: fondue.yaml names no embedding.checkpoint (%v)", err)
	}
	return cfg.Embedding.Checkpoint
}

// deployCronJob is the CronJob of deploy/kubernetes/cronjob.yaml.
func deployCronJob(t *testing.T) cronJob {
	t.Helper()
	var j cronJob
	if err := yaml.Unmarshal([]byte(readRepoFile(t, "deploy/kubernetes/cronjob.yaml")), &j); err != nil {
		t.Fatalf("deploy/kubernetes/cronjob.yaml: %v", err)
	}
	if j.Kind != "CronJob" || len(j.Spec.JobTemplate.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("deploy/kubernetes/cronjob.yaml: kind %q, %d containers; want a CronJob with one container",
			j.Kind, len(j.Spec.JobTemplate.Spec.Template.Spec.Containers))
	}
	return j
}

// TestImageCronJobSync runs the CronJob of deploy/kubernetes on the test
// server with podman: the image it names (built by the build command of
// docs/deploy.md), its arguments, its environment (but the URI: the test
// server's, on loopback; and the Pushgateway: a stand-in on loopback), its security
// context, and its mounts: the ConfigMap's fondue.yaml is
// config.example.yaml, the Secret's password the server's. The sync scores
// every node of Les Misérables in the database and pushes its metrics.
func TestImageCronJobSync(t *testing.T) {
	img := image(t)
	job := deployCronJob(t)
	spec := job.Spec.JobTemplate.Spec.Template.Spec
	c := spec.Containers[0]
	if c.Image != img {
		t.Fatalf("the CronJob runs %s, but the build command of docs/deploy.md builds %s", c.Image, img)
	}
	if err := srv.Reset(ctxT(t, 2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	t.Logf("server: %s", srv.Version())
	g, _, err := edgelist.ReadFile(filepath.Join(repoRoot, "testdata", "lesmis.edges"), edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	d, err := srv.Driver()
	if err != nil {
		t.Fatal(err)
	}
	if err := testgraph.Load(ctxT(t, 2*time.Minute), d, g, "Character", "APPEARS_WITH", "id"); err != nil {
		t.Fatal(err)
	}

	// The cluster's objects that the CronJob mounts.
	configMaps := map[string]map[string]string{"fondue-config": {"fondue.yaml": readRepoFile(t, "config.example.yaml")}}
	secrets := map[string]map[string]string{"neo4j-auth": {"password": srv.Password()}}
	// The Pushgateway's stand-in records the paths of the pushes.
	var mu sync.Mutex
	var pushes []string
	pg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		pushes = append(pushes, r.Method+" "+r.URL.Path)
		mu.Unlock()
	}))
	defer pg.Close()
	run := runArgs(t)
	for _, e := range c.Env {
		v := e.Value
		switch e.Name {
		case "FONDUE_NEO4J_URI":
			v = srv.BoltURL()
		case "FONDUE_METRICS_PUSHGATEWAY_URL":
			v = pg.URL
		}
		run = append(run, "--env", e.Name+"="+v)
	}
	// The ConfigMap's state file: the run saves its state there, on the
	// claim mounted below (an empty directory, as a new claim is).
	stateFile := deployStateFile(t)
	run = append(run, "--env", "FONDUE_EMBEDDING_CHECKPOINT="+stateFile)
	var hostState string // the state file, on the host
	for _, m := range c.VolumeMounts {
		i := slices.IndexFunc(spec.Volumes, func(v volume) bool { return v.Name == m.Name })
		if i < 0 {
			t.Fatalf("the CronJob mounts volume %q, which it does not define", m.Name)
		}
		vol := spec.Volumes[i]
		files := map[string]string{}
		switch {
		case vol.ConfigMap != nil && configMaps[vol.ConfigMap.Name] != nil:
			files = configMaps[vol.ConfigMap.Name]
		case vol.Secret != nil && secrets[vol.Secret.SecretName] != nil:
			data := secrets[vol.Secret.SecretName]
			for _, it := range vol.Secret.Items {
				files[it.Path] = data[it.Key]
			}
			if len(vol.Secret.Items) == 0 {
				files = data
			}
		case vol.PersistentVolumeClaim != nil:
			dir := t.TempDir()
			// Writable by the image's user, as a claim is.
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
			if rel, err := filepath.Rel(m.MountPath, stateFile); err == nil && !strings.HasPrefix(rel, "..") {
				hostState = filepath.Join(dir, rel)
			}
			run = append(run, "--volume", dir+":"+m.MountPath)
			continue
		default:
			t.Fatalf("volume %q: the test knows ConfigMaps %v, Secrets %v and claims", m.Name, keys(configMaps), keys(secrets))
		}
		dir := t.TempDir()
		// Readable by the image's user, as Kubernetes mounts them.
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		mount := dir + ":" + m.MountPath
		if m.ReadOnly {
			mount += ":ro"
		}
		run = append(run, "--volume", mount)
	}
	sc := c.SecurityContext
	if sc.RunAsNonRoot {
		if uid, _, _ := strings.Cut(inspect(t).Config.User, ":"); uid == "" || uid == "0" {
			t.Fatalf("runAsNonRoot, but the image's user is %q", uid)
		}
	}
	if sc.ReadOnlyRootFilesystem {
		run = append(run, "--read-only")
	}
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		run = append(run, "--security-opt", "no-new-privileges")
	}
	for _, c := range sc.Capabilities.Drop {
		run = append(run, "--cap-drop", strings.ToLower(c))
	}
	run = append(append(run, img), c.Args...)
	code, out, stderr := runCmd(t, podman(ctxT(t, 10*time.Minute), run...))
	if code != 0 {
		t.Fatalf("the CronJob's container (%s): exit %d\n%s", strings.Join(c.Args, " "), code, stderr)
	}
	var sum struct {
		RunID             string `json:"runId"`
		NodeCount         int    `json:"nodeCount"`
		RelationshipCount int    `json:"relationshipCount"`
		Neo4jVersion      string `json:"neo4jVersion"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("the sync's JSON summary: %v\n%s", err, out)
	}
	if hostState == "" {
		t.Errorf("the state file %s is on no claim the CronJob mounts", stateFile)
	} else if _, err := os.Stat(hostState); err != nil {
		t.Errorf("the run saved no state on its claim: %v", err)
	}
	if sum.RunID == "" || sum.NodeCount != g.NumNodes() || sum.RelationshipCount != g.NumEdges() || sum.Neo4jVersion != srv.Version().Neo4j {
		t.Errorf("summary: run %q, %d nodes, %d relationships, Neo4j %s; want %d nodes, %d relationships, Neo4j %s",
			sum.RunID, sum.NodeCount, sum.RelationshipCount, sum.Neo4jVersion, g.NumNodes(), g.NumEdges(), srv.Version().Neo4j)
	}
	recs, err := testgraph.Run(ctxT(t, time.Minute), d,
		"MATCH (c:Character) RETURN count(c.ambiguity) AS scored, collect(DISTINCT c.fondue_run) AS runs", nil)
	if err != nil {
		t.Fatal(err)
	}
	scored, _ := recs[0].Get("scored")
	runs, _ := recs[0].Get("runs")
	if scored != int64(g.NumNodes()) || fmt.Sprint(runs) != fmt.Sprint([]any{sum.RunID}) {
		t.Errorf("in the database: %v of %d characters scored, runs %v; want all, by run %s", scored, g.NumNodes(), runs, sum.RunID)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(pushes)
	if want := []string{"PUT /metrics/job/fondue-neo4j/command/sync", "PUT /metrics/job/fondue-neo4j/command/sync/result/success"}; !slices.Equal(pushes, want) &&
		!slices.Equal(pushes, []string{want[0], "PUT /metrics/job/fondue-neo4j/result/success/command/sync"}) {
		t.Errorf("pushes to the Pushgateway: %q, want %q", pushes, want)
	}
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// codeBlocks returns the bodies of the README's fenced blocks whose info
// string is lang ("" : any). (As in package neo4jtests' README tests.)
func codeBlocks(readme, lang string) []string {
	var blocks []string
	var cur []string
	in, want := false, false
	sc := bufio.NewScanner(strings.NewReader(readme))
	for sc.Scan() {
		line := sc.Text()
		if fence, ok := strings.CutPrefix(strings.TrimSpace(line), "```"); ok {
			if !in {
				in, want, cur = true, lang == "" || strings.TrimSpace(fence) == lang, nil
			} else {
				if want {
					blocks = append(blocks, strings.Join(cur, "\n"))
				}
				in = false
			}
			continue
		}
		if in {
			cur = append(cur, line)
		}
	}
	return blocks
}

// TestReadmeGoInstall: the README's go install line names this module's
// command (go.mod's module path and cmd/fondue-neo4j, package main) at
// @latest, so that the binary alone installs without a checkout.
func TestReadmeGoInstall(t *testing.T) {
	mod := regexp.MustCompile(`(?m)^module (\S+)$`).FindStringSubmatch(readRepoFile(t, "go.mod"))
	if mod == nil {
		t.Fatal("go.mod has no module line")
	}
	var found []string
	for _, block := range codeBlocks(readRepoFile(t, "README.md"), "") {
		for _, line := range strings.Split(block, "\n") {
			if strings.HasPrefix(line, "go install ") {
				found = append(found, line)
			}
		}
	}
	if want := "go install " + mod[1] + "/cmd/fondue-neo4j@latest"; !slices.Equal(found, []string{want}) {
		t.Fatalf("README.md's go install lines: %q, want [%q]", found, want)
	}
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(repoRoot, "cmd", "fondue-neo4j", "main.go"), nil, parser.PackageClauseOnly)
	if err != nil || f.Name.Name != "main" {
		t.Errorf("cmd/fondue-neo4j is not a command (package main): %v", err)
	}
}
