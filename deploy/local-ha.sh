#!/usr/bin/env bash
# The three-replica layout of deploy/README.md as processes on loopback: three etcd members (one
# cluster), three gateways on the etcd backend with one shared PKI, and haproxy (deploy/haproxy.cfg)
# in front of them.
#
#   deploy/local-ha.sh start DIR [gateway args...]   start everything, return once all are ready
#   deploy/local-ha.sh stop DIR                      stop everything (also after some were killed)
#
# Under DIR: admin.kubeconfig (through haproxy), gateway-<i>.kubeconfig (replica i alone),
# gateway-<i>.pid, etcd-<i>.pid and haproxy.pid (each a process group leader: `kill -- -PID` stops
# one with its children), <name>.log, layout.env (the ports; a later start in the same DIR reuses
# them and the data), pki/ (shared credentials), etcd-<i>/ and gateway-<i>/ (data).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The pinned Node, as `npm start` runs it.
NODE="$ROOT/node_modules/.bin/node"
ETCD=${ETCD_BIN:-etcd}
HAPROXY=${HAPROXY_BIN:-$(command -v haproxy || echo /usr/sbin/haproxy)}
READY_TIMEOUT=${LOCAL_HA_READY_TIMEOUT:-120}
STOP_TIMEOUT=${LOCAL_HA_STOP_TIMEOUT:-30}
REPLICAS=(1 2 3)

usage() {
  echo "usage: $0 start DIR [gateway args...] | $0 stop DIR" >&2
  exit 2
}

die() {
  echo "local-ha: $*" >&2
  exit 1
}

# N distinct free loopback ports (held open together so none repeats).
free_ports() {
  "$NODE" -e '
    const net = require("node:net");
    const n = Number(process.argv[1]);
    const servers = Array.from({ length: n }, () => net.createServer().listen(0, "127.0.0.1"));
    Promise.all(servers.map((s) => new Promise((r) => s.once("listening", r)))).then(() => {
      console.log(servers.map((s) => s.address().port).join(" "));
      for (const s of servers) s.close();
    });' "$1"
}

# Exit 0 when URL answers 200 (https trusting CA when given), else 1; one try, short timeout.
probe() {
  "$NODE" -e '
    const [url, caFile] = process.argv.slice(1);
    const mod = require(url.startsWith("https:") ? "node:https" : "node:http");
    const ca = caFile ? require("node:fs").readFileSync(caFile) : undefined;
    const req = mod.get(url, { ca, timeout: 2000 }, (res) => {
      res.resume();
      process.exit(res.statusCode === 200 ? 0 : 1);
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => process.exit(1));' "$1" "${2:-}"
}

# PID is running (a zombie, killed but not yet reaped by its new parent, is not).
running() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

alive() {
  [ -f "$1" ] && running "$(cat "$1")"
}

# Start a command as the leader of a new session and process group; its PID goes to PIDFILE.
launch() {
  local pidfile=$1 log=$2
  shift 2
  # A background job of this non-interactive shell is not a group leader, so setsid does not fork:
  # $! is the new leader's PID.
  setsid "$@" >>"$log" 2>&1 </dev/null &
  echo $! >"$pidfile"
}

wait_for() {
  local what=$1 log=$2 pidfile=$3
  shift 3
  local deadline=$((SECONDS + READY_TIMEOUT))
  until "$@"; do
    if [ -n "$pidfile" ] && ! alive "$pidfile"; then
      tail -n 30 "$log" >&2 || true
      die "$what exited during start (log: $log)"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      tail -n 30 "$log" >&2 || true
      die "$what not ready after ${READY_TIMEOUT}s (log: $log)"
    fi
    sleep 0.2
  done
}

etcd_healthy() {
  probe "http://127.0.0.1:${ETCD_CLIENT[$1]}/health"
}

gateway_ready() {
  probe "https://127.0.0.1:${GATEWAY_PORT[$1]}/readyz" "$DIR/pki/ca.crt"
}

# Every server of the backend is UP in haproxy's statistics (CSV: field 2 the server, 18 the status).
haproxy_all_up() {
  "$NODE" -e '
    require("node:http").get(process.argv[1], (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => {
        const up = body.split("\n").map((l) => l.split(","))
          .filter((f) => f[0] === "cluster-gateways" && f[1].startsWith("gateway-") && f[17] === "UP");
        process.exit(up.length === 3 ? 0 : 1);
      });
    }).on("error", () => process.exit(1));' "http://127.0.0.1:$HAPROXY_STATS_PORT/stats;csv"
}

load_layout() {
  # shellcheck disable=SC1091
  source "$DIR/layout.env"
  ETCD_CLIENT=("" "$ETCD_CLIENT_1" "$ETCD_CLIENT_2" "$ETCD_CLIENT_3")
  ETCD_PEER=("" "$ETCD_PEER_1" "$ETCD_PEER_2" "$ETCD_PEER_3")
  GATEWAY_PORT=("" "$GATEWAY_PORT_1" "$GATEWAY_PORT_2" "$GATEWAY_PORT_3")
}

new_layout() {
  local p
  read -r -a p <<<"$(free_ports 11)"
  cat >"$DIR/layout.env" <<EOF
ETCD_CLIENT_1=${p[0]}
ETCD_CLIENT_2=${p[1]}
ETCD_CLIENT_3=${p[2]}
ETCD_PEER_1=${p[3]}
ETCD_PEER_2=${p[4]}
ETCD_PEER_3=${p[5]}
GATEWAY_PORT_1=${p[6]}
GATEWAY_PORT_2=${p[7]}
GATEWAY_PORT_3=${p[8]}
HAPROXY_PORT=${p[9]}
HAPROXY_STATS_PORT=${p[10]}
EOF
}

start_etcd() {
  local i=$1 cluster="" j
  for j in "${REPLICAS[@]}"; do cluster+="${cluster:+,}etcd-$j=http://127.0.0.1:${ETCD_PEER[$j]}"; done
  alive "$DIR/etcd-$i.pid" && return 0
  launch "$DIR/etcd-$i.pid" "$DIR/etcd-$i.log" "$ETCD" \
    --name="etcd-$i" \
    --data-dir="$DIR/etcd-$i" \
    --listen-client-urls="http://127.0.0.1:${ETCD_CLIENT[$i]}" \
    --advertise-client-urls="http://127.0.0.1:${ETCD_CLIENT[$i]}" \
    --listen-peer-urls="http://127.0.0.1:${ETCD_PEER[$i]}" \
    --initial-advertise-peer-urls="http://127.0.0.1:${ETCD_PEER[$i]}" \
    --initial-cluster="$cluster" \
    --initial-cluster-token=cluster-gateway-local-ha \
    --initial-cluster-state=new \
    --logger=zap --log-level=warn
}

start_gateway() {
  local i=$1
  shift
  alive "$DIR/gateway-$i.pid" && return 0
  local servers="" j
  for j in "${REPLICAS[@]}"; do servers+="${servers:+,}http://127.0.0.1:${ETCD_CLIENT[$j]}"; done
  (cd "$ROOT" && launch "$DIR/gateway-$i.pid" "$DIR/gateway-$i.log" "$NODE" gateway/main.ts \
    --data-dir="$DIR/gateway-$i" \
    --pki-dir="$DIR/pki" \
    --bind-address=127.0.0.1 \
    --secure-port="${GATEWAY_PORT[$i]}" \
    --storage-backend=etcd \
    --etcd-servers="$servers" \
    "$@")
}

# The shared credentials, made once (`npm start -- init`): DIR/pki, and DIR/admin.kubeconfig naming
# haproxy.
make_pki() {
  [ -f "$DIR/pki/ca.crt" ] && [ -f "$DIR/admin.kubeconfig" ] && return 0
  (cd "$ROOT" && "$NODE" gateway/main.ts init --data-dir="$DIR" --pki-dir="$DIR/pki" \
    --server="https://127.0.0.1:$HAPROXY_PORT") >>"$DIR/init.log" 2>&1 ||
    die "init failed: $(tail -n 20 "$DIR/init.log")"
}

start_haproxy() {
  alive "$DIR/haproxy.pid" && return 0
  cat >"$DIR/haproxy-local.cfg" <<EOF
# Written by local-ha.sh: a global section (a packaged haproxy has its own) and the statistics page
# local-ha.sh reads to see every replica up.
global
  maxconn 4096

frontend stats
  mode http
  bind 127.0.0.1:$HAPROXY_STATS_PORT
  timeout client 10s
  stats enable
  stats uri /stats
EOF
  CG_LB_BIND="127.0.0.1:$HAPROXY_PORT" \
    CG_GATEWAY_1="127.0.0.1:${GATEWAY_PORT[1]}" \
    CG_GATEWAY_2="127.0.0.1:${GATEWAY_PORT[2]}" \
    CG_GATEWAY_3="127.0.0.1:${GATEWAY_PORT[3]}" \
    CG_CA_FILE="$DIR/pki/ca.crt" \
    launch "$DIR/haproxy.pid" "$DIR/haproxy.log" "$HAPROXY" -db \
    -f "$DIR/haproxy-local.cfg" -f "$ROOT/deploy/haproxy.cfg"
}

cmd_start() {
  command -v "$ETCD" >/dev/null || die "etcd not found: install etcd-server (apt-get install etcd-server)"
  [ -x "$HAPROXY" ] || die "haproxy not found: install haproxy (apt-get install haproxy)"
  [ -x "$NODE" ] || die "$NODE missing: run npm ci in $ROOT"
  mkdir -p "$DIR"
  chmod 700 "$DIR"
  # A start that fails stops what it started, leaving no stray process behind.
  trap 'code=$?; if [ "$code" -ne 0 ]; then echo "local-ha: start failed, stopping" >&2; cmd_stop; fi' EXIT
  [ -f "$DIR/layout.env" ] || new_layout
  load_layout
  local i
  for i in "${REPLICAS[@]}"; do start_etcd "$i"; done
  for i in "${REPLICAS[@]}"; do wait_for "etcd-$i" "$DIR/etcd-$i.log" "$DIR/etcd-$i.pid" etcd_healthy "$i"; done
  make_pki
  for i in "${REPLICAS[@]}"; do start_gateway "$i" "$@"; done
  for i in "${REPLICAS[@]}"; do
    wait_for "gateway-$i" "$DIR/gateway-$i.log" "$DIR/gateway-$i.pid" gateway_ready "$i"
    # Each replica writes an admin kubeconfig naming itself alone.
    install -m 600 "$DIR/gateway-$i/admin.kubeconfig" "$DIR/gateway-$i.kubeconfig"
  done
  start_haproxy
  wait_for "haproxy" "$DIR/haproxy.log" "$DIR/haproxy.pid" haproxy_all_up
  trap - EXIT
  echo "ready: kubectl --kubeconfig=$DIR/admin.kubeconfig (haproxy 127.0.0.1:$HAPROXY_PORT)"
}

# SIGTERM the process group, SIGKILL it after STOP_TIMEOUT; forget the PID file either way.
stop_one() {
  local pidfile=$1 pid deadline
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if running "$pid"; then
    kill -TERM -- "-$pid" 2>/dev/null || true
    deadline=$((SECONDS + STOP_TIMEOUT))
    while running "$pid"; do
      if [ "$SECONDS" -ge "$deadline" ]; then
        echo "local-ha: $(basename "$pidfile" .pid) did not stop in ${STOP_TIMEOUT}s: SIGKILL" >&2
        kill -KILL -- "-$pid" 2>/dev/null || true
      fi
      sleep 0.1
    done
  fi
  # Children left in the group (a killed leader's) go too.
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

cmd_stop() {
  [ -d "$DIR" ] || return 0
  local i
  # Clients first, then the replicas, the store last so the replicas can finish their writes.
  stop_one "$DIR/haproxy.pid"
  for i in "${REPLICAS[@]}"; do stop_one "$DIR/gateway-$i.pid" & done
  wait
  for i in "${REPLICAS[@]}"; do stop_one "$DIR/etcd-$i.pid" & done
  wait
}

[ $# -ge 2 ] || usage
action=$1
DIR=$2
shift 2
case "$DIR" in /*) ;; *) DIR="$PWD/$DIR" ;; esac
case "$action" in
  start) cmd_start "$@" ;;
  stop)
    [ $# -eq 0 ] || usage
    cmd_stop
    ;;
  *) usage ;;
esac
