package neo4jtest

// A hand-written Bolt 3 client sends one long pipeline in a single write
// and checks every answer, in order, against the real Neo4j 3.1.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func run3(query string, params []byte) []byte {
	m := appendString(structMessage(3, tagRun), query)
	if params == nil {
		params = appendSizeHeader(nil, 'm', 0)
	}
	m = append(m, params...)
	return appendSizeHeader(m, 'm', 0)
}

// record1 is RECORD [v] for a small integer v.
func record1(v int64) []byte {
	return appendInt(append(structMessage(1, tagRecord), 0x91), v)
}

type step struct {
	send   []byte
	expect []string // tags ("SUCCESS", "RECORD", ...) answered to send, in order
	check  func(t *testing.T, answers [][]byte)
}

// flushPoint ends a pipeline segment: the client waits for every answer
// before sending more. Neo4j treats RESET as an interrupt (messages queued
// before it are IGNORED, even valid ones), so a RESET starts a segment, as
// it does in the driver, which sends RESET only on an idle or failed
// connection.
var flushPoint = step{}

func TestPipelinedRawBolt3(t *testing.T) {
	resetDB(t)
	c, err := net.DialTimeout("tcp", srv.Proxy().Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	// Offer 4.4 and 3.0; the proxy must pick 3.0.
	if _, err := c.Write(append(bytes.Clone(boltMagic), 0, 0, 4, 4, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	var ver [4]byte
	if _, err := io.ReadFull(c, ver[:]); err != nil || ver != [4]byte{0, 0, 0, 3} {
		t.Fatalf("handshake answer % X, %v", ver, err)
	}

	begin := appendSizeHeader(structMessage(1, tagBegin), 'm', 3)
	begin = append(begin, kv("tx_timeout", appendInt(nil, 10000))...)
	begin = append(begin, kv("tx_metadata", append(appendSizeHeader(nil, 'm', 1), kv("app", appendString(nil, "fondue"))...))...)
	begin = append(begin, kv("bookmarks", append(appendSizeHeader(nil, 'l', 1), appendString(nil, "neo4j:bookmark:v1:tx1")...))...)
	bytesParam := append(appendSizeHeader(nil, 'm', 1), kv("b", []byte{0xCC, 0x01, 0x07})...)
	countPipe := func(n int64) []step {
		return []step{
			{send: run3("MATCH (n:Pipe) RETURN count(n) AS c", nil), expect: []string{"SUCCESS"}},
			{send: structMessage(0, tagPullAll), expect: []string{"RECORD", "SUCCESS"}, check: func(t *testing.T, a [][]byte) {
				if !bytes.Equal(a[0], record1(n)) {
					t.Errorf("count of :Pipe is % X, want % X", a[0], record1(n))
				}
			}},
		}
	}
	steps := []step{
		{send: hello(kv("user_agent", appendString(nil, "raw-test/1")), kv("scheme", appendString(nil, "none"))),
			expect: []string{"SUCCESS"}, check: func(t *testing.T, a [][]byte) {
				if !bytes.Contains(a[0], []byte("Neo4j/3.1.1")) || !bytes.Contains(a[0], []byte("connection_id")) {
					t.Errorf("HELLO answer lacks server or connection_id: %q", a[0])
				}
			}},
		{send: run3("UNWIND range(1, 3) AS i RETURN i", nil), expect: []string{"SUCCESS"}, check: func(t *testing.T, a [][]byte) {
			if !bytes.Contains(a[0], []byte("t_first")) || bytes.Contains(a[0], []byte("result_available_after")) {
				t.Errorf("RUN summary keys not renamed for Bolt 3: %q", a[0])
			}
		}},
		{send: structMessage(0, tagPullAll), expect: []string{"RECORD", "RECORD", "RECORD", "SUCCESS"}, check: func(t *testing.T, a [][]byte) {
			for i := 0; i < 3; i++ {
				if !bytes.Equal(a[i], record1(int64(i+1))) {
					t.Errorf("record %d is % X", i, a[i])
				}
			}
		}},
		// A transaction that fails: everything after the failure is
		// IGNORED (COMMIT too, merged from two IGNOREDs) until RESET, which
		// rolls the transaction back.
		{send: begin, expect: []string{"SUCCESS"}},
		{send: run3("CREATE (n:Pipe) RETURN 1", nil), expect: []string{"SUCCESS"}},
		{send: structMessage(0, tagPullAll), expect: []string{"RECORD", "SUCCESS"}},
		{send: run3("RETURN (", nil), expect: []string{"FAILURE"}, check: func(t *testing.T, a [][]byte) {
			if !bytes.Contains(a[0], []byte("Neo.ClientError.Statement.SyntaxError")) {
				t.Errorf("failure %q", a[0])
			}
		}},
		{send: structMessage(0, tagPullAll), expect: []string{"IGNORED"}},
		{send: structMessage(0, tagCommit), expect: []string{"IGNORED"}},
		flushPoint,
		{send: structMessage(0, tagReset), expect: []string{"SUCCESS"}},
	}
	steps = append(steps, countPipe(0)...)
	steps = append(steps,
		// A committed transaction, with a bookmark.
		step{send: appendSizeHeader(structMessage(1, tagBegin), 'm', 0), expect: []string{"SUCCESS"}},
		step{send: run3("CREATE (n:Pipe)", nil), expect: []string{"SUCCESS"}},
		step{send: structMessage(0, tagPullAll), expect: []string{"SUCCESS"}},
		step{send: structMessage(0, tagCommit), expect: []string{"SUCCESS"}, check: func(t *testing.T, a [][]byte) {
			if !bytes.Contains(a[0], []byte("neo4j:bookmark:v1:tx")) {
				t.Errorf("COMMIT answer has no bookmark: %q", a[0])
			}
		}},
		// A rolled back transaction.
		step{send: appendSizeHeader(structMessage(1, tagBegin), 'm', 0), expect: []string{"SUCCESS"}},
		step{send: run3("CREATE (n:Pipe)", nil), expect: []string{"SUCCESS"}},
		step{send: structMessage(0, tagPullAll), expect: []string{"SUCCESS"}},
		step{send: structMessage(0, tagRollback), expect: []string{"SUCCESS"}},
	)
	steps = append(steps, countPipe(1)...)
	steps = append(steps,
		// A parameter Bolt v1 cannot carry: the proxy fails the RUN itself
		// and keeps the Bolt failure semantics until RESET.
		step{send: run3("RETURN $b", bytesParam), expect: []string{"FAILURE"}, check: func(t *testing.T, a [][]byte) {
			if !bytes.Contains(a[0], []byte("Neo.ClientError.Statement.TypeError")) {
				t.Errorf("failure %q", a[0])
			}
		}},
		step{send: structMessage(0, tagPullAll), expect: []string{"IGNORED"}},
		step{send: run3("RETURN 5", nil), expect: []string{"IGNORED"}},
		flushPoint,
		step{send: structMessage(0, tagReset), expect: []string{"SUCCESS"}},
		step{send: run3("RETURN 5", nil), expect: []string{"SUCCESS"}},
		step{send: structMessage(0, tagPullAll), expect: []string{"RECORD", "SUCCESS"}, check: func(t *testing.T, a [][]byte) {
			if !bytes.Equal(a[0], record1(5)) {
				t.Errorf("record % X", a[0])
			}
		}},
	)

	// Each segment in one write; GOODBYE at the end of the last one.
	r := bufio.NewReader(c)
	steps = append(steps, flushPoint)
	var segment []step
	for i, s := range steps {
		if s.send != nil {
			segment = append(segment, s)
			continue
		}
		var pipeline bytes.Buffer
		for _, s := range segment {
			if _, err := writeMessage(&pipeline, s.send); err != nil {
				t.Fatal(err)
			}
		}
		if i == len(steps)-1 {
			writeMessage(&pipeline, structMessage(0, tagGoodbye))
		}
		if _, err := c.Write(pipeline.Bytes()); err != nil {
			t.Fatal(err)
		}
		for j, s := range segment {
			var answers [][]byte
			var tags []string
			for len(tags) < len(s.expect) {
				msg, err := readMessage(r, nil)
				if err != nil {
					t.Fatalf("before step %d, %s: reading answer %d: %v", i, describe(s.send), len(tags)+1, err)
				}
				_, tag, _, _ := structHeader(msg)
				tags = append(tags, tagName(tag))
				answers = append(answers, bytes.Clone(msg))
			}
			if strings.Join(tags, " ") != strings.Join(s.expect, " ") {
				t.Fatalf("segment before step %d, message %d (%s): answers %v, want %v (last: %q)",
					i, j, describe(s.send), tags, s.expect, answers[len(answers)-1])
			}
			if s.check != nil {
				s.check(t, answers)
			}
		}
		segment = nil
	}
	// GOODBYE closes the connection.
	if msg, err := readMessage(r, nil); !errors.Is(err, io.EOF) {
		t.Fatalf("after GOODBYE: % X, %v; want EOF", msg, err)
	}
}

func describe(msg []byte) string {
	_, tag, off, err := structHeader(msg)
	if err != nil {
		return fmt.Sprintf("% X", msg)
	}
	if tag == tagRun {
		q, _, _ := readString(msg, off)
		return "RUN " + q
	}
	return tagName(tag)
}
