# shellcheck shell=bash
# Starts Versity's S3 gateway (versitygw, Apache-2.0; its posix backend keeps
# each bucket as a folder under $S3_DIR) on 127.0.0.1:$S3_PORT and exports
# what the S3 tests of internal/objstore read:
#   CLUSTERLENS_S3_ENDPOINT    http://127.0.0.1:7070
#   CLUSTERLENS_S3_ACCESS_KEY  the root user's access key
#   CLUSTERLENS_S3_SECRET_KEY  and its secret
#   CLUSTERLENS_S3_VHOST       the virtual-host domain (bucket.s3.test:7070)
# Sourced by .ci/run; also runnable on its own:
#   source .ci/services/s3.sh
# The gateway is built once with `go install` of a pinned version (about
# 2 min cold on 2 cores) into $S3_DIR/bin. Idempotent: a gateway already
# answering on the port is reused. Waits at most ~30 s for it.

# shellcheck source=http_get.bash
source "$(dirname "${BASH_SOURCE[0]}")/http_get.bash"

S3_VERSITYGW_VERSION=v1.8.0

s3_start() {
	local dir="${S3_DIR:-/tmp/clusterlens-s3}" port="${S3_PORT:-7070}"
	local bin="$dir/bin/versitygw"
	local access=clusterlens secret=clusterlens-test-secret vhost=s3.test
	s3_export() {
		export CLUSTERLENS_S3_ENDPOINT="http://127.0.0.1:${port}"
		export CLUSTERLENS_S3_ACCESS_KEY="$access" CLUSTERLENS_S3_SECRET_KEY="$secret"
		export CLUSTERLENS_S3_VHOST="$vhost"
	}
	# A connection accepted means a server is there (it answers 403 unsigned).
	if tcp_open "$port"; then
		s3_export
		echo "s3: already running at $CLUSTERLENS_S3_ENDPOINT"
		return 0
	fi
	if [ ! -x "$bin" ] || [ "$(cat "$dir/bin/version" 2>/dev/null)" != "$S3_VERSITYGW_VERSION" ]; then
		local t0=$SECONDS
		mkdir -p "$dir/bin"
		if ! GOBIN="$dir/bin" go install "github.com/versity/versitygw/cmd/versitygw@${S3_VERSITYGW_VERSION}"; then
			echo "s3: go install versitygw@${S3_VERSITYGW_VERSION} failed" >&2
			return 1
		fi
		echo "$S3_VERSITYGW_VERSION" >"$dir/bin/version"
		echo "s3: built versitygw ${S3_VERSITYGW_VERSION} in $((SECONDS - t0)) s"
	fi
	mkdir -p "$dir/data" "$dir/log"
	nohup "$bin" --access "$access" --secret "$secret" --port "127.0.0.1:${port}" \
		--virtual-domain "$vhost" --quiet posix "$dir/data" >"$dir/log/versitygw.log" 2>&1 &
	echo $! >"$dir/pid"
	local i
	for i in $(seq 1 60); do
		if tcp_open "$port"; then
			s3_export
			echo "s3: versitygw ${S3_VERSITYGW_VERSION} ready at $CLUSTERLENS_S3_ENDPOINT after ${i} tries"
			return 0
		fi
		if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			echo "s3: versitygw exited; last log lines:" >&2
			tail -20 "$dir/log/versitygw.log" >&2
			return 1
		fi
		sleep 0.5
	done
	echo "s3: no answer on 127.0.0.1:${port} after 30 s" >&2
	return 1
}

s3_start
