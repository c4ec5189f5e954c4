package review

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

// The digest of a page ignores when and by which build it was written, and
// nothing else.
func TestPageDigest(t *testing.T) {
	doc := lesmisDoc(t, 3)
	digest := func(d *Doc) string {
		t.Helper()
		var buf bytes.Buffer
		if err := Write(&buf, d); err != nil {
			t.Fatal(err)
		}
		s, err := PageDigest(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	want := digest(doc)
	if !strings.HasPrefix(want, "sha256:") || len(want) != len("sha256:")+64 {
		t.Fatalf("digest %q", want)
	}
	other := *doc
	other.GeneratedAt, other.Tool = "2030-01-01T00:00:00Z", "fondue-neo4j v9 (commit abc)"
	if got := digest(&other); got != want {
		t.Errorf("another time and version: %s, want %s", got, want)
	}
	for name, change := range map[string]func(d *Doc){
		"a score": func(d *Doc) { d.Nodes[0].Score += 1e-9 },
		"a group": func(d *Doc) { // all of a node's groups in one
			var all []int
			for _, g := range d.Nodes[1].Groups {
				all = append(all, g...)
			}
			d.Nodes[1].Groups = [][]int{all}
		},
		"a name":       func(d *Doc) { d.Nodes[0].Name = "Jean Valjean" },
		"the input":    func(d *Doc) { d.Input = "other.edges" },
		"a node":       func(d *Doc) { d.Nodes = d.Nodes[:2] },
		"the splitter": func(d *Doc) { d.Plan.Splitter = "mcl" },
	} {
		d := *doc
		d.Nodes = append([]Node(nil), doc.Nodes...)
		d.Nodes[0].Neighbors = append([]Neighbor(nil), doc.Nodes[0].Neighbors...)
		change(&d)
		if got := digest(&d); got == want {
			t.Errorf("%s changed, the digest did not", name)
		}
	}
	if _, err := PageDigest([]byte("<html></html>")); err == nil {
		t.Error("a page without data has a digest")
	}
}

// Text chunks added to a PNG read back, and the picture is unchanged.
func TestPNGText(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	out, err := WithPNGText(buf.Bytes(), ScreenshotCommandKey, "review a.edges --top 6", ScreenshotPageKey, "sha256:00ff")
	if err != nil {
		t.Fatal(err)
	}
	kv, err := PNGText(out)
	if err != nil || kv[ScreenshotCommandKey] != "review a.edges --top 6" || kv[ScreenshotPageKey] != "sha256:00ff" || len(kv) != 2 {
		t.Fatalf("%v %v", kv, err)
	}
	back, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("the PNG with text does not decode: %v", err)
	}
	r1, g1, b1, a1 := back.At(1, 1).RGBA()
	r2, g2, b2, a2 := img.At(1, 1).RGBA()
	if back.Bounds() != img.Bounds() || [4]uint32{r1, g1, b1, a1} != [4]uint32{r2, g2, b2, a2} {
		t.Error("the picture changed")
	}
	if kv, err := PNGText(buf.Bytes()); err != nil || len(kv) != 0 {
		t.Errorf("a PNG without text: %v %v", kv, err)
	}
	if _, err := PNGText([]byte("GIF89a")); err == nil {
		t.Error("not a PNG: no error")
	}
}
