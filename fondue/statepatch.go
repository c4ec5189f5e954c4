package fondue

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
)

// A state file (version 4) is a whole state (State.Write) followed by
// patches: each holds the rows that changed since the state before it,
// with the header's values, and names that state by its checksum. A night
// that changed a few rows appends a few rows (WriteFileSince) instead of
// writing every node's vector and Adam moments again.
//
// A patch: magic, version, the body's length, the body, CRC-32C of all
// before it. The body: the previous record's checksum, the method and
// options digest, the checkpoint's step, peak and history, the evidence
// digest, the number of rows, then per row the gap to the previous row
// (uvarint), its fingerprint, terms, entity estimate, evidence estimate and
// fingerprint (when the state has them), vector and moments (when it has
// them), degree and neighbours' rows (uvarints).
const (
	patchMagic   = "FONDUEPT"
	patchVersion = 1
	patchHead    = 8 + 4 + 8 // magic, version, body length
)

// maxPatchShare bounds a file's patches against its whole state's bytes:
// beyond it the state is written whole again, so that reading costs at
// most 1.25 times a whole state.
const maxPatchShare = 0.25

// fileChain says where the records a state was read from (or written to)
// end in its file: the bytes of the whole state (base), of it and its
// patches (end), and the checksum of the last record, which the next patch
// names. Zero: not from a version 4 file.
type fileChain struct {
	base, end int64
	last      uint32
}

// Saved says how WriteFileSince saved a state.
type Saved struct {
	Patch bool  // appended as a patch; else written whole
	Rows  int   // rows written
	Bytes int64 // bytes written
}

// WriteFileSince saves s to path, from which prev was read
// (ReadStateFile): when s has prev's rows (the same keys in the same
// order and the same kinds of values), the file still ends as prev read
// it and its patches stay under a quarter of its whole state, the rows
// that changed are appended as a patch (synced); otherwise, or when the
// append fails, the state is written whole (WriteFile). Either way
// ReadStateFile(path) then returns s. A patch cut short by a crash is
// ignored when read: the state read is prev, from which the next run is
// incremental as well (the writes compare with the database's values).
func (s *State) WriteFileSince(path string, prev *State) (Saved, error) {
	if rec, rows := s.patchSince(prev, path); rec != nil {
		if err := appendPatch(path, prev.file, rec); err == nil {
			s.file = fileChain{base: prev.file.base, end: prev.file.end + int64(len(rec)),
				last: binary.LittleEndian.Uint32(rec[len(rec)-4:])}
			return Saved{Patch: true, Rows: rows, Bytes: int64(len(rec))}, nil
		}
	}
	if err := s.WriteFile(path); err != nil {
		return Saved{}, err
	}
	return Saved{Rows: s.Checkpoint.Len(), Bytes: s.file.end}, nil
}

// appendPatch writes rec at the end of the records of path, over any
// bytes a crashed append left there, and syncs it, after checking that
// the file still ends with the last record that was read.
func appendPatch(path string, at fileChain, rec []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var last [4]byte
	if _, err := f.ReadAt(last[:], at.end-4); err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(last[:]) != at.last {
		return errors.New("the state file changed since it was read")
	}
	if _, err := f.WriteAt(rec, at.end); err != nil {
		return err
	}
	if err := f.Truncate(at.end + int64(len(rec))); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// sameShape reports whether s has prev's kinds of values, so that a
// patch of rows turns prev into s.
func (s *State) sameShape(prev *State) bool {
	a, b := s.Checkpoint, prev.Checkpoint
	switch {
	case a == nil || b == nil || s.Terms == nil || prev.Terms == nil || s.check() != nil || prev.check() != nil,
		a.Dim != b.Dim || a.Sigma1 != b.Sigma1 || a.Sigma2 != b.Sigma2,
		(a.M != nil && a.V != nil) != (b.M != nil && b.V != nil),
		(s.Terms.Disconnection != nil) != (prev.Terms.Disconnection != nil),
		(s.EvidenceEntities != nil) != (prev.EvidenceEntities != nil),
		s.EvidenceEntities != nil && (s.EvidencePrints != nil) != (prev.EvidencePrints != nil),
		len(s.Method) > 64:
		return false
	}
	return true
}

// rowsSince returns per row of keys its row in old (-1: a new key, or
// one written whole), in old's order, or nil when the rows kept are not
// in old's order (a patch then cannot say it). Rows in the same order need
// no look-up; a key that is not the next row is looked for among the next
// rowsWindow rows, and only when that leaves more than 1% of the rows
// new, in an index of old.
func rowsSince(keys, old []string) []int32 {
	from := make([]int32, len(keys))
	next, added := 0, 0
	for k, key := range keys {
		r := -1
		for j := next; j < min(len(old), next+rowsWindow); j++ {
			if old[j] == key {
				r = j
				break
			}
		}
		from[k] = int32(r)
		if r < 0 {
			added++
		} else {
			next = r + 1
		}
	}
	if added <= len(keys)/100 {
		return from
	}
	index := make(map[string]int, len(old))
	for r, key := range old {
		if _, dup := index[key]; !dup {
			index[key] = r
		}
	}
	next = 0
	for k, key := range keys {
		r, ok := index[key]
		switch {
		case !ok:
			from[k] = -1
		case r < next:
			return nil
		default:
			from[k], next = int32(r), r+1
		}
	}
	return from
}

// rowsWindow is how far ahead rowsSince looks for a key before its index.
const rowsWindow = 64

// patchSince returns the patch record that turns prev, read from path,
// into s, and its rows; nil when there is none to append (see
// WriteFileSince).
func (s *State) patchSince(prev *State, path string) ([]byte, int) {
	if prev == nil || prev.File != path || prev.file.end == 0 || !s.sameShape(prev) {
		return nil, 0
	}
	ck, pk := s.Checkpoint, prev.Checkpoint
	from := rowsSince(ck.Keys, pk.Keys)
	if from == nil {
		return nil, 0
	}
	toNew := make([]int32, pk.Len()) // -1: removed
	for r := range toNew {
		toNew[r] = -1
	}
	for k, r := range from {
		if r >= 0 {
			toNew[r] = int32(k)
		}
	}
	offsets := make([]int, pk.Len()+1) // of prev's neighbour lists
	for r, d := range prev.Degrees {
		offsets[r+1] = offsets[r] + int(d)
	}
	le := binary.LittleEndian
	d := ck.Dim
	state := ck.M != nil && ck.V != nil
	combined := s.Terms.Disconnection != nil
	ev := s.EvidenceEntities != nil
	prints := ev && s.EvidencePrints != nil
	f64 := func(a, b []float64, k, r, w int) bool { // row k of a is row r of b, bit for bit
		for j := range w {
			if math.Float64bits(a[k*w+j]) != math.Float64bits(b[r*w+j]) {
				return false
			}
		}
		return true
	}
	same := func(k int, na []int32) bool {
		r := int(from[k])
		if r < 0 {
			return false
		}
		switch {
		case s.Fingerprints[k] != prev.Fingerprints[r], s.Entities[k] != prev.Entities[r],
			!f64(s.Terms.FONDUE, prev.Terms.FONDUE, k, r, 1),
			combined && !(f64(s.Terms.Disconnection, prev.Terms.Disconnection, k, r, 1) && f64(s.Terms.Pieces, prev.Terms.Pieces, k, r, 1)),
			ev && s.EvidenceEntities[k] != prev.EvidenceEntities[r],
			prints && s.EvidencePrints[k] != prev.EvidencePrints[r],
			!f64(ck.X, pk.X, k, r, d),
			state && !(f64(ck.M, pk.M, k, r, d) && f64(ck.V, pk.V, k, r, d)):
			return false
		}
		nb := prev.Neighbors[offsets[r]:offsets[r+1]]
		if len(na) != len(nb) {
			return false
		}
		for j, x := range nb {
			if toNew[x] != na[j] {
				return false
			}
		}
		return true
	}

	body := le.AppendUint32(nil, prev.file.last)
	body = binary.AppendUvarint(body, uint64(len(s.Method)))
	body = append(body, s.Method...)
	body = le.AppendUint64(body, s.Digest)
	body = le.AppendUint64(body, uint64(ck.Step))
	body = le.AppendUint64(body, math.Float64bits(ck.Peak))
	body = binary.AppendUvarint(body, uint64(len(ck.History)))
	for _, h := range ck.History {
		body = le.AppendUint64(body, math.Float64bits(h))
	}
	body = le.AppendUint64(body, s.EvidenceDigest)
	limit := int(maxPatchShare*float64(prev.file.base)) - int(prev.file.end-prev.file.base)
	// The rows removed (prev's) and added (s's, with their keys), each
	// ascending, as gaps.
	var removed, added []int
	for r, k := range toNew {
		if k < 0 {
			removed = append(removed, r)
		}
	}
	for k, r := range from {
		if r < 0 {
			added = append(added, k)
		}
	}
	if 4*(len(removed)+len(added)) > limit {
		return nil, 0
	}
	body = binary.AppendUvarint(body, uint64(len(removed)))
	next := 0
	for _, r := range removed {
		body = binary.AppendUvarint(body, uint64(r-next))
		next = r + 1
	}
	body = binary.AppendUvarint(body, uint64(len(added)))
	next = 0
	for _, k := range added {
		body = binary.AppendUvarint(body, uint64(k-next))
		next = k + 1
		key := ck.Keys[k]
		body = binary.AppendUvarint(body, uint64(len(key)))
		body = append(body, key...)
	}
	var rowsBuf []byte
	rows, off := 0, 0
	next = 0
	for k, deg := range s.Degrees {
		na := s.Neighbors[off : off+int(deg)]
		off += int(deg)
		if same(k, na) {
			continue
		}
		rows++
		rowsBuf = binary.AppendUvarint(rowsBuf, uint64(k-next))
		next = k + 1
		rowsBuf = le.AppendUint64(rowsBuf, s.Fingerprints[k])
		rowsBuf = le.AppendUint64(rowsBuf, math.Float64bits(s.Terms.FONDUE[k]))
		if combined {
			rowsBuf = le.AppendUint64(rowsBuf, math.Float64bits(s.Terms.Disconnection[k]))
			rowsBuf = le.AppendUint64(rowsBuf, math.Float64bits(s.Terms.Pieces[k]))
		}
		rowsBuf = le.AppendUint32(rowsBuf, uint32(s.Entities[k]))
		if ev {
			rowsBuf = le.AppendUint32(rowsBuf, uint32(s.EvidenceEntities[k]))
		}
		if prints {
			rowsBuf = le.AppendUint64(rowsBuf, s.EvidencePrints[k])
		}
		vecs := [][]float64{ck.X}
		if state {
			vecs = append(vecs, ck.M, ck.V)
		}
		for _, a := range vecs {
			for _, v := range a[k*d : (k+1)*d] {
				rowsBuf = le.AppendUint64(rowsBuf, math.Float64bits(v))
			}
		}
		rowsBuf = binary.AppendUvarint(rowsBuf, uint64(len(na)))
		for _, r := range na {
			rowsBuf = binary.AppendUvarint(rowsBuf, uint64(r))
		}
		if len(body)+len(rowsBuf) > limit {
			return nil, 0 // too many changes: the state is written whole
		}
	}
	body = binary.AppendUvarint(body, uint64(rows))
	body = append(body, rowsBuf...)
	rec := make([]byte, 0, patchHead+len(body)+4)
	rec = append(rec, patchMagic...)
	rec = le.AppendUint32(rec, patchVersion)
	rec = le.AppendUint64(rec, uint64(len(body)))
	rec = append(rec, body...)
	rec = le.AppendUint32(rec, crc32.Checksum(rec, castagnoli))
	return rec, rows
}

// readPatches applies the patches that follow a whole state in r. It
// stops at the end of r or at the first record that is cut short, fails
// its checksum or follows another record: what a crashed append leaves,
// which the next save writes over. A record with a good checksum that
// does not fit the state is an error.
func (s *State) readPatches(r io.Reader) error {
	le := binary.LittleEndian
	for {
		head := make([]byte, patchHead)
		if _, err := io.ReadFull(r, head); err != nil || string(head[:8]) != patchMagic ||
			le.Uint32(head[8:]) != patchVersion {
			return nil
		}
		size := le.Uint64(head[12:])
		if size < 4 || size > uint64(s.file.base) {
			return nil
		}
		rest := make([]byte, size+4)
		if _, err := io.ReadFull(r, rest); err != nil {
			return nil
		}
		body := rest[:size]
		sum := le.Uint32(rest[size:])
		h := crc32.New(castagnoli)
		h.Write(head)
		h.Write(body)
		if h.Sum32() != sum || le.Uint32(body) != s.file.last {
			return nil
		}
		if err := s.applyPatch(body[4:]); err != nil {
			return fmt.Errorf("corrupt patch at byte %d: %w", s.file.end, err)
		}
		s.file.end += int64(len(head) + len(rest))
		s.file.last = sum
	}
}

// applyPatch applies a patch's body (after the previous checksum) to s.
func (s *State) applyPatch(body []byte) error {
	b := &decoder{b: body}
	ml := b.uv()
	if ml > 64 {
		return errors.New("corrupt method")
	}
	method := string(b.bytes(int(ml)))
	digest, step, peak := b.u64(), int(b.u64()), b.f64()
	hl := b.uv()
	if hl > uint64(len(b.b))/8 {
		return errors.New("cut short")
	}
	history := make([]float64, hl)
	for j := range history {
		history[j] = b.f64()
	}
	evDigest := b.u64()
	ck := s.Checkpoint
	n := ck.Len()
	// Rows removed and added: gaps, ascending.
	removed := b.uv()
	if removed > uint64(n) {
		return errors.New("more rows removed than there are")
	}
	// toNew, fromOld and keys are made only when rows come or go: most
	// nights keep every row in its place.
	var toNew, fromOld []int32 // -1: removed; -1: added
	var keys []string
	if removed > 0 {
		toNew = make([]int32, n)
	}
	next := uint64(0)
	for range removed {
		r := next + b.uv()
		if r >= uint64(n) {
			return errors.New("a row out of range")
		}
		toNew[r] = -1
		next = r + 1
	}
	added := b.uv()
	if added > uint64(len(b.b)) {
		return errors.New("cut short")
	}
	n2 := n - int(removed) + int(added)
	moved := removed > 0 || added > 0
	if moved {
		if toNew == nil {
			toNew = make([]int32, n)
		}
		fromOld, keys = make([]int32, n2), make([]string, n2)
	}
	next = 0
	for range added {
		k := next + b.uv()
		if k >= uint64(n2) {
			return errors.New("a row out of range")
		}
		fromOld[k] = -1
		keys[k] = string(b.bytes(int(b.uv())))
		next = k + 1
	}
	if b.err != nil {
		return b.err
	}
	r := 0
	for k := range fromOld {
		if fromOld[k] < 0 {
			continue
		}
		for r < n && toNew[r] < 0 {
			r++
		}
		if r == n {
			return errors.New("rows do not add up")
		}
		fromOld[k], toNew[r], keys[k] = int32(r), int32(k), ck.Keys[r]
		r++
	}
	state := ck.M != nil && ck.V != nil
	combined := s.Terms.Disconnection != nil
	ev := s.EvidenceEntities != nil
	prints := ev && s.EvidencePrints != nil
	d := ck.Dim
	if moved {
		// The rows kept, moved to their new places; the added ones are
		// the patch's rows below.
		u64s := func(a []uint64) []uint64 {
			if a == nil {
				return nil
			}
			out := make([]uint64, n2)
			for k, r := range fromOld {
				if r >= 0 {
					out[k] = a[r]
				}
			}
			return out
		}
		i32s := func(a []int32) []int32 {
			if a == nil {
				return nil
			}
			out := make([]int32, n2)
			for k, r := range fromOld {
				if r >= 0 {
					out[k] = a[r]
				}
			}
			return out
		}
		rowsOf := func(a []float64, w int) []float64 {
			if a == nil {
				return nil
			}
			out := make([]float64, n2*w)
			for k, r := range fromOld {
				if r >= 0 {
					copy(out[k*w:(k+1)*w], a[int(r)*w:(int(r)+1)*w])
				}
			}
			return out
		}
		offsets := make([]int, n+1)
		for r, deg := range s.Degrees {
			offsets[r+1] = offsets[r] + int(deg)
		}
		links := make([]int32, 0, len(s.Neighbors))
		for _, r := range fromOld {
			if r >= 0 {
				links = append(links, s.Neighbors[offsets[r]:offsets[r+1]]...)
			}
		}
		for j, x := range links {
			links[j] = toNew[x] // -1, a removed row: the patch rewrites that list
		}
		// One array at a time: each old one is garbage before the next
		// is made.
		s.Neighbors, ck.Keys = links, keys
		s.Fingerprints = u64s(s.Fingerprints)
		s.Entities = i32s(s.Entities)
		s.Degrees = i32s(s.Degrees)
		s.EvidenceEntities = i32s(s.EvidenceEntities)
		s.EvidencePrints = u64s(s.EvidencePrints)
		s.Terms.FONDUE = rowsOf(s.Terms.FONDUE, 1)
		s.Terms.Disconnection = rowsOf(s.Terms.Disconnection, 1)
		s.Terms.Pieces = rowsOf(s.Terms.Pieces, 1)
		ck.X = rowsOf(ck.X, d)
		ck.M = rowsOf(ck.M, d)
		ck.V = rowsOf(ck.V, d)
	}
	s.Method, s.Digest, s.EvidenceDigest = method, digest, evDigest
	ck.Step, ck.Peak, ck.History = step, peak, history

	rows := b.uv()
	lists := map[int][]int32{}
	next = 0
	for i := uint64(0); i < rows && b.err == nil; i++ {
		gap := b.uv()
		if gap >= uint64(n2)-next {
			return errors.New("a row out of range")
		}
		k := int(next + gap)
		next = uint64(k) + 1
		s.Fingerprints[k] = b.u64()
		s.Terms.FONDUE[k] = b.f64()
		if combined {
			s.Terms.Disconnection[k], s.Terms.Pieces[k] = b.f64(), b.f64()
		}
		s.Entities[k] = int32(b.u32())
		if ev {
			s.EvidenceEntities[k] = int32(b.u32())
		}
		if prints {
			s.EvidencePrints[k] = b.u64()
		}
		vecs := [][]float64{ck.X}
		if state {
			vecs = append(vecs, ck.M, ck.V)
		}
		for _, a := range vecs {
			for j := k * d; j < (k+1)*d; j++ {
				a[j] = b.f64()
			}
		}
		deg := b.uv()
		if deg > uint64(len(b.b)) {
			return errors.New("cut short")
		}
		nb := make([]int32, deg)
		for j := range nb {
			r := b.uv()
			if r >= uint64(n2) {
				return errors.New("a neighbour out of range")
			}
			nb[j] = int32(r)
		}
		lists[k] = nb
	}
	switch {
	case b.err != nil:
		return b.err
	case len(b.b) != 0:
		return errors.New("bytes after the last row")
	}
	for k, r := range fromOld {
		if _, ok := lists[k]; r < 0 && !ok {
			return errors.New("a row added without its values")
		}
	}
	// The neighbour lists, with the changed rows'.
	total := len(s.Neighbors)
	for k, nb := range lists {
		total += len(nb) - int(s.Degrees[k])
	}
	out, off := make([]int32, 0, total), 0
	for k, deg := range s.Degrees {
		old := s.Neighbors[off : off+int(deg)]
		off += int(deg)
		if nb, ok := lists[k]; ok {
			out = append(out, nb...)
			s.Degrees[k] = int32(len(nb))
			continue
		}
		if removed > 0 && slices.Contains(old, -1) {
			return errors.New("a row lost a neighbour the patch does not say")
		}
		out = append(out, old...)
	}
	s.Neighbors = out
	return nil
}

// decoder reads a patch's values; the first read past the end sets err,
// and every later read returns 0.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil || len(d.b) < n {
		d.err = errors.New("cut short")
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) u64() uint64 {
	if v := d.bytes(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if v := d.bytes(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *decoder) uv() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("cut short")
		return 0
	}
	d.b = d.b[n:]
	return v
}
