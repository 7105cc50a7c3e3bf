//go:build !cgo || !linux

package main

// Without cgo pebble's memory comes from the Go heap, and other systems'
// allocators are not glibc's: there are no arenas to cap.
const cArenaMax = 0

// cArenas is unknown here.
func cArenas() int { return -1 }

// cTouch has no C allocator to touch here.
func cTouch(int) {}
