#!/usr/bin/python3
"""Writes an OTF2 test trace with Debian's python3-otf2 (the reference
library's bindings): two MPI ranks on two nodes, two OpenMP threads per
rank, blocking and non-blocking point-to-point messages, a barrier, an
allreduce, a broadcast and a buffer flush. Beside the archive it writes
expected.json: per-location event counts and, per (rank, thread, call
path), the number of calls and the inclusive time the generator put in.

usage: mpi_omp.py OUTDIR
"""
import json
import os
import sys

import otf2
from otf2.enums import (CollectiveOp, GroupType, LocationGroupType, LocationType, Paradigm,
                        RegionRole)

UNDEF = 0xFFFFFFFF
out = sys.argv[1]
os.makedirs(out, exist_ok=True)

expected = {"locations": {}, "regions": {}}


class Loc:
    """Records one location's events and the generator's own summary."""

    def __init__(self, name, rank, thread, writer):
        self.name, self.rank, self.thread, self.w = name, rank, thread, writer
        self.n = 0
        self.stack = []

    def enter(self, t, region):
        self.w.enter(t, region)
        self.n += 1
        self.stack.append((region.name, t))

    def leave(self, t, region):
        name, start = self.stack.pop()
        assert name == region.name
        self.w.leave(t, region)
        self.n += 1
        path = " => ".join([s[0] for s in self.stack] + [name])
        key = "%d/%d/%s" % (self.rank, self.thread, path)
        e = expected["regions"].setdefault(key, {"calls": 0, "incl": 0})
        e["calls"] += 1
        e["incl"] += t - start

    def ev(self, method, t, *args):
        getattr(self.w, method)(t, *args)
        self.n += 1


with otf2.writer.open(out, timer_resolution=1000000) as trace:
    d = trace.definitions
    root = d.system_tree_node("machine")
    nodes = [d.system_tree_node("nodeA", parent=root), d.system_tree_node("nodeB", parent=root)]
    groups = [d.location_group("MPI Rank %d" % r, location_group_type=LocationGroupType.PROCESS,
                               system_tree_parent=nodes[r]) for r in range(2)]
    locs = []
    for r in range(2):
        for th in range(2):
            locs.append(d.location("rank %d thread %d" % (r, th), type=LocationType.CPU_THREAD, group=groups[r]))
    masters = [locs[0], locs[2]]
    comm_locations = d.group("MPI_COMM_WORLD locations", group_type=GroupType.COMM_LOCATIONS,
                             paradigm=Paradigm.MPI, members=masters)
    comm_group = d.group("MPI_COMM_WORLD group", group_type=GroupType.COMM_GROUP,
                         paradigm=Paradigm.MPI, members=[0, 1])
    world = d.comm("MPI_COMM_WORLD", group=comm_group)

    def region(name, paradigm, role):
        return d.region(name, canonical_name=name, paradigm=paradigm, region_role=role)

    main = region("main", Paradigm.USER, RegionRole.FUNCTION)
    send = region("MPI_Send", Paradigm.MPI, RegionRole.POINT2POINT)
    recv = region("MPI_Recv", Paradigm.MPI, RegionRole.POINT2POINT)
    isend = region("MPI_Isend", Paradigm.MPI, RegionRole.POINT2POINT)
    irecv = region("MPI_Irecv", Paradigm.MPI, RegionRole.POINT2POINT)
    wait = region("MPI_Wait", Paradigm.MPI, RegionRole.POINT2POINT)
    barrier = region("MPI_Barrier", Paradigm.MPI, RegionRole.BARRIER)
    allreduce = region("MPI_Allreduce", Paradigm.MPI, RegionRole.COLL_ALL2ALL)
    bcast = region("MPI_Bcast", Paradigm.MPI, RegionRole.COLL_ONE2ALL)
    parallel = region("!$omp parallel @gen.c:42", Paradigm.OPENMP, RegionRole.PARALLEL)
    compute = region("compute", Paradigm.USER, RegionRole.FUNCTION)

    L = [Loc(l.name, i // 2, i % 2, trace.event_writer_from_location(l)) for i, l in enumerate(locs)]
    r0, w0, r1, w1 = L

    # Both ranks: main from 0 to 1000.
    for r in (r0, r1):
        r.enter(0, main)
    # Blocking message 0 -> 1, tag 5, 200000 bytes; rank 1 waits (Late Sender 90).
    r0.enter(100, send); r0.ev("mpi_send", 110, 1, world, 5, 200000); r0.leave(120, send)
    r1.enter(10, recv); r1.ev("mpi_recv", 130, 0, world, 5, 200000); r1.leave(140, recv)
    # Non-blocking 1 -> 0, tag 6, 64 bytes.
    r1.enter(150, isend); r1.ev("mpi_isend", 151, 0, world, 6, 64, 11); r1.leave(155, isend)
    r1.enter(160, wait); r1.ev("mpi_isend_complete", 165, 11); r1.leave(170, wait)
    r0.enter(130, irecv); r0.ev("mpi_irecv_request", 131, 21); r0.leave(135, irecv)
    r0.enter(140, wait); r0.ev("mpi_irecv", 175, 1, world, 6, 64, 21); r0.leave(180, wait)
    # OpenMP parallel region with two threads each.
    for (m, w, a) in ((r0, w0, 200), (r1, w1, 205)):
        for t in (m, w):
            t.enter(a, parallel)
            t.enter(a + 10, compute)
            t.leave(a + 90 + 10 * t.thread, compute)
            t.leave(a + 120, parallel)
    # Buffer flush on rank 0 (measurement overhead, 30 ticks).
    r0.ev("buffer_flush", 330, 360)
    # Barrier: rank 0 enters at 400, rank 1 at 450.
    for (r, a) in ((r0, 400), (r1, 450)):
        r.enter(a, barrier); r.ev("mpi_collective_begin", a + 1)
        r.ev("mpi_collective_end", 460, CollectiveOp.BARRIER, world, UNDEF, 0, 0); r.leave(465, barrier)
    # Allreduce of 8 bytes.
    for (r, a) in ((r0, 500), (r1, 505)):
        r.enter(a, allreduce); r.ev("mpi_collective_begin", a + 1)
        r.ev("mpi_collective_end", 520, CollectiveOp.ALLREDUCE, world, UNDEF, 8, 8); r.leave(525, allreduce)
    # Broadcast of 1024 bytes from rank 0.
    r0.enter(600, bcast); r0.ev("mpi_collective_begin", 601)
    r0.ev("mpi_collective_end", 610, CollectiveOp.BCAST, world, 0, 1024, 0); r0.leave(612, bcast)
    r1.enter(602, bcast); r1.ev("mpi_collective_begin", 603)
    r1.ev("mpi_collective_end", 615, CollectiveOp.BCAST, world, 0, 0, 1024); r1.leave(618, bcast)
    for r in (r0, r1):
        r.leave(1000, main)

    for l, rec in zip(locs, L):
        expected["locations"][l.name] = {"rank": rec.rank, "thread": rec.thread, "events": rec.n,
                                         "node": "nodeA" if rec.rank == 0 else "nodeB"}

with open(os.path.join(out, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
