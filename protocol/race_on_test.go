//go:build race

package protocol_test

// raceDetector says whether the tests run under the race detector, which
// makes every byte a loop looks at cost ten times more: the tests that move
// tens of MiB size their payloads by it (what they test does not depend on
// the size past a few MiB, only their time does).
const raceDetector = true
