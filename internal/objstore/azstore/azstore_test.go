package azstore_test

import (
	"context"
	"io"
	"testing"

	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/objstore/azstore"
	"github.com/clusterlens/clusterlens/internal/objstore/objstoretest"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

const (
	container = "clusterlens-test"
	// authority is the container's ADLS Gen2 address, as abfss:// URLs
	// write it; the connection string sends it to Azurite.
	authority = container + "@devstoreaccount1.dfs.core.windows.net"
	// devKey is Azurite's well-known development account key.
	devKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// server points AZURE_STORAGE_CONNECTION_STRING at the Azurite that
// .ci/services/azure.sh starts and creates the test container.
func server(t testing.TB) *azstore.Container {
	endpoint := sharedtest.Service(t, "CLUSTERLENS_AZURE_BLOB_ENDPOINT")
	connect(t, endpoint, devKey)
	c, err := azstore.New(context.Background(), authority, azstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(context.Background()); err != nil {
		t.Fatalf("create container: %v", err)
	}
	return c
}

// connect sets the connection string of the development account.
func connect(t testing.TB, endpoint, key string) {
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey="+key+";BlobEndpoint="+endpoint+";")
	for _, k := range []string{"AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN"} {
		t.Setenv(k, "")
	}
}

func store(t testing.TB) objstoretest.Store {
	c := server(t)
	return objstoretest.Store{
		New: func(opt objstore.Options) *objstore.FS {
			b, err := azstore.New(context.Background(), authority, azstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return objstore.New(b, "abfss://"+authority, opt)
		},
		Put: func(t testing.TB, key string, r io.Reader, size int64) {
			if err := c.Put(context.Background(), key, r, size); err != nil {
				t.Fatalf("put %s: %v", key, err)
			}
		},
	}
}

func TestConformance(t *testing.T) { objstoretest.Run(t, store(t)) }

func TestLargeObjectBoundedMemory(t *testing.T) {
	objstoretest.Large(t, store(t), 64<<20, 24<<20)
}

func TestRealLogs(t *testing.T) {
	objstoretest.RealLogs(t, store(t).Put, "abfss://"+authority+"/")
}

func TestErrors(t *testing.T) {
	server(t)
	endpoint := sharedtest.Service(t, "CLUSTERLENS_AZURE_BLOB_ENDPOINT")
	open := func(auth string, retry objstore.Retry) *objstore.FS {
		b, err := azstore.New(context.Background(), auth, azstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return objstore.New(b, "abfss://"+auth, objstore.Options{Retry: retry})
	}
	missing := open("no-such-container@devstoreaccount1.dfs.core.windows.net", objstore.Retry{})
	connect(t, endpoint, "d3Jvbmcga2V5") // base64 of "wrong key"
	refused := open(authority, objstore.Retry{})
	connect(t, "http://127.0.0.1:1/devstoreaccount1", devKey)
	down := open(authority, objstoretest.DownRetry)
	objstoretest.CheckErrors(t, missing, refused, down)
}

// BenchmarkRead reads a 64 MiB object: Parallel4 with objstore's defaults
// (8 MiB ranges, 4 in flight), Parallel1 one range after the other, Local
// the same bytes from a local file.
func BenchmarkRead(b *testing.B) {
	b.Run("Parallel4", func(b *testing.B) { objstoretest.BenchRead(b, store(b), objstore.Options{}) })
	b.Run("Parallel1", func(b *testing.B) { objstoretest.BenchRead(b, store(b), objstore.Options{Parallel: 1}) })
	b.Run("Local", objstoretest.BenchLocal)
}
