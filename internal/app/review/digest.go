package review

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
)

// dataOpen and dataClose delimit the page's data (layout.html).
const (
	dataOpen  = `<script type="application/json" id="fondue-data">`
	dataClose = `</script>`
)

// PageDigest identifies what a review page shows, as "sha256:HEX": the
// page whole (its data, script and style), but for the two fields that
// differ between two runs of the same command, the time it was written
// (generatedAt) and the version line of the tool that wrote it (tool).
// Two pages with the same digest look the same in a browser.
func PageDigest(page []byte) (string, error) {
	start := bytes.Index(page, []byte(dataOpen))
	if start < 0 {
		return "", errors.New("not a review page: no page data")
	}
	start += len(dataOpen)
	end := bytes.Index(page[start:], []byte(dataClose))
	if end < 0 {
		return "", errors.New("not a review page: the page data does not end")
	}
	end += start
	var data map[string]any
	dec := json.NewDecoder(bytes.NewReader(page[start:end]))
	dec.UseNumber()
	if err := dec.Decode(&data); err != nil {
		return "", fmt.Errorf("not a review page: %w", err)
	}
	delete(data, "generatedAt")
	delete(data, "tool")
	canon, err := json.Marshal(data) // map keys sorted
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(page[:start])
	h.Write(canon)
	h.Write(page[end:])
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Keywords of the tEXt chunks of the README's screenshot of the review
// page (docs/review.png, made by internal/testenv/screenshot): the review
// command that wrote the page it shows (its arguments after "fondue-neo4j",
// without the output file, separated by spaces), and the page's PageDigest.
const (
	ScreenshotCommandKey = "fondue-review-command"
	ScreenshotPageKey    = "fondue-review-page"
)

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// PNGText returns the tEXt chunks of a PNG file (keyword -> text), where a
// picture can carry what it shows: the README's screenshot of the review
// page carries the command that wrote the page and its PageDigest.
func PNGText(png []byte) (map[string]string, error) {
	if !bytes.HasPrefix(png, pngMagic) {
		return nil, errors.New("not a PNG file")
	}
	out := map[string]string{}
	for p := png[len(pngMagic):]; len(p) > 0; {
		if len(p) < 12 {
			return nil, errors.New("PNG file cut short")
		}
		n := binary.BigEndian.Uint32(p)
		if uint64(n)+12 > uint64(len(p)) {
			return nil, errors.New("PNG file cut short")
		}
		typ, body := string(p[4:8]), p[8:8+n]
		if typ == "tEXt" {
			if k := bytes.IndexByte(body, 0); k > 0 {
				out[string(body[:k])] = string(body[k+1:])
			}
		}
		p = p[12+n:]
		if typ == "IEND" {
			break
		}
	}
	return out, nil
}

// WithPNGText returns the PNG file png with a tEXt chunk per pair of kv
// (keyword, text, keyword, text, ...) added before its end. Keywords are
// 1 to 79 Latin-1 characters; texts hold no NUL.
func WithPNGText(png []byte, kv ...string) ([]byte, error) {
	if !bytes.HasPrefix(png, pngMagic) || len(kv)%2 != 0 {
		return nil, errors.New("WithPNGText: not a PNG file, or a keyword without text")
	}
	iend := bytes.LastIndex(png, []byte("IEND"))
	if iend < 4+len(pngMagic) {
		return nil, errors.New("PNG file without an end")
	}
	iend -= 4 // the chunk's length
	var out bytes.Buffer
	out.Write(png[:iend])
	for k := 0; k < len(kv); k += 2 {
		key, text := kv[k], kv[k+1]
		if len(key) == 0 || len(key) > 79 || bytes.IndexByte([]byte(key+text), 0) >= 0 {
			return nil, fmt.Errorf("WithPNGText: bad keyword %q or text", key)
		}
		body := append(append([]byte("tEXt"+key), 0), text...)
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(body)-4))
		out.Write(n[:])
		out.Write(body)
		binary.BigEndian.PutUint32(n[:], crc32.ChecksumIEEE(body))
		out.Write(n[:])
	}
	out.Write(png[iend:])
	return out.Bytes(), nil
}
