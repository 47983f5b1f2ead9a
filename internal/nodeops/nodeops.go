// Package nodeops asks a Cassandra node's management API (the one cass-operator's images
// serve on port 8080 of each pod) to drain the node or to flush or major-compact a table,
// the way cass-operator's own client does (pkg/httphelper: POST /api/v0/ops/node/drain,
// /api/v0/ops/tables/flush and /api/v0/ops/tables/compact). The bodies carry every field the
// real API's OpenAPI document marks required (management-api-server/doc/openapi.json in
// github.com/k8ssandra/management-api-for-apache-cassandra at dbc7629230d9:
// components.schemas.KeyspaceRequest requires jobs, keyspace_name and tables, CompactRequest
// keyspace_name, split_output and user_defined). The server's Jackson decoding does not
// enforce them (cass-operator omits split_output and user_defined), but a client that keeps
// to the document does not depend on that. The v0 calls return once the operation finished:
// TableOpsResources.flush and compact and NodeOpsResources.drain run it synchronously.
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
	return c.post(ctx, ip, "/api/v0/ops/tables/flush", keyspaceRequest{Jobs: 1, Keyspace: keyspace, Tables: []string{table}})
}

// Compact major-compacts keyspace.table on the node at ip.
func (c Client) Compact(ctx context.Context, ip, keyspace, table string) error {
	return c.post(ctx, ip, "/api/v0/ops/tables/compact", compactRequest{Keyspace: keyspace, Tables: []string{table}})
}

// keyspaceRequest is the management API's KeyspaceRequest. Jobs is 1: the server takes 0 as
// 1 (models/KeyspaceRequest.java), and a flush has no use for more.
type keyspaceRequest struct {
	Jobs     int      `json:"jobs"`
	Keyspace string   `json:"keyspace_name"`
	Tables   []string `json:"tables"`
}

// compactRequest is the management API's CompactRequest for a major compaction: one SSTable
// out (no split_output), of the tables named (not user_defined files), over every token.
type compactRequest struct {
	SplitOutput bool     `json:"split_output"`
	UserDefined bool     `json:"user_defined"`
	Keyspace    string   `json:"keyspace_name"`
	Tables      []string `json:"tables"`
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
