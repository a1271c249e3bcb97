//go:build !linux

package ingest

// niceThread does nothing where threads have no nice value of their own.
func niceThread(int) bool { return false }
