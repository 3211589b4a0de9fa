package azstore

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/clusterlens/clusterlens/internal/objstore"
)

// Put writes a block blob (tests only: clusterlens never writes).
func (c *Container) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	return c.send(ctx, http.MethodPut, c.blobURL(key), r, size, http.Header{"X-Ms-Blob-Type": {"BlockBlob"}})
}

// Create creates the container; an existing one is no error.
func (c *Container) Create(ctx context.Context) error {
	err := c.send(ctx, http.MethodPut, c.endpoint+"/"+c.container+"?restype=container", nil, 0, nil)
	var he *objstore.HTTPError
	if errors.As(err, &he) && he.Status == http.StatusConflict {
		return nil
	}
	return err
}

// send signs and sends a request with a body.
func (c *Container) send(ctx context.Context, method, u string, body io.Reader, size int64, hdr http.Header) error {
	if size == 0 {
		body = http.NoBody // not chunked
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.ContentLength = size
	req.Header.Set("Content-Length", strconv.FormatInt(size, 10))
	req.Header.Set("x-ms-version", apiVersion)
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("Authorization", "SharedKey "+c.account+":"+c.sign(req))
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return apiError(resp)
	}
	return nil
}
