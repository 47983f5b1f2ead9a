// Package version is what a cassbench binary says of its own build: the release version,
// the commit and the commit's date (the build date of a reproducible build: two builds of
// one commit are the same bytes). hack/build.sh stamps them with -X (the release version
// is the chart's appVersion, which is also the image tag); a binary built another way (go
// install, go run, go test) falls back to what Go recorded of the module and its VCS.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Stamped by hack/build.sh: go build -ldflags "-X github.com/cassbench/cassbench/internal/version.version=...".
var (
	version string
	commit  string
	date    string
)

// Info is one binary's version.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get is this binary's version: what hack/build.sh stamped, else what Go recorded of the build,
// else "unknown".
func Get() Info {
	i := Info{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if i.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			i.Version = bi.Main.Version
		}
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if i.Commit == "" {
					i.Commit = s.Value
				}
			case "vcs.time":
				if i.Date == "" {
					i.Date = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && commit == "" && i.Commit != "" {
			i.Commit += "-dirty"
		}
	}
	for _, f := range []*string{&i.Version, &i.Commit, &i.Date} {
		if *f == "" {
			*f = "unknown"
		}
	}
	return i
}

// String is the one line `cassbench version` prints and the manager logs at start.
func (i Info) String() string {
	return fmt.Sprintf("cassbench %s (commit %s of %s, %s %s)", i.Version, i.Commit, i.Date, i.GoVersion, i.Platform)
}
