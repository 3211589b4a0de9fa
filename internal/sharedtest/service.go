package sharedtest

import (
	"os"
	"testing"
)

// Service returns the address of a real service that .ci/run started, read
// from the environment variable env (for example CLICKHOUSE_URL). Locally an
// unset variable skips the test with a message; under CI=true it fails it,
// because CI promised the service.
func Service(t testing.TB, env string) string {
	t.Helper()
	v := os.Getenv(env)
	if v != "" {
		return v
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not set, but CI=true: .ci/services should have started the service", env)
	}
	t.Skipf("%s not set: start the service (see .ci/services) to run this test", env)
	return ""
}
