package trace

import (
	"context"
	"iter"
	"strconv"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// EventOptions extend EmitOptions for event-level output.
type EventOptions struct {
	EmitOptions
	// Approx, when set, gives the compensated time (ticks) of an event,
	// written as approxEventTime beside atEventTime.
	Approx func(e *Event) (Time, bool)
}

type riFrame struct {
	iri    string
	region int
}

type evLoc struct {
	stack []riFrame
	collN map[int]int
}

// EmitEvents writes the event-level shapes the shipped late_sender and
// wait_at_barrier rules read (as convert/sample's trace experiment does):
// a RegionInstance per region execution (ofCodeRegion, inProcessingUnit,
// inExperiment, hasChildRI), EnterEvent/ExitEvent with atEventTime in
// microseconds since the trace start, SendEvent sendsMessage / RecvEvent
// receivesMessage a Message (messageSize, messageTag, messageSender,
// messageReceiver), and CollectiveEvent with the region instance
// partOfCollective a CollectiveOperation. Messages are matched FIFO per
// channel, so memory is bounded by the messages in flight.
func EmitEvents(ctx context.Context, sink Sink, d *Defs, events iter.Seq2[Event, error], opts EventOptions) (int64, error) {
	w := &writer{ctx: ctx, sink: sink}
	nm := Names{opts.Base, opts.Experiment}
	exp := kb.IRI(opts.Experiment)
	locs := make([]evLoc, len(d.Locations))
	pendSend := map[Channel][]string{} // message IRIs sent, not yet received
	pendRecv := map[Channel][]string{} // receive event IRIs waiting for their send
	us := func(t Time) kb.Term { return dbl(d.Micros(t - d.Start)) }
	pu := func(loc int) kb.Term {
		l := d.Locations[loc]
		return kb.IRI(nm.PU(l.Process, l.Thread))
	}
	var err error
	add := func(s kb.Term, p string, o kb.Term) {
		if err == nil {
			err = w.add(s, p, o)
		}
	}
	event := func(ri string, e *Event, cls, suffix string) kb.Term {
		ev := kb.IRI(ri + "/" + suffix)
		add(kb.IRI(ri), ontology.HasEvent, ev)
		add(ev, ontology.RDFType, kb.IRI(cls))
		add(ev, ontology.AtEventTime, us(e.Time))
		if opts.Approx != nil {
			if t, ok := opts.Approx(e); ok {
				add(ev, ontology.ApproxEventTime, us(t))
			}
		}
		return ev
	}
	for e, rerr := range events {
		if rerr != nil {
			return w.n, rerr
		}
		if err != nil {
			return w.n, err
		}
		L := &locs[e.Loc]
		seq := strconv.FormatInt(e.Seq, 10)
		switch e.Kind {
		case Enter:
			ri := opts.Experiment + "/ri/" + strconv.Itoa(e.Loc) + "/" + seq
			r := kb.IRI(ri)
			add(r, ontology.RDFType, kb.IRI(ontology.RegionInstance))
			add(r, ontology.OfCodeRegion, kb.IRI(nm.Region(d.Regions[e.Region].Name)))
			add(r, ontology.InProcessingUnit, pu(e.Loc))
			add(r, ontology.InExperiment, exp)
			if len(L.stack) > 0 {
				add(kb.IRI(L.stack[len(L.stack)-1].iri), ontology.HasChildRI, r)
			}
			L.stack = append(L.stack, riFrame{iri: ri, region: e.Region})
			event(ri, &e, ontology.EnterEvent, "enter")
			continue
		case Leave:
			if len(L.stack) == 0 || L.stack[len(L.stack)-1].region != e.Region {
				continue
			}
			event(L.stack[len(L.stack)-1].iri, &e, ontology.ExitEvent, "exit")
			L.stack = L.stack[:len(L.stack)-1]
			continue
		}
		if len(L.stack) == 0 {
			continue
		}
		ri := L.stack[len(L.stack)-1].iri
		switch e.Kind {
		case Send, Isend:
			msg := opts.Experiment + "/msg/" + strconv.Itoa(e.Loc) + "/" + seq
			m := kb.IRI(msg)
			add(m, ontology.RDFType, kb.IRI(ontology.Message))
			add(m, ontology.MessageSize, lng(e.Bytes))
			add(m, ontology.MessageTag, integer(int64(e.Tag)))
			add(m, ontology.MessageSender, pu(e.Loc))
			if e.Peer >= 0 && e.Peer < len(d.Locations) {
				add(m, ontology.MessageReceiver, pu(e.Peer))
			}
			ev := event(ri, &e, ontology.SendEvent, "e"+seq)
			add(ev, ontology.SendsMessage, m)
			ch, _, _ := p2pKey(&e)
			if q := pendRecv[ch]; len(q) > 0 {
				add(kb.IRI(q[0]), ontology.ReceivesMessage, m)
				pendRecv[ch] = q[1:]
			} else {
				pendSend[ch] = append(pendSend[ch], msg)
			}
		case Recv, Irecv:
			ev := event(ri, &e, ontology.RecvEvent, "e"+seq)
			ch, _, _ := p2pKey(&e)
			if q := pendSend[ch]; len(q) > 0 {
				add(ev, ontology.ReceivesMessage, kb.IRI(q[0]))
				pendSend[ch] = q[1:]
			} else {
				pendRecv[ch] = append(pendRecv[ch], ev.Value)
			}
		case CollectiveEnd:
			if L.collN == nil {
				L.collN = map[int]int{}
			}
			k := L.collN[e.Comm]
			L.collN[e.Comm]++
			coll := kb.IRI(opts.Experiment + "/coll/" + strconv.Itoa(e.Comm) + "/" + strconv.Itoa(k))
			add(coll, ontology.RDFType, kb.IRI(ontology.CollectiveOperation))
			add(coll, ontology.RDFSLabel, kb.String(e.Op.String()+" #"+strconv.Itoa(k+1)+" on communicator "+strconv.Itoa(e.Comm)))
			add(kb.IRI(ri), ontology.PartOfCollective, coll)
			event(ri, &e, ontology.CollectiveEvent, "e"+seq)
		}
	}
	return w.n, err
}
