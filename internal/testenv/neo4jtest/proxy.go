package neo4jtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Proxy is a plain TCP proxy on loopback in front of a server's Bolt port,
// for fault injection: it relays bytes both ways without reading the
// protocol, and can cut connections (mid-result, or when the client sends
// given bytes, e.g. a statement's text), refuse new ones, or stall. Faults
// apply to every connection; tests that use them must not run in parallel.
//
// A fault that fires when the client sends given bytes (DropWhenSent,
// DropWhen, StallWhenSent), with RefuseAfterCut, acts at a point of the
// client's work that the test chooses and takes effect in the same step, in
// the proxy: no goroutine of the test has to notice it in time, so the
// outcome does not depend on how busy the machine is.
type Proxy struct {
	upstream string
	logf     func(string, ...any)

	mu       sync.Mutex
	cond     *sync.Cond // signalled when stalled changes
	ln       net.Listener
	addr     string
	closed   bool
	conns    map[*proxyConn]struct{}
	stalled  bool
	accepted int
	dropped  int
	refused  int
	// refusing: the server went away (Refuse, or a cut with
	// RefuseAfterCut) and has not been restored; a connection that was
	// accepted before but was still being set up is cut as it registers.
	refusing bool
	// beforeRegister, if set, runs (once) in the next connection's relay
	// between dialling the server and registering the connection: a test
	// hook for the moment a connection is accepted but not yet relayed.
	beforeRegister func()

	// Armed faults (zero: none).
	dropAfter   int64  // cut once this many more bytes went to the client
	sendPattern []byte // cut the connection that sends this ...
	sendNth     int    // ... for the sendNth time (counting from 1)
	sendSeen    int    // occurrences of sendPattern so far
	sendFired   bool
	sendStall   bool // the sendNth occurrence stalls the proxy instead of cutting
	dropAtSend  func(sent []byte) bool
	// refuseOnCut: when a fault cuts a connection, the proxy also stops
	// listening and cuts every other connection, atomically (RefuseAfterCut).
	refuseOnCut bool
}

// ProxyStats counts the proxy's connections since it started.
type ProxyStats struct {
	Accepted int // connections accepted and relayed
	Dropped  int // connections cut by a fault (DropAll, DropAfterBytes, DropWhenSent, DropWhen, Refuse)
	Refused  int // connections accepted just before the server went away, cut before they were relayed
}

type proxyConn struct {
	client, server net.Conn
	once           sync.Once
	window         []byte // the last bytes the client sent, for patterns that span reads
}

// NewProxy listens on a free loopback port and relays every connection to
// upstream (host:port).
func NewProxy(upstream string, logf func(string, ...any)) (*Proxy, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	p := &Proxy{upstream: upstream, logf: logf, conns: map[*proxyConn]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.ln, p.addr = ln, ln.Addr().String()
	go p.serve(ln)
	return p, nil
}

// setUpstream relays new connections to addr (a restarted server's port).
func (p *Proxy) setUpstream(addr string) {
	p.mu.Lock()
	p.upstream = addr
	p.mu.Unlock()
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.addr }

// URL is the bolt:// URL of the proxy.
func (p *Proxy) URL() string { return "bolt://" + p.addr }

func (p *Proxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return // closed by Refuse or Close
		}
		go p.relay(c)
	}
}

func (p *Proxy) relay(client net.Conn) {
	p.mu.Lock()
	upstream := p.upstream
	p.mu.Unlock()
	server, err := net.DialTimeout("tcp", upstream, 10*time.Second)
	if err != nil {
		p.logf("neo4jtest proxy: dial %s: %v", upstream, err)
		client.Close()
		return
	}
	pc := &proxyConn{client: client, server: server}
	p.mu.Lock()
	hook := p.beforeRegister
	p.beforeRegister = nil
	p.mu.Unlock()
	if hook != nil {
		hook()
	}
	p.mu.Lock()
	if p.closed || p.refusing {
		// Accepted before the server went away, registered after: the
		// refusal's cut did not see it, so it is cut here, in the same
		// critical section as the check.
		if p.refusing {
			p.refused++
		}
		p.mu.Unlock()
		pc.cut()
		return
	}
	p.conns[pc] = struct{}{}
	p.accepted++
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { p.pipe(pc, client, server, true); done <- struct{}{} }()
	go func() { p.pipe(pc, server, client, false); done <- struct{}{} }()
	<-done
	pc.cut()
	<-done
	p.mu.Lock()
	delete(p.conns, pc)
	p.mu.Unlock()
}

// pipe copies src to dst; toServer tells the direction.
func (p *Proxy) pipe(pc *proxyConn, src, dst net.Conn, toServer bool) {
	buf := make([]byte, 32*1024)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if !p.waitUnstalled(pc) {
				return
			}
			var drop bool
			if toServer {
				var stall bool
				drop, stall = p.checkSend(pc, chunk)
				if drop {
					chunk = nil // the server never sees the triggering bytes
				} else if stall && !p.waitUnstalled(pc) {
					return // cut while stalled: the held bytes are discarded
				}
			} else {
				chunk, drop = p.checkReceive(chunk)
			}
			if len(chunk) > 0 {
				if _, werr := dst.Write(chunk); werr != nil {
					return
				}
			}
			if drop {
				p.drop(pc, true)
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return
			}
			// Half-close: pass the EOF on.
			if tc, ok := dst.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			return
		}
	}
}

// waitUnstalled blocks while the proxy is stalled; false if the connection
// was cut meanwhile.
func (p *Proxy) waitUnstalled(pc *proxyConn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.stalled && !p.closed {
		if _, live := p.conns[pc]; !live {
			return false
		}
		p.cond.Wait()
	}
	_, live := p.conns[pc]
	return live && !p.closed
}

// checkSend decides whether the client's bytes trigger a cut or a stall
// (before they reach the server: the chunk is then not forwarded, or held,
// see pipe).
func (p *Proxy) checkSend(pc *proxyConn, chunk []byte) (drop, stall bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := append(pc.window, chunk...)
	keep := 4096
	if len(seen) > keep {
		pc.window = append([]byte(nil), seen[len(seen)-keep:]...)
	} else {
		pc.window = append([]byte(nil), seen...)
	}
	if p.dropAtSend != nil && p.dropAtSend(seen) {
		p.dropAtSend = nil
		pc.window = nil
		return true, false
	}
	if p.sendPattern != nil {
		// Count occurrences that end inside this chunk.
		start := len(seen) - len(chunk) - len(p.sendPattern) + 1
		if start < 0 {
			start = 0
		}
		for i := bytes.Index(seen[start:], p.sendPattern); i >= 0; i = bytes.Index(seen[start:], p.sendPattern) {
			start += i + 1
			p.sendSeen++
			if p.sendSeen == p.sendNth && !p.sendFired {
				p.sendFired = true
				pc.window = nil
				if p.sendStall {
					p.stalled = true
					return false, true
				}
				return true, false
			}
		}
	}
	return false, false
}

// checkReceive cuts the server's bytes short when DropAfterBytes is armed.
func (p *Proxy) checkReceive(chunk []byte) ([]byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dropAfter <= 0 {
		return chunk, false
	}
	if int64(len(chunk)) < p.dropAfter {
		p.dropAfter -= int64(len(chunk))
		return chunk, false
	}
	chunk = chunk[:p.dropAfter]
	p.dropAfter = 0
	return chunk, true
}

// drop cuts one connection (a reset to the client) and counts it; when a
// fault cut it (fault) and RefuseAfterCut is armed, the server then goes
// away as a whole.
func (p *Proxy) drop(pc *proxyConn, fault bool) {
	p.mu.Lock()
	if _, live := p.conns[pc]; live {
		delete(p.conns, pc)
		p.dropped++
	}
	var others []*proxyConn
	if fault && p.refuseOnCut {
		p.refuseOnCut = false
		p.refusing = true
		if p.ln != nil {
			p.ln.Close()
			p.ln = nil
		}
		for o := range p.conns {
			others = append(others, o)
			delete(p.conns, o)
			p.dropped++
		}
	}
	p.cond.Broadcast()
	p.mu.Unlock()
	pc.cut()
	for _, o := range others {
		o.cut()
	}
}

// RefuseAfterCut makes the next cut by a fault (DropAfterBytes,
// DropWhenSent, DropWhen; not DropAll) take the server away as a whole, in
// the same step: the listener closes and every other connection is cut,
// including one accepted just before and still being set up, so that the
// driver's immediate reconnect is refused (until Restore or ClearFaults).
func (p *Proxy) RefuseAfterCut() {
	p.mu.Lock()
	p.refuseOnCut = true
	p.mu.Unlock()
}

func (pc *proxyConn) cut() {
	pc.once.Do(func() {
		if tc, ok := pc.client.(*net.TCPConn); ok {
			tc.SetLinger(0) // RST, as when a server dies
		}
		pc.client.Close()
		pc.server.Close()
	})
}

// DropAll cuts every open connection now and returns how many.
func (p *Proxy) DropAll() int {
	p.mu.Lock()
	var all []*proxyConn
	for pc := range p.conns {
		all = append(all, pc)
	}
	p.mu.Unlock()
	for _, pc := range all {
		p.drop(pc, false)
	}
	return len(all)
}

// DropAfterBytes cuts the connection that relays the n-th byte, counted
// from now, from the server to the client: a result cut off mid-stream.
func (p *Proxy) DropAfterBytes(n int64) {
	p.mu.Lock()
	p.dropAfter = n
	p.mu.Unlock()
}

// DropWhenSent cuts the connection whose client sends text (e.g. part of a
// statement) for the nth time from now (nth >= 1), before those bytes reach
// the server: the server never sees that request. SentCount counts the
// occurrences, before and after the cut, until the next ClearFaults.
func (p *Proxy) DropWhenSent(text string, nth int) {
	if nth < 1 {
		nth = 1
	}
	p.mu.Lock()
	p.sendPattern, p.sendNth, p.sendSeen, p.sendFired, p.sendStall = []byte(text), nth, 0, false, false
	p.mu.Unlock()
}

// StallWhenSent stalls the proxy (as Stall) at the moment a client sends
// text for the nth time from now (nth >= 1): those bytes are held, not
// relayed, until Resume (a cut meanwhile discards them). SentCount counts
// the occurrences as for DropWhenSent.
func (p *Proxy) StallWhenSent(text string, nth int) {
	if nth < 1 {
		nth = 1
	}
	p.mu.Lock()
	p.sendPattern, p.sendNth, p.sendSeen, p.sendFired, p.sendStall = []byte(text), nth, 0, false, true
	p.mu.Unlock()
}

// CountSent counts, from now until the next ClearFaults, how often clients
// send text, without cutting anything.
func (p *Proxy) CountSent(text string) {
	p.mu.Lock()
	p.sendPattern, p.sendNth, p.sendSeen, p.sendFired, p.sendStall = []byte(text), 0, 0, true, false
	p.mu.Unlock()
}

// SentCount is the number of times the text of DropWhenSent,
// StallWhenSent or CountSent was sent since it was armed (the triggering
// one included).
func (p *Proxy) SentCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sendSeen
}

// DropWhen cuts, once, the connection whose client sends bytes for which f
// returns true; f sees the connection's last few kilobytes sent.
func (p *Proxy) DropWhen(f func(sent []byte) bool) {
	p.mu.Lock()
	p.dropAtSend = f
	p.mu.Unlock()
}

// Stall stops relaying in both directions, for open and new connections,
// until Resume: a server that hangs.
func (p *Proxy) Stall() {
	p.mu.Lock()
	p.stalled = true
	p.mu.Unlock()
}

// Resume ends a Stall.
func (p *Proxy) Resume() {
	p.mu.Lock()
	p.stalled = false
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Refuse is a server that went away: open connections are cut and new ones
// refused until Restore.
func (p *Proxy) Refuse() {
	p.mu.Lock()
	p.refusing = true
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	p.mu.Unlock()
	p.DropAll()
}

// Restore listens again on the same address after Refuse.
func (p *Proxy) Restore() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil || p.closed {
		return nil
	}
	var err error
	for i := 0; i < 50; i++ {
		var ln net.Listener
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			p.ln, p.refusing = ln, false
			go p.serve(ln)
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("neo4jtest proxy: listen again on %s: %w", p.addr, err)
}

// ClearFaults disarms every fault, resumes a stall (relaying the bytes it
// held: DropAll first to discard them) and listens again after a Refuse.
func (p *Proxy) ClearFaults() error {
	p.mu.Lock()
	p.dropAfter, p.sendPattern, p.sendNth, p.sendSeen, p.sendFired, p.sendStall, p.dropAtSend, p.refuseOnCut = 0, nil, 0, 0, false, false, nil, false
	p.beforeRegister = nil
	p.mu.Unlock()
	p.Resume()
	return p.Restore()
}

// Stats returns the connection counters.
func (p *Proxy) Stats() ProxyStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return ProxyStats{Accepted: p.accepted, Dropped: p.dropped, Refused: p.refused}
}

// Close stops listening and cuts every connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	p.cond.Broadcast()
	p.mu.Unlock()
	p.DropAll()
}
