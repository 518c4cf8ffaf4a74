#!/bin/bash
# A LAVA lab on this machine, from Debian's packages: make lava-lab and
# make test's lava part (harness/lava_lab.py) start it, submit the boots'
# jobs to it and stop it.
#
# usage: lava-lab.sh start | stop | status | env
#
# start: sets up what is missing, then starts what is not running:
#   - PostgreSQL's cluster (pg_ctlcluster), if it is down;
#   - lava-server's database (the package's own postinst.py, only while
#     `lava-server manage migrate --check` finds it unmade or behind);
#   - the user LAVA_LAB_USER (superuser) and its API token, the qemu device
#     type, the worker LAVA_LAB_WORKER and its device LAVA_LAB_DEVICE, whose
#     device dictionary (below) says this machine has no KVM;
#   - lavacli's identity "watchlab" in STATE/lavacli.yaml (lavacli reads it
#     with XDG_CONFIG_HOME=STATE: `lava-lab.sh env` prints that line);
#   - the server (gunicorn on 127.0.0.1:LAVA_LAB_PORT, as the package's
#     lava-server-gunicorn unit runs it), the scheduler and the worker
#     (lava-worker, as its unit does), each in a process group of its own,
#     its pid in STATE/NAME.pid, its log in STATE/NAME.log.
# A second start changes nothing and starts nothing.  stop ends what start
# started, by the pids it wrote, and stops PostgreSQL's cluster if start
# had started it; it leaves the database and the settings as they are.
#
# STATE is LAVA_LAB_DIR, default build/lava-lab.  Without systemd the
# packages' units never run: this script is their stand-in.  The database,
# port, worker and device are the machine's, one for every clone:
# harness/lava_lab.py holds a machine-wide lock from start to stop, and
# this script run by hand takes none.
set -eu -o pipefail

# Debian's python3 and tools, whatever else PATH holds (lava-server's
# modules are in Debian's python3 only).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
state=${LAVA_LAB_DIR:-$build/lava-lab}
port=${LAVA_LAB_PORT:-8642}
user=${LAVA_LAB_USER:-watchlab}
worker=${LAVA_LAB_WORKER:-watchlab-worker}
device=${LAVA_LAB_DEVICE:-watchlab-qemu-01}
url=http://127.0.0.1:$port
token_note="watchlab lava-lab"
dictionary=/etc/lava-server/dispatcher-config/devices/$device.jinja2
SERVICES="server scheduler worker"

say() { echo "watchlab: lava-lab: $*"; }
die() { echo "watchlab: lava-lab: $*" >&2; exit 1; }
manage() { lava-server manage "$@"; }

alive() { # alive NAME: its pid file names a running process group
	local pid
	[ -f "$state/$1.pid" ] || return 1
	pid=$(cat "$state/$1.pid")
	[ -n "$pid" ] && kill -0 -- "-$pid" 2>/dev/null
}

packages() {
	local p missing=""
	for p in lava-server lava-dispatcher lavacli postgresql; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
			missing="$missing $p"
	done
	[ -z "$missing" ] || die "missing packages:$missing (harness/deps.sh installs them)"
}

# The first cluster pg_lsclusters lists: "VERSION NAME STATUS".
cluster() {
	pg_lsclusters -h | awk 'NR == 1 { print $1, $2, $4 }'
}

postgres_start() {
	local version name status
	read -r version name status <<<"$(cluster)"
	[ -n "${version:-}" ] || die "no PostgreSQL cluster (pg_lsclusters lists none; pg_createcluster makes one)"
	case $status in
	online) ;;
	*)
		say "starting PostgreSQL $version/$name"
		pg_ctlcluster "$version" "$name" start
		echo "$version $name" >"$state/postgres.started" ;;
	esac
	pg_isready -q -t 30 || die "PostgreSQL $version/$name does not answer (pg_isready)"
}

database() {
	if ! manage migrate --check >/dev/null 2>&1; then
		say "making lava-server's database (postinst.py --config --db --fixup)"
		python3 /usr/share/lava-server/postinst.py --config --db --fixup >"$state/postinst.log" 2>&1 ||
			die "lava-server's postinst.py failed: $(tail -3 "$state/postinst.log")"
	fi
}

# The device dictionary: the qemu device type with this machine's limits.
# The lab has no KVM (no_kvm: the template then writes no -enable-kvm and
# no -cpu host); the rest, arch and memory and the lab's machine options,
# comes from each job's context (harness/lava-jobs.sh).
device_dictionary() {
	cat <<-EOF
	{# $device: written by watchlab's harness/lava-lab.sh #}
	{% extends 'qemu.jinja2' %}
	{% set no_kvm = True %}
	EOF
}

objects() {
	local secret tmp
	manage users details "$user" >/dev/null 2>&1 || {
		say "adding the user $user"
		manage users add "$user" --superuser --staff >/dev/null
	}
	manage device-types details qemu >/dev/null 2>&1 || {
		say "adding the device type qemu"
		manage device-types add qemu
	}
	manage workers details "$worker" >/dev/null 2>&1 || {
		say "adding the worker $worker"
		manage workers add "$worker" --description "watchlab's worker on this machine" >/dev/null
	}
	tmp=$(mktemp)
	device_dictionary >"$tmp"
	if ! cmp -s "$tmp" "$dictionary"; then
		say "writing the device dictionary $dictionary"
		install -o lavaserver -g lavaserver -m 644 "$tmp" "$dictionary"
	fi
	rm -f "$tmp"
	manage devices details "$device" >/dev/null 2>&1 || {
		say "adding the device $device"
		manage devices add --device-type qemu --worker "$worker" \
			--description "watchlab's qemu device (no KVM)" "$device"
	}
	# Django's csv writer ends its lines with \r\n.
	secret=$(manage tokens list --user "$user" --csv | tr -d '\r' |
		awk -F, -v note="$token_note" '$3 == note { print $2; exit }')
	if [ -z "$secret" ]; then
		say "adding an API token for $user"
		secret=$(manage tokens add --user "$user" --description "$token_note")
	fi
	# lavacli's identity, in this lab's own configuration folder.
	local shown
	shown=$(XDG_CONFIG_HOME=$state lavacli identities show watchlab 2>/dev/null || :)
	if [ "$shown" != "$(printf 'token: %s\nuri: %s\nusername: %s' "$secret" "$url/RPC2" "$user")" ]; then
		say "configuring lavacli's identity watchlab ($url, user $user)"
		XDG_CONFIG_HOME=$state lavacli identities add --uri "$url/RPC2" \
			--username "$user" --token "$secret" watchlab
		chmod 600 "$state/lavacli.yaml"
	fi
}

# spawn NAME CMD...: CMD in a process group of its own, in the background.
spawn() {
	local name=$1
	shift
	alive "$name" && return 0
	say "starting the $name: $*"
	setsid "$@" </dev/null >>"$state/$name.log" 2>&1 &
	echo $! >"$state/$name.pid"
	STARTED=1
}

worker_token() {
	manage workers details "$worker" | awk '$1 == "token" { print $3 }'
}

services() {
	spawn server gunicorn3 lava_server.wsgi --bind "127.0.0.1:$port" \
		-u lavaserver -g lavaserver --worker-class eventlet --workers 2 \
		--log-level info --log-file "$state/server.log"
	# The server must answer before the worker registers.
	local i
	for i in $(seq 60); do
		python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/api/v0.2/system/version/", timeout=5)' \
			"$url" 2>/dev/null && break
		alive server || die "the server stopped at start: $(tail -5 "$state/server.log")"
		[ "$i" -lt 60 ] || die "the server did not answer on $url in 60 s: $(tail -5 "$state/server.log")"
		sleep 1
	done
	spawn scheduler lava-server manage lava-scheduler --level INFO \
		--log-file "$state/scheduler.log"
	# The worker's token goes by file, not on the command line spawn prints.
	local token
	token=$(worker_token)
	mkdir -p "$state/worker"
	[ "$(cat "$state/worker/token" 2>/dev/null)" = "$token" ] ||
		(umask 077 && echo "$token" >"$state/worker/token")
	spawn worker lava-worker --name "$worker" --url "$url/" --token-file "$state/worker/token" \
		--worker-dir "$state/worker" --ping-interval 2 --level INFO \
		--log-file "$state/worker.log"
	for i in $(seq 60); do
		XDG_CONFIG_HOME=$state lavacli -i watchlab workers show "$worker" 2>/dev/null |
			grep -q '^state *: Online' && return 0
		alive worker || die "the worker stopped at start: $(tail -5 "$state/worker.log")"
		sleep 1
	done
	die "the worker $worker is not online after 60 s: $(tail -5 "$state/worker.log")"
}

start() {
	packages
	mkdir -p "$state"
	STARTED=0
	postgres_start
	database
	objects
	services
	if [ "$STARTED" = 1 ]; then
		say "running: server $url, scheduler, worker $worker with device $device (logs in $state/)"
	else
		say "already running: server $url, scheduler, worker $worker"
	fi
}

stop_one() {
	local name=$1 pid i
	[ -f "$state/$name.pid" ] || return 0
	pid=$(cat "$state/$name.pid")
	if alive "$name"; then
		say "stopping the $name (process group $pid)"
		kill -TERM -- "-$pid" 2>/dev/null || :
		for i in $(seq 30); do
			kill -0 -- "-$pid" 2>/dev/null || break
			[ "$i" -lt 30 ] || kill -KILL -- "-$pid" 2>/dev/null || :
			sleep 1
		done
	fi
	rm -f "$state/$name.pid"
}

stop() {
	local s version name
	for s in $SERVICES; do
		[ "$s" = server ] || stop_one "$s"
	done
	stop_one server
	if [ -f "$state/postgres.started" ]; then
		read -r version name <"$state/postgres.started"
		say "stopping PostgreSQL $version/$name, which start started"
		pg_ctlcluster "$version" "$name" stop
		rm -f "$state/postgres.started"
	fi
}

status() {
	local s rc=0
	for s in $SERVICES; do
		if alive "$s"; then echo "$s: running (process group $(cat "$state/$s.pid"))"; else echo "$s: stopped"; rc=1; fi
	done
	return "$rc"
}

case ${1:-} in
start) start ;;
stop) stop ;;
status) status ;;
env) echo "XDG_CONFIG_HOME=$state" ;;
*) echo "usage: lava-lab.sh start | stop | status | env" >&2; exit 2 ;;
esac
