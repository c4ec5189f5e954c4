package sysmem

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// FormatBytes writes a byte count in binary units ("1.5 GiB").
func FormatBytes(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for v := b / unit; v >= unit; v /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}

// ParseBytes reads a size such as "4GiB", "4GB", "512MiB", "1.5G" or a
// plain byte count. Decimal (GB) and binary (GiB) prefixes are both accepted.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	mult := 1.0
	for _, u := range []struct {
		suffix string
		m      float64
	}{{"TIB", 1 << 40}, {"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10},
		{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3},
		{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("size %q: want a number of bytes such as 4GiB, 512MB or 1000000", s)
	}
	return int64(v * mult), nil
}

// AvailableMemory returns the memory this process may use: the cgroup limit
// when there is one, else the machine's MemAvailable, else 0 (unknown).
func AvailableMemory() int64 {
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 {
			return v
		}
	}
	return procBytes("/proc/meminfo", "MemAvailable:")
}

// PeakRSS returns the largest resident set this process has had (VmHWM of
// /proc/self/status), or 0 where that is unknown (not Linux).
//
// It is the figure to report for a run, not the rusage maxrss a parent gets
// from wait: Linux starts a child's maxrss at its parent's peak when the
// child is started by vfork (as Go's os/exec does), so a large parent makes
// every child look as large. VmHWM belongs to the child's own address space.
func PeakRSS() int64 { return procBytes("/proc/self/status", "VmHWM:") }

// ResetPeakRSS sets the process's peak resident set back to its current
// one (Linux 4.0 and later), so that children started afterwards do not
// inherit an earlier peak in their rusage (see PeakRSS). It is best effort:
// the error says why it could not.
func ResetPeakRSS() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// procBytes reads a "kB" field of a /proc file such as /proc/meminfo, 0
// when the file or the field is missing.
func procBytes(path, field string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
