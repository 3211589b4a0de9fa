package s3store_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/objstore/objstoretest"
	"github.com/clusterlens/clusterlens/internal/objstore/s3store"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

const bucket = objstoretest.S3Bucket

// store is the test bucket as an objstoretest.Store.
func store(t testing.TB) objstoretest.Store {
	_, put := objstoretest.S3(t)
	return objstoretest.Store{
		New: func(opt objstore.Options) *objstore.FS {
			b, err := s3store.New(context.Background(), bucket, s3store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return objstore.New(b, "s3://"+bucket, opt)
		},
		Put: put,
	}
}

func TestConformance(t *testing.T) { objstoretest.Run(t, store(t)) }

func TestLargeObjectBoundedMemory(t *testing.T) {
	objstoretest.Large(t, store(t), 64<<20, 24<<20)
}

func TestRealLogs(t *testing.T) { objstoretest.RealLogs(t, store(t).Put, "s3://"+bucket+"/") }

func TestErrors(t *testing.T) {
	objstoretest.S3(t)
	open := func(name string, retry objstore.Retry) *objstore.FS {
		b, err := s3store.New(context.Background(), name, s3store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return objstore.New(b, "s3://"+name, objstore.Options{Retry: retry})
	}
	missing := open("no-such-bucket", objstore.Retry{})
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	refused := open(bucket, objstore.Retry{})
	t.Setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:1") // nothing listens on port 1
	down := open(bucket, objstoretest.DownRetry)
	objstoretest.CheckErrors(t, missing, refused, down)
	if _, err := refused.Open("x"); err == nil || !strings.Contains(err.Error(), "access key clus…") || !strings.Contains(err.Error(), "EnvConfigCredentials") {
		t.Errorf("refusal: %v, want the access key id and where it came from", err)
	}
}

// TestVirtualHost reads with virtual-host addressing: the bucket in the
// host name (clusterlens-test.s3.test:PORT), which versitygw serves under
// --virtual-domain; every host name is dialled at 127.0.0.1.
func TestVirtualHost(t *testing.T) {
	endpoint, put := objstoretest.S3(t)
	domain := sharedtest.Service(t, "CLUSTERLENS_S3_VHOST")
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(endpoint, "http://"))
	key := "vhost/hello.txt"
	put.Bytes(t, key, []byte("hello"))
	t.Setenv("AWS_ENDPOINT_URL_S3", "http://"+domain+":"+port)
	t.Setenv(s3store.AddressingEnv, "virtual")
	var hosts []string
	d := &net.Dialer{Timeout: 5 * time.Second}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		hosts = append(hosts, addr)
		return d.DialContext(ctx, network, "127.0.0.1:"+port)
	}}}
	b, err := s3store.New(context.Background(), bucket, s3store.Options{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	f := objstore.New(b, "s3://"+bucket, objstore.Options{})
	fl, err := f.Open(key)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(fl)
	fl.Close()
	if err != nil || string(got) != "hello" {
		t.Fatalf("read %q, %v", got, err)
	}
	if want := bucket + "." + domain + ":" + port; len(hosts) == 0 || hosts[0] != want {
		t.Errorf("dialled %v, want %s (virtual-host addressing)", hosts, want)
	}
}

// BenchmarkRead reads a 64 MiB object: Parallel4 with objstore's defaults
// (8 MiB ranges, 4 in flight), Parallel1 one range after the other, Local
// the same bytes from a local file.
func BenchmarkRead(b *testing.B) {
	b.Run("Parallel4", func(b *testing.B) { objstoretest.BenchRead(b, store(b), objstore.Options{}) })
	b.Run("Parallel1", func(b *testing.B) { objstoretest.BenchRead(b, store(b), objstore.Options{Parallel: 1}) })
	b.Run("Local", objstoretest.BenchLocal)
}
