//go:build !unix

package fetch

import "errors"

// limitMemory cannot cap a process's memory here, so no worker runs.
func limitMemory(uint64) error {
	return errors.New("this system cannot cap a process's memory")
}
