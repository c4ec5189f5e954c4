package syncjob

import (
	"context"
	"errors"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// Graph is the store's graph, read and changed in transactions. The loops
// that change it (split, undo, resume) are this package's: a store gives
// the primitives of one transaction (Tx), nothing more.
type Graph interface {
	// Read runs fn in a read transaction (fn may run again when the store
	// retries it: it must have no other effect).
	Read(ctx context.Context, fn func(Tx) error) error
	// Write runs fn in one write transaction, all or nothing, fenced by
	// the lock: it fails with ErrLocked (wrapping ErrLockLost) before fn
	// writes anything when the store's lock is no longer held. doing says
	// what fn does, for messages ("splitting node 7 (1 of 3)"). Errors of
	// fn come back as they are (ErrChanged, a store's own failure); losing
	// the store wraps ErrUnreachable.
	Write(ctx context.Context, doing string, fn func(Tx) error) error
	// Unique makes property prop unique among the nodes with label (a
	// uniqueness constraint where the store has them).
	Unique(ctx context.Context, label, prop string) error
}

// Tx is one transaction of a Graph. Node and relationship ids are the
// store's (element ids in Neo4j); property values are the store's own
// (a store may have types of its own, such as Neo4j's dates and points):
// the loops read them and give them back, never convert them.
type Tx interface {
	// Nodes returns the nodes with these ids, in the order of ids, with
	// their labels and properties; a node not found is the zero Node.
	Nodes(ids []keys.Key) ([]Node, error)
	// Find returns the nodes that f selects, with their labels and
	// properties, in the store's order of ids.
	Find(f Filter) ([]Node, error)
	// Rels returns every relationship of the nodes ids, once per node (a
	// self-loop once, outgoing), with the other end's labels and its
	// properties named in props (those it has).
	Rels(ids []keys.Key, props []string) ([]Rel, error)
	// Lock takes node id's write lock for the rest of the transaction, so
	// that its relationships read next cannot change before the commit.
	Lock(id keys.Key) error
	// Create creates one node per row: a copy of node from's properties
	// (none when from is zero) without those named in skip, then the
	// row's properties (a nil value removes one), with these labels. It
	// returns their ids, in the order of rows; ErrChanged when from is
	// gone. A store may skip more properties (those a uniqueness
	// constraint covers for one of the labels: a copy would break it).
	Create(from keys.Key, skip, labels []string, rows []map[string]any) ([]keys.Key, error)
	// Move moves relationships from one node to another, with their type,
	// direction and properties, and returns their ids after the move, in
	// the order of ms (a store may give a moved relationship a new id);
	// ErrChanged when one is not where Move says (the graph moved under
	// us).
	Move(ms []Move) ([]string, error)
	// Set sets properties of node id (a nil value removes one); ErrChanged
	// when the node is gone.
	Set(id keys.Key, props map[string]any) error
	// Delete deletes nodes that have no relationship left; ErrChanged when
	// one is gone, an error when one still has a relationship.
	Delete(ids []keys.Key) error
	// Link sets the properties of each link's relationship of type typ
	// from From to To (a nil value removes one), creating it when there
	// is none (every one, when there are several), and returns how many
	// links it set: a link whose end is gone is left out.
	Link(typ string, ls []Link) (int, error)
	// Unlink deletes at most limit relationships of type typ whose
	// property prop is not value (or is absent), and returns how many.
	Unlink(typ, prop string, value any, limit int) (int, error)
}

// Link is a relationship that Tx.Link sets, from node From to node To.
type Link struct {
	From, To keys.Key
	Props    map[string]any
}

// Node is a node as a Tx reads it. A zero ID: not found.
type Node struct {
	ID     keys.Key
	Labels []string
	Props  map[string]any
}

// Filter selects nodes for Tx.Find: those with property Prop, whose value
// is one of Values (any value when Values is nil), with one of Labels
// (empty: any node but those with one of Exclude).
type Filter struct {
	Labels, Exclude []string
	Prop            string
	Values          []any
}

// Rel is a relationship of node Node as Tx.Rels reads it: the plan's view
// of it (ID, Type, Outgoing, Other, OtherLabels; the loops fill in the
// rest) and the other end's properties asked for.
type Rel struct {
	Node keys.Key
	splitplan.Rel
	OtherProps map[string]any
}

// Move moves relationship Rel (its ID, Type, Outgoing and Other) from
// node From to node To. A self-loop of From becomes one of To, unless
// OneEnd: then only its end on the Outgoing side moves (a relationship
// between two nodes that a merge made one is a self-loop that an undo
// splits again).
type Move struct {
	Rel      splitplan.Rel
	From, To keys.Key
	OneEnd   bool
}

// ErrChanged is a Tx's answer when the graph is not what the loop read:
// the transaction is rolled back, and the node reported as changed.
var ErrChanged = errors.New("the graph changed under the transaction")
