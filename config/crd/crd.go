// Package crd embeds the CustomResourceDefinitions that controller-gen writes into bases/
// (make manifests), so that code validating and defaulting a spec without an API server reads
// the very files the cluster is given, not a copy of their rules.
package crd

import "embed"

// Bases holds bases/*.yaml, one CustomResourceDefinition per file.
//
//go:embed bases/*.yaml
var Bases embed.FS
