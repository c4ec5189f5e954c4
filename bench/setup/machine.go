package setup

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes where a run happened.
type Machine struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	MemoryGB   int    `json:"memory_gb,omitempty"`
	OS         string `json:"os"`
	Go         string `json:"go"`
}

// ThisMachine describes the current machine (CPU model and memory from /proc
// on Linux).
func ThisMachine() Machine {
	m := Machine{Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		OS: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.Atoi(f[1]); err == nil {
					m.MemoryGB = int(math.Round(float64(kb) / (1 << 20)))
				}
			}
		}
	}
	return m
}

// String describes the machine in one line, as the reports show it.
func (m Machine) String() string {
	s := fmt.Sprintf("%d cores (GOMAXPROCS %d)", m.Cores, m.GOMAXPROCS)
	if m.CPU != "" {
		s = m.CPU + ", " + s
	}
	if m.MemoryGB > 0 {
		s += fmt.Sprintf(", %d GB RAM", m.MemoryGB)
	}
	return s + ", " + m.OS + ", " + m.Go
}
