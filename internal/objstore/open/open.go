// Package open opens an object-store URL (s3://, gs://, abfss://, wasbs://)
// as an objstore.FS with the backend its scheme names. HDFS URLs are
// refused with the reason.
package open

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/objstore/azstore"
	"github.com/clusterlens/clusterlens/internal/objstore/gcsstore"
	"github.com/clusterlens/clusterlens/internal/objstore/s3store"
)

// ErrUnsupported is wrapped by the error for a store that cannot be read.
var ErrUnsupported = errors.New("unsupported store")

// Location is a parsed object-store URL.
type Location struct {
	Scheme    string // lower case: "s3", "gs", "abfss", …
	Authority string // bucket, or container@account.host for Azure
	Path      string // fs path of the object or prefix in the bucket; "." for the bucket
}

// Parse splits an object-store URL. Its path is taken literally (keys may
// hold "?", "#" or "%") and cleaned: "s3://b/logs/" and "s3://b/logs" both
// name the key prefix "logs".
func Parse(raw string) (Location, error) {
	if !objstore.IsURL(raw) {
		return Location{}, fmt.Errorf("%q: not an object-store URL (want s3://, gs://, abfss://, wasbs://)", raw)
	}
	scheme, rest, _ := strings.Cut(raw, "://")
	host, p, _ := strings.Cut(rest, "/")
	if host == "" {
		return Location{}, fmt.Errorf("%q: no bucket", raw)
	}
	p = path.Clean("/" + p)[1:]
	if p == "" {
		p = "."
	}
	if !fs.ValidPath(p) {
		return Location{}, fmt.Errorf("%q: the key is not valid UTF-8", raw)
	}
	return Location{Scheme: strings.ToLower(scheme), Authority: host, Path: p}, nil
}

// cache holds the file systems opened so far, one per bucket, so that
// configuration and credentials are looked up once per process.
var (
	mu    sync.Mutex
	cache = map[string]*objstore.FS{}
)

// Open returns the file system of the bucket that raw names and the fs
// path of raw in it. opt applies to the bucket's first opening only; later ones share it.
func Open(ctx context.Context, raw string, opt objstore.Options) (*objstore.FS, string, error) {
	loc, err := Parse(raw)
	if err != nil {
		return nil, "", err
	}
	id := loc.Scheme + "://" + loc.Authority
	mu.Lock()
	defer mu.Unlock()
	if f := cache[id]; f != nil {
		return f, loc.Path, nil
	}
	var b objstore.Backend
	base := id + "/"
	switch loc.Scheme {
	case "s3", "s3a", "s3n":
		b, err = s3store.New(ctx, loc.Authority, s3store.Options{})
	case "gs":
		b, err = gcsstore.New(ctx, loc.Authority, gcsstore.Options{})
	case "abfs", "abfss", "wasb", "wasbs":
		b, err = azstore.New(ctx, loc.Authority, azstore.Options{})
	case "hdfs", "webhdfs", "swebhdfs":
		err = fmt.Errorf("%s: %w: HDFS is not readable yet; copy the logs out (hdfs dfs -get) or read them through an S3 gateway", raw, ErrUnsupported)
	}
	if err != nil {
		return nil, "", err
	}
	f := objstore.New(b, base, opt)
	cache[id] = f
	return f, loc.Path, nil
}
