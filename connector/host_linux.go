package connector

import (
	"errors"
	"os"
	"strings"
	"syscall"
)

// bootID is the kernel's boot id: a random UUID drawn at every boot.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// pidNamespace names this process's pid namespace ("pid:[4026531836]"):
// pids are only comparable inside one (a container has its own).
func pidNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return ns
}

// processGone reports whether no process of this pid namespace has pid.
// A process of another user (EPERM) exists.
func processGone(pid int) bool {
	return pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
