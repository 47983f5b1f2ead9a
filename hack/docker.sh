#!/usr/bin/env bash
# A Docker engine for the kind workflow on a machine that has none, and the host put back as it
# was afterwards.
#
#   hack/docker.sh up       # record the host, install docker.io if missing, start dockerd unless one runs
#   hack/docker.sh down     # stop the dockerd `up` started, remove what it added, then `check`
#   hack/docker.sh record   # record the host's sysctls and iptables (`up` does it first)
#   hack/docker.sh restore [KEY...]  # put back the recorded sysctls (or these) and check them
#   hack/docker.sh check    # fail if the host differs from the record
#
# A machine with its own Docker keeps it: `up` starts nothing when `docker info` answers, and
# `down` stops only a daemon `up` started. What `up` finds is recorded in $STATE, which lives in
# /run: it is gone after a reboot, as is the daemon.
#
# Why a runtime wrapper: some VMs (this project's CI among them) run with a capability bounding
# set that lacks CAP_SYS_RESOURCE, and runc then fails every --privileged container (kind's
# nodes) with "unable to apply caps: operation not permitted". The wrapper drops that one
# capability from the OCI config before calling runc; it is installed only on such machines.
set -euo pipefail

CACHE=${CASSBENCH_CACHE:-$HOME/.cache/cassbench}
STATE=${CASSBENCH_DOCKER_STATE:-/run/cassbench-docker}
# Where the daemon `up` starts keeps its images: in the cache, so that a second run finds the
# node image and the others already loaded.
DATA_ROOT=${CASSBENCH_DOCKER_DATA:-$CACHE/docker/data}
# Kernel settings that the daemon (forwarding), the kubelet (overcommit, panic, keys) and
# kube-proxy (conntrack) change on the host: namespaced ones change only inside the nodes.
SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
	kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward
	net.ipv6.conf.all.forwarding net.ipv6.conf.default.forwarding net.netfilter.nf_conntrack_max
	fs.inotify.max_user_watches fs.inotify.max_user_instances)

log() { echo "docker.sh: $*" >&2; }
die() { log "$*"; exit 1; }

[[ $(id -u) == 0 ]] || die "needs root (installing packages, starting dockerd, sysctls)"

sysctls() {
	local k
	for k in "${SYSCTLS[@]}"; do
		# A setting this kernel lacks (no conntrack module loaded yet) records as absent.
		echo "$k=$(sysctl -n "$k" 2>/dev/null || echo absent)"
	done
}

# iptables without counters and comments, so that two dumps compare, and without tables that
# hold nothing (no rule, no chain of their own, every policy ACCEPT): iptables-nft leaves such a
# table behind where dockerd made one, and it filters nothing.
iptables_dump() {
	local cmd
	for cmd in iptables-save ip6tables-save; do
		command -v "$cmd" >/dev/null || continue
		"$cmd" 2>/dev/null | sed -e '/^#/d' -e 's/ *\[[0-9]*:[0-9]*\]$//' | awk -v cmd="$cmd" '
			/^\*/ { table = $0; body = ""; keep = 0; next }
			/^COMMIT/ { if (keep) print cmd " " table "\n" body "COMMIT"; next }
			/^:/ && $2 == "ACCEPT" { body = body $0 "\n"; next }
			{ body = body $0 "\n"; keep = 1 }' || true
	done
}

# Policies of built-in chains back to what the record says (ACCEPT where the table was empty):
# dockerd sets FORWARD to DROP.
restore_iptables_policies() {
	local cmd chain policy table want
	for cmd in iptables ip6tables; do
		command -v "$cmd-save" >/dev/null || continue
		"$cmd-save" 2>/dev/null | awk '/^\*/ {t=substr($0,2)} /^:[A-Z]+ (ACCEPT|DROP)/ {print t, substr($1,2), $2}' |
			while read -r table chain policy; do
				want=$(awk -v h="$cmd-save *$table" -v c=":$chain" '$0 == h {in_t=1; next} /^COMMIT/ {in_t=0} in_t && $1 == c {print $2}' "$STATE/iptables")
				want=${want:-ACCEPT}
				if [[ "$policy" != "$want" ]]; then
					log "putting back the $cmd $table $chain policy: $policy -> $want"
					"$cmd" -t "$table" -P "$chain" "$want" || true
				fi
			done
	done
}

links() { ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort; }

record() {
	mkdir -p "$STATE"
	if [[ -f "$STATE/sysctls" ]]; then
		log "host already recorded in $STATE (kept: it is what was there before the first up)"
		return
	fi
	sysctls >"$STATE/sysctls.tmp"
	iptables_dump >"$STATE/iptables"
	links >"$STATE/links"
	mv "$STATE/sysctls.tmp" "$STATE/sysctls"
	log "recorded the host in $STATE"
}

install_packages() {
	local missing=()
	command -v dockerd >/dev/null || missing+=(docker.io)
	command -v debootstrap >/dev/null || missing+=(debootstrap)
	command -v jq >/dev/null || missing+=(jq)
	[[ ${#missing[@]} == 0 ]] && return
	log "installing ${missing[*]} from Debian"
	# No service may start during the install: the daemon is started below, with our flags.
	local policy_added=""
	if [[ ! -e /usr/sbin/policy-rc.d ]]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		policy_added=1
	fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
	[[ -n "$policy_added" ]] && rm -f /usr/sbin/policy-rc.d
	return 0
}

# The capabilities this process may hold: a bounding set without CAP_SYS_RESOURCE (bit 24)
# needs the wrapper.
lacks_sys_resource() {
	local bnd
	bnd=$(awk '/^CapBnd:/ {print $2}' /proc/self/status)
	(( ((0x$bnd >> 24) & 1) == 0 ))
}

write_runtime_wrapper() {
	local runc wrapper=$CACHE/docker/bin/runc-without-sys-resource
	runc=$(command -v runc) || die "runc not found (docker.io depends on it)"
	mkdir -p "$(dirname "$wrapper")"
	# runc reads the container's capabilities from the bundle's config.json (create, run) or
	# from --process FILE (exec): drop CAP_SYS_RESOURCE from every set there, then run runc.
	cat >"$wrapper.tmp" <<EOF
#!/bin/sh
# Written by cassbench's hack/docker.sh: runc without CAP_SYS_RESOURCE, which this machine's
# capability bounding set lacks.
strip() {
	[ -f "\$1" ] || return 0
	jq -c 'def drop: if type == "array" then map(select(. != "CAP_SYS_RESOURCE")) else . end;
		if .process then .process.capabilities |= (if . then map_values(drop) else . end)
		else .capabilities |= (if . then map_values(drop) else . end) end' "\$1" >"\$1.strip" &&
		mv "\$1.strip" "\$1"
}
bundle=""; process=""; prev=""
for a in "\$@"; do
	case "\$prev" in --bundle | -b) bundle=\$a ;; --process | -p) process=\$a ;; esac
	case "\$a" in --bundle=*) bundle=\${a#--bundle=} ;; --process=*) process=\${a#--process=} ;; esac
	prev=\$a
done
[ -n "\$bundle" ] && strip "\$bundle/config.json"
[ -n "\$process" ] && strip "\$process"
exec $runc "\$@"
EOF
	chmod +x "$wrapper.tmp"
	mv "$wrapper.tmp" "$wrapper"
	echo "$wrapper"
}

up() {
	if docker info >/dev/null 2>&1; then
		record
		log "a Docker engine runs already: using it"
		return
	fi
	# Installed first, so that the record has iptables to compare with.
	install_packages
	record
	mkdir -p "$STATE" "$DATA_ROOT"
	local args=(--data-root "$DATA_ROOT" --exec-root "$STATE/exec" --pidfile "$STATE/dockerd.pid"
		-H unix:///var/run/docker.sock)
	if lacks_sys_resource; then
		local wrapper
		wrapper=$(write_runtime_wrapper)
		args+=(--add-runtime "cassbench-runc=$wrapper" --default-runtime cassbench-runc)
		log "this machine lacks CAP_SYS_RESOURCE: containers run through $wrapper"
	fi
	log "starting dockerd (log: $STATE/dockerd.log)"
	# setsid: the daemon outlives this script, and a Ctrl-C in the terminal does not reach it.
	setsid dockerd "${args[@]}" >"$STATE/dockerd.log" 2>&1 </dev/null &
	echo $! >"$STATE/started"
	local i
	for i in $(seq 1 60); do
		docker info >/dev/null 2>&1 && { log "dockerd is up"; return; }
		kill -0 "$(cat "$STATE/started")" 2>/dev/null || { tail -20 "$STATE/dockerd.log" >&2; die "dockerd exited"; }
		sleep 1
	done
	tail -20 "$STATE/dockerd.log" >&2
	die "dockerd did not answer within 60 s"
}

# restore [KEY...] puts back the recorded sysctls (all, or the KEYs) that differ now, and
# checks them.
restore() {
	restore_sysctls "$@"
	[[ -f "$STATE/sysctls" ]] || return 0
	local d pattern=.
	[[ $# -gt 0 ]] && pattern="^\($(printf '%s\\|' "$@" | sed 's/\\|$//')\)="
	if ! d=$(diff <(grep "$pattern" "$STATE/sysctls") <(sysctls | grep "$pattern")); then
		log "sysctls differ from the record (< before, > now):"; echo "$d" >&2; return 1
	fi
	log "sysctls are as recorded"
}

restore_sysctls() {
	[[ -f "$STATE/sysctls" ]] || { log "no record in $STATE: nothing to put back"; return; }
	local line k v now
	while IFS= read -r line; do
		k=${line%%=*} v=${line#*=}
		[[ "$v" == absent ]] && continue
		[[ $# -gt 0 && " $* " != *" $k "* ]] && continue
		now=$(sysctl -n "$k" 2>/dev/null || echo absent)
		if [[ "$now" != "$v" ]]; then
			log "putting back $k: $now -> $v"
			sysctl -qw "$k=$v" || log "could not put back $k"
		fi
	done <"$STATE/sysctls"
}

# remove_docker_iptables deletes the chains dockerd made (DOCKER*) and the rules that jump to
# them or that it added for its bridges; a rule that was there before it started is kept.
remove_docker_iptables() {
	local save restore table rule
	for save in iptables-save ip6tables-save; do
		command -v "$save" >/dev/null || continue
		restore=${save%-save}
		# Rules first (they reference the chains), then the chains.
		"$save" 2>/dev/null | awk '/^\*/ {t=substr($0,2)} /^-A / && (/DOCKER/ || / (docker0|br-[0-9a-f]+) /) {print t "\t" $0}' |
			while IFS=$'\t' read -r table rule; do
				grep -qxF -- "$rule" <(sed -n '/^-A /p' "$STATE/iptables" 2>/dev/null) && continue
				# shellcheck disable=SC2086 # the rule's words are iptables arguments
				eval "$restore -t $table -D ${rule#-A }" 2>/dev/null || true
			done
		"$save" 2>/dev/null | awk '/^\*/ {t=substr($0,2)} /^:DOCKER/ {print t "\t" substr($1,2)}' |
			while IFS=$'\t' read -r table rule; do
				"$restore" -t "$table" -F "$rule" 2>/dev/null || true
				"$restore" -t "$table" -X "$rule" 2>/dev/null || true
			done
	done
}

down() {
	if [[ -f "$STATE/started" ]]; then
		local pid
		pid=$(cat "$STATE/started")
		# Containers and networks of this daemon go first: they hold veths and bridges.
		if docker info >/dev/null 2>&1; then
			local ids
			ids=$(docker ps -aq)
			[[ -n "$ids" ]] && log "removing containers: $(docker ps -a --format '{{.Names}}' | tr '\n' ' ')" && docker rm -f -v $ids >/dev/null
			docker network prune -f >/dev/null
		fi
		log "stopping dockerd ($pid)"
		kill "$pid" 2>/dev/null || true
		local i
		for i in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
		kill -0 "$pid" 2>/dev/null && { log "dockerd did not stop in 30 s: killing it"; kill -9 "$pid"; }
		rm -f "$STATE/started"
		# The bridges dockerd made outlive it.
		local link
		for link in $(comm -13 "$STATE/links" <(links)); do
			if [[ "$link" == docker0 || "$link" == br-* || "$link" == veth* ]]; then
				log "deleting link $link"
				ip link delete "$link" 2>/dev/null || true
			fi
		done
		remove_docker_iptables
		restore_iptables_policies
		umount "$STATE/exec"/netns/* 2>/dev/null || true
	fi
	restore_sysctls
	check
	rm -rf "$STATE"
}

check() {
	[[ -f "$STATE/sysctls" ]] || { log "no record in $STATE: nothing to compare"; return; }
	local failed=0 d
	if ! d=$(diff "$STATE/sysctls" <(sysctls)); then
		log "sysctls differ from the record (< before, > now):"; echo "$d" >&2; failed=1
	fi
	if ! d=$(diff "$STATE/iptables" <(iptables_dump)); then
		log "iptables differ from the record (< before, > now):"; echo "$d" >&2; failed=1
	fi
	if ! d=$(diff "$STATE/links" <(links)); then
		log "network links differ from the record (< before, > now):"; echo "$d" >&2; failed=1
	fi
	if [[ -f "$STATE/started" ]] && kill -0 "$(cat "$STATE/started")" 2>/dev/null; then
		log "the dockerd up started still runs"; failed=1
	fi
	[[ $failed == 0 ]] && log "the host is as recorded: sysctls, iptables, links"
	return $failed
}

case "${1:-}" in
up | down | record | check) "$1" ;;
restore) shift && restore "$@" ;;
*) echo "usage: $0 up|down|record|restore|check" >&2; exit 2 ;;
esac
