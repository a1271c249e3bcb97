//go:build !linux

package postgres

// renice sets no priority where /proc is not Linux's.
func renice(uint32, int) error { return errNotPostgres }
