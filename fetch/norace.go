//go:build !race

package fetch

// raceRoom is how many times WorkerMemory a worker may take (see race.go).
const raceRoom = 1

// raceBuild reports whether this is built with the race detector.
const raceBuild = false
