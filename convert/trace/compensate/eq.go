package compensate

// The equations of 003 §3 on float64 times (any unit, consistently).

// Independent is eq. (1): the approximated time of an event that does not
// depend on communication, from its predecessor's measured and
// approximated times and the per-event overhead o.
func Independent(prevA, prevM, m, o float64) float64 {
	return prevA + (m - prevM) - o
}

// P2P holds the times eqs. (2)–(11) need for one message.
type P2P struct {
	SendM, SendA float64 // the send event, measured and approximated
	ExitSendM    float64 // exit of the send region, measured
	EnterRecvM   float64 // enter of the receive region, measured
	EnterRecvA   float64 // … approximated
	RecvM        float64 // the receive event, measured
	CopyCost     float64 // C(size(msg))·size(msg)
}

// Case names which equation decided a receive.
type Case string

// Cases of the point-to-point model.
const (
	CaseA1 Case = "m.1/a.1 eq.3" // communication measured, receiver waits
	CaseA2 Case = "m.1/a.2 eq.4" // communication measured, message already there
	CaseM2 Case = "m.2 eq.11"    // communication not measured: bounds
)

// Recv returns recv_a by eqs. (2)–(11) and the case that applied; bound
// picks the end of eq. (11) in case (m.2).
func (p P2P) Recv(bound Bound) (float64, Case) {
	if p.EnterRecvM <= p.ExitSendM { // (m.1)
		comm := p.RecvM - p.SendM        // (2)
		if p.SendA+comm > p.EnterRecvA { // (a.1)
			return p.SendA + comm, CaseA1 // (3)
		}
		return p.EnterRecvA + p.CopyCost, CaseA2 // (4)
	}
	lower, upper := p.Bounds()
	if bound == Upper {
		return p.SendA + upper, CaseM2
	}
	return p.SendA + lower, CaseM2
}

// Bounds returns Comm_a^lower and Comm_a^upper of case (m.2): eqs. (5),
// (6) raised to Comm^min of eq. (8) by eqs. (9) and (10).
func (p P2P) Bounds() (lower, upper float64) {
	lower = 2 * p.CopyCost                        // (6)
	upper = p.RecvM - p.SendM                     // (5)
	cmin := (p.EnterRecvA - p.SendA) + p.CopyCost // (8)
	return max(lower, cmin), max(upper, cmin)     // (9), (10)
}

// NtoNExit is eqs. (12) and (13): exit_a = enter_a^k + (exit_m − enter_m^j),
// with enterAk the latest approximated enter, enterMj the latest measured
// enter and exitM the earliest measured exit (12) or the process's own (13).
func NtoNExit(enterAk, exitM, enterMj float64) float64 {
	return enterAk + (exitM - enterMj)
}
