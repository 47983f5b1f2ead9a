package main

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// writeSBOM writes the CycloneDX SBOM of one platform's image: the image (its manifest's
// digest), the three binaries with every Go module each was built with (merged from the
// SBOMs cyclonedx-gomod read from their build information), and the Debian packages the base's
// files come from. Modules the binaries share are listed once: one component per package URL,
// as CycloneDX requires bom-refs to be unique.
func writeSBOM(o options, pl platformDir, img v1.Image, created time.Time) error {
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	imageRef := imagePURL(o, pl, digest.String())
	bom := cdx.NewBOM()
	bom.Metadata = &cdx.Metadata{
		Timestamp: created.Format(time.RFC3339),
		Component: &cdx.Component{
			BOMRef: imageRef, Type: cdx.ComponentTypeContainer, Name: o.repository, Version: o.version,
			PackageURL: imageRef,
			Hashes:     &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: digest.Hex}},
		},
	}
	components := map[string]cdx.Component{}
	depends := map[string][]string{}
	var top []string

	if err := mergeBinarySBOMs(pl.dir, components, depends, &top); err != nil {
		return err
	}
	debs, err := readDebianPackages(filepath.Join(pl.dir, "debian-packages"))
	if err != nil {
		return err
	}
	for _, d := range debs {
		components[d.BOMRef] = d
		depends[d.BOMRef] = nil
		top = append(top, d.BOMRef)
	}
	depends[imageRef] = top

	list := make([]cdx.Component, 0, len(components))
	for _, c := range components {
		list = append(list, c)
	}
	slices.SortFunc(list, func(a, b cdx.Component) int { return strings.Compare(a.BOMRef, b.BOMRef) })
	bom.Components = &list
	refs := make([]string, 0, len(depends))
	for r := range depends {
		refs = append(refs, r)
	}
	slices.Sort(refs)
	deps := make([]cdx.Dependency, 0, len(refs))
	for _, r := range refs {
		d := cdx.Dependency{Ref: r}
		if on := slices.Compact(slices.Sorted(slices.Values(depends[r]))); len(on) > 0 {
			d.Dependencies = &on
		}
		deps = append(deps, d)
	}
	bom.Dependencies = &deps

	if err := os.MkdirAll(o.sbomDir, 0o755); err != nil {
		return err
	}
	out, err := os.Create(filepath.Join(o.sbomDir, fmt.Sprintf("image_%s_%s.cdx.json", pl.os, pl.arch)))
	if err != nil {
		return err
	}
	// CycloneDX 1.6, the version of the binaries' SBOMs (cyclonedx-gomod's).
	if err := cdx.NewBOMEncoder(out, cdx.BOMFileFormatJSON).SetPretty(true).EncodeVersion(bom, cdx.SpecVersion1_6); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// imagePURL is the package URL of an OCI image by digest (purl's oci type): the name is the
// repository's last element, the rest goes into repository_url.
func imagePURL(o options, pl platformDir, digest string) string {
	q := url.Values{}
	q.Set("arch", pl.arch)
	q.Set("os", pl.os)
	q.Set("repository_url", o.repository)
	q.Set("tag", o.version)
	return "pkg:oci/" + filepath.Base(o.repository) + "@" + strings.ReplaceAll(digest, ":", "%3A") + "?" + q.Encode()
}

func readBOM(path string) (*cdx.BOM, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var bom cdx.BOM
	if err := cdx.NewBOMDecoder(f, cdx.BOMFileFormatJSON).Decode(&bom); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &bom, nil
}

// readDebianPackages reads NAME=VERSION lines (hack/cassbench-image.sh writes them): the
// packages the base's CA bundle and time zones were taken from, arch all.
func readDebianPackages(path string) ([]cdx.Component, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var out []cdx.Component
	s := bufio.NewScanner(f)
	for s.Scan() {
		n, v, ok := strings.Cut(strings.TrimSpace(s.Text()), "=")
		if !ok {
			continue
		}
		purl := "pkg:deb/debian/" + n + "@" + url.PathEscape(v) + "?arch=all"
		out = append(out, cdx.Component{BOMRef: purl, Type: cdx.ComponentTypeLibrary, Name: n, Version: v, PackageURL: purl})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no packages", path)
	}
	return out, s.Err()
}

// mergeBinarySBOMs adds each binary's SBOM under dir/sbom: the binary as a component of the
// image (into top), its modules, and its dependency graph.
func mergeBinarySBOMs(dir string, components map[string]cdx.Component, depends map[string][]string, top *[]string) error {
	files, err := filepath.Glob(filepath.Join(dir, "sbom", "*.cdx.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no binary SBOMs in %s", filepath.Join(dir, "sbom"))
	}
	for _, f := range files {
		bin, err := readBOM(f)
		if err != nil {
			return err
		}
		if bin.Metadata == nil || bin.Metadata.Component == nil {
			return fmt.Errorf("%s names no component", f)
		}
		app := *bin.Metadata.Component
		components[app.BOMRef] = app
		*top = append(*top, app.BOMRef)
		if bin.Components != nil {
			for _, c := range *bin.Components {
				components[c.BOMRef] = c
			}
		}
		if bin.Dependencies != nil {
			for _, d := range *bin.Dependencies {
				if d.Dependencies != nil {
					depends[d.Ref] = append(depends[d.Ref], *d.Dependencies...)
				} else if _, ok := depends[d.Ref]; !ok {
					depends[d.Ref] = nil
				}
			}
		}
	}
	return nil
}
