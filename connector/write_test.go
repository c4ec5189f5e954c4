package connector

import (
	"errors"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
)

// Faults during a write: a connection cut at a batch's RUN is retried by
// the driver; a server that goes away fails the write with ErrUnreachable,
// and writing again completes it. Nothing is lost or written twice: every
// node ends with exactly its score.
func TestWriteFaults(t *testing.T) {
	reset(t)
	loadEdgeList(t, "testdata/netscience.edges", "Author", "COAUTHOR", "uid")
	c, _ := open(t, func(c *Config) { c.MaxRetryTime = 3 * time.Second })
	sg, err := c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{NodeLabels: []string{"Author"}, IDProperty: "uid"})
	if err != nil {
		t.Fatal(err)
	}
	res := scoreGraph(t, sg.Graph, 1)
	o := syncjob.WriteOptions{Property: "ambiguity", ScoreProperty: "ambiguity_score", RunProperty: "fondue_run", RunID: "w1", BatchSize: 50}
	nodes := sg.Graph.NumNodes()

	// 1. The third batch's RUN never reaches Neo4j: its transaction is
	// retried on a new connection.
	dropped := srv.Proxy().Stats().Dropped
	srv.Proxy().DropWhenSent("= $values[0][i]", 3)
	st, err := syncjob.WriteScores(ctxT(t, time.Minute), c, sg, res, o, nil)
	srv.Proxy().ClearFaults()
	if err != nil || st.Nodes != nodes || st.Batches != 8 || srv.Proxy().Stats().Dropped != dropped+1 {
		t.Fatalf("write through a dropped connection: %+v %v", st, err)
	}
	checkWritten(t, sg, res, "w1")

	// 2. The server goes away after two batches of a new run's write.
	o.RunID = "w2"
	res2 := scoreGraph(t, sg.Graph, 2)
	st, err = syncjob.WriteScores(ctxT(t, time.Minute), c, sg, res2, syncjob.WriteOptions{Property: o.Property, ScoreProperty: o.ScoreProperty,
		RunProperty: o.RunProperty, RunID: "w2", BatchSize: 50, Progress: func(done, total int) {
			if done == 100 {
				srv.Proxy().Refuse()
			}
		}}, nil)
	if !errors.Is(err, syncjob.ErrUnreachable) || st.Nodes != 100 {
		t.Fatalf("write with the server gone: %+v %v", st, err)
	}
	if err := srv.Proxy().Restore(); err != nil {
		t.Fatal(err)
	}
	if n := len(run(t, "MATCH (n:Author {fondue_run: 'w2'}) RETURN n", nil)); n != 100 {
		t.Fatalf("%d nodes of the interrupted write, want the 2 committed batches", n)
	}
	st, err = syncjob.WriteScores(ctxT(t, time.Minute), c, sg, res2, o, nil)
	if err != nil || st.Nodes != nodes {
		t.Fatalf("re-run: %+v %v", st, err)
	}
	checkWritten(t, sg, res2, "w2")
	if n := run(t, "MATCH (n) RETURN count(n)", nil)[0].Values[0]; n != int64(nodes) {
		t.Fatalf("%v nodes, want %d", n, nodes)
	}
}

// Embeddings written with the scores come back with the next pull, exactly;
// values that are not lists of numbers are ignored and counted.
func TestEmbeddingPropertyRoundTrip(t *testing.T) {
	reset(t)
	loadEdgeList(t, "testdata/polbooks.edges", "Book", "COPURCHASED", "uid")
	c, _ := open(t)
	po := syncjob.PullOptions{NodeLabels: []string{"Book"}, IDProperty: "uid", EmbeddingProperty: "fondue_embedding"}
	sg, err := c.Pull(ctxT(t, time.Minute), po)
	if err != nil {
		t.Fatal(err)
	}
	if sg.Embeddings == nil || sg.Stats.Embeddings != 0 {
		t.Fatalf("before any write: %d embeddings", sg.Stats.Embeddings)
	}
	res := scoreGraph(t, sg.Graph, 3)
	if _, err := syncjob.WriteScores(ctxT(t, time.Minute), c, sg, res, syncjob.WriteOptions{RunID: "e1", EmbeddingProperty: "fondue_embedding"}, nil); err != nil {
		t.Fatal(err)
	}
	run(t, "MATCH (n:Book {uid: 0}) SET n.fondue_embedding = 'not a vector'", nil)
	back, err := c.Pull(ctxT(t, time.Minute), po)
	if err != nil {
		t.Fatal(err)
	}
	n := sg.Graph.NumNodes()
	if back.Stats.Embeddings != n-1 || back.Stats.BadEmbeddings != 1 {
		t.Fatalf("read %d embeddings and %d bad ones, want %d and 1", back.Stats.Embeddings, back.Stats.BadEmbeddings, n-1)
	}
	for i := 0; i < n; i++ {
		got, want := back.Embeddings[i], res.Embedding.Row(i)
		if back.Key(i) == keys.Int(0) {
			if got != nil {
				t.Fatalf("bad embedding read as %v", got)
			}
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("node %v: %v, want %v", back.Key(i), got, want)
		}
		for k := range got {
			if got[k] != want[k] {
				t.Fatalf("node %v: %v, want %v", back.Key(i), got, want)
			}
		}
	}
	if _, err := syncjob.WriteScores(ctxT(t, time.Minute), c, sg, &fondue.Result{Method: "degree", Scores: res.Scores, Ambiguity: res.Ambiguity},
		syncjob.WriteOptions{EmbeddingProperty: "fondue_embedding"}, nil); !errors.Is(err, syncjob.ErrInvalid) {
		t.Fatalf("embedding write without an embedding: %v", err)
	}
}
