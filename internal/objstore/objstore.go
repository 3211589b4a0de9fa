// Package objstore reads a bucket of an object store as a read-only file
// system (io/fs), so that whatever reads logs or metrics from a folder reads
// them from a bucket prefix too. The stores themselves (S3, Google Cloud
// Storage, Azure Blob Storage) are Backends in the packages beside this one;
// internal/objstore/open picks one from a URL.
//
// An FS maps the "/"-separated keys of one bucket onto fs paths: the key
// "logs/app-1.zst" is the file "logs/app-1.zst", and every key prefix
// ending at a "/" is a folder. Files stream: Open reads a first small
// range, then ranges of ChunkSize bytes, up to Parallel of them in flight
// (read-ahead), so memory per open file is bounded by Parallel × ChunkSize
// whatever the object's size. Every request is retried with exponential
// backoff on transient errors (connection refused or reset, HTTP 408, 429
// and 5xx), and errors name the object's URL and the cause.
package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"
)

// Backend is one bucket of an object store, addressed by keys such as
// "logs/app-1.zst". Implementations classify their errors: wrap
// fs.ErrNotExist for a missing object or bucket, fs.ErrPermission for a
// refusal, and ErrTransient for what is worth retrying (an *HTTPError
// does all three by its status); errors from the network are classified
// here. They do not retry themselves.
type Backend interface {
	// List calls fn for every object whose key starts with prefix and has
	// no "/" after it, and once for every distinct key prefix that ends at
	// the first "/" after prefix (a folder, with Dir set and the key ending
	// in "/"), in any order. prefix is "" or a key prefix such as "logs/"
	// or "logs/app-".
	List(ctx context.Context, prefix string, fn func(Entry) error) error
	// Stat returns the attributes of the object at key.
	Stat(ctx context.Context, key string) (Entry, error)
	// Read returns bytes [off, off+n) of the object at key, or fewer when
	// the object ends before, with the object's attributes (Size is the
	// whole object's). When version is not "", the object must still be
	// at that version, else the error wraps ErrChanged. An empty object
	// returns an empty body.
	Read(ctx context.Context, key, version string, off, n int64) (io.ReadCloser, Entry, error)
	// Credentials says which credentials the backend uses, for errors
	// that a refusal gives ("access key AKIA… from the environment").
	Credentials() string
}

// Entry is an object or a folder (a common key prefix).
type Entry struct {
	Key     string    // full key; a folder's ends with "/"
	Size    int64     // bytes stored
	ModTime time.Time // last modification
	Dir     bool      // a key prefix, not an object
	Version string    // ETag or generation: what Read's version matches
}

// Sentinel errors that backends wrap.
var (
	// ErrTransient marks an error worth retrying.
	ErrTransient = errors.New("transient")
	// ErrChanged marks an object replaced while it was being read.
	ErrChanged = errors.New("object changed while being read")
)

// HTTPError is a store's refusal of one request: its HTTP status and the
// store's own error code and message. It wraps fs.ErrNotExist for 404,
// fs.ErrPermission for 401 and 403, ErrChanged for 412 and ErrTransient
// for 408, 429 and 5xx.
type HTTPError struct {
	Status  int    // HTTP status code
	Code    string // the store's error code ("NoSuchBucket", "AuthorizationFailure")
	Message string // the store's message, if any
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status))
	switch {
	case e.Code != "" && e.Message != "":
		s += " (" + e.Code + ": " + e.Message + ")"
	case e.Code != "" || e.Message != "":
		s += " (" + e.Code + e.Message + ")"
	}
	return s
}

// Unwrap classifies the status.
func (e *HTTPError) Unwrap() error {
	switch {
	case e.Status == http.StatusNotFound:
		return fs.ErrNotExist
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		return fs.ErrPermission
	case e.Status == http.StatusPreconditionFailed:
		return ErrChanged
	case e.Status == http.StatusRequestTimeout || e.Status == http.StatusTooManyRequests || e.Status >= 500:
		return ErrTransient
	}
	return nil
}

// Error is a failed operation on a store: what was done to which URL, after
// how many attempts, and why. A refusal (401, 403) adds the credentials
// that were tried.
type Error struct {
	Op       string        // "list", "stat", "read"
	URL      string        // the object or prefix, as a URL (s3://bucket/key)
	Attempts int           // requests sent
	Elapsed  time.Duration // from the first request to giving up
	Creds    string        // the credentials used, for refusals
	Err      error         // the last request's error
}

func (e *Error) Error() string {
	s := e.URL + ": " + e.Op + ": " + e.Err.Error()
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (gave up after %d attempts in %s)", e.Attempts, e.Elapsed.Round(time.Millisecond))
	}
	if e.Creds != "" && errors.Is(e.Err, fs.ErrPermission) {
		s += "; credentials tried: " + e.Creds
	}
	return s
}

// Unwrap returns the last request's error.
func (e *Error) Unwrap() error { return e.Err }

// Options tune an FS; the zero value of each field means its default.
type Options struct {
	// ChunkSize is the size of the ranges read after the first (default
	// 8 MiB).
	ChunkSize int64
	// FirstChunk is the size of the first range read by Open (default
	// 64 KiB): what the log finder's sniffing reads (a 64 KiB buffer for
	// at most 8 KiB of decompressed text), so that finding logs costs one
	// small request per object.
	FirstChunk int64
	// Parallel is how many ranges of one file are fetched at once
	// (default 4); 1 reads them one after the other.
	Parallel int
	// Retry is the retry policy of every request.
	Retry Retry
}

// Defaults of Options.
const (
	DefaultChunkSize  = 8 << 20
	DefaultFirstChunk = 64 << 10
	DefaultParallel   = 4
)

func (o Options) withDefaults() Options {
	if o.ChunkSize <= 0 {
		o.ChunkSize = DefaultChunkSize
	}
	if o.FirstChunk <= 0 {
		o.FirstChunk = DefaultFirstChunk
	}
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	o.Retry = o.Retry.withDefaults()
	return o
}

// Schemes lists the URL schemes of the stores, with the store each names.
var Schemes = map[string]string{
	"s3": "S3", "s3a": "S3", "s3n": "S3",
	"gs":   "Google Cloud Storage",
	"abfs": "Azure (ADLS Gen2)", "abfss": "Azure (ADLS Gen2)",
	"wasb": "Azure Blob Storage", "wasbs": "Azure Blob Storage",
	"hdfs": "HDFS", "webhdfs": "HDFS", "swebhdfs": "HDFS",
}

// IsURL reports whether p names an object store (s3://, gs://, abfss://, …)
// rather than a local path.
func IsURL(p string) bool {
	scheme, _, ok := strings.Cut(p, "://")
	if !ok {
		return false
	}
	_, known := Schemes[strings.ToLower(scheme)]
	return known
}
