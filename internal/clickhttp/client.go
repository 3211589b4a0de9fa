// Package clickhttp speaks ClickHouse's HTTP interface (docs: Interfaces,
// HTTP), the one every version from 1.1 to today answers, with net/http
// only: the query in the URL or the body, the data in the body, errors as a
// non-200 status with the exception's text. It also encodes and decodes the
// RowBinary format. The sample store and the run history both use it.
package clickhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// Client sends queries to one database of one server.
type Client struct {
	base     *url.URL // scheme, host and port
	database string
	user     string
	password string
	hc       *http.Client
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Dial parses rawURL, "http://host:port/database" (the database defaults to
// "clusterlens"; user and password may be given as
// http://user:password@host:port/db), and creates the database when
// missing. hc nil uses a keep-alive client without timeouts beyond the
// contexts'.
func Dial(ctx context.Context, rawURL string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%q: want http://host:port/database", rawURL)
	}
	db := strings.Trim(u.Path, "/")
	if db == "" {
		db = "clusterlens"
	}
	if !identRE.MatchString(db) {
		return nil, fmt.Errorf("%q: database %q: want letters, digits and _", rawURL, db)
	}
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 16
		hc = &http.Client{Transport: tr}
	}
	c := &Client{base: &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}, hc: hc}
	if u.User != nil {
		c.user = u.User.Username()
		c.password, _ = u.User.Password()
	}
	if err := c.Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+db, nil); err != nil {
		return nil, fmt.Errorf("%s/%s: %w", u.Host, db, err)
	}
	c.database = db
	return c, nil
}

// Where names the server and database, for errors.
func (c *Client) Where() string { return c.base.Host + "/" + c.database }

// Do runs query, with body (nil: the query is sent as the body) and
// returns the response body for the caller to read and close.
func (c *Client) Do(ctx context.Context, query string, body []byte) (io.ReadCloser, error) {
	u := *c.base
	v := url.Values{}
	if c.database != "" {
		v.Set("database", c.database)
	}
	var rd io.Reader
	if body == nil {
		rd = strings.NewReader(query)
		// Without it an exception raised after the first rows were sent
		// is appended to a 200 answer as text, which a RowBinary reader
		// could take for rows; with it the server holds the answer (in
		// memory up to buffer_size, then in a temporary file) until the
		// query ends and reports a failure as a failure.
		v.Set("wait_end_of_query", "1")
	} else {
		v.Set("query", query)
		rd = bytes.NewReader(body)
	}
	u.RawQuery = v.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), rd)
	if err != nil {
		return nil, err
	}
	if c.user != "" {
		// Headers, not basic auth: 18.16 reads these; newer versions too.
		req.Header.Set("X-ClickHouse-User", c.user)
		req.Header.Set("X-ClickHouse-Key", c.password)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		resp.Body.Close()
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	return resp.Body, nil
}

// Exec runs a statement that answers nothing useful.
func (c *Client) Exec(ctx context.Context, query string, body []byte) error {
	rc, err := c.Do(ctx, query, body)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, rc)
	return errors.Join(err, rc.Close())
}

// DropDatabase drops the client's database (tests clean up with it).
func (c *Client) DropDatabase(ctx context.Context) error {
	d := *c
	d.database = ""
	return d.Exec(ctx, "DROP DATABASE IF EXISTS "+c.database, nil)
}

// CloseIdleConnections closes the client's idle keep-alive connections.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// Quote returns s as a ClickHouse string literal. Quote and backslash are
// escaped, and every control byte is written as \xHH, which the SQL
// parser of every version reads back as that byte; other bytes, UTF-8 or
// not, stand for themselves.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
