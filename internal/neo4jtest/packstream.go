package neo4jtest

// Bolt framing (chunking) and the small part of PackStream the proxy needs.
//
// The proxy never decodes query parameters or records: it only finds the
// byte boundaries of values so that it can splice fields out of, or into, a
// message and relay everything else byte for byte.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// maxChunkSize is the largest payload a single Bolt chunk can carry.
const maxChunkSize = 0xFFFF

// maxMessageSize bounds one assembled message so that a corrupt stream cannot
// make the proxy allocate without limit. Results are relayed record by
// record, so only a single record or a single request (e.g. the parameters
// of one UNWIND batch) has to fit.
const maxMessageSize = 256 << 20

// Message tags (struct signatures) of Bolt v1 and Bolt 3.
const (
	tagHello      byte = 0x01 // Bolt 3 HELLO; Bolt v1 INIT has the same tag
	tagGoodbye    byte = 0x02
	tagAckFailure byte = 0x0E // Bolt v1 only
	tagReset      byte = 0x0F
	tagRun        byte = 0x10
	tagBegin      byte = 0x11
	tagCommit     byte = 0x12
	tagRollback   byte = 0x13
	tagDiscardAll byte = 0x2F
	tagPullAll    byte = 0x3F
	tagSuccess    byte = 0x70
	tagRecord     byte = 0x71
	tagIgnored    byte = 0x7E
	tagFailure    byte = 0x7F
)

func tagName(t byte) string {
	switch t {
	case tagHello:
		return "HELLO"
	case tagGoodbye:
		return "GOODBYE"
	case tagAckFailure:
		return "ACK_FAILURE"
	case tagReset:
		return "RESET"
	case tagRun:
		return "RUN"
	case tagBegin:
		return "BEGIN"
	case tagCommit:
		return "COMMIT"
	case tagRollback:
		return "ROLLBACK"
	case tagDiscardAll:
		return "DISCARD_ALL"
	case tagPullAll:
		return "PULL_ALL"
	case tagSuccess:
		return "SUCCESS"
	case tagRecord:
		return "RECORD"
	case tagIgnored:
		return "IGNORED"
	case tagFailure:
		return "FAILURE"
	}
	return fmt.Sprintf("0x%02X", t)
}

// readMessage reads one chunked Bolt message from r and returns its payload
// (without chunk headers). NOOP chunks (a lone zero-size chunk) between
// messages are skipped. buf is reused when large enough; the returned slice
// aliases it and is only valid until the next call.
func readMessage(r *bufio.Reader, buf []byte) ([]byte, error) {
	var hdr [2]byte
	msg := buf[:0]
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if len(msg) > 0 && errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		n := int(binary.BigEndian.Uint16(hdr[:]))
		if n == 0 {
			if len(msg) > 0 {
				return msg, nil
			}
			continue // NOOP
		}
		if len(msg)+n > maxMessageSize {
			return nil, fmt.Errorf("bolt message larger than %d bytes", maxMessageSize)
		}
		start := len(msg)
		msg = growTo(msg, start+n)
		if _, err := io.ReadFull(r, msg[start:]); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

func growTo(b []byte, n int) []byte {
	if n <= cap(b) {
		return b[:n]
	}
	nb := make([]byte, n, n+n/2+1024)
	copy(nb, b)
	return nb
}

// writeMessage writes payload as one chunked Bolt message (chunks of at most
// maxChunkSize bytes, then the zero-size end marker). It returns the number of
// bytes written to w, framing included.
func writeMessage(w io.Writer, payload []byte) (int, error) {
	if len(payload) == 0 {
		return 0, errors.New("refusing to write an empty bolt message (it would read as a NOOP)")
	}
	total := 0
	var hdr [2]byte
	for len(payload) > 0 {
		n := min(len(payload), maxChunkSize)
		binary.BigEndian.PutUint16(hdr[:], uint16(n))
		if _, err := w.Write(hdr[:]); err != nil {
			return total, err
		}
		if _, err := w.Write(payload[:n]); err != nil {
			return total, err
		}
		total += 2 + n
		payload = payload[n:]
	}
	hdr = [2]byte{}
	if _, err := w.Write(hdr[:]); err != nil {
		return total, err
	}
	return total + 2, nil
}

// framedSize is the number of bytes writeMessage produces for a payload.
func framedSize(payloadLen int) int {
	chunks := (payloadLen + maxChunkSize - 1) / maxChunkSize
	return payloadLen + 2*chunks + 2
}

// errShort reports a value that runs past the end of its message.
var errShort = errors.New("packstream: truncated value")

// structHeader parses the struct header at the start of a message and
// returns the number of fields, the signature (message tag) and the offset
// of the first field.
func structHeader(msg []byte) (fields int, tag byte, off int, err error) {
	if len(msg) < 2 {
		return 0, 0, 0, errShort
	}
	m := msg[0]
	switch {
	case m >= 0xB0 && m <= 0xBF:
		return int(m & 0x0F), msg[1], 2, nil
	case m == 0xDC:
		if len(msg) < 3 {
			return 0, 0, 0, errShort
		}
		return int(msg[1]), msg[2], 3, nil
	case m == 0xDD:
		if len(msg) < 4 {
			return 0, 0, 0, errShort
		}
		return int(binary.BigEndian.Uint16(msg[1:3])), msg[3], 4, nil
	}
	return 0, 0, 0, fmt.Errorf("packstream: message does not start with a struct (marker 0x%02X)", m)
}

// sizedHeader decodes the size of a string, list, map, bytes or struct
// marker at b[off]. It returns the kind ('s', 'l', 'm', 'b' or 't'), the size
// (bytes, items, entries or fields) and the offset right after the header
// (after the signature byte for structs). Markers without a size are an
// error.
func sizedHeader(b []byte, off int) (kind byte, size int, next int, err error) {
	if off >= len(b) {
		return 0, 0, 0, errShort
	}
	m := b[off]
	need := func(n int) error {
		if off+1+n > len(b) {
			return errShort
		}
		return nil
	}
	switch {
	case m >= 0x80 && m <= 0x8F:
		return 's', int(m & 0x0F), off + 1, nil
	case m >= 0x90 && m <= 0x9F:
		return 'l', int(m & 0x0F), off + 1, nil
	case m >= 0xA0 && m <= 0xAF:
		return 'm', int(m & 0x0F), off + 1, nil
	case m >= 0xB0 && m <= 0xBF:
		if err := need(1); err != nil {
			return 0, 0, 0, err
		}
		return 't', int(m & 0x0F), off + 2, nil
	}
	var k byte
	var width int
	switch m {
	case 0xD0, 0xD1, 0xD2:
		k, width = 's', 1<<(m-0xD0)
	case 0xD4, 0xD5, 0xD6:
		k, width = 'l', 1<<(m-0xD4)
	case 0xD8, 0xD9, 0xDA:
		k, width = 'm', 1<<(m-0xD8)
	case 0xCC, 0xCD, 0xCE:
		k, width = 'b', 1<<(m-0xCC)
	case 0xDC, 0xDD:
		k, width = 't', 1<<(m-0xDC)
	default:
		return 0, 0, 0, fmt.Errorf("packstream: marker 0x%02X has no size", m)
	}
	if err := need(width); err != nil {
		return 0, 0, 0, err
	}
	var n uint64
	for i := 0; i < width; i++ {
		n = n<<8 | uint64(b[off+1+i])
	}
	next = off + 1 + width
	if k == 't' {
		if next >= len(b) {
			return 0, 0, 0, errShort
		}
		next++ // signature byte
	}
	if n > uint64(len(b)) { // every item takes at least one byte
		return 0, 0, 0, errShort
	}
	return k, int(n), next, nil
}

// skipValue returns the offset right after the PackStream value at b[off].
func skipValue(b []byte, off int) (int, error) {
	if off >= len(b) {
		return 0, errShort
	}
	m := b[off]
	fixed := -1
	switch {
	case m <= 0x7F || m >= 0xF0: // tiny int
		fixed = 1
	case m == 0xC0 || m == 0xC2 || m == 0xC3: // null, false, true
		fixed = 1
	case m == 0xC1: // float64
		fixed = 9
	case m >= 0xC8 && m <= 0xCB: // int8..int64
		fixed = 1 + 1<<(m-0xC8)
	}
	if fixed > 0 {
		if off+fixed > len(b) {
			return 0, errShort
		}
		return off + fixed, nil
	}
	kind, n, next, err := sizedHeader(b, off)
	if err != nil {
		return 0, err
	}
	switch kind {
	case 's', 'b':
		if next+n > len(b) {
			return 0, errShort
		}
		return next + n, nil
	case 'm':
		n *= 2
	}
	for i := 0; i < n; i++ {
		if next, err = skipValue(b, next); err != nil {
			return 0, err
		}
	}
	return next, nil
}

// readString decodes the string at b[off].
func readString(b []byte, off int) (string, int, error) {
	kind, n, next, err := sizedHeader(b, off)
	if err != nil {
		return "", 0, err
	}
	if kind != 's' {
		return "", 0, fmt.Errorf("packstream: expected a string at offset %d (marker 0x%02X)", off, b[off])
	}
	if next+n > len(b) {
		return "", 0, errShort
	}
	return string(b[next : next+n]), next + n, nil
}

// mapEntry is one key/value pair of an encoded map; Raw holds the encoded
// key followed by the encoded value.
type mapEntry struct {
	Key   string
	Raw   []byte
	Value []byte // encoded value only (a sub-slice of Raw)
}

// readMap splits the encoded map at b[off] into its entries without decoding
// the values.
func readMap(b []byte, off int) ([]mapEntry, int, error) {
	kind, n, next, err := sizedHeader(b, off)
	if err != nil {
		return nil, 0, err
	}
	if kind != 'm' {
		return nil, 0, fmt.Errorf("packstream: expected a map at offset %d (marker 0x%02X)", off, b[off])
	}
	entries := make([]mapEntry, 0, n)
	for i := 0; i < n; i++ {
		start := next
		key, vstart, err := readString(b, start)
		if err != nil {
			return nil, 0, fmt.Errorf("map key: %w", err)
		}
		end, err := skipValue(b, vstart)
		if err != nil {
			return nil, 0, fmt.Errorf("map value of %q: %w", key, err)
		}
		entries = append(entries, mapEntry{Key: key, Raw: b[start:end], Value: b[vstart:end]})
		next = end
	}
	return entries, next, nil
}

// appendSizeHeader encodes a string ('s'), list ('l') or map ('m') header.
func appendSizeHeader(dst []byte, kind byte, n int) []byte {
	var tiny, base byte
	switch kind {
	case 's':
		tiny, base = 0x80, 0xD0
	case 'l':
		tiny, base = 0x90, 0xD4
	case 'm':
		tiny, base = 0xA0, 0xD8
	default:
		panic("packstream: bad header kind")
	}
	switch {
	case n < 0x10:
		return append(dst, tiny|byte(n))
	case n <= 0xFF:
		return append(dst, base, byte(n))
	case n <= 0xFFFF:
		return append(dst, base+1, byte(n>>8), byte(n))
	default:
		return append(dst, base+2, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
}

func appendString(dst []byte, s string) []byte {
	dst = appendSizeHeader(dst, 's', len(s))
	return append(dst, s...)
}

// appendInt encodes an integer in its smallest PackStream form.
func appendInt(dst []byte, v int64) []byte {
	switch {
	case v >= -16 && v <= 127:
		return append(dst, byte(int8(v)))
	case v >= -128 && v <= 127:
		return append(dst, 0xC8, byte(int8(v)))
	case v >= -32768 && v <= 32767:
		return append(dst, 0xC9, byte(v>>8), byte(v))
	case v >= -2147483648 && v <= 2147483647:
		return append(dst, 0xCA, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	}
	dst = append(dst, 0xCB)
	return binary.BigEndian.AppendUint64(dst, uint64(v))
}

// structMessage starts a message with the given number of fields and tag.
func structMessage(fields int, tag byte) []byte {
	if fields > 15 {
		panic("packstream: too many fields")
	}
	return []byte{0xB0 | byte(fields), tag}
}

// rewriteMap re-encodes a map split by readMap, with keys renamed
// (old -> new) and extra entries (each an encoded key followed by its encoded
// value) appended. It returns dst with the new map appended.
func rewriteMap(dst []byte, entries []mapEntry, rename map[string]string, extra ...[]byte) []byte {
	dst = appendSizeHeader(dst, 'm', len(entries)+len(extra))
	for _, e := range entries {
		if nk, ok := rename[e.Key]; ok {
			dst = appendString(dst, nk)
			dst = append(dst, e.Value...)
			continue
		}
		dst = append(dst, e.Raw...)
	}
	for _, x := range extra {
		dst = append(dst, x...)
	}
	return dst
}
