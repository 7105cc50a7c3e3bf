# Shared Virtuoso start-up for bench/serve/run.sh and bench/generated/run.sh
# (sourced, POSIX sh). Needs V_SQL, V_HTTP, VIRTUOSO_BUFFERS set by the caller.
# VIRTUOSO_SHARE (default /usr/share/virtuoso-opensource-7) and
# VIRTUOSO_HOSTING (plugin folder) can point at a packed copy.

# ports_free NAME...: fail, naming the variable, when one of the named port
# variables is already bound on loopback. Two benchmark runs on one machine
# would otherwise each talk to the other's servers (a perfkb serve that cannot
# bind exits, and the readiness check then succeeds against the other run's).
ports_free() {
	for _v in "$@"; do
		eval "_p=\$$_v"
		if python3 -c "import socket,sys; s=socket.socket(); sys.exit(0 if s.connect_ex(('127.0.0.1', $_p)) else 1)"; then :; else
			echo "port $_p (\$$_v) is in use on 127.0.0.1: another benchmark is running; set $_v to a free port" >&2
			return 1
		fi
	done
}

# virtuoso_ini DIR: write DIR/virtuoso.ini (database files in DIR).
virtuoso_ini() {
	_vd=$1
	cat >"$_vd/virtuoso.ini" <<INI
[Database]
DatabaseFile = $_vd/virtuoso.db
ErrorLogFile = $_vd/virtuoso.log
LockFile = $_vd/virtuoso.lck
TransactionFile = $_vd/virtuoso.trx
xa_persistent_file = $_vd/virtuoso.pxa
FileExtend = 200
Striping = 0
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = $_vd/virtuoso-temp.db
TransactionFile = $_vd/virtuoso-temp.trx
[Parameters]
ServerPort = 127.0.0.1:$V_SQL
DisableUnixSocket = 1
MaxClientConnections = 64
CheckpointInterval = 60
DirsAllowed = ., $_vd, ${VIRTUOSO_SHARE:-/usr/share/virtuoso-opensource-7}/vad
NumberOfBuffers = $VIRTUOSO_BUFFERS
MaxDirtyBuffers = $((VIRTUOSO_BUFFERS * 3 / 4))
MaxQueryMem = 2G
ThreadsPerQuery = ${VIRTUOSO_THREADS_PER_QUERY:-2}
AsyncQueueMaxThreads = 10
VADInstallDir = ${VIRTUOSO_SHARE:-/usr/share/virtuoso-opensource-7}/vad/
[HTTPServer]
ServerPort = 127.0.0.1:$V_HTTP
ServerRoot = /var/lib/virtuoso-opensource-7/vsp
MaxClientConnections = 64
ServerThreads = 64
MaxKeepAlives = 64
KeepAliveTimeout = 10
EnabledGzipContent = 0
[SPARQL]
ResultSetMaxRows = 10000000
MaxQueryExecutionTime = 600
MaxQueryCostEstimationTime = 600
[Plugins]
LoadPath = ${VIRTUOSO_HOSTING:-/usr/lib/x86_64-linux-gnu/virtuoso-opensource-7/hosting}
INI
}

# virtuoso_start DIR: start virtuoso-t on DIR/virtuoso.ini in the
# background, set vpid, and wait until it answers SQL.
virtuoso_start() {
	_vd=$1
	_here=$(pwd)
	cd "$_vd"
	virtuoso-t -c "$_vd/virtuoso.ini" +foreground >"$_vd/stdout.log" 2>&1 &
	vpid=$!
	cd "$_here"
	until isql-vt "127.0.0.1:$V_SQL" dba dba exec="select 1;" >/dev/null 2>&1; do
		kill -0 "$vpid" 2>/dev/null || { cat "$_vd/stdout.log" "$_vd/virtuoso.log" >&2; return 1; }
		sleep 0.5
	done
}

# virtuoso_load DIR FILE GRAPH: bulk-load FILE (a name inside DIR) into GRAPH.
virtuoso_load() {
	isql-vt "127.0.0.1:$V_SQL" dba dba exec="ld_dir('$1', '$2', '$3'); rdf_loader_run(); checkpoint;" >"$1/load.log"
}
