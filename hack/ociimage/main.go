// Command ociimage makes cassbench's multi-platform image without Docker: from the layout
// hack/cassbench-image.sh assembles for each platform (the Dockerfile's files as one layer, its
// USER and ENTRYPOINT), an OCI image per platform and an OCI image index over them, tagged with
// the release's version; it pushes the index to a registry or writes it as an OCI layout, and
// writes each platform's SBOM (sbom.go). hack/release.sh runs it.
//
// go-containerregistry's library rather than its crane CLI: crane builds an image by appending
// to a pushed base and retagging, so a two-platform index would leave per-platform tags in the
// registry and take one push per step; the library assembles index, manifests and config in
// memory from the same bytes every time (the layer is the only blob, and it is reproducible)
// and pushes the whole index once. A module of its own, so that cassbench's go.mod does not
// carry the registry client.
//
//	ociimage -repository REG/cassbench -version X.Y.Z [-push [-plain-http]] [-layout DIR] \
//	    [-sbom-dir DIR] linux/amd64=DIR linux/arm64=DIR
//
// Each platform DIR holds layer.tar, config.json (User, Entrypoint, WorkingDir, Env),
// debian-packages (NAME=VERSION lines) and sbom/*.cdx.json (the binaries' SBOMs). It prints the
// index as REPOSITORY:VERSION@DIGEST.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

type options struct {
	repository, version, revision, source, created string
	push, plainHTTP                                bool
	layoutDir, sbomDir                             string
	platforms                                      []platformDir
}

type platformDir struct {
	os, arch, dir string
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ociimage:", err)
		os.Exit(1)
	}
}

func run() error {
	var o options
	flag.StringVar(&o.repository, "repository", "", "the image's repository, such as ghcr.io/cassbench/cassbench")
	flag.StringVar(&o.version, "version", "", "the release version: the tag, and the image's version label")
	flag.StringVar(&o.revision, "revision", "", "the commit the binaries were built from")
	flag.StringVar(&o.source, "source", "https://github.com/cassbench/cassbench", "the source repository's URL")
	flag.StringVar(&o.created, "created", "", "the image's creation time, RFC 3339 (the commit's date, so that a commit gives one digest)")
	flag.BoolVar(&o.push, "push", false, "push the index to REPOSITORY:VERSION")
	flag.BoolVar(&o.plainHTTP, "plain-http", false, "talk HTTP to the registry (one on 127.0.0.1)")
	flag.StringVar(&o.layoutDir, "layout", "", "also write the index as an OCI image layout into this directory")
	flag.StringVar(&o.sbomDir, "sbom-dir", "", "write each platform's SBOM here as image_OS_ARCH.cdx.json")
	flag.Parse()
	if o.repository == "" || o.version == "" || flag.NArg() == 0 {
		return errors.New("usage: ociimage -repository REPO -version X.Y.Z [-push] [-layout DIR] [-sbom-dir DIR] OS/ARCH=DIR [OS/ARCH=DIR]")
	}
	for _, arg := range flag.Args() {
		platform, dir, ok := strings.Cut(arg, "=")
		osName, arch, ok2 := strings.Cut(platform, "/")
		if !ok || !ok2 {
			return fmt.Errorf("%q is not OS/ARCH=DIR", arg)
		}
		o.platforms = append(o.platforms, platformDir{os: osName, arch: arch, dir: dir})
	}
	created := time.Unix(0, 0).UTC()
	if o.created != "" {
		t, err := time.Parse(time.RFC3339, o.created)
		if err != nil {
			return fmt.Errorf("-created: %w", err)
		}
		created = t.UTC()
	}

	idx, images, err := buildIndex(o, created)
	if err != nil {
		return err
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	if o.push {
		if err := push(o, idx); err != nil {
			return err
		}
	}
	if o.layoutDir != "" {
		p, err := layout.Write(o.layoutDir, empty.Index)
		if err != nil {
			return fmt.Errorf("writing the OCI layout: %w", err)
		}
		if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{
			"org.opencontainers.image.ref.name": o.version,
		})); err != nil {
			return fmt.Errorf("writing the OCI layout: %w", err)
		}
	}
	if o.sbomDir != "" {
		for i, pl := range o.platforms {
			if err := writeSBOM(o, pl, images[i], created); err != nil {
				return fmt.Errorf("%s/%s: %w", pl.os, pl.arch, err)
			}
		}
	}
	fmt.Printf("%s:%s@%s\n", o.repository, o.version, digest)
	return nil
}

// labels are the OCI annotations cert-manager's and cass-operator's images carry too: the
// image's config has them as labels, the index and each manifest as annotations.
func labels(o options, created time.Time) map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":    "cassbench",
		"org.opencontainers.image.version":  o.version,
		"org.opencontainers.image.source":   o.source,
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.created":  created.Format(time.RFC3339),
	}
	if o.revision != "" {
		l["org.opencontainers.image.revision"] = o.revision
	}
	return l
}

func buildIndex(o options, created time.Time) (v1.ImageIndex, []v1.Image, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	var images []v1.Image
	for _, pl := range o.platforms {
		img, err := buildImage(o, pl, created)
		if err != nil {
			return nil, nil, fmt.Errorf("%s/%s: %w", pl.os, pl.arch, err)
		}
		images = append(images, img)
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: pl.os, Architecture: pl.arch}},
		})
	}
	idx, ok := mutate.Annotations(idx, labels(o, created)).(v1.ImageIndex)
	if !ok {
		return nil, nil, errors.New("annotating the index")
	}
	return idx, images, nil
}

func buildImage(o options, pl platformDir, created time.Time) (v1.Image, error) {
	raw, err := os.ReadFile(filepath.Join(pl.dir, "config.json"))
	if err != nil {
		return nil, err
	}
	var cfg v1.Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("config.json: %w", err)
	}
	cfg.Labels = labels(o, created)
	layer, err := tarball.LayerFromFile(filepath.Join(pl.dir, "layer.tar"), tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("the layer: %w", err)
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "hack/cassbench-image.sh layer", Comment: "the Dockerfile's layout"},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created, cf.Config = pl.os, pl.arch, v1.Time{Time: created}, cfg
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	img, ok := mutate.Annotations(img, labels(o, created)).(v1.Image)
	if !ok {
		return nil, errors.New("annotating the image")
	}
	return img, nil
}

func push(o options, idx v1.ImageIndex) error {
	var opts []name.Option
	if o.plainHTTP {
		opts = append(opts, name.Insecure)
	}
	ref, err := name.NewTag(o.repository+":"+o.version, opts...)
	if err != nil {
		return fmt.Errorf("the image's reference: %w", err)
	}
	// The keychain of docker login (~/.docker/config.json, $DOCKER_CONFIG), as crane and ko use;
	// a registry on 127.0.0.1 needs none.
	if err := remote.WriteIndex(ref, idx, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return fmt.Errorf("pushing %s: %w", ref, err)
	}
	return nil
}
