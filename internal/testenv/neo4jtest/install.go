package neo4jtest

// Installation of a Neo4j Community server from Maven Central: Maven
// resolves the pinned DBMS, GDS and APOC jars into one folder (the Maven
// cache keeps the downloads per machine), javac compiles the small launcher
// (java/Neo4jTestServer.java) against them. Installed once per machine and
// version into the cache directory; safe against concurrent installers
// (internal/testenv/toolcache).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/toolcache"
)

//go:embed java/Neo4jTestServer.java java/pom.xml.tmpl
var javaFiles embed.FS

// installRevision is part of every installation's directory name: bump it
// whenever what an installation holds changes, so old ones are not reused.
// The launcher's sources need no bump: their hash is in the name too
// (installName).
const installRevision = "r1"

// installName is the directory of version v's installation in the cache:
// the versions, installRevision and a hash of the embedded launcher and pom
// template, so that an installation built from other sources (an edit,
// another branch sharing the machine's cache) is never reused.
func installName(v Version) string {
	h := sha256.New()
	for _, f := range []string{"java/Neo4jTestServer.java", "java/pom.xml.tmpl"} {
		b, err := javaFiles.ReadFile(f)
		if err != nil {
			panic(err) // embedded: cannot happen
		}
		h.Write(b)
	}
	return "neo4j-" + v.Neo4j + "-gds-" + v.GDS + "-apoc-" + v.APOC + "-" + installRevision + "-" + hex.EncodeToString(h.Sum(nil))[:10]
}

// Environment variables understood by this package.
const (
	// EnvCache overrides the cache directory (default $HOME/.cache/fondue-neo4j).
	EnvCache = toolcache.EnvDir
	// EnvVersions selects the servers Main runs the tests on: a
	// comma-separated list of Neo4j versions or prefixes ("5.26",
	// "2026.01.4"); default: every version in Versions.
	EnvVersions = "TESTENV_NEO4J_VERSIONS"
	// EnvMaven overrides the Maven command (default: mvn on the PATH).
	EnvMaven = "TESTENV_MAVEN"
)

// EnvJavaHome is the variable that points at a JDK of the given major
// version, e.g. TESTENV_JAVA25_HOME; it takes precedence over the search.
func EnvJavaHome(major int) string { return "TESTENV_JAVA" + strconv.Itoa(major) + "_HOME" }

// CacheDir returns the directory that holds the installations and the
// per-server directories: $TESTENV_CACHE, else $HOME/.cache/fondue-neo4j.
func CacheDir() (string, error) {
	d, err := toolcache.Dir()
	if err != nil {
		return "", fmt.Errorf("neo4jtest: %w", err)
	}
	return d, nil
}

// Install returns the installation of version v in cacheDir, building it
// first if needed: Maven copies the jars into lib/, GDS and APOC jars are
// linked into plugins/ (where Neo4j looks for procedures), and the launcher
// is compiled into classes/ with the JDK that runs v. Concurrent callers, in
// any process, build once. A missing JDK, a missing Maven or an artifact
// that does not resolve is an error that names it.
func Install(ctx context.Context, cacheDir string, v Version, logf func(string, ...any)) (string, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	name := installName(v)
	jdk, err := FindJDK(v.Java)
	if err != nil {
		return "", fmt.Errorf("neo4jtest: Neo4j %s: %w", v.Neo4j, err)
	}
	if toolcache.Installed(filepath.Join(cacheDir, name)) {
		return filepath.Join(cacheDir, name), nil
	}
	note := fmt.Sprintf("Neo4j %s, GDS %s, APOC core %s (Maven Central), launcher compiled with %s", v.Neo4j, v.GDS, v.APOC, jdk.Home)
	dir, err := toolcache.Ensure(ctx, cacheDir, name, note, func(ctx context.Context, staging, scratch string) error {
		// Maven's local repository is not safe for concurrent writers:
		// one installation at a time per machine.
		unlock, err := toolcache.Lock(ctx, filepath.Join(cacheDir, "maven.lock"))
		if err != nil {
			return err
		}
		defer unlock()
		logf("neo4jtest: installing Neo4j %s with GDS %s and APOC core %s from Maven Central into %s", v.Neo4j, v.GDS, v.APOC, filepath.Join(cacheDir, name))
		if err := mavenCopy(ctx, v, staging, scratch); err != nil {
			return err
		}
		if err := linkPlugins(staging); err != nil {
			return err
		}
		return compileLauncher(ctx, jdk, staging, scratch)
	})
	if err != nil {
		return "", fmt.Errorf("neo4jtest: install Neo4j %s: %w", v.Neo4j, err)
	}
	return dir, nil
}

// mavenCopy resolves the server's dependencies and copies the jars to
// staging/lib.
func mavenCopy(ctx context.Context, v Version, staging, scratch string) error {
	mvn := os.Getenv(EnvMaven)
	if mvn == "" {
		p, err := exec.LookPath("mvn")
		if err != nil {
			return errors.New("Maven (mvn) is not on the PATH: install it (Debian: apt-get install maven) or set " + EnvMaven)
		}
		mvn = p
	}
	tmpl, err := template.ParseFS(javaFiles, "java/pom.xml.tmpl")
	if err != nil {
		return err
	}
	var pom bytes.Buffer
	if err := tmpl.Execute(&pom, v); err != nil {
		return err
	}
	pomPath := filepath.Join(scratch, "pom.xml")
	if err := os.WriteFile(pomPath, pom.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(staging, "pom.xml"), pom.Bytes(), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, mvn, "-B", "-f", pomPath,
		// Fail instead of hanging on a registry that stops answering.
		"-Dmaven.wagon.http.retryHandler.count=3",
		"-Dmaven.wagon.rto=120000",
		"dependency:copy-dependencies",
		"-DoutputDirectory="+filepath.Join(staging, "lib"))
	cmd.Dir = scratch
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("Maven could not resolve Neo4j %s, GDS %s, APOC core %s: %s (%v)", v.Neo4j, v.GDS, v.APOC, mavenError(out), err)
	}
	return nil
}

var mavenMissing = regexp.MustCompile(`Could not (find|resolve|transfer) artifact [^ ]+|Could not resolve dependencies[^\n]*`)

// mavenError picks the line of Maven's output that says what failed.
func mavenError(out []byte) string {
	if m := mavenMissing.Find(out); m != nil {
		return string(m)
	}
	var errs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "[ERROR]") && strings.TrimSpace(strings.TrimPrefix(l, "[ERROR]")) != "" {
			errs = append(errs, strings.TrimSpace(strings.TrimPrefix(l, "[ERROR]")))
		}
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return tail(string(out), 5)
}

// pluginJar reports whether a jar holds procedures Neo4j must load from the
// plugin directory: GDS's procedure modules and APOC core. Everything is on
// the classpath as well (GDS's extension is found there).
func pluginJar(name string) bool {
	return strings.HasPrefix(name, "proc-") || strings.HasPrefix(name, "apoc-core-")
}

// linkPlugins links the procedure jars of staging/lib into staging/plugins
// (relative links, so the installation can be renamed into place).
func linkPlugins(staging string) error {
	jars, err := filepath.Glob(filepath.Join(staging, "lib", "*.jar"))
	if err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Join(staging, "plugins"), 0o755); err != nil {
		return err
	}
	n := 0
	for _, j := range jars {
		base := filepath.Base(j)
		if !pluginJar(base) {
			continue
		}
		if err := os.Symlink(filepath.Join("..", "lib", base), filepath.Join(staging, "plugins", base)); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("no GDS or APOC jar among the %d jars Maven copied", len(jars))
	}
	return nil
}

// compileLauncher compiles java/Neo4jTestServer.java into staging/classes.
func compileLauncher(ctx context.Context, jdk JDK, staging, scratch string) error {
	src, err := javaFiles.ReadFile("java/Neo4jTestServer.java")
	if err != nil {
		return err
	}
	srcPath := filepath.Join(scratch, "Neo4jTestServer.java")
	if err := os.WriteFile(srcPath, src, 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, jdk.Javac(), "--release", strconv.Itoa(jdk.Major),
		"-cp", filepath.Join(staging, "lib", "*"), "-d", filepath.Join(staging, "classes"), srcPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("compile the launcher with %s: %v\n%s", jdk.Javac(), err, tail(string(out), 20))
	}
	return nil
}

// JDK is an installed Java Development Kit.
type JDK struct {
	Home    string // e.g. /usr/lib/jvm/java-17-openjdk-amd64
	Major   int    // e.g. 17
	Version string // e.g. 17.0.15
}

// Java is the path of the JDK's java launcher.
func (j JDK) Java() string { return filepath.Join(j.Home, "bin", "java") }

// Javac is the path of the JDK's compiler.
func (j JDK) Javac() string { return filepath.Join(j.Home, "bin", "javac") }

var javaVersionLine = regexp.MustCompile(`(?m)^JAVA_VERSION="([^"]+)"`)

// readJDK reads home/release; ok is false unless home is a JDK (java and
// javac present).
func readJDK(home string) (JDK, bool) {
	data, err := os.ReadFile(filepath.Join(home, "release"))
	if err != nil {
		return JDK{}, false
	}
	m := javaVersionLine.FindSubmatch(data)
	if m == nil {
		return JDK{}, false
	}
	ver := string(m[1])
	majorStr, _, _ := strings.Cut(ver, ".")
	major, err := strconv.Atoi(majorStr)
	if err != nil {
		return JDK{}, false
	}
	j := JDK{Home: home, Major: major, Version: ver}
	for _, p := range []string{j.Java(), j.Javac()} {
		if info, err := os.Stat(p); err != nil || info.IsDir() {
			return JDK{}, false
		}
	}
	return j, true
}

// FindJDK finds a JDK of the given major version: $TESTENV_JAVA<major>_HOME,
// then $JAVA_HOME and the java on the PATH, then every JDK in the folder
// that holds the PATH java's JDK (e.g. /usr/lib/jvm) and in /usr/lib/jvm.
// The error says where it looked.
func FindJDK(major int) (JDK, error) {
	env := EnvJavaHome(major)
	if h := os.Getenv(env); h != "" {
		j, ok := readJDK(h)
		if !ok || j.Major != major {
			return JDK{}, fmt.Errorf("%s=%s is not a Java %d JDK (no release file with JAVA_VERSION %d.x, or no bin/java and bin/javac)", env, h, major, major)
		}
		return j, nil
	}
	var candidates []string
	if h := os.Getenv("JAVA_HOME"); h != "" {
		candidates = append(candidates, h)
	}
	folders := []string{"/usr/lib/jvm"}
	if p, err := exec.LookPath("java"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			home := filepath.Dir(filepath.Dir(real))
			candidates = append(candidates, home)
			folders = append([]string{filepath.Dir(home)}, folders...)
		}
	}
	seen := map[string]bool{}
	for _, f := range folders {
		entries, err := os.ReadDir(f)
		if err != nil {
			continue
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		for _, n := range names {
			candidates = append(candidates, filepath.Join(f, n))
		}
	}
	for _, c := range candidates {
		real, err := filepath.EvalSymlinks(c)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		if j, ok := readJDK(real); ok && j.Major == major {
			return j, nil
		}
	}
	return JDK{}, fmt.Errorf("no Java %d JDK (java and javac) found: looked at $JAVA_HOME, the java on the PATH and in %s; install one or set %s",
		major, strings.Join(folders, ", "), env)
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
