package compensate

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/trace"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestEq1Independent(t *testing.T) {
	// 100 + (170 − 150) − 5 = 115.
	if got := Independent(100, 150, 170, 5); !near(got, 115) {
		t.Errorf("eq. (1) = %v, want 115", got)
	}
}

func TestEq3ReceiverWaits(t *testing.T) {
	// (m.1): enter.recv_m 90 ≤ exit.send_m 110. Comm_m = 130 − 100 = 30 (2);
	// send_a + Comm_m = 110 > enter.recv_a 70 (a.1) → recv_a = 110 (3).
	p := P2P{SendM: 100, SendA: 80, ExitSendM: 110, EnterRecvM: 90, EnterRecvA: 70, RecvM: 130, CopyCost: 2}
	for _, b := range []Bound{Lower, Upper} {
		got, c := p.Recv(b)
		if !near(got, 110) || c != CaseA1 {
			t.Errorf("%s: recv_a = %v (%s), want 110 (eq. 3)", b, got, c)
		}
	}
}

func TestEq4MessageAlreadyThere(t *testing.T) {
	// As above with enter.recv_a = 120: 110 ≤ 120 (a.2) → 120 + C·size 2 = 122 (4).
	p := P2P{SendM: 100, SendA: 80, ExitSendM: 110, EnterRecvM: 90, EnterRecvA: 120, RecvM: 130, CopyCost: 2}
	got, c := p.Recv(Lower)
	if !near(got, 122) || c != CaseA2 {
		t.Errorf("recv_a = %v (%s), want 122 (eq. 4)", got, c)
	}
}

func TestEq5And6Bounds(t *testing.T) {
	// (m.2): enter.recv_m 200 > exit.send_m 110. Upper (5): 260 − 100 = 160;
	// lower (6): 2·3 = 6; Comm^min = (50 − 80) + 3 = −27 changes neither.
	p := P2P{SendM: 100, SendA: 80, ExitSendM: 110, EnterRecvM: 200, EnterRecvA: 50, RecvM: 260, CopyCost: 3}
	lo, up := p.Bounds()
	if !near(lo, 6) || !near(up, 160) {
		t.Errorf("bounds = %v, %v, want 6, 160", lo, up)
	}
	if got, c := p.Recv(Lower); !near(got, 86) || c != CaseM2 {
		t.Errorf("lower recv_a = %v (%s), want 80 + 6 = 86", got, c)
	}
	if got, _ := p.Recv(Upper); !near(got, 240) {
		t.Errorf("upper recv_a = %v, want 80 + 160 = 240", got)
	}
}

func TestEq8To11MinimumCommunication(t *testing.T) {
	// enter.recv_a = 150: Comm^min = (150 − 80) + 3 = 73 (8); lower =
	// max(6, 73) = 73 (9); upper = max(160, 73) = 160 (10); recv_a ∈
	// [80 + 73, 80 + 160] = [153, 240] (11), and 153 > 150 (7).
	p := P2P{SendM: 100, SendA: 80, ExitSendM: 110, EnterRecvM: 200, EnterRecvA: 150, RecvM: 260, CopyCost: 3}
	lo, up := p.Bounds()
	if !near(lo, 73) || !near(up, 160) {
		t.Errorf("bounds = %v, %v, want 73, 160", lo, up)
	}
	if got, _ := p.Recv(Lower); !near(got, 153) {
		t.Errorf("lower recv_a = %v, want 153", got)
	}
	// Measured recv 120: upper (5) = 20 is raised to Comm^min 73 (10).
	p.RecvM = 120
	if _, up := p.Bounds(); !near(up, 73) {
		t.Errorf("upper = %v, want Comm^min 73", up)
	}
	if got, _ := p.Recv(Upper); !near(got, 153) {
		t.Errorf("upper recv_a = %v, want 153", got)
	}
}

func TestEq12And13Formula(t *testing.T) {
	if got := NtoNExit(39, 50, 40); !near(got, 49) {
		t.Errorf("eq. (12) = %v, want 49", got)
	}
}

// run compensates a text trace with the given model.
func run(t *testing.T, text string, m *Model) *Result {
	t.Helper()
	mem, err := trace.ReadText(strings.NewReader(text), "test")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), mem, m)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBufferFlushRemoved(t *testing.T) {
	// The flush from 10 to 40 disappears: the next event at 45 → 10 + 5 = 15.
	const tr = `resolution 1000000
location 0 n 0 0
region 0 user main
0 0 enter 0
0 10 flush 40
0 45 leave 0
`
	r := run(t, tr, &Model{})
	if got := r.Approx[0][2]; !near(got, 15) {
		t.Errorf("leave = %v, want 15", got)
	}
}

func TestCopyInterpolation(t *testing.T) {
	m := &Model{Copy: []CopyPoint{{Bytes: 100, NsPerByte: 2}, {Bytes: 300, NsPerByte: 1}}}
	for _, c := range []struct {
		size int64
		us   float64
	}{
		{50, 50 * 2 / 1000.0},   // below: first cost
		{200, 200 * 1.5 / 1000}, // halfway: 1.5 ns/B
		{1000, 1000 * 1 / 1000.0},
	} {
		if got := m.CopyUs(c.size); !near(got, c.us) {
			t.Errorf("CopyUs(%d) = %v, want %v", c.size, got, c.us)
		}
	}
}
