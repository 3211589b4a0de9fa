# shellcheck shell=bash
# Starts Debian's clickhouse-server (18.16 on Debian; later versions still read
# this <yandex> config, but only 18.16 was tried) on 127.0.0.1 only and exports CLICKHOUSE_URL for the store tests
# (internal/store/clickhouse). Sourced by .ci/run; also runnable on its own:
#   source .ci/services/clickhouse.sh
# It writes its own minimal config (loopback, HTTP 8123, native 9000, data in
# $CLICKHOUSE_DIR) instead of the package's, because CI has no systemd and the
# package's config listens on ::1 too. Idempotent: a server already answering
# on the port is reused. Waits at most ~60 s for `SELECT 1` over HTTP.

# shellcheck source=http_get.bash
source "$(dirname "${BASH_SOURCE[0]}")/http_get.bash"

clickhouse_start() {
	local port="${CLICKHOUSE_HTTP_PORT:-8123}"
	local tcp_port="${CLICKHOUSE_TCP_PORT:-9000}"
	local dir="${CLICKHOUSE_DIR:-/tmp/clusterlens-clickhouse}"
	local url="http://127.0.0.1:${port}"
	local bin

	if [ "$(http_get "$port" '/?query=SELECT%201')" = "1" ]; then
		export CLICKHOUSE_URL="$url"
		echo "clickhouse: already running at $CLICKHOUSE_URL"
		return 0
	fi
	bin=$(command -v clickhouse-server || command -v clickhouse || true)
	if [ -z "$bin" ] && [ -x /usr/sbin/clickhouse-server ]; then bin=/usr/sbin/clickhouse-server; fi
	if [ -z "$bin" ]; then
		echo "clickhouse: clickhouse-server not installed (.ci/packages-clickhouse.txt)" >&2
		return 1
	fi
	# The multi-call "clickhouse" binary needs the "server" verb.
	local verb=""
	case "$(basename "$bin")" in clickhouse) verb=server ;; esac

	mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/format_schemas" "$dir/log"
	cat >"$dir/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <logger>
        <level>warning</level>
        <log>$dir/log/clickhouse-server.log</log>
        <errorlog>$dir/log/clickhouse-server.err.log</errorlog>
        <size>100M</size>
        <count>2</count>
    </logger>
    <listen_host>127.0.0.1</listen_host>
    <http_port>$port</http_port>
    <tcp_port>$tcp_port</tcp_port>
    <max_connections>4096</max_connections>
    <keep_alive_timeout>10</keep_alive_timeout>
    <max_concurrent_queries>200</max_concurrent_queries>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <mark_cache_size>268435456</mark_cache_size>
    <path>$dir/data/</path>
    <tmp_path>$dir/tmp/</tmp_path>
    <user_files_path>$dir/user_files/</user_files_path>
    <format_schema_path>$dir/format_schemas/</format_schema_path>
    <users_config>$dir/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
</yandex>
XML
	cat >"$dir/users.xml" <<'XML'
<?xml version="1.0"?>
<yandex>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
        </default>
    </profiles>
    <users>
        <default>
            <password></password>
            <networks>
                <ip>127.0.0.1</ip>
            </networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
    </users>
    <quotas>
        <default>
            <interval>
                <duration>3600</duration>
                <queries>0</queries>
                <errors>0</errors>
                <result_rows>0</result_rows>
                <read_rows>0</read_rows>
                <execution_time>0</execution_time>
            </interval>
        </default>
    </quotas>
</yandex>
XML
	# As root, run as the package's user when it exists, so that the data
	# belongs to it as under systemd; otherwise as whoever sources this.
	local run=()
	if [ "$(id -u)" = 0 ] && id clickhouse >/dev/null 2>&1; then
		chown -R clickhouse: "$dir"
		run=(setpriv --reuid=clickhouse --regid=clickhouse --init-groups)
		command -v setpriv >/dev/null 2>&1 || run=(su -s /bin/sh clickhouse -c)
	fi
	(
		cd "$dir" || exit 1
		if [ "${run[0]:-}" = su ]; then
			nohup "${run[@]}" "exec $bin $verb --config-file=$dir/config.xml" >"$dir/log/stdout.log" 2>&1 &
		else
			nohup "${run[@]}" "$bin" $verb --config-file="$dir/config.xml" >"$dir/log/stdout.log" 2>&1 &
		fi
		echo $! >"$dir/pid"
	)
	local i
	for i in $(seq 1 120); do
		if [ "$(http_get "$port" '/?query=SELECT%201')" = "1" ]; then
			export CLICKHOUSE_URL="$url"
			echo "clickhouse: $(http_get "$port" '/?query=SELECT%20version()') ready at $CLICKHOUSE_URL after ${i} tries"
			return 0
		fi
		if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			echo "clickhouse: server exited; last log lines:" >&2
			tail -20 "$dir/log/stdout.log" "$dir/log/clickhouse-server.err.log" >&2 2>/dev/null
			return 1
		fi
		sleep 0.5
	done
	echo "clickhouse: no answer to SELECT 1 on $url after 60 s" >&2
	tail -20 "$dir/log/clickhouse-server.err.log" >&2 2>/dev/null
	return 1
}

clickhouse_start
