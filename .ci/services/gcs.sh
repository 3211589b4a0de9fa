# shellcheck shell=bash
# Starts fake-gcs-server (github.com/fsouza/fake-gcs-server, BSD-2-Clause: an
# emulator of the Google Cloud Storage JSON API) on 127.0.0.1:$GCS_PORT, with
# its memory backend (the filesystem one drops objects whose name ends in
# "/", the folder markers consoles create), and exports CLUSTERLENS_GCS_ENDPOINT
# (http://127.0.0.1:4443) for the GCS tests of internal/objstore, which
# reach it as Google's libraries reach an emulator: STORAGE_EMULATOR_HOST.
# Sourced by .ci/run; also runnable on its own:
#   source .ci/services/gcs.sh
# Built once with `go install` of a pinned version (about 1.5 min cold on 2
# cores) into $GCS_DIR/bin. Idempotent: a server answering on the port is
# reused. Waits at most ~30 s for it.

# shellcheck source=http_get.bash
source "$(dirname "${BASH_SOURCE[0]}")/http_get.bash"

GCS_FAKE_VERSION=v1.56.1

gcs_start() {
	local dir="${GCS_DIR:-/tmp/clusterlens-gcs}" port="${GCS_PORT:-4443}"
	local bin="$dir/bin/fake-gcs-server"
	if http_get "$port" /storage/v1/b >/dev/null; then
		export CLUSTERLENS_GCS_ENDPOINT="http://127.0.0.1:${port}"
		echo "gcs: already running at $CLUSTERLENS_GCS_ENDPOINT"
		return 0
	fi
	if [ ! -x "$bin" ] || [ "$(cat "$dir/bin/version" 2>/dev/null)" != "$GCS_FAKE_VERSION" ]; then
		local t0=$SECONDS
		mkdir -p "$dir/bin"
		if ! GOBIN="$dir/bin" go install "github.com/fsouza/fake-gcs-server@${GCS_FAKE_VERSION}"; then
			echo "gcs: go install fake-gcs-server@${GCS_FAKE_VERSION} failed" >&2
			return 1
		fi
		echo "$GCS_FAKE_VERSION" >"$dir/bin/version"
		echo "gcs: built fake-gcs-server ${GCS_FAKE_VERSION} in $((SECONDS - t0)) s"
	fi
	mkdir -p "$dir/log"
	nohup "$bin" -scheme http -host 127.0.0.1 -port "$port" -public-host "127.0.0.1:${port}" \
		-backend memory -log-level warn >"$dir/log/fake-gcs-server.log" 2>&1 &
	echo $! >"$dir/pid"
	local i
	for i in $(seq 1 60); do
		if http_get "$port" /storage/v1/b >/dev/null; then
			export CLUSTERLENS_GCS_ENDPOINT="http://127.0.0.1:${port}"
			echo "gcs: fake-gcs-server ${GCS_FAKE_VERSION} ready at $CLUSTERLENS_GCS_ENDPOINT after ${i} tries"
			return 0
		fi
		if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			echo "gcs: fake-gcs-server exited; last log lines:" >&2
			tail -20 "$dir/log/fake-gcs-server.log" >&2
			return 1
		fi
		sleep 0.5
	done
	echo "gcs: no answer on 127.0.0.1:${port} after 30 s" >&2
	return 1
}

gcs_start
