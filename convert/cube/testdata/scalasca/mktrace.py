#!/usr/bin/python3
"""Write the OTF2 trace of a 4-rank MPI run that Scalasca's scout.mpi
analyses into scout.cubex (see ../README).

The trace follows Score-P's conventions: a machine/node system tree, one
"MPI Rank N" process location group per rank with one "Master thread" CPU
location whose ID is the rank, the MPI COMM_LOCATIONS group, MPI_COMM_WORLD
over all ranks, MPI functions as regions with source file "MPI", paradigm
MPI and their region role, and MpiSend/MpiRecv/MpiCollectiveBegin/End
events inside them. Times are in microseconds (timer resolution 1e6).

What it contains, by construction:
  * exchange: rank 0 computes until 50 ms, then sends to rank 1, whose
    MPI_Recv was entered at 10 ms: Late Sender of 40 ms on rank 1's
    main/exchange/MPI_Recv.  Rank 2 sends 1 MiB to rank 3 at 10 ms and its
    MPI_Send blocks until rank 3 posts the receive at 60 ms: Late Receiver
    of 50 ms on rank 2's main/exchange/MPI_Send.
  * halo: ranks 1 and 3 send small messages back to ranks 0 and 2, whose
    receives are entered after the sends: no wait state under
    main/halo/MPI_Recv or main/halo/MPI_Send.
  * a barrier entered at 70, 80, 90 and 100 ms by ranks 0..3: Wait at
    Barrier of 30, 20, 10 and 0 ms on main/MPI_Barrier.

Usage: mktrace.py DIR   (writes DIR/traces.otf2, DIR/traces.def, DIR/traces/)
"""
import sys

import otf2
from otf2.enums import (CollectiveOp, GroupType, LocationGroupType,
                        LocationType, Paradigm, RegionRole)

NRANKS = 4
WORLD = "MPI_COMM_WORLD"

# Per rank: (begin, end, region, children-or-event).  A leaf MPI call carries
# its message event as ("send", peer, tag, bytes, t) or ("recv", peer, tag,
# bytes, t) or ("barrier",).
PLAN = {
    0: [(0, 103000, "main", [
        (0, 1000, "MPI_Init", None),
        (1000, 50000, "compute", None),
        (50000, 51200, "exchange", [
            (50000, 51000, "MPI_Send", ("send", 1, 1, 1024, 50100))]),
        (51200, 53500, "halo", [
            (52400, 53000, "MPI_Recv", ("recv", 1, 2, 64, 52900))]),
        (53500, 70000, "compute", None),
        (70000, 101000, "MPI_Barrier", ("barrier",)),
        (101500, 102500, "MPI_Finalize", None)])],
    1: [(0, 103000, "main", [
        (0, 1000, "MPI_Init", None),
        (1000, 10000, "compute", None),
        (10000, 52200, "exchange", [
            (10000, 52000, "MPI_Recv", ("recv", 0, 1, 1024, 51900))]),
        (52200, 53000, "halo", [
            (52300, 52380, "MPI_Send", ("send", 0, 2, 64, 52350))]),
        (53000, 80000, "compute", None),
        (80000, 101100, "MPI_Barrier", ("barrier",)),
        (101500, 102500, "MPI_Finalize", None)])],
    2: [(0, 103000, "main", [
        (0, 1000, "MPI_Init", None),
        (1000, 10000, "compute", None),
        (10000, 62200, "exchange", [
            (10000, 62000, "MPI_Send", ("send", 3, 1, 1 << 20, 10100))]),
        (62200, 63000, "halo", [
            (62700, 62950, "MPI_Recv", ("recv", 3, 2, 64, 62900))]),
        (63000, 90000, "compute", None),
        (90000, 101200, "MPI_Barrier", ("barrier",)),
        (101500, 102500, "MPI_Finalize", None)])],
    3: [(0, 103000, "main", [
        (0, 1000, "MPI_Init", None),
        (1000, 60000, "compute", None),
        (60000, 62600, "exchange", [
            (60000, 62500, "MPI_Recv", ("recv", 2, 1, 1 << 20, 62400))]),
        (62600, 63500, "halo", [
            (62650, 62690, "MPI_Send", ("send", 2, 2, 64, 62670))]),
        (63500, 100000, "compute", None),
        (100000, 101300, "MPI_Barrier", ("barrier",)),
        (101500, 102500, "MPI_Finalize", None)])],
}

MPI_ROLES = {
    "MPI_Init": RegionRole.FUNCTION,
    "MPI_Finalize": RegionRole.FUNCTION,
    "MPI_Send": RegionRole.POINT2POINT,
    "MPI_Recv": RegionRole.POINT2POINT,
    "MPI_Barrier": RegionRole.BARRIER,
}
USER_LINES = {"main": (40, 60), "compute": (10, 20), "exchange": (22, 30),
              "halo": (31, 38)}


def main(path):
    with otf2.writer.open(path, timer_resolution=10**6) as trace:
        defs = trace.definitions
        machine = defs.system_tree_node("Linux", class_name="machine")
        node = defs.system_tree_node("perfkb", class_name="node",
                                     parent=machine)
        regions = {}
        for name, role in MPI_ROLES.items():
            regions[name] = defs.region(name, canonical_name=name,
                                        region_role=role,
                                        paradigm=Paradigm.MPI,
                                        source_file="MPI")
        for name, (b, e) in USER_LINES.items():
            regions[name] = defs.region(name, canonical_name=name,
                                        region_role=RegionRole.FUNCTION,
                                        paradigm=Paradigm.COMPILER,
                                        source_file="prog.c",
                                        begin_line_number=b,
                                        end_line_number=e)
        locations = []
        for r in range(NRANKS):
            group = defs.location_group(
                "MPI Rank %d" % r,
                location_group_type=LocationGroupType.PROCESS,
                system_tree_parent=node)
            locations.append(defs.location(
                "Master thread", type=LocationType.CPU_THREAD, group=group))
        defs.group("", group_type=GroupType.COMM_LOCATIONS,
                   paradigm=Paradigm.MPI, members=locations)
        world_group = defs.group("", group_type=GroupType.COMM_GROUP,
                                 paradigm=Paradigm.MPI,
                                 members=list(range(NRANKS)))
        world = defs.comm(WORLD, group=world_group)

        for r in range(NRANKS):
            w = trace.event_writer_from_location(locations[r])
            emit(w, PLAN[r], regions, world)


def emit(w, calls, regions, world):
    for begin, end, name, inner in calls:
        region = regions[name]
        w.enter(begin, region)
        if isinstance(inner, list):
            emit(w, inner, regions, world)
        elif inner is not None and inner[0] == "send":
            _, peer, tag, size, t = inner
            w.mpi_send(t, peer, world, tag, size)
        elif inner is not None and inner[0] == "recv":
            _, peer, tag, size, t = inner
            w.mpi_recv(t, peer, world, tag, size)
        elif inner is not None and inner[0] == "barrier":
            w.mpi_collective_begin(begin + 10)
            w.mpi_collective_end(end - 10, CollectiveOp.BARRIER, world,
                                 0xFFFFFFFF,
                                 0, 0)
        w.leave(end, region)


if __name__ == "__main__":
    main(sys.argv[1])
