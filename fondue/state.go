package fondue

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/fnv"
	"io"
	"os"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/atomicfile"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// State is what the next run needs to compute only what changed since this
// one (Options.Since): the embedding by node key with the optimizer state
// when Options.KeepState was set (Checkpoint), and per checkpoint row the
// node's fingerprint (what its terms depend on: its neighbours' keys and
// whether it is a target) and its per-node score terms and entity
// estimate; Digest identifies the options that change scores. With a
// Context, the rows are the structural nodes (those of the Checkpoint).
type State struct {
	Checkpoint *cne.Checkpoint
	Method     string
	Digest     uint64
	// Per checkpoint row; nil when the state was read from a checkpoint
	// file (a warm start only).
	Fingerprints []uint64
	Terms        *score.Terms
	Entities     []int32
	// Links are the saved graph's links by row: Degrees[k] neighbours of
	// row k, listed in Neighbors (rows) one row after the other. They
	// tell which links of a changed node changed (Options.MoveTolerance).
	Degrees, Neighbors []int32
	// With a Context: the evidence digest of the saved graph (all it
	// says about its nodes and links) and per row the entity estimate by
	// evidence (0 for a node that is not a scored target): a next run on
	// the same graph keeps them. Without a Context, or read from a
	// version 1 file: 0 and nil. EvidencePrints holds per row a target's
	// evidence fingerprint (0 for other nodes; nil from a version 2
	// file): a next run on a changed graph keeps the estimates of the
	// targets whose fingerprint it finds again.
	EvidenceDigest   uint64
	EvidenceEntities []int32
	EvidencePrints   []uint64
	// File is the file the state was read from, for messages; not saved.
	File string

	file fileChain // where File's records end, for WriteFileSince
}

// IncrementalStats says what an incremental run (Options.Since) reused.
type IncrementalStats struct {
	// Full is set when Since did not fit and the run was a full one
	// (warm-started when the embedding fitted); Reason says why.
	Full   bool
	Reason string
	// Changed nodes: new, or their neighbours' keys or target flag
	// changed (a removed neighbour changes them). Trained: the rows of
	// the embedding that were trained (the others kept their saved
	// vectors). Rescored: nodes whose terms were computed; Reused: nodes
	// whose saved terms were kept.
	Changed, Trained, Rescored, Reused int
	// Merged, with a Context: the scored targets whose entity estimate
	// was merged anew by evidence: all of them, or none when the graph
	// did not change (the saved estimates kept).
	Merged int

	warm *cne.Checkpoint // a full run's warm start from Since
}

// State returns what the next run needs to run incrementally from this
// one (see State). It is nil for the baselines, which have no embedding.
func (r *Result) State(g *graph.Graph, opts Options) *State {
	ck := r.Checkpoint(g, opts)
	if ck == nil || r.terms == nil {
		return nil
	}
	if opts.Method == "" {
		opts.Method = score.DefaultMethod
	}
	sg, targets := g, opts.Targets
	if st := r.st; st != nil && st.emb != nil {
		sg, targets = st.g, st.targets
	}
	s := &State{Checkpoint: ck, Method: opts.Method, Digest: opts.digest(), Terms: r.terms,
		Fingerprints: r.fingerprints, Entities: r.entities}
	if s.Fingerprints == nil {
		s.Fingerprints = Fingerprints(sg, targets)
	}
	s.Degrees, s.Neighbors = make([]int32, sg.NumNodes()), make([]int32, 0, 2*sg.NumEdges())
	for i := range s.Degrees {
		s.Degrees[i] = int32(sg.Degree(i))
		s.Neighbors = append(s.Neighbors, sg.Neighbors(i)...)
	}
	if st := r.st; st != nil && st.digest != 0 && len(st.nodes) == ck.Len() {
		s.EvidenceDigest = st.digest
		s.EvidenceEntities = make([]int32, len(st.nodes))
		for a, i := range st.nodes {
			s.EvidenceEntities[a] = int32(r.Entities[i])
		}
		if len(st.prints) == len(st.nodes) {
			s.EvidencePrints = st.prints
		}
	}
	return s
}

// Fingerprints returns, per node of g, a hash of what its score terms
// depend on besides the embedding: the keys of its neighbours (an
// order-free sum of their hashes, so no sort is needed) and whether it is
// a target (targets nil: all are). FNV-64a of the keys, mixed: stable
// across processes and machines.
func Fingerprints(g *graph.Graph, targets []bool) []uint64 {
	n := g.NumNodes()
	kh := make([]uint64, n)
	for i := range kh {
		kh[i] = mix64(fnv64a(g.Key(i)) + 0x9e3779b97f4a7c15)
	}
	fp := make([]uint64, n)
	for i := range fp {
		var s uint64
		for _, j := range g.Neighbors(i) {
			s += kh[j]
		}
		t := uint64(1)
		if targets != nil && !targets[i] {
			t = 2
		}
		fp[i] = mix64(s^mix64(uint64(g.Degree(i))<<2|t)) | 1 // never 0: 0 marks "none"
	}
	return fp
}

// fnv64a is FNV-1a of s, without allocating.
func fnv64a(s string) uint64 {
	h := uint64(14695981039346656037)
	for k := 0; k < len(s); k++ {
		h ^= uint64(s[k])
		h *= 1099511628211
	}
	return h
}

// mix64 is SplitMix64's finalizer: a bijection that spreads every bit.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// digest hashes the options that change scores: the method, seed, the
// embedding's and prior's options and the sign vectors' settings. A
// Context is not in it: it changes the scored graph (the structural
// nodes, whose targets the fingerprints hold) and the entity estimates,
// which the evidence digest (State.EvidenceDigest) covers.
func (o Options) digest() uint64 {
	c := o.CNE.WithDefaults()
	return fnv64a(fmt.Sprintf("m=%s seed=%d cne=%d,%g,%g,%g,%d,%g,%d,%d,%d,%t,%t prior=%g,%d t=%d u=%t p=%t",
		o.Method, o.Seed, c.Dim, c.Sigma1, c.Sigma2, c.LearningRate, c.MaxEpochs, c.Tol, c.NegRatio, c.Mode, c.ExactMaxNodes,
		c.NoiseStart, c.NoStabilityStop, o.Prior.Tol, o.Prior.MaxIter, o.RandomSplits, o.Unnormalized, o.Polish))
}

// The state file: magic, version, then the header (method, digest, rows,
// whether the combined terms are there), the per-row arrays, (version 2)
// whether the evidence follows and if so its digest and entity estimates,
// (version 3) and whether the evidence fingerprints follow, and if so
// them, the checkpoint (cne's format, length first) and a checksum of all
// bytes before it: CRC-32C (version 4; the processor computes it, where
// FNV-64a took as long as reading the file) or FNV-64a (versions 1-3).
// Versions 1 (without the evidence), 2 (without its fingerprints) and 3
// are still read.
const (
	stateMagic   = "FONDUEST"
	stateVersion = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum returns the checksum of a version's state file and its size
// in bytes (little-endian in the file).
func checksum(version uint32) (hash.Hash, int) {
	if version >= 4 {
		return crc32.New(castagnoli), 4
	}
	return fnv.New64a(), 8
}

// sumOf returns h's checksum as it is stored: little-endian.
func sumOf(h hash.Hash) []byte {
	le := binary.LittleEndian
	switch h := h.(type) {
	case hash.Hash32:
		return le.AppendUint32(nil, h.Sum32())
	case hash.Hash64:
		return le.AppendUint64(nil, h.Sum64())
	}
	panic("fondue: a checksum of another size")
}

// Write saves the state (little-endian).
func (s *State) Write(w io.Writer) error {
	_, _, err := s.write(w)
	return err
}

// check reports per-row arrays that do not match the checkpoint.
func (s *State) check() error {
	n := s.Checkpoint.Len()
	switch {
	case len(s.Fingerprints) != n || s.Terms == nil || len(s.Terms.FONDUE) != n || len(s.Entities) != n || len(s.Degrees) != n,
		s.Terms.Disconnection != nil && (len(s.Terms.Disconnection) != n || len(s.Terms.Pieces) != n):
		return errors.New("state: per-node arrays do not match the checkpoint")
	case s.EvidenceEntities != nil && len(s.EvidenceEntities) != n:
		return errors.New("state: evidence entities do not match the checkpoint")
	case s.EvidenceEntities != nil && s.EvidencePrints != nil && len(s.EvidencePrints) != n:
		return errors.New("state: evidence fingerprints do not match the checkpoint")
	}
	return nil
}

// write saves the state and returns its size in bytes and its checksum.
func (s *State) write(w io.Writer) (int64, uint32, error) {
	if err := s.check(); err != nil {
		return 0, 0, err
	}
	n := s.Checkpoint.Len()
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	h, _ := checksum(stateVersion)
	hw := io.MultiWriter(bw, h)
	le := binary.LittleEndian
	var hdr []byte
	hdr = append(hdr, stateMagic...)
	hdr = le.AppendUint32(hdr, stateVersion)
	hdr = binary.AppendUvarint(hdr, uint64(len(s.Method)))
	hdr = append(hdr, s.Method...)
	hdr = le.AppendUint64(hdr, s.Digest)
	hdr = le.AppendUint64(hdr, uint64(n))
	combined := s.Terms.Disconnection != nil
	hdr = append(hdr, b2u(combined))
	if _, err := hw.Write(hdr); err != nil {
		return 0, 0, err
	}
	arrays := []any{s.Fingerprints, s.Terms.FONDUE}
	if combined {
		arrays = append(arrays, s.Terms.Disconnection, s.Terms.Pieces)
	}
	arrays = append(arrays, s.Entities, s.Degrees, uint64(len(s.Neighbors)), s.Neighbors)
	if s.EvidenceEntities == nil {
		arrays = append(arrays, b2u(false))
	} else {
		arrays = append(arrays, b2u(true), s.EvidenceDigest, s.EvidenceEntities)
		if s.EvidencePrints == nil {
			arrays = append(arrays, b2u(false))
		} else {
			arrays = append(arrays, b2u(true), s.EvidencePrints)
		}
	}
	for _, a := range arrays {
		if err := binary.Write(hw, le, a); err != nil {
			return 0, 0, err
		}
	}
	if err := binary.Write(hw, le, uint64(checkpointSize(s.Checkpoint))); err != nil {
		return 0, 0, err
	}
	if err := s.Checkpoint.Write(hw); err != nil {
		return 0, 0, err
	}
	sum := h.(hash.Hash32).Sum32()
	if _, err := bw.Write(sumOf(h)); err != nil {
		return 0, 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, 0, err
	}
	return cw.n, sum, nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// checkpointSize is the number of bytes cne.Checkpoint.Write writes.
func checkpointSize(c *cne.Checkpoint) int64 {
	rows := int64(1)
	if c.M != nil && c.V != nil {
		rows = 3
	}
	size := int64(8+4+4+8+8+8+4+8+8+4) + 8*int64(len(c.History))
	for _, k := range c.Keys {
		size += int64(len(binary.AppendUvarint(nil, uint64(len(k))))+len(k)) + rows*8*int64(c.Dim)
	}
	return size
}

// StateError reports a state file that cannot be read.
type StateError struct {
	File string
	Err  error
}

func (e *StateError) Error() string {
	name := "state file"
	if e.File != "" {
		name = "state file " + e.File
	}
	return fmt.Sprintf("%s: %v (delete it, or run with a full run, to start again)", name, e.Err)
}

func (e *StateError) Unwrap() error { return e.Err }

// ReadState reads a state written by State.Write, or a checkpoint written
// by cne.Checkpoint.Write (then a State with the Checkpoint only: a warm
// start).
func ReadState(r io.Reader) (*State, error) { return readStateSized(r, -1) }

// readStateSized is ReadState from a reader of at most size bytes (a file's
// size; negative: unknown): arrays that fit in size are made whole
// rather than grown by append.
func readStateSized(r io.Reader, size int64) (*State, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	magic, err := br.Peek(8)
	if err != nil {
		return nil, fmt.Errorf("not a fondue state or checkpoint: %w", err)
	}
	if string(magic) != stateMagic {
		ck, err := cne.ReadCheckpointSize(br, size)
		if err != nil {
			return nil, err
		}
		return &State{Checkpoint: ck}, nil
	}
	le := binary.LittleEndian
	cr := &countReader{r: br} // the file's offset, for the patches
	fixed := make([]byte, 12)
	if _, err := io.ReadFull(cr, fixed); err != nil {
		return nil, truncated(err)
	}
	version := le.Uint32(fixed[8:])
	if version < 1 || version > stateVersion {
		return nil, fmt.Errorf("state version %d not supported (want %d)", version, stateVersion)
	}
	h, sumSize := checksum(version)
	h.Write(fixed)
	tr := &hashReader{r: cr, h: h}
	ml, err := binary.ReadUvarint(tr)
	if err != nil || ml > 64 {
		return nil, errors.New("corrupt header")
	}
	buf := make([]byte, ml+8+8+1)
	if _, err := io.ReadFull(tr, buf); err != nil {
		return nil, truncated(err)
	}
	s := &State{Method: string(buf[:ml]), Digest: le.Uint64(buf[ml:])}
	n := le.Uint64(buf[ml+8:])
	combined := buf[ml+16]
	if n > 1<<34 || combined > 1 {
		return nil, fmt.Errorf("corrupt header (%d nodes)", n)
	}
	if s.Fingerprints, err = readArray[uint64](tr, n, size); err != nil {
		return nil, err
	}
	s.Terms = &score.Terms{}
	if s.Terms.FONDUE, err = readArray[float64](tr, n, size); err != nil {
		return nil, err
	}
	if combined == 1 {
		if s.Terms.Disconnection, err = readArray[float64](tr, n, size); err != nil {
			return nil, err
		}
		if s.Terms.Pieces, err = readArray[float64](tr, n, size); err != nil {
			return nil, err
		}
	}
	if s.Entities, err = readArray[int32](tr, n, size); err != nil {
		return nil, err
	}
	if s.Degrees, err = readArray[int32](tr, n, size); err != nil {
		return nil, err
	}
	var links uint64
	if err := binary.Read(tr, le, &links); err != nil {
		return nil, truncated(err)
	}
	if links > 1<<36 {
		return nil, fmt.Errorf("corrupt: %d links", links)
	}
	if s.Neighbors, err = readArray[int32](tr, links, size); err != nil {
		return nil, err
	}
	if version >= 2 {
		var ev [1]byte
		if _, err := io.ReadFull(tr, ev[:]); err != nil {
			return nil, truncated(err)
		}
		switch ev[0] {
		case 0:
		case 1:
			if err := binary.Read(tr, le, &s.EvidenceDigest); err != nil {
				return nil, truncated(err)
			}
			if s.EvidenceEntities, err = readArray[int32](tr, n, size); err != nil {
				return nil, err
			}
			if version >= 3 {
				if _, err := io.ReadFull(tr, ev[:]); err != nil {
					return nil, truncated(err)
				}
				switch ev[0] {
				case 0:
				case 1:
					if s.EvidencePrints, err = readArray[uint64](tr, n, size); err != nil {
						return nil, err
					}
				default:
					return nil, errors.New("corrupt: evidence fingerprints flag")
				}
			}
		default:
			return nil, errors.New("corrupt: evidence flag")
		}
	}
	var ckSize uint64
	if err := binary.Read(tr, le, &ckSize); err != nil {
		return nil, truncated(err)
	}
	ckHint := int64(-1) // the checkpoint's length, when the file holds it
	if size >= 0 && ckSize <= uint64(size) {
		ckHint = int64(ckSize)
	}
	lr := &io.LimitedReader{R: tr, N: int64(ckSize)}
	if s.Checkpoint, err = cne.ReadCheckpointSize(lr, ckHint); err != nil {
		return nil, err
	}
	if lr.N != 0 {
		return nil, errors.New("corrupt: the checkpoint is shorter than its length says")
	}
	want := make([]byte, sumSize)
	if _, err := io.ReadFull(cr, want); err != nil {
		return nil, truncated(err)
	}
	if !bytes.Equal(sumOf(h), want) {
		return nil, errors.New("corrupt: checksum mismatch")
	}
	if s.Checkpoint.Len() != int(n) {
		return nil, fmt.Errorf("corrupt: %d rows of terms for a checkpoint of %d nodes", n, s.Checkpoint.Len())
	}
	if version >= 4 {
		s.file = fileChain{base: cr.n, end: cr.n, last: le.Uint32(want)}
		if err := s.readPatches(cr); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// readArray reads n values in blocks. It makes the array whole when a
// reader of size bytes can hold it, else reserves a bound and grows it:
// a corrupt count then fails at the end of the file instead of
// allocating it up front.
func readArray[T uint64 | int32 | float64](r io.Reader, n uint64, size int64) ([]T, error) {
	var zero T
	width := uint64(binary.Size(zero))
	reserve := min(n, 1<<20)
	if size >= 0 && n <= uint64(size)/width {
		reserve = n
	}
	out := make([]T, 0, reserve)
	for uint64(len(out)) < n {
		k := min(int(n-uint64(len(out))), 1<<16)
		out = slices.Grow(out, k)
		blk := out[len(out) : len(out)+k]
		if err := binary.Read(r, binary.LittleEndian, blk); err != nil {
			return nil, truncated(err)
		}
		out = out[:len(out)+k]
	}
	return out, nil
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func truncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("truncated")
	}
	return err
}

// hashReader hashes what it reads.
type hashReader struct {
	r io.Reader
	h hash.Hash
}

func (t *hashReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.h.Write(p[:n])
	return n, err
}

// ReadByte lets binary.ReadUvarint read one byte at a time.
func (t *hashReader) ReadByte() (byte, error) {
	var b [1]byte
	if _, err := io.ReadFull(t, b[:]); err != nil {
		return 0, err
	}
	return b[0], nil
}

// ReadStateFile reads a state file (or a checkpoint file: a warm start
// only). Its errors are *StateError, naming the file.
func ReadStateFile(path string) (*State, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	s, err := readStateSized(f, size)
	if err != nil {
		return nil, &StateError{File: path, Err: err}
	}
	s.File = path
	s.Checkpoint.File = path
	return s, nil
}

// WriteFile saves the state atomically: a temporary file in the same
// directory, synced, then renamed over path; a crash leaves the previous
// file intact.
func (s *State) WriteFile(path string) error {
	var file fileChain
	err := atomicfile.Write(path, func(w io.Writer) error {
		size, sum, err := s.write(w)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		file = fileChain{base: size, end: size, last: sum}
		return nil
	})
	if err == nil {
		s.file = file
	}
	return err
}
