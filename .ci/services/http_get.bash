# shellcheck shell=bash
# http_get PORT PATH prints the body of GET PATH (a path and query) on
# 127.0.0.1:PORT, with curl when installed, else through bash's /dev/tcp.
# Sourced by the service scripts beside it.
http_get() {
	local port=$1 path=$2
	if command -v curl >/dev/null 2>&1; then
		curl -fsS --max-time 2 "http://127.0.0.1:${port}${path}" 2>/dev/null
		return
	fi
	(
		exec 3<>"/dev/tcp/127.0.0.1/${port}" || exit 1
		printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$path" >&3
		timeout 2 cat <&3 | tr -d '\r' | sed '1,/^$/d'
	) 2>/dev/null
}

# tcp_open PORT succeeds when something accepts connections on
# 127.0.0.1:PORT (for servers that answer 403 to an unsigned GET).
tcp_open() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
