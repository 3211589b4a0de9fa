#!/usr/bin/env bash
# binsize.sh BINARY MAX_BYTES [MAX_S3_METHODS]: fails when BINARY is larger
# than MAX_BYTES, when it can execute a text/template or html/template, or
# (with MAX_S3_METHODS) when it keeps more methods of the S3 client than
# that. Executing a template makes reflect.Value.MethodByName reachable,
# and the linker then keeps every exported method of every reachable type:
# 13 MB of clusterlens, the S3 client's kept methods 17 -> 342
# (docs/ARCHITECTURE.md, "What the binary carries").
set -euo pipefail
bin=$1 max=$2 maxS3=${3:-}
size=$(stat -c %s "$bin")
syms=$(go tool nm "$bin")
s3=$(grep -c 's3\.(\*Client)' <<<"$syms" || true)
exec=$(grep -cE ' text/template\.\(\*(state|Template)\)\.' <<<"$syms" || true)
echo "$bin: $size bytes (at most $max), S3 client methods kept: $s3${maxS3:+ (at most $maxS3)}, template execution symbols: $exec"
fail=0
if [ "$size" -gt "$max" ]; then echo "  too large: $size > $max bytes" >&2; fail=1; fi
if [ "$exec" -gt 0 ]; then echo "  a template can be executed: every exported method is kept (write HTML with internal/htmlw)" >&2; fail=1; fi
if [ -n "$maxS3" ] && [ "$s3" -gt "$maxS3" ]; then echo "  $s3 S3 client methods kept, at most $maxS3: something calls reflect's MethodByName with a computed name" >&2; fail=1; fi
exit $fail
