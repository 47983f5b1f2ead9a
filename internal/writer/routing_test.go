package writer

import (
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/go-cmp/cmp"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/admission"
	"github.com/cassbench/cassbench/internal/workload"
)

func col(t gocql.Type) gocql.ColumnInfo {
	return gocql.ColumnInfo{TypeInfo: gocql.NewNativeType(4, t, "")}
}

func TestRoutingKey(t *testing.T) {
	tests := map[string]struct {
		meta   gocql.StatementMetadata
		values []any
		want   []byte
	}{
		"bigint": {
			meta:   gocql.StatementMetadata{BindColumns: []gocql.ColumnInfo{col(gocql.TypeBigInt), col(gocql.TypeBlob)}, PKBindColumnIndexes: []int{0}},
			values: []any{int64(258), []byte("value")},
			want:   []byte{0, 0, 0, 0, 0, 0, 1, 2},
		},
		"text in second place": {
			meta:   gocql.StatementMetadata{BindColumns: []gocql.ColumnInfo{col(gocql.TypeText), col(gocql.TypeVarchar)}, PKBindColumnIndexes: []int{1}},
			values: []any{"ip", "us"},
			want:   []byte("us"),
		},
		"composite": {
			meta:   gocql.StatementMetadata{BindColumns: []gocql.ColumnInfo{col(gocql.TypeVarchar), col(gocql.TypeBigInt), col(gocql.TypeVarchar)}, PKBindColumnIndexes: []int{0, 2}},
			values: []any{"us", int64(1), "ca"},
			want:   []byte{0, 2, 'u', 's', 0, 0, 2, 'c', 'a', 0},
		},
		"through the driver": {
			meta:   gocql.StatementMetadata{BindColumns: []gocql.ColumnInfo{col(gocql.TypeInt)}, PKBindColumnIndexes: []int{0}},
			values: []any{7}, // an int, not an int32: marshalled by gocql
			want:   []byte{0, 0, 0, 7},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := newRoutingKey(tc.meta)
			got, err := r.compute(tc.values)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("routing key (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRoutingKeyNoPartitionKey(t *testing.T) {
	if r := newRoutingKey(gocql.StatementMetadata{BindColumns: []gocql.ColumnInfo{col(gocql.TypeText)}}); r != nil {
		t.Errorf("a statement without its partition key bound got a routing key")
	}
}

func TestRoutingKeyDoesNotAllocate(t *testing.T) {
	r := newRoutingKey(gocql.StatementMetadata{BindColumns: []gocql.ColumnInfo{col(gocql.TypeVarchar), col(gocql.TypeBigInt)}, PKBindColumnIndexes: []int{0, 1}})
	values := []any{"country", int64(99)}
	if n := testing.AllocsPerRun(100, func() { _, _ = r.compute(values) }); n != 0 {
		t.Errorf("%.0f allocations per routing key", n)
	}
}

// Generated rows reach the routing key as cells: the key must be the driver's serialization.
func TestRoutingKeyOfCells(t *testing.T) {
	tests := map[cbv1.TableProfile]gocql.Type{
		cbv1.ProfileKeyValue: gocql.TypeBigInt, // an unboxed bigint
		cbv1.ProfileIPByCity: gocql.TypeVarchar,
	}
	for profile, typ := range tests {
		t.Run(string(profile), func(t *testing.T) {
			spec, err := admission.DefaultRunSpec(&cbv1.BenchmarkRunSpec{
				Writers: cbv1.WritersSpec{Replicas: 1}, Schema: cbv1.SchemaSpec{Table: cbv1.TableSpec{Profile: profile}},
			})
			if err != nil {
				t.Fatal(err)
			}
			gen, err := workload.NewGenerator(spec, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			op := &cqlOp{gen: gen}
			op.allocRows(1)
			meta := gocql.StatementMetadata{BindColumns: []gocql.ColumnInfo{col(typ)}, PKBindColumnIndexes: []int{0}}
			for range gen.InsertArity() - 1 {
				meta.BindColumns = append(meta.BindColumns, col(gocql.TypeBlob))
			}
			r := newRoutingKey(meta)
			for seq := range int64(20) {
				gen.RowCells(seq+1000, op.cells[0])
				got, err := r.compute(op.rows[0])
				if err != nil {
					t.Fatal(err)
				}
				want, err := gocql.Marshal(meta.BindColumns[0].TypeInfo, op.cells[0][0].Value())
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("op %d: routing key (-driver +got):\n%s", seq, diff)
				}
			}
		})
	}
}
