package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/objstore/objstoretest"
)

// putFile uploads the local file p as key.
func putFile(t *testing.T, put objstoretest.Put, p, key string) {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	put(t, key, f, st.Size())
}

// TestSummaryAndAPIFromS3 reads History Server suite logs from an S3 bucket
// (versitygw): summary and api must print what they print for the same
// files on disk.
func TestSummaryAndAPIFromS3(t *testing.T) {
	_, put := objstoretest.S3(t)
	dir := events(t)
	prefix := fmt.Sprintf("cli-%d/", time.Now().UnixNano())
	for _, name := range []string{"local-1422981780767", "app-20161115172038-0000"} {
		putFile(t, put, filepath.Join(dir, name), prefix+name)
	}
	url := "s3://" + objstoretest.S3Bucket + "/" + prefix
	for _, args := range [][]string{
		{"summary", "--format", "json", url + "local-1422981780767"},
		{"api", url, "applications/local-1422981780767/jobs?status=succeeded"},
		{"api", url + "app-2016*", "applications/app-20161115172038-0000/stages?status=complete"},
	} {
		code, out, errs := run(t, args...)
		local := append([]string(nil), args...)
		for i, a := range local {
			local[i] = strings.Replace(a, url, dir+"/", 1)
		}
		lcode, lout, _ := run(t, local...)
		if code != ExitOK || code != lcode {
			t.Errorf("%v: exit %d (%d from disk): %s", args, code, lcode, errs)
			continue
		}
		if strings.ReplaceAll(out, url, dir+"/") != lout {
			t.Errorf("%v: output differs from the disk's:\n%s\nwant\n%s", args, out, lout)
		}
	}
	code, _, errs := run(t, "summary", url+"nope")
	if code != ExitError || !strings.Contains(errs, url+"nope") || !strings.Contains(errs, "does not exist") {
		t.Errorf("missing object: exit %d, stderr %q", code, errs)
	}
}

// TestServeWatchesBucket serves a bucket prefix and puts a second log
// there: a rescan must pick it up.
func TestServeWatchesBucket(t *testing.T) {
	_, put := objstoretest.S3(t)
	dir := events(t)
	prefix := fmt.Sprintf("serve-%d/", time.Now().UnixNano())
	putFile(t, put, filepath.Join(dir, "local-1422981780767"), prefix+"local-1422981780767")
	addr, stop := startServe(t, serveOptions{logs: []string{"s3://" + objstoretest.S3Bucket + "/" + prefix}, addr: "127.0.0.1:0", rescan: 100 * time.Millisecond})
	ids := func() []string {
		body := getRead(t, addr, "applications")
		var apps []struct{ ID string }
		if err := json.Unmarshal(body, &apps); err != nil {
			t.Fatalf("applications: %v: %s", err, body)
		}
		var out []string
		for _, a := range apps {
			out = append(out, a.ID)
		}
		return out
	}
	got := ids()
	if len(got) != 1 || got[0] != "local-1422981780767" {
		t.Fatalf("applications before the put: %v", got)
	}
	putFile(t, put, filepath.Join(dir, "app-20161115172038-0000"), prefix+"app-20161115172038-0000")
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := ids()
		if len(got) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("applications 20 s after the put: %v, want the new log too", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
}

// TestAnalyzeAndPeerFromS3 puts a simulated CPU-hog run (logs and node
// metrics) and a peer profile in an S3 bucket: analyze --metrics and peer
// diagnose --profile --logs must print what they print for the same files
// on disk.
func TestAnalyzeAndPeerFromS3(t *testing.T) {
	_, put := objstoretest.S3(t)
	dir := t.TempDir()
	for _, s := range []string{"11", "12"} {
		if code, _, errs := run(t, "simulate", "--scenario", "clean", "--seed", s, "--out", filepath.Join(dir, "clean"+s)); code != ExitOK {
			t.Fatalf("simulate: %s", errs)
		}
	}
	hog := filepath.Join(dir, "hog")
	if code, _, errs := run(t, "simulate", "--scenario", "cpu-hog", "--seed", "3", "--out", hog); code != ExitOK {
		t.Fatalf("simulate: %s", errs)
	}
	prof := filepath.Join(dir, "hog", "profile.json")
	if code, out, errs := run(t, "peer", "train", "--out", prof, filepath.Join(dir, "clean11"), filepath.Join(dir, "clean12")); code != ExitOK {
		t.Fatalf("train exit %d: %s%s", code, out, errs)
	}
	prefix := fmt.Sprintf("analyze-%d/", time.Now().UnixNano())
	objstoretest.Upload(t, put, hog, prefix)
	url := "s3://" + objstoretest.S3Bucket + "/" + strings.TrimSuffix(prefix, "/")
	for _, args := range [][]string{
		{"analyze", "--format", "json", "--metrics", url, url},
		{"peer", "diagnose", "--profile", url + "/profile.json", "--logs", url, "--format", "json", url},
	} {
		code, out, errs := run(t, args...)
		local := append([]string(nil), args...)
		for i, a := range local {
			local[i] = strings.Replace(a, url, hog, 1)
		}
		lcode, lout, lerrs := run(t, local...)
		if code != lcode || len(out) < 100 {
			t.Errorf("%v: exit %d, from disk %d: %s / %s", args[:2], code, lcode, errs, lerrs)
			continue
		}
		if strings.ReplaceAll(out, url, hog) != lout {
			t.Errorf("%v: output differs from the disk's", args[:2])
		}
	}
}
