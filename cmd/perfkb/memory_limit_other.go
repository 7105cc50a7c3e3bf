//go:build !linux

package main

// systemMemoryLimit knows no limit outside Linux: the budgets keep their
// fixed defaults unless --memory-limit is given.
func systemMemoryLimit() (int64, string) { return 0, "" }
