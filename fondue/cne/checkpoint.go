package cne

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/atomicfile"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// Checkpoint is a saved embedding, by node key, with the optimizer state
// that produced it. A scheduled job saves one after every run and starts the
// next run from it (WarmStart): on a graph that changed a little, training
// then resumes where it stopped and converges in a few epochs.
type Checkpoint struct {
	Dim            int
	Sigma1, Sigma2 float64
	Keys           []string  // one per row
	X              []float64 // Len x Dim, row-major
	// Optimizer state; M and V are nil when only vectors were saved.
	M, V    []float64
	Step    int
	History []float64 // recent gradient norms
	Peak    float64   // the fit's largest gradient norm (exact mode's stopping test)
	// File is the file the checkpoint was read from (ReadCheckpointFile),
	// for messages; it is not saved.
	File string
}

// Len returns the number of saved nodes.
func (c *Checkpoint) Len() int { return len(c.Keys) }

// NewCheckpoint captures an embedding of g fitted with options o. The
// optimizer state is included when the fit kept it (Run.KeepState).
func NewCheckpoint(g *graph.Graph, emb *Embedding, o Options) *Checkpoint {
	o = o.WithDefaults()
	c := &Checkpoint{Dim: emb.Dim, Sigma1: o.Sigma1, Sigma2: o.Sigma2, X: emb.X,
		Keys: make([]string, g.NumNodes())}
	for i := range c.Keys {
		c.Keys[i] = g.Key(i)
	}
	if s := emb.state; s != nil {
		c.M, c.V, c.Step, c.History, c.Peak = s.m, s.v, s.step, s.history, s.peak
	}
	return c
}

// WarmStats describes how a checkpoint was mapped onto a graph.
type WarmStats struct {
	Reused        int // nodes found in the checkpoint
	New           int // nodes not in it
	NearNeighbors int // new nodes placed at the mean of their known neighbours
	Dropped       int // checkpoint nodes no longer in the graph
}

// WarmStart returns the starting embedding for g: each node found in the
// checkpoint (by key) takes its saved vector and optimizer state; a new node
// starts at the mean of its neighbours that were saved, plus a little noise
// so that two new nodes with the same neighbours do not coincide, or at
// N(0,1) noise when it has none, from seed. Pass the result as Run.Init.
func (c *Checkpoint) WarmStart(g *graph.Graph, o Options, seed uint64) (*Embedding, WarmStats, error) {
	o = o.WithDefaults()
	var ws WarmStats
	if c.Dim != o.Dim {
		return nil, ws, fmt.Errorf("checkpoint has dimension %d, the run uses %d", c.Dim, o.Dim)
	}
	n, d := g.NumNodes(), c.Dim
	emb := &Embedding{Dim: d, X: make([]float64, n*d)}
	withState := c.M != nil && c.V != nil
	var st *adamState
	if withState {
		st = &adamState{m: make([]float64, n*d), v: make([]float64, n*d), step: c.Step,
			history: append([]float64(nil), c.History...), peak: c.Peak}
		emb.state = st
	}
	from := make([]int, n) // checkpoint row of each node, -1 if new
	seen, next := 0, 0
	for k, key := range c.Keys {
		// Rows in the graph's order (the usual night) need no look-up.
		i, ok := next, next < n && g.Key(next) == key
		if !ok {
			i, ok = g.Index(key)
		}
		if ok {
			from[i] = k + 1
			seen++
			next = i + 1
		}
	}
	ws.Dropped = c.Len() - seen
	for i := range from {
		from[i]--
		if from[i] < 0 {
			ws.New++
			continue
		}
		ws.Reused++
		k := from[i]
		copy(emb.X[i*d:(i+1)*d], c.X[k*d:(k+1)*d])
		if withState {
			copy(st.m[i*d:(i+1)*d], c.M[k*d:(k+1)*d])
			copy(st.v[i*d:(i+1)*d], c.V[k*d:(k+1)*d])
		}
	}
	for i := range from {
		if from[i] >= 0 {
			continue
		}
		r := rng.SplitMix{S: rng.StreamSeed(seed, rng.StreamInit, 1, uint64(i))}
		xi := emb.X[i*d : (i+1)*d]
		known := 0
		for _, j := range g.Neighbors(i) {
			if k := from[j]; k >= 0 {
				for c2 := range xi {
					xi[c2] += c.X[k*d+c2]
				}
				known++
			}
		}
		if known == 0 {
			for c2 := range xi {
				xi[c2] = r.Norm()
			}
			continue
		}
		ws.NearNeighbors++
		for c2 := range xi {
			xi[c2] = xi[c2]/float64(known) + 0.1*r.Norm()
		}
	}
	return emb, ws, nil
}

const checkpointMagic = "FONDUECK"
const checkpointVersion = 2

// Write saves the checkpoint in a compact binary format (little-endian).
func (c *Checkpoint) Write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	le := binary.LittleEndian
	var hdr []byte
	hdr = append(hdr, checkpointMagic...)
	hdr = le.AppendUint32(hdr, checkpointVersion)
	hdr = le.AppendUint32(hdr, uint32(c.Dim))
	hdr = le.AppendUint64(hdr, uint64(c.Len()))
	hdr = le.AppendUint64(hdr, math.Float64bits(c.Sigma1))
	hdr = le.AppendUint64(hdr, math.Float64bits(c.Sigma2))
	hasState := uint32(0)
	if c.M != nil && c.V != nil {
		hasState = 1
	}
	hdr = le.AppendUint32(hdr, hasState)
	hdr = le.AppendUint64(hdr, uint64(c.Step))
	hdr = le.AppendUint64(hdr, math.Float64bits(c.Peak))
	hdr = le.AppendUint32(hdr, uint32(len(c.History)))
	for _, h := range c.History {
		hdr = le.AppendUint64(hdr, math.Float64bits(h))
	}
	if _, err := bw.Write(hdr); err != nil {
		return err
	}
	var buf []byte
	for i, key := range c.Keys {
		buf = binary.AppendUvarint(buf[:0], uint64(len(key)))
		buf = append(buf, key...)
		rows := [][]float64{c.X}
		if hasState == 1 {
			rows = append(rows, c.M, c.V)
		}
		for _, a := range rows {
			for _, v := range a[i*c.Dim : (i+1)*c.Dim] {
				buf = le.AppendUint64(buf, math.Float64bits(v))
			}
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// readReserve is the number of values ReadCheckpoint reserves for each of
// the embedding and the two moments, a larger array growing by append
// (ReadCheckpointSize makes whole the arrays its size can hold); a
// variable for the tests.
var readReserve uint64 = 1 << 24

// ReadCheckpoint reads a checkpoint written by Write.
func ReadCheckpoint(r io.Reader) (*Checkpoint, error) { return ReadCheckpointSize(r, -1) }

// ReadCheckpointSize is ReadCheckpoint from a reader that holds at most
// size bytes (a file's size; negative: unknown). Its arrays are made
// whole when the node count fits in size, rather than grown by append:
// at 10M nodes the copies of growing cost seconds.
func ReadCheckpointSize(r io.Reader, size int64) (*Checkpoint, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	le := binary.LittleEndian
	fixed := make([]byte, 8+4+4+8+8+8+4+8+8+4)
	if _, err := io.ReadFull(br, fixed); err != nil {
		return nil, fmt.Errorf("not a fondue checkpoint: %w", err)
	}
	if string(fixed[:8]) != checkpointMagic {
		return nil, errors.New("not a fondue checkpoint (bad magic)")
	}
	if v := le.Uint32(fixed[8:]); v != checkpointVersion {
		return nil, fmt.Errorf("checkpoint version %d not supported (want %d)", v, checkpointVersion)
	}
	c := &Checkpoint{Dim: int(le.Uint32(fixed[12:]))}
	n := le.Uint64(fixed[16:])
	c.Sigma1 = math.Float64frombits(le.Uint64(fixed[24:]))
	c.Sigma2 = math.Float64frombits(le.Uint64(fixed[32:]))
	hasState := le.Uint32(fixed[40:]) == 1
	c.Step = int(le.Uint64(fixed[44:]))
	c.Peak = math.Float64frombits(le.Uint64(fixed[52:]))
	nh := le.Uint32(fixed[60:])
	if c.Dim <= 0 || c.Dim > 1024 || n > 1<<34 || nh > 1<<20 {
		return nil, fmt.Errorf("corrupt checkpoint header (dim %d, %d nodes)", c.Dim, n)
	}
	c.History = make([]float64, nh)
	b8 := make([]byte, 8)
	readF := func() (float64, error) {
		if _, err := io.ReadFull(br, b8); err != nil {
			return 0, err
		}
		return math.Float64frombits(le.Uint64(b8)), nil
	}
	var err error
	for k := range c.History {
		if c.History[k], err = readF(); err != nil {
			return nil, fmt.Errorf("truncated checkpoint: %w", err)
		}
	}
	arrays := []*[]float64{&c.X}
	if hasState {
		arrays = append(arrays, &c.M, &c.V)
	}
	// Reserved up to a bound, unless size holds every row (a key's length
	// and its values): a corrupt count fails at the end of the file
	// instead of allocating it up front.
	keys, values := min(n, 1<<24), min(n*uint64(c.Dim), readReserve)
	if size >= 0 && n <= uint64(size)/uint64(1+8*c.Dim*len(arrays)) {
		keys, values = n, n*uint64(c.Dim)
	}
	c.Keys = make([]string, 0, keys)
	for _, a := range arrays {
		*a = make([]float64, 0, values)
	}
	// A node's values are read at once: one read per node, not per value.
	row := make([]byte, 8*c.Dim*len(arrays))
	var key []byte
	for i := uint64(0); i < n; i++ {
		kl, err := binary.ReadUvarint(br)
		if err != nil || kl > 1<<20 {
			return nil, fmt.Errorf("truncated or corrupt checkpoint at node %d", i)
		}
		key = slices.Grow(key[:0], int(kl))[:kl]
		if _, err := io.ReadFull(br, key); err != nil {
			return nil, fmt.Errorf("truncated checkpoint at node %d: %w", i, err)
		}
		c.Keys = append(c.Keys, string(key))
		if _, err := io.ReadFull(br, row); err != nil {
			return nil, fmt.Errorf("truncated checkpoint at node %d: %w", i, err)
		}
		for k, a := range arrays {
			for j := range c.Dim {
				*a = append(*a, math.Float64frombits(le.Uint64(row[8*(c.Dim*k+j):])))
			}
		}
	}
	return c, nil
}

// ReadCheckpointFile reads a checkpoint from a file.
func ReadCheckpointFile(path string) (*Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	c, err := ReadCheckpointSize(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.File = path
	return c, nil
}

// WriteFile saves the checkpoint atomically: a crash mid-write leaves the
// previous file intact.
func (c *Checkpoint) WriteFile(path string) error {
	return atomicfile.Write(path, c.Write)
}
