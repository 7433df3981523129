//go:build race

package fetch

// raceRoom is how many times WorkerMemory a worker may take: a worker
// built with the race detector needs room for its shadow memory, and
// reads so slowly that the deadline, not memory, ends most bombs.
const raceRoom = 8

// raceBuild reports whether this is built with the race detector.
const raceBuild = true
