package main

import (
	"strings"
	"testing"
)

// An --allowed-images entry that no run's image can match is refused at start, naming it.
func TestAllowedImage(t *testing.T) {
	cases := map[string]string{
		"registry.example.com/cassbench:1.4":  "",
		"registry.example.com:5000/team/*":    "",
		"registry.example.com/cassbench:*":    "",
		"registry.example.com/cassbench@*":    "",
		"registry.example.com/c@sha256:0*":    "",
		"cassbench*":                          "",
		"*":                                   "",
		"Registry.Example.com/Team/cassbench": "is not an image reference",
		"registry.example.com/Team/*":         "no image reference begins with",
		"cassbench:1 ":                        "is not an image reference",
		"cassbench:1:2":                       "is not an image reference",
	}
	for entry, want := range cases {
		err := allowedImage(entry)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q refused: %v", entry, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: err = %v, want it to say %q", entry, err, want)
		}
	}
}
