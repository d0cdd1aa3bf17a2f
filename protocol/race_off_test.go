//go:build !race

package protocol_test

// raceDetector: see race_on_test.go.
const raceDetector = false
