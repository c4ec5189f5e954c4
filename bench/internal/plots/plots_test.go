package plots

import (
	"slices"
	"testing"
)

// The ticks stop at 1, so that the room above it for the legend has none.
func TestUnitTicks(t *testing.T) {
	var got []string
	for _, tk := range (UnitTicks{}).Ticks(-0.25, 1.35) {
		got = append(got, tk.Label)
	}
	if want := []string{"-0.2", "0", "0.2", "0.4", "0.6", "0.8", "1"}; !slices.Equal(got, want) {
		t.Errorf("ticks %v, want %v", got, want)
	}
	p := New("title", "x", "y")
	CellAxis(p, []string{"a", "b", "c"})
	if p.Title.Text != "title" || p.X.Min != -0.6 || p.X.Max != 2.6 || !p.Legend.Top || !p.Legend.Left {
		t.Errorf("plot %q, x from %v to %v, legend top %v left %v", p.Title.Text, p.X.Min, p.X.Max, p.Legend.Top, p.Legend.Left)
	}
}
