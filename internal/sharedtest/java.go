package sharedtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// JavaTool finds a JDK's tool (javac, java, jcmd): JAVA_HOME, PATH, then
// /usr/lib/jvm. Locally a missing JDK skips the test; under CI=true (where
// .ci/run installs openjdk-17-jdk-headless) it fails.
func JavaTool(t testing.TB, tool string) string {
	t.Helper()
	if h := os.Getenv("JAVA_HOME"); h != "" {
		p := filepath.Join(h, "bin", tool)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath(tool); err == nil {
		return p
	}
	if m, _ := filepath.Glob("/usr/lib/jvm/*/bin/" + tool); len(m) > 0 {
		return m[0]
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("no %s, but CI=true: .ci/run installs a JDK", tool)
	}
	t.Skipf("no %s: install a JDK to run this test", tool)
	return ""
}
