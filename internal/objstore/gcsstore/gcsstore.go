// Package gcsstore is the objstore.Backend of a Google Cloud Storage
// bucket, spoken to through the JSON API over net/http (the Go client
// library would add 28 MB to the binary; this adds 0.4 MB, see
// docs/SOURCES.md). Credentials are Google's Application Default
// Credentials (golang.org/x/oauth2/google): GOOGLE_APPLICATION_CREDENTIALS
// (a service account key, workload identity federation, …), then gcloud's
// application_default_credentials.json, then the metadata server on GCE,
// GKE and Cloud Run. STORAGE_EMULATOR_HOST (host:port or a URL), the
// variable Google's own libraries read, sends every request to an
// emulator instead, without credentials.
package gcsstore

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/clusterlens/clusterlens/internal/objstore"
)

// EmulatorEnv names the emulator endpoint.
const EmulatorEnv = "STORAGE_EMULATOR_HOST"

// Scope is the OAuth scope asked for: read-only.
const Scope = "https://www.googleapis.com/auth/devstorage.read_only"

// Bucket is one GCS bucket.
type Bucket struct {
	hc       *http.Client
	endpoint string // "https://storage.googleapis.com"
	bucket   string
	about    string // the credentials, for errors
}

// Options adjust New; the zero value reads everything from the
// environment.
type Options struct {
	// HTTPClient sends the requests; nil means an authorized client built
	// from the Application Default Credentials (or http.DefaultClient for
	// an emulator).
	HTTPClient *http.Client
	// Endpoint is an emulator's address, reached without credentials
	// (default: STORAGE_EMULATOR_HOST, else https://storage.googleapis.com
	// with credentials).
	Endpoint string
}

// New returns the bucket named bucket.
func New(ctx context.Context, bucket string, opt Options) (*Bucket, error) {
	b := &Bucket{hc: opt.HTTPClient, bucket: bucket}
	if h := os.Getenv(EmulatorEnv); h != "" {
		b.endpoint, b.about = h, "none ("+EmulatorEnv+"="+h+")"
	}
	if opt.Endpoint != "" {
		b.endpoint, b.about = opt.Endpoint, "none (an emulator at "+opt.Endpoint+")"
	}
	if b.endpoint != "" && !strings.Contains(b.endpoint, "://") {
		b.endpoint = "http://" + b.endpoint
	}
	if b.endpoint == "" {
		b.endpoint = "https://storage.googleapis.com"
	}
	b.endpoint = strings.TrimSuffix(b.endpoint, "/")
	if b.hc == nil && b.about == "" {
		creds, err := google.FindDefaultCredentials(ctx, Scope)
		if err != nil {
			return nil, fmt.Errorf("gs://%s: no Google Application Default Credentials: %w", bucket, err)
		}
		b.about = describe(creds)
		b.hc = oauth2.NewClient(context.Background(), creds.TokenSource)
	}
	if b.hc == nil {
		b.hc = http.DefaultClient
	}
	if b.about == "" {
		b.about = "the caller's HTTP client"
	}
	return b, nil
}

// describe says where Application Default Credentials came from.
func describe(c *google.Credentials) string {
	if len(c.JSON) == 0 {
		return "the metadata server's service account (Application Default Credentials)"
	}
	var f struct {
		Type        string `json:"type"`
		ClientEmail string `json:"client_email"`
	}
	_ = json.Unmarshal(c.JSON, &f)
	where := "gcloud's application_default_credentials.json"
	if p := os.Getenv("GOOGLE_APPLICATION_CREDENTIALS"); p != "" {
		where = "GOOGLE_APPLICATION_CREDENTIALS=" + p
	}
	s := f.Type
	if f.ClientEmail != "" {
		s += " " + f.ClientEmail
	}
	return s + " from " + where
}

// List implements objstore.Backend.
func (b *Bucket) List(ctx context.Context, prefix string, fn func(objstore.Entry) error) error {
	q := url.Values{"prefix": {prefix}, "delimiter": {"/"}, "fields": {"items(name,size,updated,generation),prefixes,nextPageToken"}}
	for {
		var page struct {
			Items         []object `json:"items"`
			Prefixes      []string `json:"prefixes"`
			NextPageToken string   `json:"nextPageToken"`
		}
		if err := b.getJSON(ctx, b.endpoint+"/storage/v1/b/"+url.PathEscape(b.bucket)+"/o?"+q.Encode(), &page); err != nil {
			return err
		}
		for _, p := range page.Prefixes {
			if err := fn(objstore.Entry{Key: p, Dir: true}); err != nil {
				return err
			}
		}
		for _, o := range page.Items {
			if err := fn(o.entry()); err != nil {
				return err
			}
		}
		if page.NextPageToken == "" {
			return nil
		}
		q.Set("pageToken", page.NextPageToken)
	}
}

// object is the JSON API's object resource, the fields asked for.
type object struct {
	Name       string    `json:"name"`
	Size       string    `json:"size"` // a decimal string (uint64 in JSON)
	Updated    time.Time `json:"updated"`
	Generation string    `json:"generation"`
}

func (o object) entry() objstore.Entry {
	n, _ := strconv.ParseInt(o.Size, 10, 64)
	return objstore.Entry{Key: o.Name, Size: n, ModTime: o.Updated, Version: o.Generation}
}

// objectURL is the JSON API's address of the object key.
func (b *Bucket) objectURL(key string) string {
	return b.endpoint + "/storage/v1/b/" + url.PathEscape(b.bucket) + "/o/" + url.PathEscape(key)
}

// Stat implements objstore.Backend.
func (b *Bucket) Stat(ctx context.Context, key string) (objstore.Entry, error) {
	var o object
	if err := b.getJSON(ctx, b.objectURL(key)+"?fields=name,size,updated,generation", &o); err != nil {
		return objstore.Entry{}, err
	}
	return o.entry(), nil
}

// Read implements objstore.Backend. The generation pins the version.
func (b *Bucket) Read(ctx context.Context, key, version string, off, n int64) (io.ReadCloser, objstore.Entry, error) {
	u := b.objectURL(key) + "?alt=media"
	if version != "" {
		u += "&ifGenerationMatch=" + url.QueryEscape(version)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, objstore.Entry{}, err
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	resp, err := b.hc.Do(req)
	if err != nil {
		return nil, objstore.Entry{}, err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusPartialContent {
		defer resp.Body.Close()
		return nil, objstore.Entry{}, apiError(resp)
	}
	e := objstore.Entry{Key: key, Size: resp.ContentLength, Version: resp.Header.Get("X-Goog-Generation")}
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		e.ModTime = t
	}
	if _, total, ok := strings.Cut(resp.Header.Get("Content-Range"), "/"); ok {
		if t, err := strconv.ParseInt(total, 10, 64); err == nil {
			e.Size = t
		}
	} else if resp.StatusCode == http.StatusOK && off > 0 {
		resp.Body.Close()
		return nil, e, fmt.Errorf("range %d-%d of %s: the server sent the whole object", off, off+n-1, key)
	}
	return resp.Body, e, nil
}

// getJSON GETs u and decodes its JSON answer into v.
func (b *Bucket) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return apiError(resp)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("answer of %s: %w", req.URL.Redacted(), err)
	}
	return nil
}

// apiError reads the JSON API's error answer
// {"error": {"code": 404, "message": "...", "errors": [{"reason": "notFound"}]}}.
func apiError(resp *http.Response) error {
	var body struct {
		Error struct {
			Message string `json:"message"`
			Errors  []struct {
				Reason string `json:"reason"`
			} `json:"errors"`
		} `json:"error"`
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	he := &objstore.HTTPError{Status: resp.StatusCode}
	if json.Unmarshal(raw, &body) == nil {
		he.Message = body.Error.Message
		if len(body.Error.Errors) > 0 {
			he.Code = body.Error.Errors[0].Reason
		}
	} else {
		he.Message = strings.TrimSpace(string(raw[:min(len(raw), 200)]))
	}
	return he
}

// Credentials implements objstore.Backend.
func (b *Bucket) Credentials() string { return b.about }
