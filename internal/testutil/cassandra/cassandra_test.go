package cassandra

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/localcassandra"
)

// TestStartAnswersCQL starts (or reuses) a one-node cluster and performs a real CQL native
// protocol v4 handshake: OPTIONS must be answered with SUPPORTED listing CQL_VERSION.
func TestStartAnswersCQL(t *testing.T) {
	c := Start(t, Options{Nodes: 1})
	if want := localcassandra.DefaultLayout().NodeIP(1); len(c.Hosts) != 1 || c.Hosts[0] != want || c.Port != 9042 {
		t.Fatalf("cluster = %+v, want one host %s:9042", c, want)
	}
	supported, err := cqlOptions(net.JoinHostPort(c.Hosts[0], strconv.Itoa(c.Port)))
	if err != nil {
		t.Fatal(err)
	}
	versions := supported["CQL_VERSION"]
	if len(versions) == 0 || versions[0] == "" {
		t.Fatalf("SUPPORTED has no CQL_VERSION: %v", supported)
	}
	t.Logf("SUPPORTED: CQL_VERSION=%v PROTOCOL_VERSIONS=%v", versions, supported["PROTOCOL_VERSIONS"])
}

// cqlOptions sends a protocol v4 OPTIONS frame and decodes the SUPPORTED [string multimap].
func cqlOptions(addr string) (map[string][]string, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	// version 4 request, flags 0, stream 1, opcode OPTIONS (0x05), empty body.
	if _, err := conn.Write([]byte{0x04, 0x00, 0x00, 0x01, 0x05, 0, 0, 0, 0}); err != nil {
		return nil, err
	}
	var hdr [9]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		return nil, fmt.Errorf("reading frame header: %w", err)
	}
	body := make([]byte, binary.BigEndian.Uint32(hdr[5:9]))
	if _, err := io.ReadFull(conn, body); err != nil {
		return nil, fmt.Errorf("reading frame body: %w", err)
	}
	if hdr[0] != 0x84 || binary.BigEndian.Uint16(hdr[2:4]) != 1 {
		return nil, fmt.Errorf("unexpected response header % x", hdr)
	}
	if hdr[4] != 0x06 {
		return nil, fmt.Errorf("opcode 0x%02x, want SUPPORTED (0x06); body %q", hdr[4], body)
	}
	r := reader{b: body}
	n := r.short()
	out := make(map[string][]string, n)
	for i := 0; i < n; i++ {
		k := r.string()
		m := r.short()
		for j := 0; j < m; j++ {
			out[k] = append(out[k], r.string())
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) short() int {
	if len(r.b) < 2 {
		r.err = io.ErrUnexpectedEOF
		return 0
	}
	v := binary.BigEndian.Uint16(r.b)
	r.b = r.b[2:]
	return int(v)
}

func (r *reader) string() string {
	n := r.short()
	if len(r.b) < n {
		r.err = io.ErrUnexpectedEOF
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// An --auth cluster's superuser password is hashed at 4 bcrypt rounds (log2), which every
// login checks again: at Cassandra's default of 10, the logins of a 48-writer run kept both
// cores busy for 15 s before its start barrier (localcassandra.loginRounds).
func TestAuthClusterHashesAtFourRounds(t *testing.T) {
	c := Start(t, Options{Nodes: 2, Auth: true})
	s, err := cql.Connect(cql.Options{Hosts: c.Hosts, Port: c.Port, Username: c.Username, Password: c.Password, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var hash string
	if err := s.Query("SELECT salted_hash FROM system_auth.roles WHERE role = ?", c.Username).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$2a$04$") {
		t.Errorf("the superuser's password hash starts %.7s, want $2a$04$", hash)
	}
}
