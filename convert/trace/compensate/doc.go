// Package compensate removes measurement overhead from traces with the
// model of Wolf, Malony, Shende and Morris, "Trace-Based Parallel
// Performance Overhead Compensation" (003): a constant overhead O per event
// and a per-byte buffer copy cost C(size). Independent events are shifted
// by eq. (1); receives, which depend on communication, by eqs. (2)–(11),
// with a lower and an upper bound where the communication time cannot be
// measured; n-to-n collectives by eq. (12) or, per process, eq. (13);
// 1-to-n collectives as point-to-point pairs (send := enter of the root's
// collective region, exit.send := its leave, recv := the receiver's
// collective end record, as a receive record precedes exit.recv). Buffer
// flushes are measurement overhead and are removed (003 §4, "special
// records").
//
// The case of a message, (m.1) or (m.2), depends on exit.send_m, the
// measured leave of the region holding the send. The engine approximates
// locations independently as far as their dependencies allow, so by the
// time a receive is matched its sender may be anywhere after the send:
// each location records the leave that closes a send's region when it
// commits it, and a send still open is resolved by reading ahead in the
// sender's queue from its current depth.
//
// Extensions beyond the paper, flagged in the Report: non-blocking
// communication (send at the Isend, recv at the completing event),
// n-to-1 collectives treated as n-to-n, and clamping an approximated time
// to its predecessor on the same location when a measured gap is shorter
// than O (the paper assumes every event costs at least O).
package compensate
