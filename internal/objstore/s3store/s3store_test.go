package s3store_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/objstore/objstoretest"
	"github.com/clusterlens/clusterlens/internal/objstore/s3store"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// bucket is the bucket the tests write to.
const bucket = "clusterlens-test"

// server configures the environment for the S3 server that .ci/services/s3.sh
// starts (versitygw) and returns its endpoint and a client to write with.
func server(t testing.TB) (string, *s3.Client) {
	endpoint := sharedtest.Service(t, "CLUSTERLENS_S3_ENDPOINT")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           sharedtest.Service(t, "CLUSTERLENS_S3_ACCESS_KEY"),
		"AWS_SECRET_ACCESS_KEY":       sharedtest.Service(t, "CLUSTERLENS_S3_SECRET_KEY"),
		"AWS_ENDPOINT_URL_S3":         endpoint,
		"AWS_REGION":                  "us-east-1",
		"AWS_EC2_METADATA_DISABLED":   "true", // never ask 169.254.169.254
		"AWS_CONFIG_FILE":             "/dev/null",
		"AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
		"AWS_PROFILE":                 "",
		s3store.AddressingEnv:         "",
	} {
		t.Setenv(k, v)
	}
	c := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: &endpoint, UsePathStyle: true,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: sharedtest.Service(t, "CLUSTERLENS_S3_ACCESS_KEY"), SecretAccessKey: sharedtest.Service(t, "CLUSTERLENS_S3_SECRET_KEY")}, nil
		}),
	})
	_, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)})
	var owned interface{ ErrorCode() string }
	if err != nil && !(errors.As(err, &owned) && strings.HasPrefix(owned.ErrorCode(), "BucketAlready")) {
		t.Fatalf("create bucket: %v", err)
	}
	return endpoint, c
}

// store is the test bucket as an objstoretest.Store.
func store(t testing.TB) objstoretest.Store {
	_, c := server(t)
	return objstoretest.Store{
		New: func(opt objstore.Options) *objstore.FS {
			b, err := s3store.New(context.Background(), bucket, s3store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return objstore.New(b, "s3://"+bucket, opt)
		},
		Put: func(t testing.TB, key string, r io.Reader, size int64) {
			_, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: &key, Body: r, ContentLength: &size})
			if err != nil {
				t.Fatalf("put %s: %v", key, err)
			}
		},
	}
}

func TestConformance(t *testing.T) { objstoretest.Run(t, store(t)) }

func TestLargeObjectBoundedMemory(t *testing.T) {
	objstoretest.Large(t, store(t), 64<<20, 24<<20)
}

func TestRealLogs(t *testing.T) { objstoretest.RealLogs(t, store(t).Put, "s3://"+bucket+"/") }

func TestErrors(t *testing.T) {
	endpoint, _ := server(t)
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
	_ = endpoint
}

// TestVirtualHost reads with virtual-host addressing: the bucket in the
// host name (clusterlens-test.s3.test:PORT), which versitygw serves under
// --virtual-domain; every host name is dialled at 127.0.0.1.
func TestVirtualHost(t *testing.T) {
	endpoint, c := server(t)
	domain := sharedtest.Service(t, "CLUSTERLENS_S3_VHOST")
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(endpoint, "http://"))
	key := "vhost/hello.txt"
	if _, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: &key, Body: strings.NewReader("hello")}); err != nil {
		t.Fatal(err)
	}
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
