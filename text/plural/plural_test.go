package plural

import "testing"

func TestN(t *testing.T) {
	for _, tc := range []struct {
		n           int
		one, many   string
		want, want2 string
	}{
		{0, "line", "lines", "0 lines", "0 lines"},
		{1, "line", "lines", "1 line", "1 line"},
		{-1, "line", "lines", "-1 line", "-1 line"},
		{2, "property", "properties", "2 propertys", "2 properties"},
		{24576, "relationship", "relationships", "24576 relationships", "24576 relationships"},
	} {
		if got := N(tc.n, tc.one); got != tc.want {
			t.Errorf("N(%d, %q) = %q, want %q", tc.n, tc.one, got, tc.want)
		}
		if got := Of(tc.n, tc.one, tc.many); got != tc.want2 {
			t.Errorf("Of(%d, %q, %q) = %q, want %q", tc.n, tc.one, tc.many, got, tc.want2)
		}
	}
}
