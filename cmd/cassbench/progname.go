package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// prog is the command as the user typed it: "kubectl cassbench" when kubectl runs this
// binary as its plugin (installed as kubectl-cassbench, which kubectl finds on PATH and
// execs with that path as argv[0]), else "cassbench". Usage and error messages use it, so
// that what they suggest can be typed back as it is.
var prog = progName(os.Args[0])

// progName follows kubectl's plugin naming: kubectl-foo_bar is "kubectl foo-bar".
// https://kubernetes.io/docs/tasks/extend-kubectl/kubectl-plugins/#naming-a-plugin
func progName(arg0 string) string {
	base := strings.TrimSuffix(filepath.Base(arg0), ".exe")
	if name, ok := strings.CutPrefix(base, "kubectl-"); ok && name != "" {
		return "kubectl " + strings.ReplaceAll(name, "_", "-")
	}
	return "cassbench"
}

// commandWord is "cassbench" where it stands for the command: at a line's start, after a
// space or a quote, before a space or the end.
var commandWord = regexp.MustCompile(`(?m)(^|[\s"])cassbench( |$)`)

// descriptionLine is a line that continues a description in the command list's right
// column; it moves right as the names in the left column grow.
var descriptionLine = regexp.MustCompile(`(?m)^ {20,}\S`)

// named puts prog where a usage text says "cassbench".
func named(text string) string {
	return namedAs(text, prog)
}

func namedAs(text, as string) string {
	if as == "cassbench" {
		return text
	}
	out := commandWord.ReplaceAllString(text, "${1}"+as+"${2}")
	pad := strings.Repeat(" ", len(as)-len("cassbench"))
	return descriptionLine.ReplaceAllStringFunc(out, func(l string) string { return pad + l })
}
