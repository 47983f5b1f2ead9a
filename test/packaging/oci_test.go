package packaging_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// What the tests read of the OCI image spec (image-spec v1.1): index, manifest, config.
type (
	ociDescriptor struct {
		MediaType   string
		Digest      string
		Size        int64
		Platform    *ociPlatform
		Annotations map[string]string
	}
	ociPlatform struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
		Variant      string `json:"variant"`
	}
	ociIndex struct {
		SchemaVersion int
		MediaType     string
		Manifests     []ociDescriptor
		Annotations   map[string]string
	}
	ociManifest struct {
		SchemaVersion int
		MediaType     string
		Config        ociDescriptor
		Layers        []ociDescriptor
		Annotations   map[string]string
	}
	ociImageConfig struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
		Config       struct {
			imageConfig
			Labels map[string]string
		} `json:"config"`
		RootFS struct {
			Type    string   `json:"type"`
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
)

const (
	ociIndexType    = "application/vnd.oci.image.index.v1+json"
	ociManifestType = "application/vnd.oci.image.manifest.v1+json"
	ociLayerType    = "application/vnd.oci.image.layer.v1.tar+gzip"
)

// registryClient pulls from a registry as a container runtime does, through the distribution
// API alone (GET /v2/NAME/manifests/REF and /v2/NAME/blobs/DIGEST), and checks every
// document's and blob's digest: the test reads the image with none of the code that pushed it.
type registryClient struct {
	addr, repo string
}

func (c registryClient) get(t *testing.T, kind, ref, accept string) ([]byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+c.addr+"/v2/"+c.repo+"/"+kind+"/"+ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s %s: %s: %s", kind, ref, resp.Status, body)
	}
	return body, resp.Header
}

// byDigest fetches a manifest or blob by digest and fails unless its bytes have that digest.
func (c registryClient) byDigest(t *testing.T, kind, digest, accept string) []byte {
	t.Helper()
	body, _ := c.get(t, kind, digest, accept)
	if got := sha256Digest(body); got != digest {
		t.Fatalf("%s %s came back with digest %s", kind, digest, got)
	}
	return body
}

func sha256Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// tarEntry is what a layer says of one file.
type tarEntry struct {
	typ      byte
	mode     int64
	uid, gid int
	link     string
}

// extractLayer unpacks a gzip'd layer into root, returning every entry by its path relative to
// root. It refuses what this image must not hold and what would escape root: whiteouts (there
// is no lower layer), device nodes, absolute or upward paths.
func extractLayer(blob []byte, root, wantDiffID string) (map[string]tarEntry, error) {
	zr, err := gzip.NewReader(bytes.NewReader(blob))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	h := sha256.New()
	tee := io.TeeReader(zr, h)
	tr := tar.NewReader(tee)
	entries := map[string]tarEntry{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		name := path.Clean(strings.TrimPrefix(hdr.Name, "./"))
		if name == "." {
			continue
		}
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") || strings.HasPrefix(path.Base(name), ".wh.") {
			return nil, fmt.Errorf("layer entry %q", hdr.Name)
		}
		entries[name] = tarEntry{typ: hdr.Typeflag, mode: hdr.Mode, uid: hdr.Uid, gid: hdr.Gid, link: hdr.Linkname}
		dest := filepath.Join(root, name)
		switch hdr.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(dest, 0o755)
		case tar.TypeReg:
			err = writeFile(dest, tr)
		case tar.TypeSymlink:
			err = os.Symlink(hdr.Linkname, dest)
		case tar.TypeLink:
			err = os.Link(filepath.Join(root, path.Clean(hdr.Linkname)), dest)
		default:
			err = fmt.Errorf("layer entry %q has type %q", hdr.Name, hdr.Typeflag)
		}
		if err != nil {
			return nil, err
		}
		if hdr.Typeflag != tar.TypeSymlink {
			if err := os.Lchown(dest, hdr.Uid, hdr.Gid); err != nil && os.Geteuid() == 0 {
				return nil, err
			}
			if err := os.Chmod(dest, os.FileMode(hdr.Mode).Perm()|tarSpecialBits(hdr.Mode)); err != nil {
				return nil, err
			}
		}
	}
	// The diff_id covers the whole stream, tar's end-of-archive blocks included.
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return nil, err
	}
	if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != wantDiffID {
		return nil, fmt.Errorf("the layer's uncompressed digest is %s, its config's diff_id %s", got, wantDiffID)
	}
	return entries, nil
}

func tarSpecialBits(mode int64) os.FileMode {
	var m os.FileMode
	if mode&0o4000 != 0 {
		m |= os.ModeSetuid
	}
	if mode&0o2000 != 0 {
		m |= os.ModeSetgid
	}
	if mode&0o1000 != 0 {
		m |= os.ModeSticky
	}
	return m
}

func writeFile(dest string, r io.Reader) error {
	f, err := os.Create(dest)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func mustUnmarshal(t *testing.T, what string, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v: %s", what, err, b)
	}
}
