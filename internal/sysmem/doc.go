// Package sysmem probes the memory the process may use (the cgroup limit,
// else the machine's available memory) and reads and writes byte sizes in
// the units people type ("4GiB", "512MB").
package sysmem
