//go:build unix

package fetch

import "syscall"

// limitMemory caps the memory this process may take at n bytes: the
// kernel refuses it more, and the runtime dies of it.
func limitMemory(n uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: n, Max: n})
}
