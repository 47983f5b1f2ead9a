package setup

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// existingKeyspace is what system_schema says of a keyspace that is already there.
type existingKeyspace struct {
	Name          string
	Replication   map[string]string
	DurableWrites bool
	Tables        map[string]*existingTable
	// Views are the keyspace's materialized views: no marker can be read from them, so a
	// keyspace holding one is never cassbench's alone.
	Views []string
}

// existingTable is what system_schema says of one table.
type existingTable struct {
	Name          string
	Comment       string
	MapOptions    map[string]map[string]string
	ScalarOptions map[string]string
	Columns       map[string]existingColumn
	Indexes       map[string]existingIndex
}

type existingColumn struct {
	Kind     string
	Position int
	Type     string
}

type existingIndex struct {
	Kind    string
	Options map[string]string
}

// readKeyspace reads keyspace ks from system_schema; nil when it does not exist. Reads go
// through the driver's routing like any query: setup waited for schema agreement before, and
// every node answers system_schema the same once it agrees.
func readKeyspace(ctx context.Context, s *gocql.Session, ks string) (*existingKeyspace, error) {
	k := &existingKeyspace{Name: ks, Tables: map[string]*existingTable{}}
	err := s.Query("SELECT replication, durable_writes FROM system_schema.keyspaces WHERE keyspace_name = ?", ks).
		ScanContext(ctx, &k.Replication, &k.DurableWrites)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading keyspace %s from system_schema.keyspaces: %w", ks, err)
	}

	iter := s.Query(`SELECT table_name, comment, compaction, compression, caching, default_time_to_live,
		gc_grace_seconds, bloom_filter_fp_chance FROM system_schema.tables WHERE keyspace_name = ?`, ks).IterContext(ctx)
	var (
		name, comment                    string
		compaction, compression, caching map[string]string
		ttl, gcGrace                     int
		bloom                            float64
	)
	for iter.Scan(&name, &comment, &compaction, &compression, &caching, &ttl, &gcGrace, &bloom) {
		k.Tables[name] = &existingTable{
			Name: name, Comment: comment,
			MapOptions: map[string]map[string]string{"compaction": compaction, "compression": compression, "caching": caching},
			ScalarOptions: map[string]string{
				"default_time_to_live":   strconv.Itoa(ttl),
				"gc_grace_seconds":       strconv.Itoa(gcGrace),
				"bloom_filter_fp_chance": strconv.FormatFloat(bloom, 'g', -1, 64),
			},
			Columns: map[string]existingColumn{}, Indexes: map[string]existingIndex{},
		}
		compaction, compression, caching = nil, nil, nil
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("reading the tables of keyspace %s from system_schema.tables: %w", ks, err)
	}

	iter = s.Query("SELECT table_name, column_name, kind, position, type FROM system_schema.columns WHERE keyspace_name = ?", ks).IterContext(ctx)
	var col, kind, typ string
	var pos int
	for iter.Scan(&name, &col, &kind, &pos, &typ) {
		if t := k.Tables[name]; t != nil {
			t.Columns[col] = existingColumn{Kind: kind, Position: pos, Type: typ}
		}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("reading the columns of keyspace %s from system_schema.columns: %w", ks, err)
	}

	iter = s.Query("SELECT table_name, index_name, kind, options FROM system_schema.indexes WHERE keyspace_name = ?", ks).IterContext(ctx)
	var options map[string]string
	for iter.Scan(&name, &col, &kind, &options) {
		if t := k.Tables[name]; t != nil {
			t.Indexes[col] = existingIndex{Kind: kind, Options: options}
		}
		options = nil
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("reading the indexes of keyspace %s from system_schema.indexes: %w", ks, err)
	}

	iter = s.Query("SELECT view_name FROM system_schema.views WHERE keyspace_name = ?", ks).IterContext(ctx)
	for iter.Scan(&name) {
		k.Views = append(k.Views, name)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("reading the views of keyspace %s from system_schema.views: %w", ks, err)
	}
	return k, nil
}
