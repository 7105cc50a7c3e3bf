package monitor

import (
	"testing"
	"time"
)

// TestGateKeepsRoomForSmallMessages: with the queue full of large
// messages, a connection sending small measurements still queues them, up
// to its reserve; past the reserve, or with a large message, it waits
// like the others. Without the reserve a sensor waiting here completes no
// message, and --max-conns evicted it for that during a flood (issue 30's
// soak: 269 of 701 legitimate messages stored).
func TestGateKeepsRoomForSmallMessages(t *testing.T) {
	const max = 1 << 20
	g := newByteGate(max, max/2)
	// Two flooders fill the queue with one large message each.
	for conn := int64(1); conn <= 2; conn++ {
		if !g.acquire(conn, max/2) {
			t.Fatal("gate closed")
		}
	}
	const sensor, small = 3, 1 << 10
	admitted := make(chan int, 2*smallReserve/small)
	go func() {
		// Ends when the gate closes at the end of the test.
		for n := 1; g.acquire(sensor, small); n++ {
			admitted <- n
		}
	}()
	// The reserve takes smallReserve/small messages, each within a second.
	for want := 1; want <= smallReserve/small; want++ {
		select {
		case n := <-admitted:
			if n != want {
				t.Fatalf("message %d admitted, want %d", n, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("small message %d waited behind the flood; want the first %d admitted", want, smallReserve/small)
		}
	}
	// The next one is past the reserve: it waits until the flood drains.
	select {
	case n := <-admitted:
		t.Fatalf("message %d admitted past the reserve with the queue full", n)
	case <-time.After(200 * time.Millisecond):
	}
	if got, want := g.bytes(), int64(max+smallReserve); got != want {
		t.Errorf("held %d bytes, want %d (the queue bound plus one reserve)", got, want)
	}
	// A large message from the same connection does not use the reserve.
	g2 := newByteGate(max, max)
	g2.acquire(1, max)
	g2.acquire(2, 1)
	done := make(chan bool, 1)
	go func() { done <- g2.acquire(2, smallMessage+1) }()
	select {
	case <-done:
		t.Fatal("a message over smallMessage was admitted through the reserve")
	case <-time.After(200 * time.Millisecond):
	}
	g2.release(1, max)
	if !<-done {
		t.Fatal("gate closed")
	}
	g.close()
}
