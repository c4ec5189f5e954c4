package sysmem

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestParseFormatBytes(t *testing.T) {
	cases := map[string]int64{"4GiB": 4 << 30, "4GB": 4e9, "512MiB": 512 << 20, "1.5G": 3 << 29, "1000": 1000, " 2 kib ": 2048, "7B": 7}
	for s, want := range cases {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, bad := range []string{"", "lots", "-1GB", "GB"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
	if FormatBytes(1536<<20) != "1.5 GiB" || FormatBytes(100) != "100 B" || FormatBytes(2048) != "2.0 KiB" {
		t.Fatalf("FormatBytes: %s %s %s", FormatBytes(1536<<20), FormatBytes(100), FormatBytes(2048))
	}
}

// On Linux the probe finds a cgroup limit or MemAvailable: some memory,
// less than 1 PiB.
func TestAvailableMemory(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Fatalf("the probe reads /proc/meminfo (Linux): %v", err)
	}
	if m := AvailableMemory(); m <= 0 || m >= 1<<50 {
		t.Fatalf("AvailableMemory() = %d", m)
	}
}

// Touching 64 MiB raises the peak by at least that much; a reset brings
// it back below, once the memory is given back.
func TestPeakRSS(t *testing.T) {
	before := PeakRSS()
	if before <= 0 {
		t.Fatalf("PeakRSS() = %d on Linux", before)
	}
	buf := make([]byte, 64<<20)
	for k := 0; k < len(buf); k += 4096 {
		buf[k] = 1
	}
	if got := PeakRSS(); got < 64<<20 {
		t.Fatalf("PeakRSS() = %d after touching 64 MiB (before %d)", got, before)
	}
	high := PeakRSS()
	runtime.KeepAlive(buf)
	buf = nil
	debug.FreeOSMemory()
	if err := ResetPeakRSS(); err != nil {
		t.Fatalf("ResetPeakRSS: %v", err)
	}
	if got := PeakRSS(); got > high-32<<20 {
		t.Fatalf("PeakRSS() = %d after freeing and a reset, peak was %d", got, high)
	}
}
