package connector

import (
	"context"
	"errors"
	"strings"
)

// The driver's errors. The connector classifies them with errors.Is and
// errors.As, the driver's Is... helpers and the codes of *neo4j.Neo4jError;
// the two functions below are the only ones that read an error's text, for
// failures that the driver (v5.28) reports without a type or a wrapped
// cause.

// canceledByDriver reports whether err is the driver's report of a
// cancelled context that errors.Is cannot see: the driver wraps a
// cancelled read or write of a connection in its internal
// errorutil.ConnectionReadCanceled / ConnectionWriteCanceled (internal/bolt
// dechunker.go processReadError, chunker.go processWriteError), which have
// no Unwrap, and joins a second failure with %v
// (errorutil.CombineErrors).
func canceledByDriver(err error) bool {
	return strings.Contains(err.Error(), context.Canceled.Error())
}

// isCanceled reports whether err is, or reports, a cancelled context.
func isCanceled(err error) bool {
	return errors.Is(err, context.Canceled) || canceledByDriver(err)
}

// unsupportedBolt reports whether a failure to connect is a server that
// does not speak a Bolt version the driver supports, or a failed TLS
// handshake. The driver gives these no type: internal/bolt/connect.go
// returns fmt.Errorf("server did not accept any of the requested Bolt
// versions ...") (Connect) and "none of the server offered Bolt versions
// are supported ..." (manifest negotiation), and internal/connector wraps
// a failed TLS handshake in its internal errorutil.TlsError, without
// Unwrap, inside a ConnectivityError, also without Unwrap.
func unsupportedBolt(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Bolt versions") || strings.Contains(s, "handshake")
}

// driverError is a driver error under a message of the connector's: the
// message is what the user reads, the cause stays reachable with
// errors.Is and errors.As.
type driverError struct {
	msg   string
	cause error
}

func (e *driverError) Error() string { return e.msg }
func (e *driverError) Unwrap() error { return e.cause }
