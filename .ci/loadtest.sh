#!/usr/bin/env bash
# Load test of the agent → collector → store path (docs/AGENT.md): 200
# agents at 1 Hz, each shipping ~40 samples a second, against one
# `clusterlens collect` process on loopback, for 5 minutes over SQLite and
# 5 minutes over ClickHouse. Each run must end with the store holding
# exactly the samples the agents produced; it prints one LOADTEST line with
# samples/s, request latency (p50/p99 at the agents and from the
# collector's histogram), the collector's CPU (% of one core) and peak RSS.
# First, the fault test with a real process: the collector is killed with
# SIGKILL under 20 agents at 10 Hz and restarted; nothing may be lost or
# stored twice (one KILL9 line).
#
#   bash .ci/loadtest.sh                 # both stores, 5 minutes each
#   DURATION=30s AGENTS=50 bash .ci/loadtest.sh
#   STORES=sqlite bash .ci/loadtest.sh
#
# ClickHouse comes from $CLICKHOUSE_URL, or .ci/services/clickhouse.sh is
# sourced to start it. Run from anywhere; needs Go and ~12 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-5m}"
agents="${AGENTS:-200}"
stores="${STORES:-sqlite clickhouse}"

bin=$(mktemp -d)/clusterlens
go build -o "$bin" ./cmd/clusterlens

echo "== fault test: collector process killed with SIGKILL and restarted"
CLUSTERLENS_LOADTEST=1 CLUSTERLENS_BIN="$bin" go test -count=1 -run '^TestCollectorKill9$' -timeout 5m ./internal/collector/loadtest -v |
	grep -E '^(KILL9|--- |FAIL|ok|panic)|_test.go:'

for store in $stores; do
	if [ "$store" = clickhouse ] && [ -z "${CLICKHOUSE_URL:-}" ]; then
		# shellcheck source=/dev/null
		source .ci/services/clickhouse.sh
	fi
	echo "== load test: $agents agents, $duration, store $store"
	CLUSTERLENS_LOADTEST=1 CLUSTERLENS_BIN="$bin" CLUSTERLENS_LOADTEST_STORE="$store" \
		CLUSTERLENS_LOADTEST_DURATION="$duration" CLUSTERLENS_LOADTEST_AGENTS="$agents" \
		go test -count=1 -run '^TestLoad$' -timeout 30m ./internal/collector/loadtest -v | grep -E '^(LOADTEST|--- |FAIL|ok|panic)|_test.go:'
done
