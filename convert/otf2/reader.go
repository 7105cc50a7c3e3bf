//go:build otf2

package otf2

/*
#cgo pkg-config: otf2
#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The library reports errors on stderr by default; keep the first message
// of a failing operation instead, for perfkb's own error.
static char pk_errbuf[512];
static OTF2_ErrorCode pk_errcb(void* ud, const char* file, uint64_t line, const char* fn, OTF2_ErrorCode code,
	const char* fmt, va_list va) {
	if (pk_errbuf[0] == 0) vsnprintf(pk_errbuf, sizeof pk_errbuf, fmt, va);
	return code;
}
static void pk_err_reset(void) {
	static int registered;
	if (!registered) { OTF2_Error_RegisterCallback(pk_errcb, NULL); registered = 1; }
	pk_errbuf[0] = 0;
}
static const char* pk_err(void) { return pk_errbuf; }

// Growable arrays filled by the C callbacks; Go copies them afterwards, so
// no Go function is called from C.
static void* pk_grow(void* p, size_t* cap, size_t need, size_t elem) {
	if (need <= *cap) return p;
	size_t c = *cap ? *cap : 16;
	while (c < need) c *= 2;
	void* q = realloc(p, c * elem);
	memset((char*)q + *cap * elem, 0, (c - *cap) * elem);
	*cap = c;
	return q;
}

typedef struct { uint32_t name, role, paradigm; int set; } pk_region;
typedef struct { uint32_t name, cls, parent; } pk_stn;
typedef struct { uint32_t name, type, stn; } pk_lg;
typedef struct { uint64_t ref; uint32_t name, type, group; uint64_t nev; } pk_loc;
typedef struct { uint32_t ref, type, paradigm, n; uint64_t* members; } pk_group;
typedef struct { uint32_t ref, name, group, parent; } pk_comm;

typedef struct {
	char** strings; size_t nstrings, capstrings;
	pk_region* regions; size_t nregions, capregions;
	pk_stn* stns; size_t nstns, capstns;
	pk_lg* lgs; size_t nlgs, caplgs;
	pk_loc* locs; size_t nlocs, caplocs;
	pk_group* groups; size_t ngroups, capgroups;
	pk_comm* comms; size_t ncomms, capcomms;
	uint64_t res, goff, tlen;
} pk_defs;

static OTF2_CallbackCode pk_string(void* ud, OTF2_StringRef self, const char* s) {
	pk_defs* d = ud;
	d->strings = pk_grow(d->strings, &d->capstrings, self + 1, sizeof(char*));
	if (self + 1 > d->nstrings) d->nstrings = self + 1;
	d->strings[self] = strdup(s);
	return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode pk_regiondef(void* ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
	OTF2_StringRef desc, OTF2_RegionRole role, OTF2_Paradigm paradigm, OTF2_RegionFlag flags,
	OTF2_StringRef file, uint32_t b, uint32_t e) {
	pk_defs* d = ud;
	d->regions = pk_grow(d->regions, &d->capregions, self + 1, sizeof(pk_region));
	if (self + 1 > d->nregions) d->nregions = self + 1;
	d->regions[self] = (pk_region){name, role, paradigm, 1};
	return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode pk_stndef(void* ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent) {
	pk_defs* d = ud;
	d->stns = pk_grow(d->stns, &d->capstns, self + 1, sizeof(pk_stn));
	if (self + 1 > d->nstns) d->nstns = self + 1;
	d->stns[self] = (pk_stn){name, cls, parent};
	return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode pk_lgdef(void* ud, OTF2_LocationGroupRef self, OTF2_StringRef name, OTF2_LocationGroupType type,
	OTF2_SystemTreeNodeRef stn, OTF2_LocationGroupRef creator) {
	pk_defs* d = ud;
	d->lgs = pk_grow(d->lgs, &d->caplgs, self + 1, sizeof(pk_lg));
	if (self + 1 > d->nlgs) d->nlgs = self + 1;
	d->lgs[self] = (pk_lg){name, type, stn};
	return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode pk_locdef(void* ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
	uint64_t nev, OTF2_LocationGroupRef group) {
	pk_defs* d = ud;
	d->locs = pk_grow(d->locs, &d->caplocs, d->nlocs + 1, sizeof(pk_loc));
	d->locs[d->nlocs++] = (pk_loc){self, name, type, group, nev};
	return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode pk_groupdef(void* ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
	OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t* members) {
	pk_defs* d = ud;
	d->groups = pk_grow(d->groups, &d->capgroups, d->ngroups + 1, sizeof(pk_group));
	uint64_t* m = malloc((n ? n : 1) * sizeof(uint64_t));
	memcpy(m, members, n * sizeof(uint64_t));
	d->groups[d->ngroups++] = (pk_group){self, type, paradigm, n, m};
	return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode pk_commdef(void* ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags) {
	pk_defs* d = ud;
	d->comms = pk_grow(d->comms, &d->capcomms, d->ncomms + 1, sizeof(pk_comm));
	d->comms[d->ncomms++] = (pk_comm){self, name, group, parent};
	return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode pk_clock(void* ud, uint64_t res, uint64_t goff, uint64_t tlen, uint64_t rt) {
	pk_defs* d = ud;
	d->res = res; d->goff = goff; d->tlen = tlen;
	return OTF2_CALLBACK_SUCCESS;
}

static void pk_free_defs(pk_defs* d) {
	for (size_t i = 0; i < d->nstrings; i++) free(d->strings[i]);
	for (size_t i = 0; i < d->ngroups; i++) free(d->groups[i].members);
	free(d->strings); free(d->regions); free(d->stns); free(d->lgs); free(d->locs); free(d->groups); free(d->comms);
	free(d);
}

static OTF2_Reader* pk_open(const char* path) {
	pk_err_reset();
	OTF2_Reader* r = OTF2_Reader_Open(path);
	if (r == NULL) return NULL;
	if (OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS) { OTF2_Reader_Close(r); return NULL; }
	return r;
}

// pk_read_defs reads the global definitions of an archive.
static int pk_read_defs(const char* path, pk_defs** out) {
	OTF2_Reader* r = pk_open(path);
	if (r == NULL) return -1;
	pk_defs* d = calloc(1, sizeof(pk_defs));
	OTF2_GlobalDefReader* gr = OTF2_Reader_GetGlobalDefReader(r);
	if (gr == NULL) { pk_free_defs(d); OTF2_Reader_Close(r); return -2; }
	OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, pk_string);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, pk_regiondef);
	OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, pk_stndef);
	OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, pk_lgdef);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, pk_locdef);
	OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, pk_groupdef);
	OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, pk_commdef);
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, pk_clock);
	OTF2_Reader_RegisterGlobalDefCallbacks(r, gr, cb, d);
	OTF2_GlobalDefReaderCallbacks_Delete(cb);
	uint64_t n = 0;
	OTF2_ErrorCode err = OTF2_Reader_ReadAllGlobalDefinitions(r, gr, &n);
	OTF2_Reader_CloseGlobalDefReader(r, gr);
	OTF2_Reader_Close(r);
	if (err != OTF2_SUCCESS) { pk_free_defs(d); return -3; }
	*out = d;
	return 0;
}

typedef struct { uint64_t time; int64_t offset; } pk_off;
typedef struct { pk_off* buf; size_t n, cap; } pk_offs;

static OTF2_CallbackCode pk_offset(void* ud, OTF2_TimeStamp t, int64_t off, double sd) {
	pk_offs* o = ud;
	o->buf = pk_grow(o->buf, &o->cap, o->n + 1, sizeof(pk_off));
	o->buf[o->n++] = (pk_off){t, off};
	return OTF2_CALLBACK_SUCCESS;
}

// Event kinds (match trace.Kind order where they exist).
enum { PK_ENTER, PK_LEAVE, PK_SEND, PK_RECV, PK_ISEND, PK_ISENDCOMPLETE, PK_IRECVREQUEST, PK_IRECV,
	PK_COLLBEGIN, PK_COLLEND, PK_FLUSH, PK_ONOFF };

typedef struct {
	int kind;
	uint64_t time, bytes, recvd, req, stop;
	uint32_t region, peer, comm, tag, op, root, mode;
} pk_event;

typedef struct { pk_event* buf; size_t n, cap; } pk_batch;

static pk_event* pk_next(void* ud, int kind, uint64_t t) {
	pk_batch* b = ud;
	b->buf = pk_grow(b->buf, &b->cap, b->n + 1, sizeof(pk_event));
	pk_event* e = &b->buf[b->n++];
	memset(e, 0, sizeof *e);
	e->kind = kind; e->time = t;
	return e;
}

#define PK_HDR OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void* ud, OTF2_AttributeList* al
static OTF2_CallbackCode pk_enter(PK_HDR, OTF2_RegionRef r) { pk_next(ud, PK_ENTER, t)->region = r; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode pk_leave(PK_HDR, OTF2_RegionRef r) { pk_next(ud, PK_LEAVE, t)->region = r; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode pk_send(PK_HDR, uint32_t rcv, OTF2_CommRef c, uint32_t tag, uint64_t len) {
	pk_event* e = pk_next(ud, PK_SEND, t); e->peer = rcv; e->comm = c; e->tag = tag; e->bytes = len; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode pk_recv(PK_HDR, uint32_t snd, OTF2_CommRef c, uint32_t tag, uint64_t len) {
	pk_event* e = pk_next(ud, PK_RECV, t); e->peer = snd; e->comm = c; e->tag = tag; e->bytes = len; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode pk_isend(PK_HDR, uint32_t rcv, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req) {
	pk_event* e = pk_next(ud, PK_ISEND, t); e->peer = rcv; e->comm = c; e->tag = tag; e->bytes = len; e->req = req; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode pk_isendc(PK_HDR, uint64_t req) { pk_next(ud, PK_ISENDCOMPLETE, t)->req = req; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode pk_irecvr(PK_HDR, uint64_t req) { pk_next(ud, PK_IRECVREQUEST, t)->req = req; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode pk_irecv(PK_HDR, uint32_t snd, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req) {
	pk_event* e = pk_next(ud, PK_IRECV, t); e->peer = snd; e->comm = c; e->tag = tag; e->bytes = len; e->req = req; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode pk_collb(PK_HDR) { pk_next(ud, PK_COLLBEGIN, t); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode pk_colle(PK_HDR, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t sent, uint64_t recvd) {
	pk_event* e = pk_next(ud, PK_COLLEND, t); e->op = op; e->comm = c; e->root = root; e->bytes = sent; e->recvd = recvd; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode pk_flush(PK_HDR, OTF2_TimeStamp stop) { pk_next(ud, PK_FLUSH, t)->stop = stop; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode pk_onoff(PK_HDR, OTF2_MeasurementMode m) { pk_next(ud, PK_ONOFF, t)->mode = m; return OTF2_CALLBACK_SUCCESS; }

// pk_loc_reader is one location's event stream.
typedef struct {
	OTF2_Reader* r;
	OTF2_EvtReader* er;
	pk_batch batch;
	pk_offs offs;
} pk_loc_reader;

// pk_open_loc opens the events (and local definitions: mapping tables and
// clock offsets) of one location. Clock offsets are not applied by the
// library: perfkb's merge interpolates them itself.
static pk_loc_reader* pk_open_loc(const char* path, uint64_t loc, int* status) {
	pk_loc_reader* lr = calloc(1, sizeof(pk_loc_reader));
	lr->r = pk_open(path);
	if (lr->r == NULL) { *status = -1; free(lr); return NULL; }
	OTF2_Reader_SelectLocation(lr->r, loc);
	if (OTF2_Reader_OpenDefFiles(lr->r) == OTF2_SUCCESS) {
		OTF2_DefReader* dr = OTF2_Reader_GetDefReader(lr->r, loc);
		if (dr != NULL) {
			OTF2_DefReaderCallbacks* cb = OTF2_DefReaderCallbacks_New();
			OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, pk_offset);
			OTF2_Reader_RegisterDefCallbacks(lr->r, dr, cb, &lr->offs);
			OTF2_DefReaderCallbacks_Delete(cb);
			uint64_t n = 0;
			OTF2_Reader_ReadAllLocalDefinitions(lr->r, dr, &n);
			OTF2_Reader_CloseDefReader(lr->r, dr);
		}
		OTF2_Reader_CloseDefFiles(lr->r);
	}
	if (OTF2_Reader_OpenEvtFiles(lr->r) != OTF2_SUCCESS) { *status = -2; OTF2_Reader_Close(lr->r); free(lr); return NULL; }
	lr->er = OTF2_Reader_GetEvtReader(lr->r, loc);
	if (lr->er == NULL) { *status = -3; OTF2_Reader_Close(lr->r); free(lr); return NULL; }
	OTF2_EvtReader_ApplyClockOffsets(lr->er, false);
	OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
	OTF2_EvtReaderCallbacks_SetEnterCallback(cb, pk_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, pk_leave);
	OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, pk_send);
	OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, pk_recv);
	OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, pk_isend);
	OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, pk_isendc);
	OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, pk_irecvr);
	OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, pk_irecv);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, pk_collb);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, pk_colle);
	OTF2_EvtReaderCallbacks_SetBufferFlushCallback(cb, pk_flush);
	OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cb, pk_onoff);
	OTF2_Reader_RegisterEvtCallbacks(lr->r, lr->er, cb, &lr->batch);
	OTF2_EvtReaderCallbacks_Delete(cb);
	*status = 0;
	return lr;
}

// pk_read reads up to n records; events the model does not know are
// skipped by the library (no callback), so the batch may hold fewer.
static int pk_read(pk_loc_reader* lr, uint64_t n, uint64_t* read) {
	lr->batch.n = 0;
	pk_errbuf[0] = 0;
	return OTF2_Reader_ReadLocalEvents(lr->r, lr->er, n, read) == OTF2_SUCCESS ? 0 : -1;
}

static void pk_close_loc(pk_loc_reader* lr) {
	OTF2_Reader_CloseEvtReader(lr->r, lr->er);
	OTF2_Reader_CloseEvtFiles(lr->r);
	OTF2_Reader_Close(lr->r);
	free(lr->batch.buf);
	free(lr->offs.buf);
	free(lr);
}

// Global reader order, for tests: the library's own merge.
typedef struct { uint64_t loc, time; } pk_ge;
typedef struct { pk_ge* buf; size_t n, cap; } pk_gorder;
static void pk_gadd(void* ud, uint64_t loc, uint64_t t) {
	pk_gorder* g = ud;
	g->buf = pk_grow(g->buf, &g->cap, g->n + 1, sizeof(pk_ge));
	g->buf[g->n++] = (pk_ge){loc, t};
}
#define PK_GHDR OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al
static OTF2_CallbackCode g_enter(PK_GHDR, OTF2_RegionRef r) { pk_gadd(ud, loc, t); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode g_leave(PK_GHDR, OTF2_RegionRef r) { pk_gadd(ud, loc, t); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode g_send(PK_GHDR, uint32_t a, OTF2_CommRef c, uint32_t tag, uint64_t len) { pk_gadd(ud, loc, t); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode g_recv(PK_GHDR, uint32_t a, OTF2_CommRef c, uint32_t tag, uint64_t len) { pk_gadd(ud, loc, t); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode g_isend(PK_GHDR, uint32_t a, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req) { pk_gadd(ud, loc, t); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode g_req(PK_GHDR, uint64_t req) { pk_gadd(ud, loc, t); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode g_irecv(PK_GHDR, uint32_t a, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req) { pk_gadd(ud, loc, t); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode g_collb(PK_GHDR) { pk_gadd(ud, loc, t); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode g_colle(PK_GHDR, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t s, uint64_t r) { pk_gadd(ud, loc, t); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode g_flush(PK_GHDR, OTF2_TimeStamp stop) { pk_gadd(ud, loc, t); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode g_onoff(PK_GHDR, OTF2_MeasurementMode m) { pk_gadd(ud, loc, t); return OTF2_CALLBACK_SUCCESS; }

static int pk_global_order(const char* path, const uint64_t* locs, size_t nlocs, pk_gorder* g) {
	OTF2_Reader* r = pk_open(path);
	if (r == NULL) return -1;
	for (size_t i = 0; i < nlocs; i++) OTF2_Reader_SelectLocation(r, locs[i]);
	if (OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS) {
		for (size_t i = 0; i < nlocs; i++) {
			OTF2_DefReader* dr = OTF2_Reader_GetDefReader(r, locs[i]);
			if (dr != NULL) { uint64_t n; OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n); OTF2_Reader_CloseDefReader(r, dr); }
		}
		OTF2_Reader_CloseDefFiles(r);
	}
	if (OTF2_Reader_OpenEvtFiles(r) != OTF2_SUCCESS) { OTF2_Reader_Close(r); return -2; }
	for (size_t i = 0; i < nlocs; i++) OTF2_Reader_GetEvtReader(r, locs[i]);
	OTF2_GlobalEvtReader* gr = OTF2_Reader_GetGlobalEvtReader(r);
	OTF2_GlobalEvtReaderCallbacks* cb = OTF2_GlobalEvtReaderCallbacks_New();
	OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, g_enter);
	OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, g_leave);
	OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, g_send);
	OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, g_recv);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, g_isend);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, g_req);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, g_req);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, g_irecv);
	OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, g_collb);
	OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, g_colle);
	OTF2_GlobalEvtReaderCallbacks_SetBufferFlushCallback(cb, g_flush);
	OTF2_GlobalEvtReaderCallbacks_SetMeasurementOnOffCallback(cb, g_onoff);
	OTF2_Reader_RegisterGlobalEvtCallbacks(r, gr, cb, g);
	OTF2_GlobalEvtReaderCallbacks_Delete(cb);
	uint64_t n = 0;
	OTF2_ErrorCode err = OTF2_Reader_ReadAllGlobalEvents(r, gr, &n);
	OTF2_Reader_CloseGlobalEvtReader(r, gr);
	OTF2_Reader_CloseEvtFiles(r);
	OTF2_Reader_Close(r);
	return err == OTF2_SUCCESS ? 0 : -3;
}
*/
import "C"

import (
	"context"
	"fmt"
	"iter"
	"sort"
	"unsafe"

	"github.com/perfkb/perfkb/convert/trace"
)

// Enabled reports whether this build can read OTF2 archives.
const Enabled = true

// Archive is an opened OTF2 archive: its definitions in the common model,
// and the OTF2 location reference of each location ID.
type Archive struct {
	path    string
	d       trace.Defs
	locRefs []uint64
	comms   map[uint32]int // OTF2 comm ref → trace comm ID
	regions map[uint32]int // OTF2 region ref → trace region ID
}

// Open reads the global definitions and the clock offsets of the archive
// whose anchor file is path.
func Open(path string) (trace.Source, error) { return OpenArchive(path) }

// OpenArchive is Open returning the concrete type.
func OpenArchive(path string) (*Archive, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cd *C.pk_defs
	if rc := C.pk_read_defs(cpath, &cd); rc != 0 {
		return nil, fmt.Errorf("%s: cannot read the OTF2 archive's global definitions: %s; expected the anchor file (.otf2) of an OTF2 archive", path, libErr(int(rc)))
	}
	defer C.pk_free_defs(cd)
	a := &Archive{path: path, comms: map[uint32]int{}, regions: map[uint32]int{}}
	strs := unsafe.Slice(cd.strings, cd.nstrings)
	str := func(ref C.uint32_t) string {
		if int(ref) < len(strs) && strs[ref] != nil {
			return C.GoString(strs[ref])
		}
		return ""
	}
	a.d.Resolution = uint64(cd.res)
	a.d.Start = trace.Time(cd.goff)
	regs := unsafe.Slice(cd.regions, cd.nregions)
	for ref, r := range regs {
		if r.set == 0 {
			continue
		}
		p := trace.ParadigmUser
		switch r.paradigm {
		case C.OTF2_PARADIGM_MPI:
			p = trace.ParadigmMPI
		case C.OTF2_PARADIGM_OPENMP:
			p = trace.ParadigmOpenMP
		case C.OTF2_PARADIGM_MEASUREMENT_SYSTEM:
			p = trace.ParadigmMeasurement
		}
		a.regions[uint32(ref)] = len(a.d.Regions)
		a.d.Regions = append(a.d.Regions, trace.Region{ID: len(a.d.Regions), Name: str(r.name), Paradigm: p, Role: roleName(int(r.role))})
	}
	stns := unsafe.Slice(cd.stns, cd.nstns)
	lgs := unsafe.Slice(cd.lgs, cd.nlgs)
	locs := unsafe.Slice(cd.locs, cd.nlocs)
	groups := unsafe.Slice(cd.groups, cd.ngroups)
	// The MPI COMM_LOCATIONS group: rank → location ref.
	var mpiLocs []uint64
	commLocs := map[uint32][]uint64{} // paradigm → members
	for _, g := range groups {
		if g._type == C.OTF2_GROUP_TYPE_COMM_LOCATIONS {
			m := unsafe.Slice(g.members, g.n)
			ms := make([]uint64, len(m))
			for i, x := range m {
				ms[i] = uint64(x)
			}
			commLocs[uint32(g.paradigm)] = ms
			if g.paradigm == C.OTF2_PARADIGM_MPI {
				mpiLocs = ms
			}
		}
	}
	rankOf := map[uint64]int{}
	for r, l := range mpiLocs {
		rankOf[l] = r
	}
	// Locations sorted by reference; threads numbered within their group.
	sorted := append([]C.pk_loc(nil), locs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ref < sorted[j].ref })
	groupRank := map[uint32]int{}
	for _, l := range sorted {
		if r, ok := rankOf[uint64(l.ref)]; ok {
			groupRank[uint32(l.group)] = r
		}
	}
	threadN := map[uint32]int{}
	locID := map[uint64]int{}
	for _, l := range sorted {
		g := uint32(l.group)
		proc, ok := groupRank[g]
		if !ok {
			proc = int(g)
		}
		node := ""
		if int(g) < len(lgs) {
			if s := int(lgs[g].stn); s < len(stns) {
				node = str(stns[s].name)
			}
		}
		id := len(a.d.Locations)
		locID[uint64(l.ref)] = id
		a.d.Locations = append(a.d.Locations, trace.Location{ID: id, Node: node, Process: proc, Thread: threadN[g], Name: str(l.name)})
		threadN[g]++
		a.locRefs = append(a.locRefs, uint64(l.ref))
	}
	groupByRef := map[uint32]C.pk_group{}
	for _, g := range groups {
		groupByRef[uint32(g.ref)] = g
	}
	for _, c := range unsafe.Slice(cd.comms, cd.ncomms) {
		g, ok := groupByRef[uint32(c.group)]
		if !ok {
			return nil, fmt.Errorf("%s: communicator %q names undefined group %d", path, str(c.name), uint32(c.group))
		}
		var members []int
		m := unsafe.Slice(g.members, g.n)
		switch g._type {
		case C.OTF2_GROUP_TYPE_COMM_GROUP:
			parent := commLocs[uint32(g.paradigm)]
			for _, rank := range m {
				if int(rank) >= len(parent) {
					return nil, fmt.Errorf("%s: communicator %q has rank %d, the COMM_LOCATIONS group has %d members", path, str(c.name), uint64(rank), len(parent))
				}
				members = append(members, locID[parent[rank]])
			}
		case C.OTF2_GROUP_TYPE_COMM_LOCATIONS:
			for _, l := range m {
				members = append(members, locID[uint64(l)])
			}
		}
		a.comms[uint32(c.ref)] = len(a.d.Comms)
		a.d.Comms = append(a.d.Comms, trace.Comm{ID: len(a.d.Comms), Name: str(c.name), Members: members})
	}
	// Clock offsets live in each location's local definitions.
	a.d.Offsets = make([][]trace.ClockOffset, len(a.d.Locations))
	for id, ref := range a.locRefs {
		var status C.int
		lr := C.pk_open_loc(cpath, C.uint64_t(ref), &status)
		if lr == nil {
			return nil, fmt.Errorf("%s: cannot open the events of location %d: %s", path, ref, libErr(int(status)))
		}
		for _, o := range unsafe.Slice(lr.offs.buf, lr.offs.n) {
			a.d.Offsets[id] = append(a.d.Offsets[id], trace.ClockOffset{Time: trace.Time(o.time), Offset: int64(o.offset)})
		}
		C.pk_close_loc(lr)
	}
	return a, nil
}

// libErr returns the OTF2 library's first message about the failed
// operation, or the status code.
func libErr(status int) string {
	if m := C.GoString(C.pk_err()); m != "" {
		return m
	}
	return fmt.Sprintf("status %d", status)
}

func roleName(r int) string {
	switch r {
	case C.OTF2_REGION_ROLE_FUNCTION:
		return "function"
	case C.OTF2_REGION_ROLE_BARRIER:
		return "barrier"
	case C.OTF2_REGION_ROLE_PARALLEL:
		return "parallel"
	case C.OTF2_REGION_ROLE_LOOP:
		return "loop"
	case C.OTF2_REGION_ROLE_POINT2POINT:
		return "point2point"
	case C.OTF2_REGION_ROLE_COLL_ONE2ALL, C.OTF2_REGION_ROLE_COLL_ALL2ONE, C.OTF2_REGION_ROLE_COLL_ALL2ALL, C.OTF2_REGION_ROLE_COLL_OTHER:
		return "collective"
	}
	return ""
}

// Defs implements trace.Source.
func (a *Archive) Defs() *trace.Defs { return &a.d }

var collOps = map[uint32]trace.CollOp{
	C.OTF2_COLLECTIVE_OP_BARRIER: trace.OpBarrier, C.OTF2_COLLECTIVE_OP_BCAST: trace.OpBcast,
	C.OTF2_COLLECTIVE_OP_GATHER: trace.OpGather, C.OTF2_COLLECTIVE_OP_GATHERV: trace.OpGatherv,
	C.OTF2_COLLECTIVE_OP_SCATTER: trace.OpScatter, C.OTF2_COLLECTIVE_OP_SCATTERV: trace.OpScatterv,
	C.OTF2_COLLECTIVE_OP_ALLGATHER: trace.OpAllgather, C.OTF2_COLLECTIVE_OP_ALLGATHERV: trace.OpAllgatherv,
	C.OTF2_COLLECTIVE_OP_ALLTOALL: trace.OpAlltoall, C.OTF2_COLLECTIVE_OP_ALLTOALLV: trace.OpAlltoallv,
	C.OTF2_COLLECTIVE_OP_ALLTOALLW: trace.OpAlltoallv, C.OTF2_COLLECTIVE_OP_ALLREDUCE: trace.OpAllreduce,
	C.OTF2_COLLECTIVE_OP_REDUCE: trace.OpReduce, C.OTF2_COLLECTIVE_OP_REDUCE_SCATTER: trace.OpReduceScatter,
	C.OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: trace.OpReduceScatter, C.OTF2_COLLECTIVE_OP_SCAN: trace.OpScan,
	C.OTF2_COLLECTIVE_OP_EXSCAN: trace.OpScan,
}

// Events implements trace.Source: the location's events, read in batches
// by its own OTF2 reader.
func (a *Archive) Events(ctx context.Context, loc int) iter.Seq2[trace.Event, error] {
	return func(yield func(trace.Event, error) bool) {
		cpath := C.CString(a.path)
		defer C.free(unsafe.Pointer(cpath))
		var status C.int
		lr := C.pk_open_loc(cpath, C.uint64_t(a.locRefs[loc]), &status)
		if lr == nil {
			yield(trace.Event{}, fmt.Errorf("%s: cannot open the events of location %d: %s", a.path, a.locRefs[loc], libErr(int(status))))
			return
		}
		defer C.pk_close_loc(lr)
		members := func(comm uint32) ([]int, int, error) {
			id, ok := a.comms[comm]
			if !ok {
				return nil, 0, fmt.Errorf("%s: location %d: undefined communicator %d", a.path, a.locRefs[loc], comm)
			}
			return a.d.Comms[id].Members, id, nil
		}
		var seq int64
		for {
			if err := ctx.Err(); err != nil {
				yield(trace.Event{}, err)
				return
			}
			var read C.uint64_t
			if C.pk_read(lr, 4096, &read) != 0 {
				yield(trace.Event{}, fmt.Errorf("%s: location %d: reading events failed after event %d: %s", a.path, a.locRefs[loc], seq, libErr(-1)))
				return
			}
			for _, ce := range unsafe.Slice(lr.batch.buf, lr.batch.n) {
				e := trace.Event{Kind: trace.Kind(ce.kind), Loc: loc, Seq: seq, Time: trace.Time(ce.time), Root: -1,
					Bytes: int64(ce.bytes), Recvd: int64(ce.recvd), Request: uint64(ce.req), Tag: int(ce.tag)}
				var err error
				switch e.Kind {
				case trace.Enter, trace.Leave:
					r, ok := a.regions[uint32(ce.region)]
					if !ok {
						err = fmt.Errorf("%s: location %d event %d: undefined region %d", a.path, a.locRefs[loc], seq, uint32(ce.region))
					}
					e.Region = r
				case trace.Send, trace.Recv, trace.Isend, trace.Irecv:
					var m []int
					m, e.Comm, err = members(uint32(ce.comm))
					if err == nil {
						if int(ce.peer) >= len(m) {
							err = fmt.Errorf("%s: location %d event %d: peer rank %d outside its communicator of %d", a.path, a.locRefs[loc], seq, uint32(ce.peer), len(m))
						} else {
							e.Peer = m[ce.peer]
						}
					}
				case trace.CollectiveEnd:
					var m []int
					m, e.Comm, err = members(uint32(ce.comm))
					e.Op = trace.OpOther
					if op, ok := collOps[uint32(ce.op)]; ok {
						e.Op = op
					}
					if err == nil && ce.root != C.OTF2_UNDEFINED_UINT32 && int(ce.root) < len(m) {
						e.Root = m[ce.root]
					}
				case trace.BufferFlush:
					e.Stop = trace.Time(ce.stop)
				case trace.MeasurementOnOff:
					e.On = ce.mode == C.OTF2_MEASUREMENT_ON
				}
				if err != nil {
					yield(trace.Event{}, err)
					return
				}
				if !yield(e, nil) {
					return
				}
				seq++
			}
			if read < 4096 {
				return // the library signals the end by reading fewer than asked
			}
		}
	}
}

// OrderEntry is one event of the library's global reader order.
type OrderEntry struct {
	Loc  int
	Time trace.Time
}

// GlobalOrder returns the order in which the OTF2 library's global event
// reader delivers the events (for comparing Merge with it).
func (a *Archive) GlobalOrder() ([]OrderEntry, error) {
	cpath := C.CString(a.path)
	defer C.free(unsafe.Pointer(cpath))
	refs := make([]C.uint64_t, len(a.locRefs))
	byRef := map[uint64]int{}
	for i, r := range a.locRefs {
		refs[i] = C.uint64_t(r)
		byRef[r] = i
	}
	var g C.pk_gorder
	defer C.free(unsafe.Pointer(g.buf))
	if rc := C.pk_global_order(cpath, &refs[0], C.size_t(len(refs)), &g); rc != 0 {
		return nil, fmt.Errorf("%s: global reader failed (%d)", a.path, int(rc))
	}
	var out []OrderEntry
	for _, e := range unsafe.Slice(g.buf, g.n) {
		out = append(out, OrderEntry{Loc: byRef[uint64(e.loc)], Time: trace.Time(e.time)})
	}
	return out, nil
}
