package neo4jtest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

func reader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

func TestWriteMessageFraming(t *testing.T) {
	var buf bytes.Buffer
	n, err := writeMessage(&buf, []byte{0xB0, 0x3F})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x00, 0x02, 0xB0, 0x3F, 0x00, 0x00}
	if !bytes.Equal(buf.Bytes(), want) || n != len(want) {
		t.Fatalf("got % X (n=%d), want % X", buf.Bytes(), n, want)
	}
	if _, err := writeMessage(&buf, nil); err == nil {
		t.Fatal("an empty message must be refused: it would be read as a NOOP")
	}
}

func TestWriteMessageSplitsLargePayloads(t *testing.T) {
	payload := bytes.Repeat([]byte{0xAB}, 2*maxChunkSize+10)
	var buf bytes.Buffer
	n, err := writeMessage(&buf, payload)
	if err != nil {
		t.Fatal(err)
	}
	if n != buf.Len() || n != framedSize(len(payload)) {
		t.Fatalf("n=%d, buffer=%d, framedSize=%d", n, buf.Len(), framedSize(len(payload)))
	}
	b := buf.Bytes()
	sizes := []int{}
	for len(b) >= 2 {
		sz := int(binary.BigEndian.Uint16(b))
		sizes = append(sizes, sz)
		b = b[2+sz:]
	}
	if got, want := sizes, []int{maxChunkSize, maxChunkSize, 10, 0}; !equalInts(got, want) {
		t.Fatalf("chunk sizes %v, want %v", got, want)
	}
	got, err := readMessage(reader(buf.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, payload) {
		t.Fatal("round trip changed the payload")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReadMessageSkipsNoopsAndKeepsOrder(t *testing.T) {
	stream := []byte{
		0x00, 0x00, // NOOP
		0x00, 0x00, // NOOP
		0x00, 0x01, 0xB0, 0x00, 0x01, 0x0F, 0x00, 0x00, // "B0 0F" in two chunks
		0x00, 0x00, // NOOP between messages
		0x00, 0x02, 0xB0, 0x3F, 0x00, 0x00,
	}
	r := reader(stream)
	var buf []byte
	m1, err := readMessage(r, buf)
	if err != nil || !bytes.Equal(m1, []byte{0xB0, 0x0F}) {
		t.Fatalf("first message % X, %v", m1, err)
	}
	m1 = bytes.Clone(m1)
	m2, err := readMessage(r, m1[:0])
	if err != nil || !bytes.Equal(m2, []byte{0xB0, 0x3F}) {
		t.Fatalf("second message % X, %v", m2, err)
	}
	if _, err := readMessage(r, nil); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end: %v, want EOF", err)
	}
}

func TestReadMessageTruncated(t *testing.T) {
	for name, stream := range map[string][]byte{
		"inside a chunk":   {0x00, 0x05, 0xB0, 0x3F},
		"before the end":   {0x00, 0x02, 0xB0, 0x3F},
		"inside a header":  {0x00, 0x02, 0xB0, 0x3F, 0x00},
		"after a noop too": {0x00, 0x00, 0x00, 0x03, 0xB1},
	} {
		if _, err := readMessage(reader(stream), nil); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: got %v, want io.ErrUnexpectedEOF", name, err)
		}
	}
}

// Encoded values covering every PackStream marker family.
var packstreamSamples = map[string][]byte{
	"tiny int":      {0x2A},
	"negative tiny": {0xF0},
	"int8":          {0xC8, 0x80},
	"int16":         {0xC9, 0x01, 0x00},
	"int32":         {0xCA, 0, 1, 0, 0},
	"int64":         {0xCB, 0, 0, 0, 1, 0, 0, 0, 0},
	"float":         {0xC1, 0x3F, 0xF1, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9A},
	"null":          {0xC0},
	"true":          {0xC3},
	"false":         {0xC2},
	"tiny string":   append([]byte{0x83}, "abc"...),
	"string8":       append([]byte{0xD0, 20}, strings.Repeat("x", 20)...),
	"string16":      append([]byte{0xD1, 0x01, 0x00}, strings.Repeat("y", 256)...),
	"bytes8":        {0xCC, 0x02, 0x01, 0x02},
	"tiny list":     {0x93, 0x01, 0x81, 'a', 0xC0},
	"list8":         append([]byte{0xD4, 17}, bytes.Repeat([]byte{0x01}, 17)...),
	"tiny map":      {0xA2, 0x81, 'a', 0x01, 0x81, 'b', 0x92, 0x01, 0x02},
	"nested map":    {0xA1, 0x81, 'm', 0xA1, 0x81, 'n', 0x91, 0xA0},
	"struct (node)": {0xB3, 0x4E, 0x01, 0x91, 0x81, 'L', 0xA0},
}

func TestSkipValue(t *testing.T) {
	for name, v := range packstreamSamples {
		// A trailing marker must not be consumed.
		b := append(bytes.Clone(v), 0xC0)
		end, err := skipValue(b, 0)
		if err != nil || end != len(v) {
			t.Errorf("%s: skipValue = %d, %v; want %d", name, end, err, len(v))
		}
		if len(v) > 1 {
			if _, err := skipValue(v[:len(v)-1], 0); err == nil {
				t.Errorf("%s: truncated value not detected", name)
			}
		}
	}
}

func TestHeaderEncodingRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 255, 256, 65535, 65536} {
		for _, kind := range []byte{'s', 'l', 'm'} {
			h := appendSizeHeader(nil, kind, n)
			k, got, next, err := sizedHeader(append(h, make([]byte, n*2)...), 0)
			if err != nil || k != kind || got != n || next != len(h) {
				t.Errorf("kind %c size %d: header % X decodes to %c %d %d %v", kind, n, h, k, got, next, err)
			}
		}
		s := strings.Repeat("é", n/2)
		enc := appendString(nil, s)
		got, end, err := readString(enc, 0)
		if err != nil || got != s || end != len(enc) {
			t.Errorf("string of %d bytes does not round trip: %v", len(s), err)
		}
	}
	for _, v := range []int64{0, -16, -17, 127, 128, -128, -129, 32767, -32768, 1 << 31, -(1 << 31) - 1, 1<<62 + 5} {
		enc := appendInt(nil, v)
		end, err := skipValue(enc, 0)
		if err != nil || end != len(enc) {
			t.Errorf("int %d: % X is not one value", v, enc)
		}
	}
}

func hello(entries ...[]byte) []byte {
	m := structMessage(1, tagHello)
	m = appendSizeHeader(m, 'm', len(entries))
	for _, e := range entries {
		m = append(m, e...)
	}
	return m
}

func kv(k string, v []byte) []byte { return append(appendString(nil, k), v...) }

func TestTranslateHelloToInit(t *testing.T) {
	msg := hello(
		kv("user_agent", appendString(nil, "Go Driver/5.28")),
		kv("scheme", appendString(nil, "basic")),
		kv("principal", appendString(nil, "neo4j")),
		kv("credentials", appendString(nil, "pw")),
	)
	out, pend, err := translateRequest(msg)
	if err != nil {
		t.Fatal(err)
	}
	want := structMessage(2, tagHello)
	want = appendString(want, "Go Driver/5.28")
	want = appendSizeHeader(want, 'm', 3)
	want = append(want, kv("scheme", appendString(nil, "basic"))...)
	want = append(want, kv("principal", appendString(nil, "neo4j"))...)
	want = append(want, kv("credentials", appendString(nil, "pw"))...)
	if len(out) != 1 || !bytes.Equal(out[0], want) {
		t.Fatalf("INIT\n got % X\nwant % X", out, want)
	}
	if pend.parts != 1 || pend.merge || !pend.hello {
		t.Fatalf("pending %+v", pend)
	}
}

func TestTranslateRunDropsMetadata(t *testing.T) {
	params := []byte{0xA1, 0x81, 'x', 0x01}
	meta := kv("tx_timeout", appendInt(nil, 5000))
	msg := structMessage(3, tagRun)
	msg = appendString(msg, "RETURN $x")
	msg = append(msg, params...)
	msg = append(appendSizeHeader(msg, 'm', 1), meta...)
	out, pend, err := translateRequest(msg)
	if err != nil {
		t.Fatal(err)
	}
	want := append(appendString(structMessage(2, tagRun), "RETURN $x"), params...)
	if len(out) != 1 || !bytes.Equal(out[0], want) {
		t.Fatalf("RUN\n got % X\nwant % X", out, want)
	}
	if pend.request != "RUN" || pend.parts != 1 {
		t.Fatalf("pending %+v", pend)
	}
}

func TestTranslateTransactionMessages(t *testing.T) {
	begin := append(appendSizeHeader(structMessage(1, tagBegin), 'm', 1), kv("mode", appendString(nil, "r"))...)
	for _, tc := range []struct {
		msg  []byte
		stmt string
	}{
		{begin, "BEGIN"},
		{structMessage(0, tagCommit), "COMMIT"},
		{structMessage(0, tagRollback), "ROLLBACK"},
	} {
		out, pend, err := translateRequest(tc.msg)
		if err != nil {
			t.Fatal(err)
		}
		run := appendSizeHeader(appendString(structMessage(2, tagRun), tc.stmt), 'm', 0)
		if len(out) != 2 || !bytes.Equal(out[0], run) || !bytes.Equal(out[1], []byte{0xB0, 0x3F}) {
			t.Errorf("%s: got % X", tc.stmt, out)
		}
		if !pend.merge || pend.parts != 2 {
			t.Errorf("%s: pending %+v", tc.stmt, pend)
		}
	}
	for _, tag := range []byte{tagPullAll, tagDiscardAll, tagReset} {
		msg := structMessage(0, tag)
		out, pend, err := translateRequest(msg)
		if err != nil || len(out) != 1 || !bytes.Equal(out[0], msg) || pend.parts != 1 {
			t.Errorf("%s must pass through: % X %+v %v", tagName(tag), out, pend, err)
		}
	}
	// Bolt 4 PULL {n} has the PULL_ALL tag but a field: not for this proxy.
	pullN := append(appendSizeHeader(structMessage(1, tagPullAll), 'm', 1), kv("n", appendInt(nil, 100))...)
	if _, _, err := translateRequest(pullN); err == nil {
		t.Error("PULL with fields must be rejected")
	}
	if _, _, err := translateRequest(structMessage(0, 0x54)); err == nil {
		t.Error("unknown message must be rejected")
	}
}

func success(entries ...[]byte) []byte {
	m := appendSizeHeader(structMessage(1, tagSuccess), 'm', len(entries))
	for _, e := range entries {
		m = append(m, e...)
	}
	return m
}

func failure(code string) []byte {
	m := appendSizeHeader(structMessage(1, tagFailure), 'm', 2)
	m = append(m, kv("code", appendString(nil, code))...)
	return append(m, kv("message", appendString(nil, "boom"))...)
}

func TestMergeEmulatedSummaries(t *testing.T) {
	runOK := success(kv("fields", []byte{0x90}))
	commitOK := success(kv("bookmark", appendString(nil, "neo4j:bookmark:v1:tx7")))
	fail := failure("Neo.ClientError.Transaction.TransactionNotFound")
	ignored := structMessage(0, tagIgnored)
	for name, tc := range map[string]struct {
		in   [][]byte
		want []byte
	}{
		"success carries the bookmark of the PULL_ALL summary": {[][]byte{runOK, commitOK}, commitOK},
		"failure then ignored gives the failure":               {[][]byte{fail, ignored}, fail},
		"ignored twice gives ignored":                          {[][]byte{ignored, ignored}, ignored},
		"a late failure wins over success":                     {[][]byte{runOK, fail}, fail},
	} {
		p := &pendingResponse{request: "COMMIT", parts: 2, merge: true}
		out, done := p.add(tc.in[0][1], tc.in[0])
		if out != nil || done {
			t.Errorf("%s: answered after one of two summaries", name)
		}
		out, done = p.add(tc.in[1][1], tc.in[1])
		if !done || !bytes.Equal(out, tc.want) {
			t.Errorf("%s: got % X, want % X", name, out, tc.want)
		}
	}
}

func TestRewriteSuccess(t *testing.T) {
	in := success(kv("fields", []byte{0x91, 0x81, 'n'}), kv("result_available_after", appendInt(nil, 12)))
	got := rewriteSuccess(in, false)
	want := success(kv("fields", []byte{0x91, 0x81, 'n'}), kv("t_first", appendInt(nil, 12)))
	if !bytes.Equal(got, want) {
		t.Fatalf("got % X, want % X", got, want)
	}
	plain := success(kv("bookmark", appendString(nil, "b")))
	if got := rewriteSuccess(plain, false); !bytes.Equal(got, plain) {
		t.Fatal("a summary without v1-only keys must pass unchanged")
	}
	got = rewriteSuccess(success(kv("server", appendString(nil, "Neo4j/3.1.1"))), true)
	want = success(kv("server", appendString(nil, "Neo4j/3.1.1")), kv("connection_id", appendString(nil, "bolt-proxy")))
	if !bytes.Equal(got, want) {
		t.Fatalf("HELLO success: got % X, want % X", got, want)
	}
}

func TestOffersBolt3(t *testing.T) {
	driverV5 := []byte{0, 0, 1, 0xFF, 0, 8, 8, 5, 0, 2, 4, 4, 0, 0, 0, 3}
	if !offersBolt3(driverV5) {
		t.Error("driver v5 proposals include 3.0")
	}
	if offersBolt3([]byte{0, 8, 8, 5, 0, 2, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0}) {
		t.Error("5.0-5.8 and 4.2-4.4 do not include 3.0")
	}
}

func TestSpendBytes(t *testing.T) {
	p := &BoltProxy{}
	p.byteBudget.Store(-1)
	if !p.spendBytes(1 << 40) {
		t.Fatal("disarmed budget must allow everything")
	}
	p.DropAfterBytes(100)
	if !p.spendBytes(60) || !p.spendBytes(40) {
		t.Fatal("100 bytes fit a budget of 100")
	}
	if p.spendBytes(1) {
		t.Fatal("the 101st byte must trip the fault")
	}
	if !p.spendBytes(1000) {
		t.Fatal("the fault is one-shot")
	}
}
