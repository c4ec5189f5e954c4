package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the master to read, the slave to hand
// to the command as its standard output.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("ptsname: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// readPTY reads what was written to the terminal (the slave is closed).
func readPTY(t *testing.T, m *os.File) string {
	t.Helper()
	var buf bytes.Buffer
	m.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 4096)
	for {
		n, err := m.Read(b)
		buf.Write(b[:n])
		if err != nil { // EIO once the slave is closed and drained
			break
		}
	}
	return buf.String()
}

// runCLIStdout runs the command with stdout going to the given file.
func runCLIStdout(t *testing.T, stdout *os.File, args ...string) (int, string, string) {
	t.Helper()
	var errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), stdout, &errb)
	return code, "", errb.String()
}
