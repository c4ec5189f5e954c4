package neo4jtest

// Bulk import: neo4j-admin database import full, run from the
// installation's jars (org.neo4j:neo4j brings the import tool and the
// admin command line), into the data folder of a stopped server.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// ImportOptions describe a bulk import of CSV files into the default
// database (neo4j-admin database import full). The zero value of each
// optional field is the tool's default, but for MaxOffHeap and Heap, which
// are bounded so that the import leaves room for other processes.
type ImportOptions struct {
	// Nodes and Relationships are the import's --nodes and
	// --relationships values, as neo4j-admin spells them: the files of
	// one group, with an optional label (type) prefix, e.g.
	// "Node=nodes.csv" or "LINK=rels-1.csv,rels-2.csv". Paths are
	// absolute or relative to the working folder.
	Nodes, Relationships []string
	// IDType is --id-type: "string" (the tool's default), "integer" or
	// "actual".
	IDType string
	// Threads is --threads (default: the tool's, the number of cores).
	Threads int
	// MaxOffHeap is --max-off-heap-memory (default "1g"; the tool's own
	// default is 90% of the free memory). Heap is the tool's JVM heap
	// (default "1g").
	MaxOffHeap, Heap string
	// Args are further options of the import, e.g. "--delimiter=TAB".
	Args []string
}

// ImportStats say what an import did.
type ImportStats struct {
	Duration time.Duration
	// Log is the tool's output (its progress and its summary).
	Log string
}

// Import stops the server cleanly, replaces its default database with
// the CSV files of o (neo4j-admin database import full, run with the
// server's JDK and jars on the server's folder and neo4j.conf), and starts
// it again, as Restart does: the password, the system database and
// BoltURL are kept, everything in the default database is replaced.
// Drivers opened before hold bookmarks of the replaced database, which the
// new one refuses (BookmarkTimeout): open new ones. If
// the import fails the server is started again all the same (on an empty
// default database) and the error carries the tool's last lines. Not safe
// to call concurrently with other methods.
func (s *Server) Import(ctx context.Context, o ImportOptions) (ImportStats, error) {
	begin := time.Now()
	s.closeDriver()
	s.proxy.Refuse()
	if err := s.stopJVM(false); err != nil {
		return ImportStats{}, err
	}
	st, ierr := s.runImport(ctx, o)
	if err := s.launchAndWait(ctx); err != nil {
		return st, fmt.Errorf("neo4jtest: start after the import: %w", err)
	}
	s.proxy.setUpstream(s.boltAddr)
	if err := s.proxy.Restore(); err != nil {
		return st, fmt.Errorf("neo4jtest: start after the import: %w", err)
	}
	if ierr != nil {
		return st, ierr
	}
	s.logf("neo4jtest: Neo4j %s: imported in %s, restarted in %s (bolt %s, pid %d)",
		s.reported, st.Duration.Round(time.Millisecond), (time.Since(begin) - st.Duration).Round(time.Millisecond), s.boltAddr, s.PID())
	return st, nil
}

// importArgs are the command line of neo4j-admin for o, after the main
// class.
func importArgs(o ImportOptions) ([]string, error) {
	if len(o.Nodes) == 0 {
		return nil, fmt.Errorf("neo4jtest: import: no node files (ImportOptions.Nodes)")
	}
	offHeap := o.MaxOffHeap
	if offHeap == "" {
		offHeap = "1g"
	}
	// The database first: --nodes and --relationships take several files.
	args := []string{"database", "import", "full", "neo4j", "--overwrite-destination=true", "--max-off-heap-memory=" + offHeap}
	if o.IDType != "" {
		args = append(args, "--id-type="+o.IDType)
	}
	if o.Threads > 0 {
		args = append(args, "--threads="+strconv.Itoa(o.Threads))
	}
	for _, n := range o.Nodes {
		args = append(args, "--nodes="+n)
	}
	for _, r := range o.Relationships {
		args = append(args, "--relationships="+r)
	}
	return append(args, o.Args...), nil
}

// runImport runs the import on the stopped server's folder: NEO4J_HOME is
// the folder (whose data/ the server uses) and NEO4J_CONF the folder of
// its neo4j.conf. The default database's store and transaction logs are
// removed first.
func (s *Server) runImport(ctx context.Context, o ImportOptions) (ImportStats, error) {
	args, err := importArgs(o)
	if err != nil {
		return ImportStats{}, err
	}
	for _, d := range []string{filepath.Join(s.dir, "data", "databases", "neo4j"), filepath.Join(s.dir, "data", "transactions", "neo4j")} {
		if err := os.RemoveAll(d); err != nil {
			return ImportStats{}, fmt.Errorf("neo4jtest: import: %w", err)
		}
	}
	heap := o.Heap
	if heap == "" {
		heap = "1g"
	}
	jvm := append(jvmArgs(s.jdk, heap), "-cp", filepath.Join(s.home, "lib", "*"), "org.neo4j.cli.AdminTool")
	cmd := exec.CommandContext(ctx, s.jdk.Java(), append(jvm, args...)...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "NEO4J_HOME="+s.dir, "NEO4J_CONF="+s.dir)
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	st := ImportStats{Duration: time.Since(t0), Log: string(out)}
	logPath := filepath.Join(s.dir, "import.log")
	os.WriteFile(logPath, out, 0o644)
	if err != nil {
		return st, fmt.Errorf("neo4jtest: Neo4j %s: neo4j-admin database import full failed (%v; log %s):\n%s", s.version.Neo4j, err, logPath, tail(string(out), 20))
	}
	return st, nil
}
