package neo4jtest

// BoltProxy lets neo4j-go-driver v5 (which speaks Bolt 3.0 and newer) talk to
// Neo4j 3.1 (which speaks only Bolt v1). See README.md for the mapping.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

var boltMagic = []byte{0x60, 0x60, 0xB0, 0x17}

// Pre-encoded Bolt v1 requests used to emulate Bolt 3 transaction messages.
var (
	msgPullAll  = structMessage(0, tagPullAll)
	msgIgnored  = structMessage(0, tagIgnored)
	runBegin    = runStatement("BEGIN")
	runCommit   = runStatement("COMMIT")
	runRollback = runStatement("ROLLBACK")
)

func runStatement(q string) []byte {
	m := structMessage(2, tagRun)
	m = appendString(m, q)
	return appendSizeHeader(m, 'm', 0)
}

// Request describes one message the driver sent, as seen by DropWhen.
type Request struct {
	ConnID  uint64 // proxy connection number, starting at 1
	Message string // "HELLO", "RUN", "PULL_ALL", "BEGIN", "COMMIT", ...
	Query   string // the Cypher text, for RUN only
}

// ProxyStats are cumulative counters of a BoltProxy.
type ProxyStats struct {
	Accepted       int64 // driver connections accepted
	Active         int64 // driver connections open now
	Requests       int64 // driver messages forwarded (after translation)
	Runs           int64 // RUN messages forwarded
	BytesToServer  int64 // bytes written to Neo4j, framing included
	BytesToClient  int64 // bytes written to the driver, framing included
	Dropped        int64 // connections cut by DropAll, Refuse or a fault
	UpstreamErrors int64 // failures to connect or handshake with Neo4j
}

// ProxyOption configures a BoltProxy.
type ProxyOption func(*BoltProxy)

// WithLogf makes the proxy report connection-level events (protocol errors,
// upstream failures, injected faults) through logf, e.g. testing.T.Logf.
func WithLogf(logf func(format string, args ...any)) ProxyOption {
	return func(p *BoltProxy) { p.logf = logf }
}

// WithDialTimeout bounds how long the proxy waits to connect to Neo4j.
func WithDialTimeout(d time.Duration) ProxyOption {
	return func(p *BoltProxy) { p.dialTimeout = d }
}

// BoltProxy accepts Bolt 3.0 connections on a loopback port and relays them
// to a Bolt v1 server (Neo4j 3.1), translating the messages that differ. Each
// driver connection gets its own upstream connection. It is safe for
// concurrent use.
type BoltProxy struct {
	upstream    string
	addr        string
	logf        func(string, ...any)
	dialTimeout time.Duration

	mu       sync.Mutex
	ln       net.Listener
	closed   bool
	refusing bool
	sessions map[uint64]*proxySession
	nextID   uint64
	dropWhen func(Request) bool

	wg sync.WaitGroup

	// byteBudget arms DropAfterBytes: >=0 is how many more bytes may be
	// relayed to drivers before a connection is cut; -1 means disarmed.
	byteBudget atomic.Int64

	accepted, requests, runs, toServer, toClient, dropped, upErrors atomic.Int64
}

// NewBoltProxy starts a proxy listening on 127.0.0.1 (a free port) that
// relays to the Bolt v1 server at upstreamAddr (host:port).
func NewBoltProxy(upstreamAddr string, opts ...ProxyOption) (*BoltProxy, error) {
	p := &BoltProxy{
		upstream:    upstreamAddr,
		logf:        func(string, ...any) {},
		dialTimeout: 5 * time.Second,
		sessions:    map[uint64]*proxySession{},
	}
	p.byteBudget.Store(-1)
	for _, o := range opts {
		o(p)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("bolt proxy: listen on 127.0.0.1: %w", err)
	}
	p.ln = ln
	p.addr = ln.Addr().String()
	p.wg.Add(1)
	go p.serve(ln)
	return p, nil
}

// Addr is the proxy's host:port.
func (p *BoltProxy) Addr() string { return p.addr }

// URL is the bolt:// URL a driver should use (direct, not routing).
func (p *BoltProxy) URL() string { return "bolt://" + p.addr }

// Upstream is the address of the Bolt v1 server the proxy relays to.
func (p *BoltProxy) Upstream() string { return p.upstream }

// Stats returns the proxy's counters.
func (p *BoltProxy) Stats() ProxyStats {
	p.mu.Lock()
	active := int64(len(p.sessions))
	p.mu.Unlock()
	return ProxyStats{
		Accepted:       p.accepted.Load(),
		Active:         active,
		Requests:       p.requests.Load(),
		Runs:           p.runs.Load(),
		BytesToServer:  p.toServer.Load(),
		BytesToClient:  p.toClient.Load(),
		Dropped:        p.dropped.Load(),
		UpstreamErrors: p.upErrors.Load(),
	}
}

// Close stops listening, cuts every connection and waits for the proxy's
// goroutines to finish.
func (p *BoltProxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.wg.Wait()
		return
	}
	p.closed = true
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	p.mu.Unlock()
	p.dropAll(false)
	p.wg.Wait()
}

// DropAll abruptly closes every open connection, both the driver side (with
// a TCP reset) and the Neo4j side (which rolls back any open transaction).
// The proxy keeps listening, so the driver can reconnect. It returns the
// number of connections cut.
func (p *BoltProxy) DropAll() int { return p.dropAll(true) }

func (p *BoltProxy) dropAll(count bool) int {
	p.mu.Lock()
	list := make([]*proxySession, 0, len(p.sessions))
	for _, s := range p.sessions {
		list = append(list, s)
	}
	p.mu.Unlock()
	n := 0
	for _, s := range list {
		if s.close(true) && count {
			n++
		}
	}
	p.dropped.Add(int64(n))
	return n
}

// DropWhen installs a fault: pred is called (from many goroutines at once;
// it must be safe for that) for every message a driver sends, before it is
// forwarded. When it returns true, that message is NOT forwarded and its
// connection is cut on both sides instead. nil removes the fault.
func (p *BoltProxy) DropWhen(pred func(Request) bool) {
	p.mu.Lock()
	p.dropWhen = pred
	p.mu.Unlock()
}

// DropAtRun arms a one-shot fault: counting from now across all connections,
// RUN messages 1..n-1 are forwarded and the connection that sends the n-th
// RUN is cut instead of forwarding it (so Neo4j never executes it, and rolls
// back the transaction the connection had open). It replaces any DropWhen
// predicate. Counting from n=1 cuts at the very next RUN.
func (p *BoltProxy) DropAtRun(n int) {
	if n < 1 {
		panic("neo4jtest: DropAtRun needs n >= 1")
	}
	var seen atomic.Int64
	p.DropWhen(func(r Request) bool {
		return r.Message == "RUN" && seen.Add(1) == int64(n)
	})
}

// DropAfterBytes arms a one-shot fault: counting from now across all
// connections, at most n more bytes are relayed from Neo4j to drivers; the
// connection whose next message would exceed that is closed instead (both
// sides; the driver reads what was relayed, then the end of the stream).
// Use it to kill a connection in the middle of a result. n <= 0 disarms it.
func (p *BoltProxy) DropAfterBytes(n int64) {
	if n <= 0 {
		n = -1
	}
	p.byteBudget.Store(n)
}

// ClearFaults removes every armed fault (DropWhen, DropAtRun, DropAfterBytes).
func (p *BoltProxy) ClearFaults() {
	p.DropWhen(nil)
	p.byteBudget.Store(-1)
}

// Refuse simulates a server that went away: the proxy stops listening (new
// connections are refused by the OS) and every open connection is cut.
// Restore brings the same address back.
func (p *BoltProxy) Refuse() {
	p.mu.Lock()
	if p.closed || p.refusing {
		p.mu.Unlock()
		return
	}
	p.refusing = true
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	p.mu.Unlock()
	p.DropAll()
}

// Restore undoes Refuse: the proxy listens again on the same address.
func (p *BoltProxy) Restore() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("bolt proxy: Restore after Close")
	}
	if !p.refusing {
		return nil
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return fmt.Errorf("bolt proxy: listen again on %s: %w", p.addr, err)
	}
	p.refusing = false
	p.ln = ln
	p.wg.Add(1)
	go p.serve(ln)
	return nil
}

func (p *BoltProxy) serve(ln net.Listener) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			p.logf("bolt proxy: accept: %v", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		p.accepted.Add(1)
		s := p.register(c)
		if s == nil {
			abruptClose(c)
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			s.run()
		}()
	}
}

func (p *BoltProxy) register(c net.Conn) *proxySession {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.refusing {
		return nil
	}
	p.nextID++
	s := &proxySession{
		p:       p,
		id:      p.nextID,
		client:  c,
		pending: make(chan *pendingResponse, 256),
		done:    make(chan struct{}),
	}
	p.sessions[s.id] = s
	return s
}

func (p *BoltProxy) unregister(s *proxySession) {
	p.mu.Lock()
	delete(p.sessions, s.id)
	p.mu.Unlock()
}

func (p *BoltProxy) shouldDrop(r Request) bool {
	p.mu.Lock()
	pred := p.dropWhen
	p.mu.Unlock()
	return pred != nil && pred(r)
}

// spendBytes reports whether n more bytes may be relayed to a driver under
// an armed DropAfterBytes fault (always true when none is armed). The call
// that finds the budget too small disarms the fault and returns false.
func (p *BoltProxy) spendBytes(n int64) bool {
	for {
		left := p.byteBudget.Load()
		if left < 0 {
			return true
		}
		if n <= left {
			if p.byteBudget.CompareAndSwap(left, left-n) {
				return true
			}
			continue
		}
		if p.byteBudget.CompareAndSwap(left, -1) {
			return false
		}
	}
}

func abruptClose(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0) // send RST, like a crashed peer
	}
	c.Close()
}

// pendingResponse is what the response pump expects for one driver request:
// `parts` upstream summaries, merged into one when merge is set.
type pendingResponse struct {
	request string
	parts   int
	merge   bool   // emulated BEGIN/COMMIT/ROLLBACK: RUN + PULL_ALL upstream
	hello   bool   // add connection_id to the SUCCESS
	local   []byte // answered by the proxy itself, nothing sent upstream

	seen    int
	failure []byte // first FAILURE
	ignored bool
	success []byte // last SUCCESS
}

// proxySession is one driver connection and its Neo4j connection.
type proxySession struct {
	p      *BoltProxy
	id     uint64
	client net.Conn

	connMu sync.Mutex // guards server, which close may read at any time
	server net.Conn

	cr *bufio.Reader // from the driver
	sw *bufio.Writer // to Neo4j
	sr *bufio.Reader // from Neo4j
	cw *bufio.Writer // to the driver

	// pending holds, in order, the responses the driver still waits for. The
	// request pump adds an entry before it writes the request upstream, so a
	// response never arrives before its entry.
	pending chan *pendingResponse

	closeOnce sync.Once
	done      chan struct{}
}

// close shuts both sockets; abrupt sends a TCP reset to the driver. It
// reports whether this call closed the session.
func (s *proxySession) close(abrupt bool) bool {
	closed := false
	s.closeOnce.Do(func() {
		closed = true
		close(s.done)
		if abrupt {
			abruptClose(s.client)
		} else {
			s.client.Close()
		}
		s.connMu.Lock()
		server := s.server
		s.connMu.Unlock()
		if server != nil {
			if abrupt {
				abruptClose(server)
			} else {
				server.Close()
			}
		}
	})
	return closed
}

func (s *proxySession) isClosed() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *proxySession) logf(format string, args ...any) {
	if s.isClosed() {
		return // errors after a deliberate close are expected
	}
	s.p.logf("bolt proxy conn %d: "+format, append([]any{s.id}, args...)...)
}

func (s *proxySession) run() {
	defer s.p.unregister(s)
	defer s.close(false)
	if err := s.handshake(); err != nil {
		s.logf("handshake: %v", err)
		s.close(true)
		return
	}
	respDone := make(chan struct{})
	go func() {
		defer close(respDone)
		s.responses()
	}()
	if s.requests() {
		// GOODBYE: the response pump answers what is still pending, then
		// closes both sides.
		close(s.pending)
	} else {
		s.close(false)
	}
	<-respDone
}

// handshake negotiates Bolt 3.0 with the driver and Bolt v1 with Neo4j. It
// connects upstream before answering the driver, so a driver that talks to
// a proxy whose server is down sees the connection close during handshake.
func (s *proxySession) handshake() error {
	s.client.SetDeadline(time.Now().Add(30 * time.Second))
	defer s.client.SetDeadline(time.Time{})
	var hs [20]byte
	if _, err := io.ReadFull(s.client, hs[:]); err != nil {
		return fmt.Errorf("read driver handshake: %w", err)
	}
	if !bytes.Equal(hs[:4], boltMagic) {
		return fmt.Errorf("driver did not send the Bolt magic (got % X)", hs[:4])
	}
	if !offersBolt3(hs[4:]) {
		s.client.Write([]byte{0, 0, 0, 0})
		return fmt.Errorf("driver did not offer Bolt 3.0 (offered % X)", hs[4:])
	}

	up, err := net.DialTimeout("tcp", s.p.upstream, s.p.dialTimeout)
	if err != nil {
		s.p.upErrors.Add(1)
		return fmt.Errorf("connect to Neo4j at %s: %w", s.p.upstream, err)
	}
	s.connMu.Lock()
	s.server = up
	s.connMu.Unlock()
	if s.isClosed() { // dropped while dialing: close may have missed up
		up.Close()
		return errors.New("closed while connecting upstream")
	}
	up.SetDeadline(time.Now().Add(30 * time.Second))
	req := append(append([]byte{}, boltMagic...), 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	if _, err := up.Write(req); err != nil {
		s.p.upErrors.Add(1)
		return fmt.Errorf("send handshake to Neo4j: %w", err)
	}
	var ans [4]byte
	if _, err := io.ReadFull(up, ans[:]); err != nil {
		s.p.upErrors.Add(1)
		return fmt.Errorf("read handshake answer from Neo4j: %w", err)
	}
	if ans != [4]byte{0, 0, 0, 1} {
		s.p.upErrors.Add(1)
		return fmt.Errorf("Neo4j did not accept Bolt v1 (answered % X)", ans[:])
	}
	up.SetDeadline(time.Time{})
	if _, err := s.client.Write([]byte{0, 0, 0, 3}); err != nil {
		return fmt.Errorf("answer driver handshake: %w", err)
	}
	s.cr = bufio.NewReaderSize(s.client, 64<<10)
	s.cw = bufio.NewWriterSize(s.client, 64<<10)
	s.sr = bufio.NewReaderSize(up, 64<<10)
	s.sw = bufio.NewWriterSize(up, 64<<10)
	return nil
}

// offersBolt3 reports whether one of the four proposed versions (each
// 00 <range> <minor> <major>) includes 3.0.
func offersBolt3(proposals []byte) bool {
	for i := 0; i+4 <= len(proposals); i += 4 {
		rng, minor, major := proposals[i+1], proposals[i+2], proposals[i+3]
		if major == 3 && int(minor)-int(rng) <= 0 {
			return true
		}
	}
	return false
}

// requests relays driver messages to Neo4j until either side closes. It
// returns true when the driver said GOODBYE.
func (s *proxySession) requests() bool {
	var buf []byte
	// failed is set after the proxy itself answered a request with FAILURE.
	// Like a Bolt server, it then answers IGNORED to everything until RESET
	// (which it forwards: Neo4j then rolls back any open transaction).
	failed := false
	for {
		msg, err := readMessage(s.cr, buf)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.logf("read from driver: %v", err)
			}
			return false
		}
		buf = msg[:0]
		if cap(buf) > 1<<20 {
			buf = nil // don't keep a huge buffer after one big batch
		}
		out, pend, err := translateRequest(msg)
		if err != nil {
			s.logf("driver message: %v", err)
			s.close(true)
			return false
		}
		req := Request{ConnID: s.id, Message: pend.request}
		if pend.request == "RUN" {
			if _, _, off, err := structHeader(msg); err == nil {
				req.Query, _, _ = readString(msg, off)
			}
		}
		if s.p.shouldDrop(req) {
			s.p.logf("bolt proxy conn %d: fault injection: cutting the connection at %s", s.id, req.Message)
			if s.close(true) {
				s.p.dropped.Add(1)
			}
			return false
		}
		switch {
		case pend.request == "GOODBYE":
			if err := s.sw.Flush(); err != nil {
				s.logf("write to Neo4j: %v", err)
				return false
			}
			return true
		case failed && pend.request != "RESET":
			pend = &pendingResponse{request: pend.request, local: msgIgnored}
			out = nil
		case pend.request == "RUN":
			if problem := unsupportedParameter(msg); problem != "" {
				pend = &pendingResponse{request: "RUN", local: localFailure(
					"Neo.ClientError.Statement.TypeError",
					"bolt proxy: Neo4j 3.1 (Bolt v1) cannot take "+problem+
						"; send timestamps as ISO-8601 strings or integers and binary data as lists or strings")}
				out = nil
				failed = true
			}
		case pend.request == "RESET":
			failed = false
		}
		select {
		case s.pending <- pend:
		case <-s.done:
			return false
		}
		for _, m := range out {
			n, err := writeMessage(s.sw, m)
			s.p.toServer.Add(int64(n))
			if err != nil {
				s.logf("write to Neo4j: %v", err)
				return false
			}
		}
		if out != nil {
			s.p.requests.Add(1)
			if pend.request == "RUN" {
				s.p.runs.Add(1)
			}
		}
		if s.cr.Buffered() == 0 {
			if err := s.sw.Flush(); err != nil {
				s.logf("write to Neo4j: %v", err)
				return false
			}
		}
	}
}

// unsupportedParameter describes the first parameter of a RUN message that
// Bolt v1 cannot carry (a PackStream struct, i.e. a temporal or spatial
// value, or a byte array), or returns "" if there is none. Neo4j 3.1 would
// close the connection on such a value, which the driver reports as a
// retryable connectivity error.
func unsupportedParameter(run []byte) string {
	_, _, off, err := structHeader(run)
	if err != nil {
		return ""
	}
	if off, err = skipValue(run, off); err != nil { // query
		return ""
	}
	params, _, err := readMap(run, off)
	if err != nil {
		return ""
	}
	for _, p := range params {
		if what := findStructOrBytes(p.Value, 0); what != "" {
			return fmt.Sprintf("parameter $%s: it contains %s", p.Key, what)
		}
	}
	return ""
}

var structNames = map[byte]string{
	'D': "a Date", 'T': "a Time", 't': "a LocalTime", 'F': "a DateTime", 'f': "a DateTime",
	'I': "a DateTime", 'i': "a DateTime", 'd': "a LocalDateTime", 'E': "a Duration",
	'X': "a Point", 'Y': "a Point", 'N': "a Node", 'R': "a Relationship", 'P': "a Path",
}

// findStructOrBytes scans the value at b[off] for structs and byte arrays.
func findStructOrBytes(b []byte, off int) string {
	kind, n, next, err := sizedHeader(b, off)
	if err != nil {
		return "" // scalar (or malformed: Neo4j will say so)
	}
	switch kind {
	case 'b':
		return "a byte array ([]byte)"
	case 't':
		sig := b[next-1]
		if name, ok := structNames[sig]; ok {
			return name + " (PackStream struct " + strconv.QuoteRune(rune(sig)) + ")"
		}
		return fmt.Sprintf("a PackStream struct 0x%02X", sig)
	case 'm':
		n *= 2
	case 's':
		return ""
	}
	for i := 0; i < n; i++ {
		if what := findStructOrBytes(b, next); what != "" {
			return what
		}
		if next, err = skipValue(b, next); err != nil {
			return ""
		}
	}
	return ""
}

// localFailure encodes a FAILURE {code, message} answered by the proxy.
func localFailure(code, message string) []byte {
	m := appendSizeHeader(structMessage(1, tagFailure), 'm', 2)
	m = append(appendString(m, "code"), appendString(nil, code)...)
	return append(appendString(m, "message"), appendString(nil, message)...)
}

// translateRequest maps one Bolt 3 message to the Bolt v1 messages to send
// and describes the response the driver expects.
func translateRequest(msg []byte) ([][]byte, *pendingResponse, error) {
	fields, tag, off, err := structHeader(msg)
	if err != nil {
		return nil, nil, err
	}
	one := func(m []byte) ([][]byte, *pendingResponse, error) {
		return [][]byte{m}, &pendingResponse{request: tagName(tag), parts: 1}, nil
	}
	emulate := func(run []byte) ([][]byte, *pendingResponse, error) {
		return [][]byte{run, msgPullAll}, &pendingResponse{request: tagName(tag), parts: 2, merge: true}, nil
	}
	switch tag {
	case tagHello:
		m, err := helloToInit(msg, fields, off)
		if err != nil {
			return nil, nil, err
		}
		out, pend, _ := one(m)
		pend.hello = true
		return out, pend, nil
	case tagRun:
		m, err := stripRunMetadata(msg, fields, off)
		if err != nil {
			return nil, nil, err
		}
		return one(m)
	case tagPullAll, tagDiscardAll, tagReset:
		if fields != 0 {
			return nil, nil, fmt.Errorf("%s with %d fields (Bolt 4 PULL/DISCARD are not supported)", tagName(tag), fields)
		}
		return one(msg)
	case tagBegin:
		// The metadata (bookmarks, tx_timeout, tx_metadata, mode) has no
		// Bolt v1 equivalent and is dropped.
		return emulate(runBegin)
	case tagCommit:
		return emulate(runCommit)
	case tagRollback:
		return emulate(runRollback)
	case tagGoodbye:
		return nil, &pendingResponse{request: "GOODBYE"}, nil
	}
	return nil, nil, fmt.Errorf("unsupported Bolt 3 message %s", tagName(tag))
}

// helloToInit turns HELLO {user_agent, scheme, principal, credentials, ...}
// into INIT user_agent {scheme, principal, credentials, ...}.
func helloToInit(msg []byte, fields, off int) ([]byte, error) {
	if fields != 1 {
		return nil, fmt.Errorf("HELLO with %d fields", fields)
	}
	entries, _, err := readMap(msg, off)
	if err != nil {
		return nil, fmt.Errorf("HELLO: %w", err)
	}
	agent := appendString(nil, "fondue-neo4jtest-proxy")
	auth := make([]mapEntry, 0, len(entries))
	for _, e := range entries {
		switch e.Key {
		case "user_agent":
			agent = e.Value
		case "routing", "patch_bolt", "notifications_minimum_severity", "notifications_disabled_categories", "bolt_agent":
			// Bolt 4+ extras, meaningless to Bolt v1.
		default:
			auth = append(auth, e)
		}
	}
	out := structMessage(2, tagHello)
	out = append(out, agent...)
	return rewriteMap(out, auth, nil), nil
}

// stripRunMetadata turns RUN query params metadata into RUN query params.
func stripRunMetadata(msg []byte, fields, off int) ([]byte, error) {
	if fields != 2 && fields != 3 {
		return nil, fmt.Errorf("RUN with %d fields", fields)
	}
	end, err := skipValue(msg, off) // query
	if err != nil {
		return nil, fmt.Errorf("RUN query: %w", err)
	}
	if end, err = skipValue(msg, end); err != nil { // parameters
		return nil, fmt.Errorf("RUN parameters: %w", err)
	}
	return append(structMessage(2, tagRun), msg[off:end]...), nil
}

// responses answers the driver's requests in order: for each pending
// request it relays Neo4j's messages up to the request's summary (or sends
// the proxy's own answer), until either side closes.
func (s *proxySession) responses() {
	var buf []byte
	for {
		if len(s.pending) == 0 && !s.flush() {
			return
		}
		var cur *pendingResponse
		select {
		case c, ok := <-s.pending:
			if !ok { // GOODBYE, and every request answered
				s.flush()
				s.close(false)
				return
			}
			cur = c
		case <-s.done:
			return
		}
		if cur.local != nil {
			if !s.deliver(cur.local) {
				return
			}
			continue
		}
		for done := false; !done; {
			if s.sr.Buffered() == 0 && !s.flush() {
				return
			}
			msg, err := readMessage(s.sr, buf)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					s.logf("read from Neo4j: %v", err)
				}
				s.flush()
				s.close(false)
				return
			}
			buf = msg[:0]
			if cap(buf) > 1<<20 {
				buf = nil
			}
			_, tag, _, err := structHeader(msg)
			if err != nil {
				s.logf("message from Neo4j: %v", err)
				s.close(true)
				return
			}
			var out []byte
			switch tag {
			case tagRecord:
				if !cur.merge {
					out = msg
				}
			case tagSuccess, tagFailure, tagIgnored:
				out, done = cur.add(tag, msg)
			default:
				s.logf("unexpected %s from Neo4j while answering %s", tagName(tag), cur.request)
				s.close(true)
				return
			}
			if out != nil && !s.deliver(out) {
				return
			}
		}
	}
}

// deliver writes one message to the driver (buffered), enforcing an armed
// DropAfterBytes fault. It reports whether the session is still open.
func (s *proxySession) deliver(msg []byte) bool {
	if !s.p.spendBytes(int64(framedSize(len(msg)))) {
		// Flush and close without a reset, so that the driver reads
		// everything within the budget before it sees the end.
		s.p.logf("bolt proxy conn %d: fault injection: cutting the connection after the byte budget", s.id)
		s.flush()
		if s.close(false) {
			s.p.dropped.Add(1)
		}
		return false
	}
	n, err := writeMessage(s.cw, msg)
	s.p.toClient.Add(int64(n))
	if err != nil {
		s.logf("write to driver: %v", err)
		s.close(true)
		return false
	}
	return true
}

// flush sends what is buffered for the driver; the response pump calls it
// before it may block. It reports whether the session is still open.
func (s *proxySession) flush() bool {
	if s.cw.Buffered() == 0 {
		return true
	}
	if err := s.cw.Flush(); err != nil {
		s.logf("write to driver: %v", err)
		s.close(true)
		return false
	}
	return true
}

// add records one upstream summary. It returns the message to send to the
// driver (nil if none yet) and whether the request is complete.
func (r *pendingResponse) add(tag byte, msg []byte) ([]byte, bool) {
	r.seen++
	if !r.merge {
		if tag == tagSuccess {
			return rewriteSuccess(msg, r.hello), true
		}
		return msg, true
	}
	switch tag {
	case tagFailure:
		if r.failure == nil {
			r.failure = bytes.Clone(msg)
		}
	case tagIgnored:
		r.ignored = true
	case tagSuccess:
		r.success = bytes.Clone(msg) // the PULL_ALL summary carries the bookmark
	}
	if r.seen < r.parts {
		return nil, false
	}
	switch {
	case r.failure != nil:
		return r.failure, true
	case r.ignored:
		return msgIgnored, true
	}
	return rewriteSuccess(r.success, false), true
}

// successRenames maps Bolt v1 summary keys to their Bolt 3 names.
var successRenames = map[string]string{
	"result_available_after": "t_first",
	"result_consumed_after":  "t_last",
}

var connectionIDEntry = appendString(appendString(nil, "connection_id"), "bolt-proxy")

// rewriteSuccess renames Bolt v1 timing keys to their Bolt 3 names and, for
// the answer to HELLO, adds a connection_id. Anything it cannot parse is
// relayed unchanged.
func rewriteSuccess(msg []byte, hello bool) []byte {
	fields, _, off, err := structHeader(msg)
	if err != nil || fields != 1 {
		return msg
	}
	entries, _, err := readMap(msg, off)
	if err != nil {
		return msg
	}
	rename := false
	for _, e := range entries {
		if _, ok := successRenames[e.Key]; ok {
			rename = true
		}
	}
	if !rename && !hello {
		return msg
	}
	out := structMessage(1, tagSuccess)
	if hello {
		return rewriteMap(out, entries, successRenames, connectionIDEntry)
	}
	return rewriteMap(out, entries, successRenames)
}
