package workload

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

const simpleKeyspace = "CREATE KEYSPACE IF NOT EXISTS cassbench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1} AND durable_writes = true"

func TestProfileTables(t *testing.T) {
	want := map[cbv1.TableProfile]string{
		"key-value":     "CREATE TABLE IF NOT EXISTS cassbench.key_value (key bigint, value blob, PRIMARY KEY (key))",
		"ip-by-country": "CREATE TABLE IF NOT EXISTS cassbench.hosts_by_country (country text, ip text, region text, city text, lati text, longi text, izp text, timezone text, PRIMARY KEY (country, ip))",
		"ip-by-city":    "CREATE TABLE IF NOT EXISTS cassbench.hosts_by_city (country text, region text, city text, ip text, lati text, longi text, izp text, timezone text, PRIMARY KEY ((country, region, city), ip))",
		"revisions":     "CREATE TABLE IF NOT EXISTS cassbench.revisions (title text, rev timeuuid, author text, comment text, content text, PRIMARY KEY (title, rev)) WITH CLUSTERING ORDER BY (rev DESC)",
		"user-profile":  "CREATE TABLE IF NOT EXISTS cassbench.user_profiles (id uuid, updated timestamp, country text, segments set<int>, attributes blob, PRIMARY KEY (id))",
		"counters":      "CREATE TABLE IF NOT EXISTS cassbench.ip_counts (country text, region text, city text, ips counter, PRIMARY KEY ((country, region, city)))",
		"user-wide":     "CREATE TABLE IF NOT EXISTS cassbench.users (id text, channel text, countrycode text, createdby text, createddate text, currentlogintime text, dob text, email text, emailverified boolean, firstname text, flagsvalue int, framework map<text, frozen<list<text>>>, gender text, grade list<text>, language list<text>, lastname text, loginid text, password text, phone text, phoneverified boolean, profilevisibility map<text, text>, status int, updatedby text, updateddate text, userid text, username text, usertype text, PRIMARY KEY (id))",
	}
	if len(want) != len(profiles) {
		t.Fatalf("%d profiles tested, %d defined", len(want), len(profiles))
	}
	for p, table := range want {
		t.Run(string(p), func(t *testing.T) {
			got, err := BuildSchema(specOf(withProfile(p)), "dc1")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{simpleKeyspace, table}, got.Statements); diff != "" {
				t.Errorf("statements (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildSchema(t *testing.T) {
	kv := "CREATE TABLE IF NOT EXISTS cassbench.key_value (key bigint, value blob, PRIMARY KEY (key))"
	cases := map[string]struct {
		spec *cbv1.BenchmarkRunSpec
		dc   string
		want *Schema
	}{
		"defaults": {
			spec: specOf(),
			want: &Schema{Keyspace: "cassbench", Table: "key_value", Statements: []string{simpleKeyspace, kv}},
		},
		"simple strategy, not durable, recreated, keyspace folded": {
			spec: specOf(func(s *cbv1.BenchmarkRunSpec) {
				s.Schema.Keyspace = "Bench_1"
				s.Schema.Replication = cbv1.Replication{Strategy: cbv1.SimpleStrategy, Factor: 3}
				s.Schema.DurableWrites = ptr(false)
				s.Schema.Recreate = true
			}),
			want: &Schema{Keyspace: "bench_1", Table: "key_value", DropKeyspace: "DROP KEYSPACE IF EXISTS bench_1", Statements: []string{
				"CREATE KEYSPACE IF NOT EXISTS bench_1 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3} AND durable_writes = false",
				"CREATE TABLE IF NOT EXISTS bench_1.key_value (key bigint, value blob, PRIMARY KEY (key))",
			}},
		},
		"network topology names the datacenter as a literal": {
			spec: specOf(func(s *cbv1.BenchmarkRunSpec) {
				s.Schema.Replication = cbv1.Replication{Strategy: cbv1.NetworkTopologyStrategy, Factor: 2}
			}),
			dc: "dc'1",
			want: &Schema{Keyspace: "cassbench", Table: "key_value", Statements: []string{
				"CREATE KEYSPACE IF NOT EXISTS cassbench WITH replication = {'class': 'NetworkTopologyStrategy', 'dc''1': 2} AND durable_writes = true",
				kv,
			}},
		},
		"a replication map replicates to each of its datacenters, whatever the local one": {
			spec: specOf(func(s *cbv1.BenchmarkRunSpec) {
				s.Schema.Replication = cbv1.Replication{Strategy: cbv1.NetworkTopologyStrategy, Factor: 1,
					Datacenters: []cbv1.DatacenterReplication{{Name: "dc1", Factor: 3}, {Name: "dc2", Factor: 2}}}
			}),
			dc: "dc1",
			want: &Schema{Keyspace: "cassbench", Table: "key_value", Statements: []string{
				"CREATE KEYSPACE IF NOT EXISTS cassbench WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2} AND durable_writes = true",
				kv,
			}},
		},
		"compaction and TTL, options quoted and sorted": {
			spec: specOf(func(s *cbv1.BenchmarkRunSpec) {
				s.Schema.Compaction = &cbv1.Compaction{Class: "LeveledCompactionStrategy", Options: map[string]string{
					"sstable_size_in_mb": "160", "x'); DROP KEYSPACE a; --": "y'z",
				}}
				s.Schema.DefaultTTLSeconds = ptr(int32(86400))
			}),
			want: &Schema{Keyspace: "cassbench", Table: "key_value", Statements: []string{simpleKeyspace,
				kv + " WITH compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': '160', 'x''); DROP KEYSPACE a; --': 'y''z'} AND default_time_to_live = 86400",
			}},
		},
		"table options on a profile": {
			spec: specOf(func(s *cbv1.BenchmarkRunSpec) {
				s.Schema.TableOptions = &cbv1.TableOptions{
					Compression:         map[string]string{"class": "LZ4Compressor", "chunk_length_in_kb": "16"},
					Caching:             &cbv1.Caching{Keys: "NONE", RowsPerPartition: "NONE"},
					GCGraceSeconds:      ptr(int32(3600)),
					BloomFilterFPChance: "0.1",
				}
			}),
			want: &Schema{Keyspace: "cassbench", Table: "key_value", Statements: []string{simpleKeyspace,
				kv + " WITH compression = {'chunk_length_in_kb': '16', 'class': 'LZ4Compressor'} AND caching = {'keys': 'NONE', 'rows_per_partition': 'NONE'} AND gc_grace_seconds = 3600 AND bloom_filter_fp_chance = 0.1",
			}},
		},
		"cql table keeps its options and gains the spec's": {
			spec: specOf(
				table(`CREATE TABLE cassbench.Events (p int, "Seq" bigint, payload blob, PRIMARY KEY (p, "Seq")) WITH CLUSTERING ORDER BY ("Seq" DESC) AND comment='hi'`),
				func(s *cbv1.BenchmarkRunSpec) { s.Schema.DefaultTTLSeconds = ptr(int32(60)) },
			),
			want: &Schema{Keyspace: "cassbench", Table: "events", Statements: []string{simpleKeyspace,
				`CREATE TABLE IF NOT EXISTS cassbench.events (p int, "Seq" bigint, payload blob, PRIMARY KEY (p, "Seq")) WITH CLUSTERING ORDER BY ("Seq" DESC) AND comment = 'hi' AND default_time_to_live = 60`,
			}},
		},
		"indexes: secondary, sai, collection values, frozen full": {
			spec: specOf(
				table(`CREATE TABLE "Users" (id text PRIMARY KEY, email text, tags set<text>, prefs map<text, text>, dims frozen<list<int>>, "order" int)`),
				indexes("email", "tags:sai", "prefs", "dims", "order:sai"),
			),
			want: &Schema{Keyspace: "cassbench", Table: "Users", Statements: []string{simpleKeyspace,
				`CREATE TABLE IF NOT EXISTS cassbench."Users" (id text, email text, tags set<text>, prefs map<text, text>, dims frozen<list<int>>, "order" int, PRIMARY KEY (id))`,
				`CREATE INDEX IF NOT EXISTS users_email_idx ON cassbench."Users" (email)`,
				`CREATE CUSTOM INDEX IF NOT EXISTS users_tags_idx ON cassbench."Users" (values(tags)) USING 'StorageAttachedIndex'`,
				`CREATE INDEX IF NOT EXISTS users_prefs_idx ON cassbench."Users" (values(prefs))`,
				`CREATE INDEX IF NOT EXISTS users_dims_idx ON cassbench."Users" (full(dims))`,
				`CREATE CUSTOM INDEX IF NOT EXISTS users_order_idx ON cassbench."Users" ("order") USING 'StorageAttachedIndex'`,
			}},
		},
		"user-wide with the seed's indexes": {
			spec: specOf(withProfile(cbv1.ProfileUserWide), indexes("userid", "loginid", "email", "status", "phone", "username")),
			want: &Schema{Keyspace: "cassbench", Table: "users", Statements: []string{simpleKeyspace,
				"CREATE TABLE IF NOT EXISTS cassbench.users (id text, channel text, countrycode text, createdby text, createddate text, currentlogintime text, dob text, email text, emailverified boolean, firstname text, flagsvalue int, framework map<text, frozen<list<text>>>, gender text, grade list<text>, language list<text>, lastname text, loginid text, password text, phone text, phoneverified boolean, profilevisibility map<text, text>, status int, updatedby text, updateddate text, userid text, username text, usertype text, PRIMARY KEY (id))",
				"CREATE INDEX IF NOT EXISTS users_userid_idx ON cassbench.users (userid)",
				"CREATE INDEX IF NOT EXISTS users_loginid_idx ON cassbench.users (loginid)",
				"CREATE INDEX IF NOT EXISTS users_email_idx ON cassbench.users (email)",
				"CREATE INDEX IF NOT EXISTS users_status_idx ON cassbench.users (status)",
				"CREATE INDEX IF NOT EXISTS users_phone_idx ON cassbench.users (phone)",
				"CREATE INDEX IF NOT EXISTS users_username_idx ON cassbench.users (username)",
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := BuildSchema(tc.spec, tc.dc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildSchemaErrors(t *testing.T) {
	cases := map[string]struct {
		spec *cbv1.BenchmarkRunSpec
		dc   string
		want string
	}{
		"network topology without datacenter": {
			spec: specOf(func(s *cbv1.BenchmarkRunSpec) { s.Schema.Replication.Strategy = cbv1.NetworkTopologyStrategy }),
			want: "NetworkTopologyStrategy needs the datacenter name",
		},
		"other keyspace": {
			spec: specOf(table("CREATE TABLE other.t (a int PRIMARY KEY)")),
			want: `creates the table in keyspace "other" but schema.keyspace is "cassbench"`,
		},
		"compaction twice": {
			spec: specOf(table("CREATE TABLE t (a int PRIMARY KEY) WITH compaction = {'class': 'X'}"), func(s *cbv1.BenchmarkRunSpec) {
				s.Schema.Compaction = &cbv1.Compaction{Class: "LeveledCompactionStrategy"}
			}),
			want: "compaction is set both in schema.compaction and in the CREATE TABLE's WITH clause",
		},
		"table option twice": {
			spec: specOf(table("CREATE TABLE t (a int PRIMARY KEY) WITH gc_grace_seconds = 5"), func(s *cbv1.BenchmarkRunSpec) {
				s.Schema.TableOptions = &cbv1.TableOptions{GCGraceSeconds: ptr(int32(1))}
			}),
			want: "gc_grace_seconds is set both in schema.tableOptions and in the CREATE TABLE's WITH clause",
		},
		"ttl twice": {
			spec: specOf(table("CREATE TABLE t (a int PRIMARY KEY) WITH default_time_to_live = 5"), func(s *cbv1.BenchmarkRunSpec) {
				s.Schema.DefaultTTLSeconds = ptr(int32(1))
			}),
			want: "default_time_to_live is set both",
		},
		"bad compaction class": {
			spec: specOf(func(s *cbv1.BenchmarkRunSpec) {
				s.Schema.Compaction = &cbv1.Compaction{Class: "X'}; DROP"}
			}),
			want: "is not a compaction strategy class name",
		},
		"class in options": {
			spec: specOf(func(s *cbv1.BenchmarkRunSpec) {
				s.Schema.Compaction = &cbv1.Compaction{Class: "LeveledCompactionStrategy", Options: map[string]string{"Class": "x"}}
			}),
			want: "schema.compaction.options must not set class",
		},
		"index on unknown column": {
			spec: specOf(indexes("nope")),
			want: `schema.indexes names column "nope", which table key_value does not have`,
		},
		"index on the partition key": {
			spec: specOf(indexes("key")),
			want: `column "key" is the whole partition key`,
		},
		"index kind": {
			spec: specOf(withProfile(cbv1.ProfileUserWide), func(s *cbv1.BenchmarkRunSpec) {
				s.Schema.Indexes = []cbv1.Index{{Column: "email", Kind: "lucene"}}
			}),
			want: `kind "lucene" of column "email" is not secondary or sai`,
		},
		"bad cql": {
			spec: specOf(table("CREATE TABLE t (a counter PRIMARY KEY)")),
			want: `schema.table.cql: column "a" is a counter, which cannot be in the primary key`,
		},
		"unknown profile": {
			spec: specOf(withProfile("nope")),
			want: `schema.table.profile "nope" is not a built-in profile`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := BuildSchema(tc.spec, tc.dc)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
