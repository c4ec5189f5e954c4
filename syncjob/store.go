package syncjob

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// Store is where the sync job reads the graph, writes scores and keeps
// its records: Neo4j (package connector), or an in-memory graph (package
// memstore). It gives primitives only; the loops that use them (write the
// scores, split, undo, resume) are this package's, written once for every
// store. Every method takes a context first and returns errors of the
// kinds in errors.go (ErrAuth, ErrUnreachable, ErrEmpty, ErrLocked,
// ErrInvalid) where a caller must tell them apart.
type Store interface {
	Locker
	Source
	Sink
	Recorder
	Graph
}

// Locker takes the lock that keeps two runs from writing at once.
type Locker interface {
	// Lock takes the lock named o.Name, or fails with ErrLocked saying
	// which run holds it. While the lock is held, every write of the store
	// checks first that it still holds it (fencing) and fails with
	// ErrLocked (wrapping ErrLockLost) if not.
	Lock(ctx context.Context, o LockOptions) (Lock, error)
}

// Lock is a held lock.
type Lock interface {
	// Context is cancelled if the lock is lost, with cause ErrLockLost (or
	// an ErrUnreachable error wrapping it when the store could not be
	// reached to refresh it).
	Context() context.Context
	// Release gives the lock back (if it is still ours). It works even
	// when the lock's context was cancelled.
	Release(ctx context.Context) error
}

// Source reads the subgraph to score.
type Source interface {
	// Pull reads the subgraph that o selects, with Subgraph.Targets set
	// from o.WriteNodeLabels (Subgraph.SelectTargets). An empty selection
	// wraps ErrEmpty, and so does a write label that no node has; bad
	// names, queries and keys wrap ErrInvalid.
	Pull(ctx context.Context, o PullOptions) (*Subgraph, error)
}

// Sink writes properties of nodes in batches (WriteScores is the loop).
type Sink interface {
	// WriteBatch sets the properties of a batch of nodes in one
	// transaction, fenced by the lock, and is idempotent. A node is
	// found by its id, then checked by its key and labels (Batch): a node
	// gone since the pull, or whose key or labels changed, is written
	// nowhere and counted missing.
	WriteBatch(ctx context.Context, b *Batch) (BatchResult, error)
}

// Batch is a batch of node properties for Sink.WriteBatch.
type Batch struct {
	IDs []keys.Key // the nodes
	// Keys, when KeyProperty is set, are the nodes' keys, checked.
	KeyProperty string
	Keys        []keys.Key
	// Labels, when set, are checked: a node must have one of them.
	Labels []string
	// Props are the properties written, Values[k][i] the value of Props[k]
	// for node i (nil removes it).
	Props  []string
	Values [][]any
	// Doing says what the batch is, for messages ("writing batch 2 of 9").
	Doing string
}

// BatchResult says what a WriteBatch did.
type BatchResult struct {
	// Written counts the nodes found and written; Set those of them whose
	// first property's value is not nil.
	Written, Set int
	// Missing names some of the nodes not found (their keys, else ids).
	Missing []keys.Key
}

// Recorder keeps the record of each run: its split plan (what undo and a
// resumed run read), the review decisions later runs remember, and
// whether the run finished. The record is a node of the store with
// RunLabel (not part of any pull).
type Recorder interface {
	// AddRecord stores r unless the run has a record already, and returns
	// the stored one when it is another (nil when r was stored, or one
	// equal to it: a plan is tens of megabytes).
	AddRecord(ctx context.Context, r Record) (*Record, error)
	// Record returns the record of a run, with its plan, or nil.
	Record(ctx context.Context, runID string) (*Record, error)
	// Records returns every record without its plan, by run id.
	Records(ctx context.Context) ([]Record, error)
	// FinishRecord marks the record of a run finished (Record.Unfinished
	// false), if it has one.
	FinishRecord(ctx context.Context, runID string) error
	// DeleteRecord deletes the record of a run, if any.
	DeleteRecord(ctx context.Context, runID string) error
	// ClearDecisions removes the decisions of run runID ("": of every
	// run) from the records, keeping the records.
	ClearDecisions(ctx context.Context, runID string) error
}

// Record is the record of a run.
type Record struct {
	RunID string
	Plan  []byte // splitplan.Plan.Marshal
	// CreatedAt is when the plan was made (ISO 8601); Approved and
	// ReviewedAt, for an approved plan, its fingerprint and review time.
	CreatedAt, Approved, ReviewedAt string
	Decisions                       []byte // splitplan.MarshalDecisions; nil: none
	// Unfinished is set from AddRecord until FinishRecord: the run's loop
	// (a split, a merge) has not completed, it is running or it stopped
	// (killed, the store lost) and the next run resumes or undoes it.
	// Records written before it existed read as finished.
	Unfinished bool
}

// NameChecker is implemented by stores that restrict the names of labels,
// relationship types and properties (Neo4j: no control characters, no
// Unicode escapes). Sync and Apply check every name of their options with
// it before they read or write anything, so that a bad name fails the run
// at once, never after the scores were written.
type NameChecker interface {
	CheckName(name string) error
}

// Defaults.
const (
	DefaultLockName = "fondue-neo4j"
	DefaultLockTTL  = 2 * time.Minute
	// MinLockTTL is the shortest LockOptions.TTL a store accepts.
	MinLockTTL           = 3 * time.Second
	DefaultWriteProperty = "ambiguity"
	DefaultScoreProperty = "ambiguity_score"
	// DefaultEntitiesProperty is the property of the estimated number of
	// entities (WriteOptions.EntitiesProperty) that the CLI writes.
	DefaultEntitiesProperty = "ambiguity_entities"
	DefaultRunProperty      = "fondue_run"
	DefaultBatchSize        = 10000
	// DefaultWriteConcurrency is WriteOptions.Concurrency's default.
	DefaultWriteConcurrency = 1
	// DefaultMarkerLabel is the label added to the nodes a split creates.
	DefaultMarkerLabel = "FondueSplit"
	// DefaultTopNodes is the number of most ambiguous nodes a summary lists.
	DefaultTopNodes = 10
)

// Labels of fondue-neo4j's own bookkeeping nodes. A pull of all nodes
// leaves them out.
const (
	LockLabel = splitplan.LockLabel // the lock of a running sync
	RunLabel  = splitplan.RunLabel  // the split plan of a run (StorePlan)
	// MergedLabel is the record of a node a merge took out (Merge).
	MergedLabel = splitplan.MergedLabel
)

// LockOptions configure Locker.Lock.
type LockOptions struct {
	// Name of the lock (default "fondue-neo4j"): runs with the same name
	// exclude each other.
	Name string
	// TTL is how long the lock outlives its last refresh (default 2
	// minutes). The holder refreshes it every TTL/3, so a live run keeps
	// it however long it takes, and the lock of a crashed run expires
	// after at most TTL, when the next run takes it over.
	TTL time.Duration
	// RunID is recorded on the lock, for the message another run prints.
	RunID string
}

// PullOptions choose the subgraph to score, like a GDS projection: either
// node labels and relationship types (native projection), or two Cypher
// queries (Cypher projection).
type PullOptions struct {
	// NodeLabels selects the nodes with any of these labels; empty: every
	// node (except fondue-neo4j's bookkeeping nodes).
	NodeLabels []string
	// RelationshipTypes selects relationships of any of these types between
	// selected nodes; empty: every type but ExcludeTypes.
	RelationshipTypes []string
	// ExcludeTypes are never pulled without RelationshipTypes: the
	// relationships fondue-neo4j writes itself (DuplicateOptions.Type).
	ExcludeTypes []string

	// NodeQuery and RelationshipQuery replace the labels and types. The
	// node query returns a column id, the element id of each node
	// (elementId(n)), plus a column key with the node's key when IDProperty
	// is set. The relationship query returns columns source and target,
	// element ids of nodes the node query returned (pairs with another end
	// are ignored and counted), and optionally relationship, the element id
	// of the relationship (elementId(r)): a split of a Cypher projection
	// needs it, so that it moves only the relationships that were pulled.
	NodeQuery, RelationshipQuery string

	// IDProperty, when set, is a node property that identifies each node:
	// integers or strings, unique, present on every selected node (except
	// clones made by a split, which carry MarkerLabel and get no key; they
	// are left out). Nodes are then numbered, hence scored, in key order,
	// exactly like an edge list with these ids. Without it, internal ids
	// identify nodes (docs/neo4j.md says how stable they are).
	IDProperty string
	// MarkerLabel is the label of split clones (default "FondueSplit").
	MarkerLabel string
	// EmbeddingProperty, when set, is read with the nodes: a saved
	// embedding (a list of numbers) to warm-start from (WriteOptions writes
	// it). Custom node queries may return it as a column "embedding".
	EmbeddingProperty string
	// DisplayProperties, when set, are read with the nodes: a name to show
	// people, the first of these properties that a node has (e.g. "name",
	// "title": persons by their name, movies by their title), carried into
	// split plans and the summary (Subgraph.Names). Custom node queries may
	// return it as a column "display".
	DisplayProperties []string
	// WriteNodeLabels chooses the pulled nodes that are scored, written
	// and split (write.node_labels, GDS's label filter of a write): those
	// with any of these labels. The other pulled nodes are context: they
	// shape the embedding and the neighbourhoods but get no score, are
	// never ranked, written or split. In (:Author)-[:WROTE]->(:Paper),
	// WriteNodeLabels [Author] scores the authors with the papers as
	// context. Empty: every pulled node. Each label must be one of
	// NodeLabels when those are given (CheckWriteLabels: ErrInvalid) and
	// exist in the database (ErrEmpty); a Cypher projection's node query
	// must return the labels (labels(n) AS labels).
	WriteNodeLabels []string
	// EvidenceProperties are read with the nodes (graph.evidence_properties):
	// what the graph says about a node besides its links, which the engine
	// weighs to tell which pieces of a neighbourhood are one entity
	// (Subgraph.Context). A Cypher projection's node query returns each as
	// a column of the property's name (n.title AS title).
	EvidenceProperties []string
	// ReadBack are properties read back as numbers with the nodes
	// (Subgraph.ReadBack): what the last run wrote (the ambiguity, raw
	// score and entities), so that WriteScores writes only the nodes whose
	// values changed. Sync sets them from WriteOptions. A Cypher
	// projection's node query may return them as a column written, a list
	// in this order ([n.ambiguity, n.ambiguity_score, ...]); without it,
	// every node is written.
	ReadBack []string

	// Progress, when set, is called now and then with the rows read so far.
	Progress func(nodes, relationships int)
}

// PullsType reports whether relationships of type typ are pulled (a
// Cypher projection's query chooses its own).
func (o PullOptions) PullsType(typ string) bool {
	if len(o.RelationshipTypes) > 0 {
		return slices.Contains(o.RelationshipTypes, typ)
	}
	return !slices.Contains(o.ExcludeTypes, typ)
}

// Custom reports whether the subgraph is chosen by Cypher queries.
func (o PullOptions) Custom() bool { return o.NodeQuery != "" || o.RelationshipQuery != "" }

// CheckWriteLabels refuses (ErrInvalid) a write label that is not one of
// NodeLabels, when those are given: only pulled nodes can be scored.
func (o PullOptions) CheckWriteLabels() error {
	if len(o.NodeLabels) == 0 {
		return nil
	}
	for _, l := range o.WriteNodeLabels {
		if !slices.Contains(o.NodeLabels, l) {
			return Errorf(ErrInvalid, nil, "PullOptions.WriteNodeLabels: label %q is not one of PullOptions.NodeLabels (%s): only the nodes pulled can be scored",
				l, strings.Join(o.NodeLabels, ", "))
		}
	}
	return nil
}

// Subgraph is the pulled graph with the Neo4j identity of each node.
type Subgraph struct {
	Graph *graph.Graph
	// Unnamed, when some nodes have none of Options.DisplayProperties,
	// describes them; nil otherwise.
	Unnamed *Unnamed
	// IDs[i] is the element id (a string key) of graph node i.
	IDs []keys.Key
	// RelationshipIDs holds, for a Cypher projection whose relationship
	// query returns the column relationship, the element ids of the
	// relationships pulled between two nodes (keyed by their element ids,
	// the smaller first); nil otherwise.
	RelationshipIDs map[[2]string][]string
	// Keys[i] is the IDProperty value of graph node i (an integer or a
	// string); nil without IDProperty.
	Keys []keys.Key
	// Embeddings[i] is node i's saved vector (PullOptions.EmbeddingProperty),
	// nil when it has none or it is not a list of numbers.
	Embeddings [][]float64
	// Names[i] is node i's name (PullOptions.DisplayProperties) as text
	// ("" when it has none of them); nil without DisplayProperties.
	Names []string
	// LabelSets are the distinct sets of labels of the nodes, and
	// LabelSet[i] is node i's (an index into LabelSets); both nil when the
	// labels were not read (a Cypher projection whose node query returns
	// no column labels). See NodeLabels.
	LabelSets [][]string
	LabelSet  []int32
	// Targets are the nodes scored, written and split: Targets[i] is set
	// for the nodes with one of Options.WriteNodeLabels; nil (every node)
	// without them. The others are context (see WriteNodeLabels).
	Targets []bool
	// Context is what the graph says about the nodes besides the links:
	// their kinds (labels) and EvidenceProperties, for the engine
	// (fondue.Options.Context); nil when it says nothing more (no evidence
	// properties, and one kind or the labels unknown). See NewContext.
	Context *evidence.Context
	// ReadBack[k][i] is the value of Options.ReadBack[k] on node i when
	// pulled, NaN when it had none (or not a number); nil when not read.
	ReadBack [][]float64
	Options  PullOptions
	Stats    PullStats
}

// ReadBackNumber is a value read back as a number: NaN when it is
// missing or not a number.
func ReadBackNumber(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case int:
		return float64(x)
	}
	return math.NaN()
}

// NewReadBack makes Subgraph.ReadBack for n nodes of o (nil without
// o.ReadBack), every value NaN until set (SetReadBack).
func NewReadBack(n int, o PullOptions) [][]float64 {
	if len(o.ReadBack) == 0 {
		return nil
	}
	rb := make([][]float64, len(o.ReadBack))
	for k := range rb {
		rb[k] = make([]float64, n)
		for i := range rb[k] {
			rb[k][i] = math.NaN()
		}
	}
	return rb
}

// SetReadBack sets node i's read-back values from vals (a value per
// ReadBack property, as read: numbers, anything else is NaN).
func SetReadBack(rb [][]float64, i int, vals []any) {
	for k := range rb {
		if k < len(vals) {
			rb[k][i] = ReadBackNumber(vals[k])
		}
	}
}

// SelectTargets sets Targets from Options.WriteNodeLabels (nil without
// them), as every Store's Pull does. It fails with ErrInvalid when the
// labels were not read (a Cypher projection whose node query returns no
// column labels) and with ErrEmpty when no pulled node has a write label,
// or none of those that have one has a relationship in the subgraph:
// nothing to score.
func (s *Subgraph) SelectTargets() error {
	s.Targets = nil
	want := s.Options.WriteNodeLabels
	if len(want) == 0 {
		return nil
	}
	if s.LabelSet == nil {
		return Errorf(ErrInvalid, nil, "the write node labels need the nodes' labels: the node query must also return labels(n) AS labels")
	}
	inSet := make([]bool, len(s.LabelSets))
	for k, labels := range s.LabelSets {
		inSet[k] = slices.ContainsFunc(labels, func(l string) bool { return slices.Contains(want, l) })
	}
	t := make([]bool, len(s.LabelSet))
	for i, set := range s.LabelSet {
		t[i] = inSet[set]
	}
	targets, linked := fondue.CountTargets(s.Graph, t)
	quoted := make([]string, len(want))
	for k, l := range want {
		quoted[k] = strconv.Quote(l)
	}
	what := "label " + strings.Join(quoted, " or ")
	switch {
	case targets == 0:
		return Errorf(ErrEmpty, nil, "nothing to score: none of the %d pulled nodes has the %s (the write node labels)", len(t), what)
	case linked == 0:
		return Errorf(ErrEmpty, nil, "nothing to score: none of the %d pulled nodes with the %s (the write node labels) has a relationship in the subgraph", targets, what)
	}
	s.Targets = t
	return nil
}

// IsTarget reports whether node i is scored and written (see Targets).
func (s *Subgraph) IsTarget(i int) bool { return s.Targets == nil || s.Targets[i] }

// NodeLabels returns node i's labels, nil when they were not read.
func (s *Subgraph) NodeLabels(i int) []string {
	if s.LabelSet == nil {
		return nil
	}
	return s.LabelSets[s.LabelSet[i]]
}

// LabelIndex interns label sets for Subgraph.LabelSets: the zero value is
// ready to use.
type LabelIndex struct {
	Sets [][]string
	ids  map[string]int32
}

// Add returns the index of a set of labels (in the order given), adding
// it if it is new.
func (x *LabelIndex) Add(labels []string) int32 {
	if x.ids == nil {
		x.ids = map[string]int32{}
	}
	var b strings.Builder
	for _, l := range labels { // length-prefixed: any label text is a distinct key
		b.WriteString(strconv.Itoa(len(l)))
		b.WriteByte(':')
		b.WriteString(l)
	}
	k := b.String()
	if i, ok := x.ids[k]; ok {
		return i
	}
	i := int32(len(x.Sets))
	x.Sets = append(x.Sets, slices.Clone(labels))
	x.ids[k] = i
	return i
}

// Key returns node i's identity for users: its key, or its internal id.
func (s *Subgraph) Key(i int) keys.Key {
	switch {
	case s.Keys != nil:
		return s.Keys[i]
	case s.IDs == nil: // read from a file: the graph's own keys
		return keys.OfGraph(s.Graph, i)
	}
	return s.IDs[i]
}

// PullStats describe a pull.
type PullStats struct {
	NodeRows, RelationshipRows int // rows read
	// Dangling counts relationship rows with an end outside the node set.
	Dangling int
	// SelfLoops and Parallel count self-loops dropped and parallel or
	// opposite relationships collapsed into one undirected edge.
	SelfLoops, Parallel int
	// KeylessClones counts split clones left out because they have no key.
	KeylessClones int
	// Embeddings counts nodes with a saved embedding; BadEmbeddings those
	// whose EmbeddingProperty was not a list of numbers (ignored).
	Embeddings, BadEmbeddings int
	// EvidenceTextBytes counts the bytes of the evidence properties' text
	// values kept (Subgraph.Context), for the memory estimate.
	EvidenceTextBytes int64
	Duration          time.Duration
}

// Unnamed describes the nodes of a subgraph with none of
// PullOptions.DisplayProperties (none without them): their number, their
// labels, and the text properties that a sample of them has, most common
// first: what would name them.
type Unnamed struct {
	Nodes      int
	Labels     []string
	Properties []string
}

// WriteOptions configure WriteScores.
type WriteOptions struct {
	// Property receives each node's ambiguity, its percentile in (0, 1]
	// (fondue.Result.Ambiguity): "ambiguity > 0.99" is the top 1%.
	Property string
	// ScoreProperty receives the raw score (fondue.Result.Scores); empty:
	// not written.
	ScoreProperty string
	// EntitiesProperty receives the estimated number of real entities
	// behind the node, an integer of at least 1 (fondue.Result.Entities);
	// empty: not written.
	EntitiesProperty string
	// RunProperty receives RunID; empty: not written.
	RunProperty string
	RunID       string
	// BatchSize is the number of nodes per transaction (default 10,000).
	BatchSize int
	// Concurrency is the number of batches written at once (default 1).
	// Batches touch disjoint nodes, so they cannot deadlock.
	Concurrency int
	// EmbeddingProperty, when set, receives each node's embedding vector
	// from the result (for the next run's warm start; nodes without a score
	// get none).
	EmbeddingProperty string
	// All writes every node. Otherwise, when the pull read the values back
	// (PullOptions.ReadBack holds Property, ScoreProperty and
	// EntitiesProperty), only the nodes whose values changed are written
	// (Unchanged): an unchanged node keeps its values and its RunProperty,
	// the run that last changed them.
	All bool
	// Progress, when set, is called after each batch with the nodes written
	// so far and the total (from one goroutine at a time).
	Progress func(done, total int)
}

// AmbiguityTolerance bounds how far a node's written ambiguity may be from
// its computed one before the node is written again: a node is rewritten
// when its ambiguity moved by more than AmbiguityTolerance times its
// distance to 1 (its top fraction, 1 - ambiguity, the larger of the old
// and the new). A query "ambiguity > t" then returns every node of the
// true top (1-t)(1-AmbiguityTolerance) and none outside the true top
// (1-t)/(1-AmbiguityTolerance): for t = 0.99, between the top 0.95% and
// 1.053%. The most ambiguous nodes, near 1, are kept the most exact.
// Entities are rewritten whenever they change. The raw score is written
// with the ambiguity and not compared: the default method's is a
// combination of ranks, which moves a little for every node when a few
// scores move, as the percentiles do. sync --full (WriteOptions.All)
// rewrites everything.
const AmbiguityTolerance = 0.05

// AmbiguityUnchanged reports whether a written ambiguity old and a computed one
// new agree within AmbiguityTolerance (both NaN: no score, agree).
func AmbiguityUnchanged(old, new float64) bool {
	if math.IsNaN(old) || math.IsNaN(new) {
		return math.IsNaN(old) && math.IsNaN(new)
	}
	return math.Abs(new-old) <= AmbiguityTolerance*(1-min(old, new))
}

// WriteStats describe a write, in GDS terms.
type WriteStats struct {
	// Nodes is the number of nodes found and written.
	Nodes int
	// PropertiesWritten counts the score properties set (ambiguity, raw
	// score and entities; not the run id). Isolated nodes have no score:
	// their score properties are removed instead.
	PropertiesWritten int
	// Missing counts nodes that were not found any more (deleted since the
	// pull, or their key or labels changed); MissingKeys names some of them
	// (keys, or element ids; at most 100).
	Missing     int
	MissingKeys []keys.Key
	// Unchanged counts the nodes not written because the values they hold
	// are the computed ones (WriteOptions.All); Compared says whether the
	// values were compared at all (they were read back by the pull).
	Unchanged int
	Compared  bool
	Batches   int
	Duration  time.Duration
}

// UndoOptions configure Undo, and UndoSplits (which reads RunID,
// MarkerLabel, Progress and Log; Lock is Undo's).
type UndoOptions struct {
	RunID string
	// MarkerLabel is the label of the run's clones (default
	// DefaultMarkerLabel). The package's Undo takes it from the run's
	// record when the record has it (this field is then only a fallback,
	// for records written before they held it).
	MarkerLabel string
	Progress    func(done, total int)
	// Lock names the lock (held as "undo RUNID").
	Lock LockOptions
	// Log receives what the run does (default: nothing).
	Log *slog.Logger
}

// UndoStats summarize Undo.
type UndoStats struct {
	Originals     int `json:"originals"`     // split nodes found
	Restored      int `json:"restored"`      // restored now
	ClonesDeleted int `json:"clonesDeleted"` // clones deleted
	// Unmerged counts the merged nodes restored (a merge run; Originals
	// and Restored then count survivors).
	Unmerged           int                     `json:"unmerged,omitempty"`
	RelationshipsMoved int                     `json:"relationshipsMoved"`
	Failed             []splitplan.NodeOutcome `json:"failed,omitempty"`
	// MarkerLabel is the label the run's clones were found by (the
	// package's Undo: the run record's).
	MarkerLabel string `json:"markerLabel,omitempty"`
	// NotRestored counts the nodes of the run's record that still carry
	// its split mark after the undo (their clones were not found): the
	// record is then kept.
	NotRestored int           `json:"notRestored,omitempty"`
	Duration    time.Duration `json:"-"`
}
