// Package mgmtapi plays the k8ssandra management API (management-api-for-apache-cassandra),
// the HTTP server that runs beside Cassandra in every cass-operator pod, with exactly the
// routes cass-operator v1.31 calls, the snapshot routes cassbench's setup calls and the drain,
// flush and compact routes its disruptions call (internal/nodeops). No
// registry serves the real server, so test/local plays it over a real Cassandra node.
//
// Every route answers the status codes and JSON fields of the real API's OpenAPI document,
// management-api-server/doc/openapi.json in github.com/k8ssandra/management-api-for-apache-cassandra
// (read at commit dbc7629230d9), and where the document is silent or wrong, of the resource
// class behind it (management-api-server/src/main/java/com/datastax/mgmtapi/resources/...),
// each cited at its handler. What the operator reads of each answer is in cass-operator
// v1.31.0 pkg/httphelper/client.go. Unknown routes answer 404 and are logged loudly, so a
// route a later operator starts to call shows at once.
package mgmtapi

import (
	"context"
	"errors"
)

// Node is the Cassandra node behind the API: what the real server reaches through its agent
// inside the JVM (CQL over a unix socket, StorageService), here through CQL and nodetool.
// The server keeps the HTTP contract; a Node only does the work.
type Node interface {
	// Start launches the node's process and returns once it is launched, not once it
	// answers CQL (the real /lifecycle/start returns when the launcher exits; the operator
	// then waits for readiness). replaceIP, when set, makes it replace that dead node.
	Start(ctx context.Context, replaceIP string) error
	// Running tells whether the node's process lives.
	Running() bool
	// Query runs one CQL statement on this node alone, as a superuser, and returns its rows.
	Query(ctx context.Context, stmt string, values ...any) ([]map[string]any, error)
	// Endpoints is this node's view of gossip: one map per endpoint, keyed as the real
	// getEndpointStates keys them (application state names, ENDPOINT_IP, IS_ALIVE, IS_LOCAL).
	Endpoints(ctx context.Context) ([]map[string]string, error)
	// Nodetool runs nodetool against this node over JMX and returns what it printed: what
	// the real agent does through StorageService (drain, decommission, cleanup, seeds,
	// snapshots, flush, compact) is done here with nodetool, each route's command built in
	// nodetool.go. A decommission's process keeps running, as a real decommissioned node's
	// does, until its pod is deleted.
	Nodetool(ctx context.Context, args ...string) (string, error)
}

// NonLocalStrategy is the keyspace name the real cleanup passes on when the request names
// none: every keyspace not using LocalStrategy (v1/KeyspaceOpsResources.java, cleanup).
const NonLocalStrategy = "NON_LOCAL_STRATEGY"

// ErrUnreachable is what a Node returns when it cannot reach Cassandra at all (not started,
// not answering CQL yet); the server answers it as the real one answers a closed internal
// connection: 500 "Internal connection to Cassandra closed" (common/BaseResources.java, handle).
var ErrUnreachable = errors.New("internal connection to Cassandra closed")

// jsonEntity is how the real server's JAX-RS/Jackson stack serialises a Response built with
// Entity.json(x): x under "entity", next to the Entity's own properties. The operator reads
// only "entity" (client.go: CassMetadataEndpoints, CallIsFullQueryLogEnabledEndpoint); the
// rest is kept so that a client decoding strictly sees the real shape. The example of GET
// /api/v0/ops/node/fullquerylogging in openapi.json shows the whole envelope.
type jsonEntity struct {
	Entity      any           `json:"entity"`
	Variant     entityVariant `json:"variant"`
	Annotations []string      `json:"annotations"`
	MediaType   entityMedia   `json:"mediaType"`
	Language    *string       `json:"language"`
	Encoding    *string       `json:"encoding"`
}

type entityVariant struct {
	Language       *string     `json:"language"`
	MediaType      entityMedia `json:"mediaType"`
	Encoding       *string     `json:"encoding"`
	LanguageString *string     `json:"languageString"`
}

type entityMedia struct {
	Type            string            `json:"type"`
	Subtype         string            `json:"subtype"`
	Parameters      map[string]string `json:"parameters"`
	WildcardType    bool              `json:"wildcardType"`
	WildcardSubtype bool              `json:"wildcardSubtype"`
}

func entityJSON(v any) jsonEntity {
	media := entityMedia{Type: "application", Subtype: "json", Parameters: map[string]string{}}
	return jsonEntity{
		Entity:      v,
		Variant:     entityVariant{MediaType: media},
		Annotations: []string{},
		MediaType:   media,
	}
}
