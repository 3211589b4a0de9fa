# shellcheck shell=bash
# Starts Debian's prometheus-node-exporter on 127.0.0.1:9100 (with the
# processes collector, for node_processes_threads) and prometheus on
# 127.0.0.1:9090 scraping it every second, with a temporary configuration
# and storage under $PROMETHEUS_DIR, and exports PROMETHEUS_URL for the
# Prometheus source's integration test (internal/metrics). Sourced by
# .ci/run; also runnable on its own:
#   source .ci/services/prometheus.sh
# Idempotent: an exporter or server already answering on its port is reused.
# Waits at most ~60 s until the node target is up and Prometheus holds at
# least 5 samples of node_load1.

# shellcheck source=http_get.bash
source "$(dirname "${BASH_SOURCE[0]}")/http_get.bash"

# prometheus_spawn runs "$@" in the background with its output in $log and
# its pid in $pidfile.
prometheus_spawn() {
	local log=$1 pidfile=$2
	shift 2
	nohup "$@" >"$log" 2>&1 &
	echo $! >"$pidfile"
}

prometheus_start() {
	local dir="${PROMETHEUS_DIR:-/tmp/clusterlens-prometheus}"
	local port="${PROMETHEUS_PORT:-9090}" exporter_port="${NODE_EXPORTER_PORT:-9100}"
	local url="http://127.0.0.1:${port}"
	local exporter=/usr/bin/prometheus-node-exporter server=/usr/bin/prometheus
	command -v prometheus-node-exporter >/dev/null 2>&1 && exporter=$(command -v prometheus-node-exporter)
	command -v prometheus >/dev/null 2>&1 && server=$(command -v prometheus)
	if [ ! -x "$exporter" ] || [ ! -x "$server" ]; then
		echo "prometheus: prometheus or prometheus-node-exporter not installed (.ci/packages-prometheus.txt)" >&2
		return 1
	fi
	mkdir -p "$dir/data"

	# No pipe into grep -q here: under pipefail its early exit fails the pipe.
	local metrics
	metrics=$(http_get "$exporter_port" /metrics || true)
	if [[ "$metrics" == *$'\nnode_load1 '* ]]; then
		echo "prometheus: node_exporter already running on 127.0.0.1:$exporter_port"
	else
		prometheus_spawn "$dir/node-exporter.log" "$dir/node-exporter.pid" "$exporter" \
			--web.listen-address="127.0.0.1:${exporter_port}" --collector.processes
	fi

	if http_get "$port" /-/ready >/dev/null; then
		echo "prometheus: server already running at $url"
	else
		cat >"$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["127.0.0.1:${exporter_port}"]
YML
		prometheus_spawn "$dir/prometheus.log" "$dir/prometheus.pid" "$server" \
			--config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
			--web.listen-address="127.0.0.1:${port}" --storage.tsdb.retention.time=1d
	fi

	local i body n p
	for i in $(seq 1 120); do
		body=$(http_get "$port" '/api/v1/query?query=count_over_time(node_load1%5B1m%5D)' || true)
		n=$(printf '%s' "$body" | sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p')
		if [ "${n:-0}" -ge 5 ]; then
			export PROMETHEUS_URL="$url"
			echo "prometheus: ready at $PROMETHEUS_URL after ${i} tries (node_exporter 127.0.0.1:$exporter_port, scrape 1 s)"
			return 0
		fi
		for p in node-exporter prometheus; do
			if [ -f "$dir/$p.pid" ] && ! kill -0 "$(cat "$dir/$p.pid")" 2>/dev/null; then
				echo "prometheus: $p exited; last log lines:" >&2
				tail -20 "$dir/$p.log" >&2
				return 1
			fi
		done
		sleep 0.5
	done
	echo "prometheus: node target not scraped 5 times at $url after 60 s" >&2
	tail -20 "$dir/prometheus.log" "$dir/node-exporter.log" >&2 2>/dev/null
	return 1
}

prometheus_start
