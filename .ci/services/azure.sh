# shellcheck shell=bash
# Starts Azurite, Microsoft's Azure Storage emulator (npm package azurite,
# MIT), blob service only, on 127.0.0.1:$AZURITE_PORT with its data under
# $AZURITE_DIR and telemetry off, and exports CLUSTERLENS_AZURE_BLOB_ENDPOINT
# (http://127.0.0.1:10000/devstoreaccount1) for the Azure tests of
# internal/objstore; they sign with Azurite's well-known development
# account key. Sourced by .ci/run; also runnable on its own:
#   source .ci/services/azure.sh
# Installed once with npm (a pinned version; about 30 s) into
# $AZURITE_DIR. Azurite 3.35.0 is the last release that runs on Node 20
# (3.36 wants Node 21, 3.37 Node 22). Idempotent: a server accepting
# connections on the port is reused. Waits at most ~30 s for it.

# shellcheck source=http_get.bash
source "$(dirname "${BASH_SOURCE[0]}")/http_get.bash"

AZURITE_VERSION=3.35.0

azure_start() {
	local dir="${AZURITE_DIR:-/tmp/clusterlens-azurite}" port="${AZURITE_PORT:-10000}"
	local bin="$dir/node_modules/.bin/azurite-blob"
	azure_export() { export CLUSTERLENS_AZURE_BLOB_ENDPOINT="http://127.0.0.1:${port}/devstoreaccount1"; }
	# Azurite answers an unsigned GET with 403: a connection is enough.
	if tcp_open "$port"; then
		azure_export
		echo "azure: already running at $CLUSTERLENS_AZURE_BLOB_ENDPOINT"
		return 0
	fi
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		echo "azure: node and npm are needed for Azurite" >&2
		return 1
	fi
	if [ ! -x "$bin" ] || [ "$(cat "$dir/version" 2>/dev/null)" != "$AZURITE_VERSION" ]; then
		local t0=$SECONDS
		mkdir -p "$dir"
		if ! npm install --prefix "$dir" --no-audit --no-fund --omit=dev --loglevel=error "azurite@${AZURITE_VERSION}" >/dev/null; then
			echo "azure: npm install azurite@${AZURITE_VERSION} failed" >&2
			return 1
		fi
		echo "$AZURITE_VERSION" >"$dir/version"
		echo "azure: installed azurite ${AZURITE_VERSION} in $((SECONDS - t0)) s"
	fi
	mkdir -p "$dir/data" "$dir/log"
	nohup "$bin" --blobHost 127.0.0.1 --blobPort "$port" --location "$dir/data" --disableTelemetry \
		--skipApiVersionCheck --silent >"$dir/log/azurite.log" 2>&1 &
	echo $! >"$dir/pid"
	local i
	for i in $(seq 1 60); do
		if tcp_open "$port"; then
			azure_export
			echo "azure: azurite ${AZURITE_VERSION} ready at $CLUSTERLENS_AZURE_BLOB_ENDPOINT after ${i} tries"
			return 0
		fi
		if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			echo "azure: azurite exited; last log lines:" >&2
			tail -20 "$dir/log/azurite.log" >&2
			return 1
		fi
		sleep 0.5
	done
	echo "azure: no answer on 127.0.0.1:${port} after 30 s" >&2
	return 1
}

azure_start
