// Package azstore is the objstore.Backend of an Azure Blob Storage
// container, ADLS Gen2 included (its abfss:// URLs are read through the
// Blob API, which hierarchical-namespace accounts also serve). It speaks the
// Blob REST API over net/http (the azblob SDK would add 4.8 MB to the
// binary, see docs/SOURCES.md) and takes its credentials, in order, from:
//
//  1. AZURE_STORAGE_CONNECTION_STRING, when it names the URL's account (or
//     no account): its AccountKey or SharedAccessSignature, and its
//     BlobEndpoint (how an emulator such as Azurite is reached);
//     UseDevelopmentStorage=true means Azurite's defaults;
//  2. AZURE_STORAGE_KEY, the account's shared key (as the az CLI reads it);
//  3. AZURE_STORAGE_SAS_TOKEN, a shared access signature;
//  4. azidentity's DefaultAzureCredential: a service principal from
//     AZURE_CLIENT_ID/AZURE_TENANT_ID/AZURE_CLIENT_SECRET (or a
//     certificate), workload identity, managed identity, then the Azure CLI
//     and Azure Developer CLI logins.
package azstore

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/clusterlens/clusterlens/internal/objstore"
)

// apiVersion is the Blob REST API version sent (x-ms-version).
const apiVersion = "2021-08-06"

// Azurite's well-known development account (UseDevelopmentStorage=true).
const (
	devAccount  = "devstoreaccount1"
	devKey      = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	devEndpoint = "http://127.0.0.1:10000/devstoreaccount1"
)

// Container is one blob container.
type Container struct {
	hc        *http.Client
	endpoint  string // blob service URL, without a trailing "/"
	account   string
	container string

	key   []byte // shared key, or nil
	sas   string // shared access signature query, or ""
	token azcore.TokenCredential
	about string // the credentials, for errors

	mu     sync.Mutex
	bearer azcore.AccessToken
}

// Options adjust New; the zero value reads everything from the
// environment.
type Options struct {
	// HTTPClient sends the requests (nil: http.DefaultClient).
	HTTPClient *http.Client
}

// New returns the container an Azure URL's authority names:
// "container@account.dfs.core.windows.net" (abfss://) or
// "container@account.blob.core.windows.net" (wasbs://); a bare
// "container@account" means the public cloud.
func New(ctx context.Context, authority string, opt Options) (*Container, error) {
	container, host, ok := strings.Cut(authority, "@")
	if !ok || container == "" || host == "" {
		return nil, fmt.Errorf("%q: want container@account.dfs.core.windows.net", authority)
	}
	account, suffix, _ := strings.Cut(host, ".")
	for _, svc := range []string{"dfs.", "blob."} {
		suffix = strings.TrimPrefix(suffix, svc)
	}
	if suffix == "" {
		suffix = "core.windows.net"
	}
	c := &Container{hc: opt.HTTPClient, account: account, container: container,
		endpoint: "https://" + account + ".blob." + suffix}
	if c.hc == nil {
		c.hc = http.DefaultClient
	}
	if err := c.credentials(); err != nil {
		return nil, fmt.Errorf("%s: %w", authority, err)
	}
	return c, nil
}

// credentials picks the first credentials the environment offers.
func (c *Container) credentials() error {
	if cs := os.Getenv("AZURE_STORAGE_CONNECTION_STRING"); cs != "" {
		kv := parseConnectionString(cs)
		if kv["usedevelopmentstorage"] == "true" {
			kv = map[string]string{"accountname": devAccount, "accountkey": devKey, "blobendpoint": devEndpoint}
		}
		if name := kv["accountname"]; name == "" || name == c.account {
			if ep := kv["blobendpoint"]; ep != "" {
				c.endpoint = strings.TrimSuffix(ep, "/")
			}
			switch {
			case kv["accountkey"] != "":
				return c.useKey(kv["accountkey"], "shared key of account "+c.account+" from AZURE_STORAGE_CONNECTION_STRING")
			case kv["sharedaccesssignature"] != "":
				c.sas = strings.TrimPrefix(kv["sharedaccesssignature"], "?")
				c.about = "shared access signature from AZURE_STORAGE_CONNECTION_STRING"
				return nil
			}
		}
	}
	if k := os.Getenv("AZURE_STORAGE_KEY"); k != "" {
		return c.useKey(k, "shared key of account "+c.account+" from AZURE_STORAGE_KEY")
	}
	if s := os.Getenv("AZURE_STORAGE_SAS_TOKEN"); s != "" {
		c.sas = strings.TrimPrefix(s, "?")
		c.about = "shared access signature from AZURE_STORAGE_SAS_TOKEN"
		return nil
	}
	cred, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		return fmt.Errorf("no Azure credentials (connection string, AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or DefaultAzureCredential): %w", err)
	}
	c.token = cred
	c.about = "Microsoft Entra ID token from DefaultAzureCredential (environment service principal, workload identity, managed identity, Azure CLI, Azure Developer CLI, in that order)"
	return nil
}

func (c *Container) useKey(k, about string) error {
	key, err := base64.StdEncoding.DecodeString(k)
	if err != nil {
		return fmt.Errorf("%s: not base64: %w", about, err)
	}
	c.key, c.about = key, about
	return nil
}

// parseConnectionString splits "Key=Value;…" with keys in lower case.
func parseConnectionString(s string) map[string]string {
	kv := map[string]string{}
	for _, part := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(part, "=")
		if ok {
			kv[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	return kv
}

// blobURL is the address of the blob key, each segment escaped.
func (c *Container) blobURL(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return c.endpoint + "/" + url.PathEscape(c.container) + "/" + strings.Join(segs, "/")
}

// do sends a request with the credentials; a non-2xx answer becomes an
// *objstore.HTTPError.
func (c *Container) do(ctx context.Context, method, u string, hdr http.Header) (*http.Response, error) {
	if c.sas != "" {
		if strings.Contains(u, "?") {
			u += "&" + c.sas
		} else {
			u += "?" + c.sas
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("x-ms-version", apiVersion)
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	switch {
	case c.key != nil:
		req.Header.Set("Authorization", "SharedKey "+c.account+":"+c.sign(req))
	case c.token != nil:
		tok, err := c.accessToken(ctx)
		if err != nil {
			return nil, fmt.Errorf("token: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, apiError(resp)
	}
	return resp, nil
}

// accessToken returns a bearer token, refreshed 5 minutes before it
// expires.
func (c *Container) accessToken(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bearer.Token != "" && time.Until(c.bearer.ExpiresOn) > 5*time.Minute {
		return c.bearer.Token, nil
	}
	tok, err := c.token.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{"https://storage.azure.com/.default"}})
	if err != nil {
		return "", err
	}
	c.bearer = tok
	return tok.Token, nil
}

// sign returns the Shared Key signature of req ("Authorize with Shared
// Key", Azure Storage REST API reference, version 2009-09-19 and later).
func (c *Container) sign(req *http.Request) string {
	h := req.Header
	var b strings.Builder
	b.WriteString(req.Method + "\n")
	for _, name := range []string{"Content-Encoding", "Content-Language", "Content-Length", "Content-MD5", "Content-Type", "Date",
		"If-Modified-Since", "If-Match", "If-None-Match", "If-Unmodified-Since", "Range"} {
		v := h.Get(name)
		if name == "Content-Length" && v == "0" {
			v = ""
		}
		b.WriteString(v + "\n")
	}
	var ms []string
	for k := range h {
		if lk := strings.ToLower(k); strings.HasPrefix(lk, "x-ms-") {
			ms = append(ms, lk)
		}
	}
	slices.Sort(ms)
	for _, k := range ms {
		b.WriteString(k + ":" + strings.TrimSpace(h.Get(k)) + "\n")
	}
	b.WriteString("/" + c.account + req.URL.EscapedPath())
	q := req.URL.Query()
	var names []string
	for k := range q {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		vs := slices.Clone(q[k])
		slices.Sort(vs)
		b.WriteString("\n" + strings.ToLower(k) + ":" + strings.Join(vs, ","))
	}
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(b.String()))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// apiError reads a Blob service error: <Error><Code>…</Code><Message>…,
// or the x-ms-error-code header of a HEAD.
func apiError(resp *http.Response) error {
	he := &objstore.HTTPError{Status: resp.StatusCode, Code: resp.Header.Get("x-ms-error-code")}
	var body struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if xml.Unmarshal(raw, &body) == nil {
		he.Code = body.Code
		he.Message, _, _ = strings.Cut(strings.TrimSpace(body.Message), "\n") // drop the RequestId and Time lines
	}
	return he
}

// List implements objstore.Backend.
func (c *Container) List(ctx context.Context, prefix string, fn func(objstore.Entry) error) error {
	q := url.Values{"restype": {"container"}, "comp": {"list"}, "prefix": {prefix}, "delimiter": {"/"}}
	for {
		resp, err := c.do(ctx, http.MethodGet, c.endpoint+"/"+url.PathEscape(c.container)+"?"+q.Encode(), nil)
		if err != nil {
			return err
		}
		var page struct {
			Blobs []struct {
				Name       string `xml:"Name"`
				Properties struct {
					LastModified  string `xml:"Last-Modified"`
					Etag          string `xml:"Etag"`
					ContentLength int64  `xml:"Content-Length"`
				} `xml:"Properties"`
			} `xml:"Blobs>Blob"`
			Prefixes   []string `xml:"Blobs>BlobPrefix>Name"`
			NextMarker string   `xml:"NextMarker"`
		}
		err = xml.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("blob listing: %w", err)
		}
		for _, p := range page.Prefixes {
			if err := fn(objstore.Entry{Key: p, Dir: true}); err != nil {
				return err
			}
		}
		for _, bl := range page.Blobs {
			t, _ := http.ParseTime(bl.Properties.LastModified)
			if err := fn(objstore.Entry{Key: bl.Name, Size: bl.Properties.ContentLength, ModTime: t, Version: bl.Properties.Etag}); err != nil {
				return err
			}
		}
		if page.NextMarker == "" {
			return nil
		}
		q.Set("marker", page.NextMarker)
	}
}

// entry reads a blob's attributes from an answer's headers.
func entry(key string, resp *http.Response) objstore.Entry {
	e := objstore.Entry{Key: key, Size: resp.ContentLength, Version: resp.Header.Get("ETag")}
	e.ModTime, _ = http.ParseTime(resp.Header.Get("Last-Modified"))
	if _, total, ok := strings.Cut(resp.Header.Get("Content-Range"), "/"); ok {
		if n, err := strconv.ParseInt(total, 10, 64); err == nil {
			e.Size = n
		}
	}
	return e
}

// Stat implements objstore.Backend.
func (c *Container) Stat(ctx context.Context, key string) (objstore.Entry, error) {
	resp, err := c.do(ctx, http.MethodHead, c.blobURL(key), nil)
	if err != nil {
		return objstore.Entry{}, err
	}
	resp.Body.Close()
	return entry(key, resp), nil
}

// Read implements objstore.Backend; the ETag pins the version.
func (c *Container) Read(ctx context.Context, key, version string, off, n int64) (io.ReadCloser, objstore.Entry, error) {
	hdr := http.Header{"X-Ms-Range": {fmt.Sprintf("bytes=%d-%d", off, off+n-1)}}
	if version != "" {
		hdr.Set("If-Match", version)
	}
	resp, err := c.do(ctx, http.MethodGet, c.blobURL(key), hdr)
	if err != nil {
		return nil, objstore.Entry{}, err
	}
	return resp.Body, entry(key, resp), nil
}

// Credentials implements objstore.Backend.
func (c *Container) Credentials() string { return c.about }
