// Package metrics reports a run of sync or undo to Prometheus: pushed to a
// Pushgateway, written to a textfile for the node exporter, or both. The
// values come from the run's summary (syncjob.Summary, syncjob.UndoStats)
// and the exit code the process exits with; the format is client_golang's.
//
// A failed run keeps the last success: on the Pushgateway the last success
// time lives in a group of its own, replaced only by a successful run; in a
// textfile it is read back from the file the run replaces.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/push"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Options say where a run is reported; the zero value reports nowhere.
type Options struct {
	// PushgatewayURL is the Pushgateway's base URL ("": no push).
	PushgatewayURL string
	// Job is the Pushgateway job name (default DefaultJob).
	Job string
	// Textfile is the node exporter textfile to write ("": none).
	Textfile string
	// Client sends the pushes (default http.DefaultClient).
	Client push.HTTPDoer
}

// DefaultJob is the Pushgateway job name by default.
const DefaultJob = "fondue-neo4j"

// SuccessGroupLabel is the grouping label of the Pushgateway group that
// holds the last success time (value "success"), apart from the group of
// the run's other metrics, which every run replaces.
const SuccessGroupLabel = "result"

// Run is one run of sync or undo.
type Run struct {
	Command  string // "sync" or "undo"
	Database string // neo4j.database ("" : the server's default)
	Start    time.Time
	End      time.Time
	ExitCode int
	// Sync is the sync's summary (nil when the run stopped before it had
	// one); Undo the undo's counts (nil for a sync).
	Sync *syncjob.Summary
	Undo *syncjob.UndoStats
}

// Success is whether the run succeeded (exit code 0).
func (r Run) Success() bool { return r.ExitCode == 0 }

// The metric names.
const (
	LastRun     = "fondue_neo4j_last_run_timestamp_seconds"
	LastSuccess = "fondue_neo4j_last_success_timestamp_seconds"
	ExitCode    = "fondue_neo4j_last_exit_code"
	Duration    = "fondue_neo4j_last_run_duration_seconds"
	Phase       = "fondue_neo4j_phase_duration_seconds"
)

// family is one metric: its name, help and labels beyond the run's scope.
type family struct {
	name, help string
	labels     []string
}

// families are every metric a run reports, all gauges.
var families = []family{
	{LastRun, "Unix time the last run ended.", nil},
	{LastSuccess, "Unix time the last successful run (exit code 0) ended.", nil},
	{ExitCode, "Exit code of the last run (0 success; see docs/exit-codes.md).", nil},
	{Duration, "Wall time of the last run.", nil},
	{Phase, "Wall time of each phase of the last run: pull, score (embedding and scoring), write, split, undo.", []string{"phase"}},
	{"fondue_neo4j_pulled_nodes", "Nodes the last sync pulled.", nil},
	{"fondue_neo4j_pulled_relationships", "Relationships the last sync pulled.", nil},
	{"fondue_neo4j_scored_nodes", "Nodes the last sync scored.", nil},
	{"fondue_neo4j_context_nodes", "Nodes the last sync pulled as context, not scored (write.node_labels).", nil},
	{"fondue_neo4j_unscored_nodes", "Isolated nodes the last sync pulled to score: no score.", nil},
	{"fondue_neo4j_label_nodes", "Nodes of each label in the last sync, by state: scored, unscored (isolated) or context.", []string{"label", "state"}},
	{"fondue_neo4j_epochs", "CNE epochs the last sync ran.", nil},
	{"fondue_neo4j_warm_start_nodes", "Nodes of the last sync that resumed a saved embedding.", nil},
	{"fondue_neo4j_split_planned_nodes", "Nodes the last sync planned to split.", nil},
	{"fondue_neo4j_split_nodes", "Nodes the last sync split.", nil},
	{"fondue_neo4j_split_clones", "Nodes the last sync's splits created.", nil},
	{"fondue_neo4j_split_relationships_moved", "Relationships the last sync's splits moved.", nil},
	{"fondue_neo4j_split_skipped_nodes", "Planned nodes the last sync left alone: changed or missing.", nil},
	{"fondue_neo4j_split_failed_nodes", "Planned nodes whose split failed and was rolled back in the last sync.", nil},
	{"fondue_neo4j_undo_restored_nodes", "Nodes the last undo restored.", nil},
	{"fondue_neo4j_undo_clones_deleted", "Split nodes the last undo deleted.", nil},
	{"fondue_neo4j_undo_relationships_moved", "Relationships the last undo moved back.", nil},
	{"fondue_neo4j_undo_failed_nodes", "Nodes the last undo could not restore.", nil},
}

// scopeLabels name the run in a textfile; on the Pushgateway they are the
// group's labels instead.
var scopeLabels = []string{"command", "database"}

// set is a registry with a gauge vector per family, whose label names
// start with scope.
type set struct {
	reg   *prometheus.Registry
	vecs  map[string]*prometheus.GaugeVec
	scope []string // the values of the scope labels
}

func newSet(scope []string, values []string, only func(name string) bool) *set {
	s := &set{reg: prometheus.NewRegistry(), vecs: map[string]*prometheus.GaugeVec{}, scope: values}
	for _, f := range families {
		if only != nil && !only(f.name) {
			continue
		}
		v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: f.name, Help: f.help}, append(slices.Clone(scope), f.labels...))
		s.reg.MustRegister(v)
		s.vecs[f.name] = v
	}
	return s
}

// put sets a gauge of the run's scope; labels are the family's own.
func (s *set) put(name string, v float64, labels ...string) {
	if vec := s.vecs[name]; vec != nil {
		vec.WithLabelValues(append(slices.Clone(s.scope), labels...)...).Set(v)
	}
}

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// fill sets the gauges of run r.
func (s *set) fill(r Run) {
	s.put(LastRun, unix(r.End))
	if r.Success() {
		s.put(LastSuccess, unix(r.End))
	}
	s.put(ExitCode, float64(r.ExitCode))
	s.put(Duration, r.End.Sub(r.Start).Seconds())
	ms := func(m int64) float64 { return float64(m) / 1000 }
	if sum := r.Sync; sum != nil {
		s.put(Phase, ms(sum.PreProcessingMillis), "pull")
		s.put(Phase, ms(sum.ComputeMillis), "score")
		s.put(Phase, ms(sum.WriteMillis), "write")
		s.put("fondue_neo4j_pulled_nodes", float64(sum.NodeCount))
		s.put("fondue_neo4j_pulled_relationships", float64(sum.RelationshipCount))
		s.put("fondue_neo4j_unscored_nodes", float64(sum.UnscoredNodes))
		s.put("fondue_neo4j_epochs", float64(sum.Epochs))
		s.put("fondue_neo4j_warm_start_nodes", float64(sum.WarmStartNodes))
		if sc := sum.Scored; sc != nil {
			s.put("fondue_neo4j_scored_nodes", float64(sc.Nodes))
			s.put("fondue_neo4j_context_nodes", float64(sc.Context))
			for label, c := range sc.Labels {
				s.put("fondue_neo4j_label_nodes", float64(c.Scored), label, "scored")
				s.put("fondue_neo4j_label_nodes", float64(c.Unscored), label, "unscored")
				s.put("fondue_neo4j_label_nodes", float64(c.Context), label, "context")
			}
		}
		if sp := sum.Split; sp != nil {
			s.put(Phase, ms(sum.SplitMillis), "split")
			s.put("fondue_neo4j_split_planned_nodes", float64(sp.Planned))
			s.put("fondue_neo4j_split_nodes", float64(sp.Split))
			s.put("fondue_neo4j_split_clones", float64(sp.NodesCreated))
			s.put("fondue_neo4j_split_relationships_moved", float64(sp.RelationshipsMoved))
			s.put("fondue_neo4j_split_skipped_nodes", float64(sp.Skipped))
			s.put("fondue_neo4j_split_failed_nodes", float64(sp.Failed))
		}
	}
	if u := r.Undo; u != nil {
		s.put(Phase, u.Duration.Seconds(), "undo")
		s.put("fondue_neo4j_undo_restored_nodes", float64(u.Restored))
		s.put("fondue_neo4j_undo_clones_deleted", float64(u.ClonesDeleted))
		s.put("fondue_neo4j_undo_relationships_moved", float64(u.RelationshipsMoved))
		s.put("fondue_neo4j_undo_failed_nodes", float64(len(u.Failed)))
	}
}

// Record reports run r where o says: a push to the Pushgateway and the
// textfile. Both are tried; the error joins their failures.
func Record(ctx context.Context, o Options, r Run) error {
	var errs []error
	if o.PushgatewayURL != "" {
		if err := Push(ctx, o, r); err != nil {
			errs = append(errs, fmt.Errorf("pushing the metrics to %s: %w", o.PushgatewayURL, err))
		}
	}
	if o.Textfile != "" {
		if err := WriteTextfile(o.Textfile, r); err != nil {
			errs = append(errs, fmt.Errorf("writing the metrics to %s: %w", o.Textfile, err))
		}
	}
	return errors.Join(errs...)
}

// Push pushes run r to the Pushgateway at o.PushgatewayURL, in the group
// {job, command, database} (database when set), replacing the group's
// metrics (PUT), so that nothing of an earlier run stays. The last success
// time is pushed, by a successful run only, to the group of the same
// labels plus result="success", which a failed run leaves alone.
func Push(ctx context.Context, o Options, r Run) error {
	job := o.Job
	if job == "" {
		job = DefaultJob
	}
	pusher := func(g prometheus.Gatherer) *push.Pusher {
		p := push.New(o.PushgatewayURL, job).Gatherer(g).Grouping("command", r.Command)
		if r.Database != "" {
			p = p.Grouping("database", r.Database)
		}
		if o.Client != nil {
			p = p.Client(o.Client)
		}
		return p
	}
	run := newSet(nil, nil, func(name string) bool { return name != LastSuccess })
	run.fill(r)
	if err := pusher(run.reg).PushContext(ctx); err != nil {
		return err
	}
	if !r.Success() {
		return nil
	}
	ok := newSet(nil, nil, func(name string) bool { return name == LastSuccess })
	ok.fill(r)
	return pusher(ok.reg).Grouping(SuccessGroupLabel, "success").PushContext(ctx)
}

// WriteTextfile writes run r to the node exporter textfile path, replaced
// whole (prometheus.WriteToTextfile: a temporary file renamed over it).
// Every metric carries the labels command and database. The series of
// other commands or databases in the file before are kept, so that sync and
// undo can share a file; so is this run's last success when r failed. A
// file that cannot be read back as metrics is an error: it is left as it
// is.
func WriteTextfile(path string, r Run) error {
	s := newSet(scopeLabels, []string{r.Command, r.Database}, nil)
	prev, err := readTextfile(path)
	if err != nil {
		return err
	}
	for name, mf := range prev {
		vec := s.vecs[name]
		if vec == nil || mf.GetType() != dto.MetricType_GAUGE {
			continue // not one of ours (any more)
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for _, n := range scopeLabels {
				labels[n] = labels[n] // an empty value may be left out
			}
			same := labels["command"] == r.Command && labels["database"] == r.Database
			if same && (name != LastSuccess || r.Success()) {
				continue // this run replaces it
			}
			if _, err := vec.GetMetricWith(labels); err == nil {
				vec.With(labels).Set(m.GetGauge().GetValue())
			}
		}
	}
	s.fill(r)
	return prometheus.WriteToTextfile(path, s.reg)
}

// readTextfile parses the metrics of a textfile; a missing file has none.
func readTextfile(path string) (map[string]*dto.MetricFamily, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(f)
	if err != nil {
		return nil, fmt.Errorf("the file before is not in the Prometheus text format (%v): move it away", err)
	}
	return mfs, nil
}
