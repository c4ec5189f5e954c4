package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/scale"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/spf13/cobra"
)

const defaultScaleCases = "sbm:10000:10,sbm:10000:20,sbm:100000:10,sbm:100000:20,sbm:1000000:10,sbm:1000000:20"

func newScaleCmd(a *app) *cobra.Command {
	var (
		cases, cacheDir, binary, baseline, out string
		compare, reuse                         string
		dataDir                                string
		ratio                                  float64
		repeats                                int
		double                                 bool
		neo4jVersions, heap, pageCache         string
		syncArgs                               []string
		splitTop, faultEpochs, gdsRepeats      int
		faults, nights                         bool
	)
	cmd := &cobra.Command{
		Use:   "scale [-- extra score flags]",
		Short: "Time, memory and AUC of score at growing graph sizes (10k to 1M nodes)",
		Long: `scale runs "fondue-neo4j score" in a child process on graphs with planted
ambiguous nodes (a degree-corrected block model with power-law degrees and
communities, contracted like the paper's benchmark), and reports per case the
wall time of each phase, the CNE epochs, the peak resident memory and the AUC
of the planted nodes, as results.md, results.json and a log-log plot of cost
against edges (cost.png). Generated graphs are cached between runs.

The fondue-neo4j measured is --binary, else the fondue-neo4j beside this
program (as "go install ./cmd/..." leaves them), else the one on $PATH.

Cases are sbm:NODES:DEGREE, flat:NODES:DEGREE (the same block model without
hubs: every node of the same weight, degrees Poisson around DEGREE) or
file:PATH (an edge list, contracted the same way; a bare file name that is
not in the working folder is looked up in the datasets folder: --data-dir,
else $BENCH_DATASETS, else ../shared/datasets).
A kg:NODES:DEGREE case is a knowledge graph scored from Neo4j import files
(--nodes, --relationships, --score-labels Author, --evidence-properties year):
the block model's nodes are authors, each of its links a paper, each paper in
one venue of its block (one per 50) and with one of 4 keywords shared by all;
venues and keywords are context.

Live cases, neo4j:sbm:NODES:DEGREE (or neo4j:file:PATH), measure "sync"
against a live Neo4j: the same graph is bulk-imported (neo4j-admin database
import full) as (:Node {uid})-[:LINK]->(:Node) into each test server
(--neo4j-versions; installed and started as the integration tests do, with
--neo4j-heap and --neo4j-page-cache), a first sync writes the properties,
GDS's projection and write mode are timed for reference, then each binary
runs "sync --id-property uid --split --split-top K" and "undo", --repeats
times, interleaved, with per phase the wall time and the CPU seconds of the
job and of the server (/proc), both peaks, the planted nodes' AUC, and the
written scores compared bit for bit with "score" on the edge list (run
first, with the same --split-top, no server running). --faults then runs
the fault scenarios on each server: kill -9 mid-write and mid-split and a
re-run, and a compute of several lock TTLs against a second run.
A neo4j:kg:NODES:DEGREE case imports the kg case's files and runs "sync
--write-node-labels Author --evidence-properties year --split --split-top K"
and "undo" with each binary: the job's peak against its memory estimate and
the phases' times (no first sync, GDS or bit-for-bit check).

--baseline BIN runs another fondue-neo4j binary on the same inputs for speed
ratios; --compare FILE adds an earlier run's results.json (for instance
bench/scale-results/sizes.json) as "previous": its curve is drawn dashed beside
this one and its cases get ratio rows; --reuse FILES reports the runs
those earlier results.json files hold for a case and binary instead of running
them again (for the 10M-node case, an hour), and says so; --double-epochs reruns each case with twice the epochs and no early
stop, to show what early stopping costs.

--split-top K adds, beside each score run of a score case, a run of the same
binary with "--split --split-top K" and reports per case its CPU, wall and
peak, the split's own CPU (over the plain run), the nodes split, the clones
(groups beyond a node's first), the most groups of one node and the mean
degree of the nodes split: on sbm and flat cases, what splitting the top
costs with hubs and without.`,
		Example: `  go build -o fondue-neo4j ./cmd/fondue-neo4j
  fondue-bench scale --binary ./fondue-neo4j --cases sbm:1000000:20 --double-epochs
  fondue-bench scale --binary ./fondue-neo4j --cases file:condmat05.edges --baseline ./old-fondue-neo4j --repeats 3
  fondue-bench scale --binary ./fondue-neo4j --cases kg:330000:4
  fondue-bench scale --binary ./fondue-neo4j --cases sbm:100000:20,flat:100000:20 --split-top 1000
  fondue-bench scale --cases sbm:1000000:20,sbm:10000000:20 --compare bench/scale-results/sizes.json
  fondue-bench scale --binary ./fondue-neo4j --baseline ./old-fondue-neo4j --cases neo4j:sbm:1000000:20 --repeats 3 --neo4j-versions 5.26`,
		RunE: func(cmd *cobra.Command, args []string) error {
			// --seed and --threads are the settings' flags (checked as
			// theirs), but scale reads the flags alone: the seed of its
			// graphs is not the engine's seed of the configuration.
			seed, _ := cmd.Flags().GetUint64("seed")
			threads, _ := cmd.Flags().GetInt("threads")
			cfg := scale.Config{Ratio: ratio, Seed: seed, Repeats: repeats, CacheDir: cacheDir,
				Baseline: baseline, DoubleEpochs: double, Threads: threads, Log: a.stderr, ExtraArgs: args, SplitTop: splitTop,
				Live: scale.LiveConfig{Heap: heap, PageCache: pageCache, SplitTop: splitTop, SyncArgs: syncArgs,
					Faults: faults, FaultEpochs: faultEpochs, GDSRepeats: gdsRepeats, Nights: nights, LogDir: filepath.Join(out, "logs")}}
			if neo4jVersions != "" {
				t := os.Getenv(neo4jtest.EnvVersions)
				os.Setenv(neo4jtest.EnvVersions, neo4jVersions)
				vs, err := neo4jtest.SelectedVersions()
				os.Setenv(neo4jtest.EnvVersions, t)
				if err != nil {
					return cli.UsageErrorf("--neo4j-versions: %v", err)
				}
				cfg.Live.Versions = vs
			}
			for _, c := range strings.Split(cases, ",") {
				sc, err := scale.ParseCase(strings.TrimSpace(c))
				if err != nil {
					return cli.UsageErrorf("--cases: %v", err)
				}
				if err := sc.Resolve(func() (string, error) { return setup.FindDataDir(dataDir) }); err != nil {
					return cli.UsageErrorf("--cases: %v", err)
				}
				cfg.Cases = append(cfg.Cases, sc)
			}
			if cfg.CacheDir == "" {
				dir, err := os.UserCacheDir()
				if err != nil {
					return cli.UsageErrorf("--cache-dir: %v", err)
				}
				cfg.CacheDir = filepath.Join(dir, "fondue-neo4j", "scale")
			}
			var err error
			if cfg.Binary, err = scoreBinary(binary); err != nil {
				return err
			}
			if baseline != "" {
				if _, err := os.Stat(baseline); err != nil {
					return cli.UsageErrorf("--baseline: %v", err)
				}
			}
			var previous []scale.Run
			if compare != "" {
				if previous, err = scale.ReadJSON(compare); err != nil {
					return cli.UsageErrorf("--compare: %v", err)
				}
			}
			// The first file that has a case and binary wins.
			taken := map[[2]string]bool{}
			for _, path := range strings.Split(reuse, ",") {
				if path = strings.TrimSpace(path); path == "" {
					continue
				}
				rs, err := scale.ReadRuns(path)
				if err != nil {
					return cli.UsageErrorf("--reuse: %v", err)
				}
				live, servers, faults, err := scale.ReadLive(path)
				if err != nil {
					return cli.UsageErrorf("--reuse: %v", err)
				}
				cfg.ReuseLive = append(cfg.ReuseLive, live...)
				cfg.ReuseServers = append(cfg.ReuseServers, servers...)
				cfg.ReuseFaults = append(cfg.ReuseFaults, faults...)
				fromHere := map[[2]string]bool{}
				for _, r := range rs {
					if k := [2]string{r.Case, r.Binary}; !taken[k] {
						cfg.Reuse = append(cfg.Reuse, r)
						fromHere[k] = true
					}
				}
				for k := range fromHere {
					taken[k] = true
				}
			}
			fmt.Fprintf(a.stderr, "measuring %s\n", cfg.Binary)
			res, err := scale.Execute(cmd.Context(), cfg)
			if len(res.Runs) > 0 || len(res.Live) > 0 || len(res.Nights) > 0 {
				res.Runs = append(res.Runs, previous...)
				host, _ := os.Hostname()
				header := fmt.Sprintf("# fondue-bench scale\n\nCommand: `fondue-bench %s`\n\nBinary: `%s`\n\nMachine: %s, %s/%s, %d cores (GOMAXPROCS %d), %s.",
					strings.Join(os.Args[1:], " "), cfg.Binary, host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), time.Now().UTC().Format("2006-01-02"))
				if rerr := scale.Report(out, res, header, cfg); rerr != nil && err == nil {
					err = rerr
				}
				fmt.Fprintf(a.stderr, "results in %s\n", out)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&cases, "cases", defaultScaleCases, "comma-separated cases: sbm:NODES:DEGREE, flat:NODES:DEGREE, kg:NODES:DEGREE or file:PATH")
	f.Float64Var(&ratio, "ratio", 0.01, "fraction of nodes merged into planted ambiguous pairs")
	f.IntVar(&repeats, "repeats", 1, "runs per case and binary (medians are reported)")
	f.StringVar(&cacheDir, "cache-dir", "", "where generated graphs are kept (default: the user cache dir)")
	f.StringVar(&binary, "binary", "", "the fondue-neo4j binary to measure (default: the one beside this program, else on $PATH)")
	f.StringVar(&baseline, "baseline", "", "another fondue-neo4j binary to run on the same inputs, for speed ratios")
	f.StringVar(&compare, "compare", "", "an earlier run's results.json, drawn and compared beside this run")
	f.StringVar(&reuse, "reuse", "", "earlier results.json files (comma-separated): their runs of these cases are reported instead of being run again (the first file wins)")
	f.BoolVar(&double, "double-epochs", false, "also run each case with twice the epochs and no early stop")
	f.StringVar(&out, "output-dir", "bench-scale-out", "folder of the reports")
	f.StringVar(&neo4jVersions, "neo4j-versions", "", "live cases: the test servers to run on, comma-separated versions or prefixes (default: all, 5.26 and 2026.01)")
	f.StringVar(&heap, "neo4j-heap", "2g", "live cases: each server's JVM heap")
	f.StringVar(&pageCache, "neo4j-page-cache", "1g", "live cases: each server's page cache")
	f.IntVar(&splitTop, "split-top", 0, "score cases: also run score --split --split-top K beside each score run and report the split's own cost (0: off); live cases: sync's --split-top (0: 1000; score runs with the same)")
	f.StringArrayVar(&syncArgs, "sync-arg", nil, "live cases: a flag added to every sync of --binary (not of --baseline); repeat for several, e.g. --sync-arg=--write-concurrency=2")
	f.BoolVar(&faults, "faults", false, "live cases: after the measurements, run the fault scenarios on each server")
	f.IntVar(&faultEpochs, "fault-epochs", 0, "live cases: epochs of the fault scenarios' long compute (no early stop; 0: as many as 2.5 lock TTLs of compute take at the case's measured speed)")
	f.IntVar(&gdsRepeats, "gds-repeats", 3, "live cases: runs of each GDS reference")
	f.BoolVar(&nights, "nights", false, "live cases: instead of GDS and the measured syncs, nightly runs with a state file: a first night, then second nights after 0%, 0.1% and 1% of the relationships changed, each compared with score on the same graph (on a kg case: the WROTE relationships, no score)")
	f.StringVar(&dataDir, "data-dir", "", "datasets folder for file: cases given by bare name (default: $"+setup.DataDirEnv+", else "+setup.DefaultDataDir+")")
	cli.AddSettingFlags(cmd, scaleKeys, "seed", "threads")
	return cmd
}

// scoreBinary returns the fondue-neo4j to measure: the --binary given,
// else the fondue-neo4j beside this program, else the one on $PATH.
func scoreBinary(flag string) (string, error) {
	if flag != "" {
		if _, err := os.Stat(flag); err != nil {
			return "", cli.UsageErrorf("--binary: %v", err)
		}
		return flag, nil
	}
	if exe, err := os.Executable(); err == nil {
		if p, err := exec.LookPath(filepath.Join(filepath.Dir(exe), "fondue-neo4j")); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("fondue-neo4j")
	if errors.Is(err, exec.ErrNotFound) {
		return "", cli.UsageErrorf("no fondue-neo4j to measure beside this program or on $PATH: build one (go build -o fondue-neo4j ./cmd/fondue-neo4j) and give --binary ./fondue-neo4j")
	}
	return p, err
}
