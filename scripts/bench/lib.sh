# shellcheck shell=bash
# scripts/bench/lib.sh: helpers shared by scripts/bench.sh and every scripts/bench/<area>.sh.
# Source it:  . "$(dirname "$0")/lib.sh"
#
# Output contract: every figure is ONE line on stdout,
#   name<TAB>value<TAB>peakRSS
# where value is "123.4 MB/s" (throughput over BYTES) or "12.34 s" (wall time), and peakRSS
# is "56.7 MiB". Notes (skipped tools, sizes) go to stderr as "# ..." lines so the table
# on stdout stays machine-readable. bench.sh collects the lines of every sub-script and prints
# one table.
#
# Helpers:
#   bench_measure NAME BYTES CMD...   run CMD once (stdout to /dev/null, stderr kept in
#                                     $BENCH_TMP/NAME.err), print NAME, MB/s over BYTES (or
#                                     seconds when BYTES is 0 or -) and peak RSS, and check the
#                                     exit status (bench_check). The status of CMD is returned.
#   bench_check NAME RC CMD           a run failed unless it exited 0, or 0/1 for clawdoctor
#                                     (1 is "findings"): a baseline that fails is no figure,
#                                     so the failure is noted and recorded for bench_exit
#   bench_exit                        an area script's last command: exit 1 when any run of
#                                     this script failed, else 0
#   bench_measure_secs NAME CMD...    bench_measure in seconds plus the CPU-seconds (user+sys)
#                                     and the load average at the start: "12.34 s (5.67 CPU-s,
#                                     load 1.2)"; CPU-seconds stay steady when the machine is busy
#   bench_measure_shell NAME BYTES 'pipeline'   the same for a shell pipeline (bash -c)
#   bench_pair NAME TARGET 'prepare' 'ours' 'floor'
#                                     BENCH_PAIRS (default 3) alternated pairs of two shell
#                                     commands (bash -c), 'prepare' run untimed before each;
#                                     prints NAME with "ours s / floor s = ratio", medians of
#                                     the pairs, and whether the ratio meets TARGET ("<=1.5" or
#                                     ">=0.5", the ratio ours/floor or floor/ours as written);
#                                     every pair's times go to the notes
#   bench_measure_cpu NAME BYTES CMD...  bench_measure plus a NAME.cpu row: MB per CPU-second
#                                     and CPU-seconds per GiB (user+sys), steady under load;
#                                     medians of BENCH_CPU_ROUNDS runs (default 3)
#   bench_need TOOL [DEB]             0 if TOOL is on PATH; else apt-get install DEB (default
#                                     TOOL) when running as root, else print a skip note, 1
#   bench_baselines PREFIX FILE       wc -l, jq -c . and the Node JSON.parse-per-line stream
#                                     over FILE, one line each (PREFIX.wc-l, ...)
#   $BENCH_NODE_PARSE                 Node baseline script: readline + JSON.parse per line
#                                     (run: node "$BENCH_NODE_PARSE" FILE)
#   $BENCH_NODE_REPAIR                Node baseline of OpenClaw's repair: readline, JSON.parse,
#                                     drop bad lines, JSON.stringify the rest into OUT
#                                     (run: node "$BENCH_NODE_REPAIR" IN OUT)
#   bench_size FILE                   size of FILE in bytes
#   bench_note TEXT...                a "# TEXT" note on stderr
#   bench_row NAME VALUE RSS          print one raw result line
#   bench_bin                         set BENCH_BIN, building clawdoctor into $BENCH_TMP when
#                                     the caller (bench.sh) did not
#   bench_build OUT                   build clawdoctor into OUT as the release does
#   bench_transcript DIR SEED ARGS... generate one transcript into DIR once (reused when its
#                                     manifest exists) with `fixtures generate --single-transcript
#                                     ARGS`, and print its path
#
# Env: BENCH_TMP must be set (bench.sh sets it; standalone runs get a mktemp dir).

: "${BENCH_TMP:=$(mktemp -d /tmp/clawdoctor-bench.XXXXXX)}"
export BENCH_TMP

bench_note() { printf '# %s\n' "$*" >&2; }

bench_row() { printf '%s\t%s\t%s\n' "$1" "$2" "$3"; }

bench_size() { stat -c %s "$1"; }

# bench_need TOOL [DEBIAN-PACKAGE]
bench_need() {
	local tool=$1 deb=${2:-$1}
	command -v "$tool" >/dev/null 2>&1 && return 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		bench_note "installing $deb with apt-get"
		if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null 2>&1 ||
			{ apt-get update -qq >/dev/null 2>&1 &&
				DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null 2>&1; }; then
			command -v "$tool" >/dev/null 2>&1 && return 0
		fi
	fi
	bench_note "skipped: $tool is not installed (apt-get install $deb)"
	return 1
}

# _bench_time prints "wall_seconds maxrss_kib" of the command in "$@" on fd 3.
_bench_time() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %M' -o "$BENCH_TMP/.time" "$@"
		local rc=$?
		tail -n 1 "$BENCH_TMP/.time" >&3
		return $rc
	fi
	# Fallback without GNU time: wall clock from date, peak RSS from /proc/<pid>/status
	# (VmHWM) sampled until the process exits.
	local t0 t1 pid hwm=0 v
	t0=$(date +%s.%N)
	"$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		v=$(awk '/^VmHWM:/{print $2}' "/proc/$pid/status" 2>/dev/null)
		[ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
		sleep 0.05
	done
	wait "$pid"
	local rc=$?
	t1=$(date +%s.%N)
	echo "$(echo "$t1 - $t0" | bc) $hwm" >&3
	return $rc
}

# bench_measure NAME BYTES CMD...
bench_measure() {
	local name=$1 bytes=$2
	shift 2
	local out rc
	out=$( { _bench_time "$@" >/dev/null 2>"$BENCH_TMP/$name.err"; } 3>&1)
	rc=$?
	local secs=${out%% *} kib=${out##* }
	local value rss
	rss=$(awk -v k="$kib" 'BEGIN{printf "%.1f MiB", k/1024}')
	if [ -n "$bytes" ] && [ "$bytes" != "-" ] && [ "$bytes" != 0 ]; then
		value=$(awk -v b="$bytes" -v s="$secs" 'BEGIN{ if (s<=0) s=0.01; printf "%.1f MB/s", b/1e6/s}')
	else
		value=$(awk -v s="$secs" 'BEGIN{printf "%.2f s", s}')
	fi
	bench_check "$name" $rc "$1" || value="$value (FAILED, exit $rc)"
	bench_row "$name" "$value" "$rss"
	return $rc
}

# bench_check NAME RC CMD: see the header. Failures of this script's runs go to
# $BENCH_TMP/failed.$$ ($$ is the script's pid, also inside its subshells).
bench_check() {
	local name=$1 rc=$2 cmd=$3
	if [ "$rc" = 0 ] || { [ "$cmd" = "${BENCH_BIN:-}" ] && [ "$rc" = 1 ]; }; then
		return 0
	fi
	bench_note "FAILED: $name exited $rc: $(head -c 300 "$BENCH_TMP/$name.err" 2>/dev/null)"
	echo "$name exited $rc" >>"$BENCH_TMP/failed.$$"
	return 1
}

bench_exit() {
	if [ -s "$BENCH_TMP/failed.$$" ]; then
		bench_note "$(wc -l <"$BENCH_TMP/failed.$$") run(s) failed: $(tr '\n' ';' <"$BENCH_TMP/failed.$$")"
		exit 1
	fi
	exit 0
}

# bench_measure_cpu NAME BYTES CMD...: BENCH_CPU_ROUNDS runs of CMD (default 3), two rows:
# MB/s over the median wall time (what a user waits) and MB per CPU-second (user+sys, the
# median), which does not depend on how many other processes share the cores; peak RSS is the
# highest of the runs. Every run's figures go to the notes. One run of a few seconds swung by
# 1.5x on this shared 2-core machine (the tiny-entries audit: 3.12 s in a bench run, 2.07-2.29
# s in eight runs by hand just after it), so a single run is not a figure. Exit status 1
# ("findings", "repaired") is not an error; a failed run fails the row.
bench_measure_cpu() {
	local name=$1 bytes=$2
	shift 2
	if [ ! -x /usr/bin/time ]; then
		bench_measure "$name" "$bytes" "$@"
		return
	fi
	local rounds=${BENCH_CPU_ROUNDS:-3} i rc=0 r wall user sys kib runs=""
	for i in $(seq "$rounds"); do
		/usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/.cpu" "$@" >/dev/null 2>"$BENCH_TMP/$name.err"
		r=$?
		read -r wall user sys kib < <(tail -n 1 "$BENCH_TMP/.cpu") # GNU time adds a line on exit != 0
		bench_check "$name" $r "$1" || rc=$r
		runs="$runs$wall $(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}') $kib"$'\n'
	done
	bench_note "$name: $rounds runs (wall s, CPU s, KiB): $(printf '%s' "$runs" | tr '\n' ';')"
	# medians of the walls and of the CPU times (an odd count: the middle one), highest RSS
	wall=$(printf '%s' "$runs" | awk '{print $1}' | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
	local cpu
	cpu=$(printf '%s' "$runs" | awk '{print $2}' | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
	kib=$(printf '%s' "$runs" | awk 'BEGIN{m=0} $3>m{m=$3} END{print m}')
	local rss med=""
	rss=$(awk -v k="$kib" 'BEGIN{printf "%.1f MiB", k/1024}')
	[ "$rounds" -gt 1 ] && med="; median of $rounds"
	bench_row "$name" "$(awk -v b="$bytes" -v w="$wall" -v m="$med" 'BEGIN{if (w<=0) w=0.01; printf "%.1f MB/s (%.2f s%s)", b/1e6/w, w, m}')" "$rss"
	bench_row "$name.cpu" "$(awk -v b="$bytes" -v c="$cpu" 'BEGIN{if (c<=0) c=0.01; printf "%.1f MB/CPU-s (%.2f CPU-s/GiB)", b/1e6/c, c*1073741824/b}')" "$rss"
	return $rc
}

# bench_measure_secs NAME CMD...: see the header.
bench_measure_secs() {
	local name=$1
	shift
	if [ ! -x /usr/bin/time ]; then
		bench_measure "$name" - "$@"
		return
	fi
	local load rc wall user sys kib
	load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")
	/usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/.cpu" "$@" >/dev/null 2>"$BENCH_TMP/$name.err"
	rc=$?
	read -r wall user sys kib < <(tail -n 1 "$BENCH_TMP/.cpu") # GNU time adds a line on exit != 0
	local value
	value=$(awk -v w="$wall" -v u="$user" -v s="$sys" -v l="$load" 'BEGIN{printf "%.2f s (%.2f CPU-s, load %s)", w, u+s, l}')
	bench_check "$name" $rc "$1" || value="$value (FAILED, exit $rc)"
	bench_row "$name" "$value" "$(awk -v k="$kib" 'BEGIN{printf "%.1f MiB", k/1024}')"
	return $rc
}

# bench_pair NAME TARGET 'prepare' 'ours' 'floor': see the header. TARGET "<=X" compares
# ours/floor (time over the floor's time: repair against a synced copy), ">=X" compares
# floor/ours (speed as a share of the floor's: validate against wc -l). A failed run of either
# fails the row. Alternating keeps a slow spell of the machine from landing on one side only.
# BENCH_TIMER replaces GNU time (its -f '%e %M' -o FILE CMD...) for the test of the arithmetic.
bench_pair() {
	local name=$1 target=$2 prep=$3 ours=$4 floor=$5 timer=${BENCH_TIMER:-/usr/bin/time}
	local pairs=${BENCH_PAIRS:-3} i r rc=0 a b kib maxkib=0 list=""
	for i in $(seq "$pairs"); do
		bash -c "$prep" >/dev/null 2>&1
		"$timer" -f '%e %M' -o "$BENCH_TMP/.pair" bash -c "$ours" >/dev/null 2>"$BENCH_TMP/$name.err"
		r=$?
		read -r a kib < <(tail -n 1 "$BENCH_TMP/.pair")
		[ "$kib" -gt "$maxkib" ] && maxkib=$kib
		# clawdoctor's 1 (findings, changes) is a result; anything else above it fails the row
		[ "$r" -le 1 ] || { bench_note "FAILED: $name (ours) exited $r: $(head -c 300 "$BENCH_TMP/$name.err")"; rc=1; }
		bash -c "$prep" >/dev/null 2>&1
		"$timer" -f '%e %M' -o "$BENCH_TMP/.pair" bash -c "$floor" >/dev/null 2>"$BENCH_TMP/$name.floor.err"
		r=$?
		read -r b kib < <(tail -n 1 "$BENCH_TMP/.pair")
		[ "$r" = 0 ] || { bench_note "FAILED: $name (floor) exited $r: $(head -c 300 "$BENCH_TMP/$name.floor.err")"; rc=1; }
		list="$list$a $b"$'\n'
	done
	bench_note "$name: $pairs alternated pairs (ours s, floor s): $(printf '%s' "$list" | tr '\n' ';')"
	local ma mb
	ma=$(printf '%s' "$list" | awk '{print $1}' | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}')
	mb=$(printf '%s' "$list" | awk '{print $2}' | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}')
	local value
	value=$(awk -v a="$ma" -v b="$mb" -v t="$target" -v n="$pairs" 'BEGIN{
		if (a <= 0) a = 0.01; if (b <= 0) b = 0.01
		op = substr(t, 1, 2); x = substr(t, 3) + 0
		if (op == "<=") { r = a / b; met = (r <= x) } else { r = b / a; met = (r >= x) }
		printf "%.2f s / floor %.2f s = %.2fx (target %s: %s; medians of %d pairs)", a, b, r, t, met ? "met" : "not met", n }')
	[ "$rc" = 0 ] || { echo "$name failed" >>"$BENCH_TMP/failed.$$"; value="$value (FAILED)"; }
	bench_row "$name" "$value" "$(awk -v k="$maxkib" 'BEGIN{printf "%.1f MiB", k/1024}')"
	return $rc
}

# bench_measure_shell NAME BYTES 'shell pipeline'
bench_measure_shell() {
	local name=$1 bytes=$2
	bench_measure "$name" "$bytes" bash -c "$3"
}

# The Node baselines are written once into $BENCH_TMP/.node; run them through bench_measure:
#   bench_measure node-parse "$bytes" node "$BENCH_NODE_PARSE" FILE
#   bench_measure node-repair "$bytes" node "$BENCH_NODE_REPAIR" IN OUT
BENCH_NODE_PARSE="$BENCH_TMP/.node/parse.js"
BENCH_NODE_REPAIR="$BENCH_TMP/.node/repair.js"
export BENCH_NODE_PARSE BENCH_NODE_REPAIR
mkdir -p "$BENCH_TMP/.node"
[ -f "$BENCH_NODE_PARSE" ] || cat >"$BENCH_NODE_PARSE" <<'JS'
// Baseline: stream a JSONL file line by line and JSON.parse each line (what a Node reader does).
const fs = require('fs');
const readline = require('readline');
const rl = readline.createInterface({ input: fs.createReadStream(process.argv[2], { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
let lines = 0, bad = 0;
rl.on('line', (l) => { lines++; if (l.trim() === '') return; try { JSON.parse(l); } catch { bad++; } });
rl.on('close', () => { process.stderr.write(`node: ${lines} lines, ${bad} bad\n`); });
JS
[ -f "$BENCH_NODE_REPAIR" ] || cat >"$BENCH_NODE_REPAIR" <<'JS'
// Baseline of OpenClaw's repair (session-file-repair.ts): parse every line, drop the bad ones,
// re-serialize the rest with JSON.stringify, write them out. Streaming, unlike OpenClaw's
// whole-file read, so it is a generous baseline.
const fs = require('fs');
const readline = require('readline');
const rl = readline.createInterface({ input: fs.createReadStream(process.argv[2], { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
const out = fs.createWriteStream(process.argv[3], { highWaterMark: 1 << 20 });
let dropped = 0, buf = [];
const flush = () => { if (buf.length) { out.write(buf.join('')); buf = []; } };
rl.on('line', (l) => {
  if (l.trim() === '') return;
  try { buf.push(JSON.stringify(JSON.parse(l)) + '\n'); } catch { dropped++; }
  if (buf.length >= 4096) flush();
});
rl.on('close', () => { flush(); out.end(() => process.stderr.write(`node repair: dropped ${dropped}\n`)); });
JS

# bench_baselines NAME-PREFIX FILE: the read baselines every throughput figure is shown beside:
# wc -l, jq -c . (if installed) and the Node JSON.parse stream, all over FILE.
bench_baselines() {
	local p=$1 f=$2 bytes
	bytes=$(bench_size "$f")
	bench_measure "$p.wc-l" "$bytes" wc -l "$f"
	if bench_need jq; then
		bench_measure "$p.jq-c" "$bytes" jq -c . "$f"
	fi
	if bench_need node nodejs; then
		bench_measure "$p.node-json-parse" "$bytes" node --max-old-space-size=4096 "$BENCH_NODE_PARSE" "$f"
	fi
}

bench_bin() {
	[ -n "${BENCH_BIN:-}" ] && return 0
	BENCH_BIN="$BENCH_TMP/clawdoctor"
	bench_build "$BENCH_BIN" || exit 4
}

# bench_build OUT: build clawdoctor as scripts/release builds what users install (no cgo, so
# a static binary; -trimpath; no symbol tables), so the figures are the shipped program's. A
# plain `go build` on a machine with a C compiler links cgo dynamically: 5 ms more start-up
# on the VM that measures our limits (26 against 20.5 ms for --version), paid by every run.
bench_build() {
	bench_note "building $1 (as released: CGO_ENABLED=0, -trimpath, -ldflags '-s -w')"
	(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$1" .)
}

bench_transcript() {
	local dir=$1 seed=$2
	shift 2
	if [ ! -f "$dir/manifest.json" ]; then
		rm -rf "$dir"
		bench_note "generating a transcript ($*) into $dir"
		"$BENCH_BIN" fixtures generate --out "$dir" --single-transcript --seed "$seed" --faults none "$@" >/dev/null || exit 4
	fi
	find "$dir/agents" -name '*.jsonl' ! -name '*.trajectory.jsonl' ! -name '*.checkpoint.*' | sort | head -n 1
}
