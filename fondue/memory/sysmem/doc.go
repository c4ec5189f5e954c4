// Package sysmem probes the memory the process may use (the cgroup limit,
// else the machine's available memory) and reads and writes byte sizes in
// the units people type ("4GiB", "512MB"), and reads the peak memory of
// this process.
package sysmem
