// Package nodeops asks a Cassandra node's management API (the one cass-operator's images
// serve on port 8080 of each pod) to drain the node or to flush or major-compact a table,
// the way cass-operator's own client does (pkg/httphelper: POST /api/v0/ops/node/drain,
// /api/v0/ops/tables/flush and /api/v0/ops/tables/compact, the table calls with a JSON body
// of keyspace_name and tables). The v0 table calls return once the operation finished.
package nodeops

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// DefaultPort is the management API's port in cass-operator's pods.
const DefaultPort = 8080

// Client calls the management API of a pod.
type Client struct {
	// HTTP does the requests; http.DefaultClient when nil. The caller bounds each call
	// through its context.
	HTTP *http.Client
	// Port of the management API; DefaultPort when 0.
	Port int
}

// Drain drains the node at ip: it flushes every table and stops serving.
func (c Client) Drain(ctx context.Context, ip string) error {
	return c.post(ctx, ip, "/api/v0/ops/node/drain", nil)
}

// Flush flushes keyspace.table on the node at ip.
func (c Client) Flush(ctx context.Context, ip, keyspace, table string) error {
	return c.post(ctx, ip, "/api/v0/ops/tables/flush", tableRequest{Keyspace: keyspace, Tables: []string{table}})
}

// Compact major-compacts keyspace.table on the node at ip.
func (c Client) Compact(ctx context.Context, ip, keyspace, table string) error {
	return c.post(ctx, ip, "/api/v0/ops/tables/compact", tableRequest{Keyspace: keyspace, Tables: []string{table}})
}

// tableRequest is the management API's KeyspaceRequest (and the fields of CompactRequest
// this package sets).
type tableRequest struct {
	Keyspace string   `json:"keyspace_name"`
	Tables   []string `json:"tables"`
}

func (c Client) post(ctx context.Context, ip, path string, body any) error {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return err
		}
	}
	port := c.Port
	if port == 0 {
		port = DefaultPort
	}
	url := "http://" + net.JoinHostPort(ip, strconv.Itoa(port)) + path
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	h := c.HTTP
	if h == nil {
		h = http.DefaultClient
	}
	resp, err := h.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	text, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("POST %s: %s: %s", url, resp.Status, strings.TrimSpace(string(text)))
	}
	return nil
}
