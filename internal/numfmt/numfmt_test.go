package numfmt

import "testing"

func TestFormats(t *testing.T) {
	tests := map[string]struct{ got, want string }{
		"zero":              {Count(0), "0"},
		"thousands":         {Count(1204), "1,204"},
		"negative":          {Count(-1234567), "-1,234,567"},
		"under a second":    {Millis(650), "650 ms"},
		"seconds":           {Millis(4200), "4.2 s"},
		"cores":             {Cores(1900), "1.9 cores"},
		"a fraction of one": {Cores(250), "0.2 cores"},
	}
	for name, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", name, tc.got, tc.want)
		}
	}
}
