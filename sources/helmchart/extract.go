package helmchart

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/imgupd/imgupd/internal/bounded"
	"github.com/imgupd/imgupd/internal/errtext"
)

// utf8BOM is stripped from values.yaml, as Helm's chart loader does.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// maxTops bounds how many distinct top-level names a scan remembers.
const maxTops = 16

// archive is what a scan of a tar stream found.
type archive struct {
	// tops are the distinct top-level names, in order (at most maxTops);
	// moreTops reports there were more.
	tops     []string
	moreTops bool
	// topFile reports a top-level entry that is a file, not a directory.
	topFile bool
	// files are the wanted regular files, by clean path; a later entry
	// replaces an earlier one, as it does when Argo CD unpacks to disk.
	files map[string][]byte
	// nonRegular are wanted paths that were links or other non-regular
	// entries (Argo CD would follow a symlink; imgupd does not).
	nonRegular map[string]bool
}

// scanArchive reads a tar stream (gzip-compressed when gzipped) to its end
// and keeps the regular files want selects. It reads at most maxTotal
// decompressed bytes and keeps at most maxFile bytes of one file; entries
// whose path leaves the archive root fail, as Argo CD's Untgz fails
// ("illegal filepath in archive"). Every failure is a *Error of kind
// BadChart or TooLarge with Op "extract".
func scanArchive(r io.Reader, gzipped bool, want func(name string) bool, maxTotal, maxFile int64) (*archive, error) {
	stream := r
	if gzipped {
		zr, err := gzip.NewReader(bufio.NewReader(r))
		if err != nil {
			return nil, badChart("not a gzip archive: %v", err)
		}
		defer zr.Close()
		stream = zr
	}
	lim := &bounded.Reader{R: stream, N: maxTotal, Over: errLimit}
	tr := tar.NewReader(lim)
	a := &archive{files: map[string][]byte{}, nonRegular: map[string]bool{}}
	seen := map[string]bool{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, archiveErr(maxTotal, err)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		name, ok := entryPath(hdr.Name)
		if !ok {
			return nil, badChart("illegal file path in archive: %q", errtext.OneLine(hdr.Name))
		}
		if name == "" {
			continue
		}
		top, _, nested := strings.Cut(name, "/")
		if !seen[top] {
			seen[top] = true
			if len(a.tops) < maxTops {
				a.tops = append(a.tops, top)
			} else {
				a.moreTops = true
			}
		}
		if !nested && hdr.Typeflag != tar.TypeDir {
			a.topFile = true
		}
		if !want(name) {
			continue
		}
		if hdr.Typeflag != tar.TypeReg {
			if hdr.Typeflag != tar.TypeDir {
				a.nonRegular[name] = true
			}
			continue
		}
		if hdr.Size > maxFile {
			return nil, &Error{Kind: TooLarge, Op: "extract", Limit: maxFile,
				detail: fmt.Sprintf("%s is %d bytes, over the %d-byte limit", errtext.OneLine(name), hdr.Size, maxFile)}
		}
		// The buffer grows with the bytes actually read, never with the
		// size the header claims.
		var buf bytes.Buffer
		if _, err := io.Copy(&buf, io.LimitReader(tr, maxFile+1)); err != nil {
			return nil, archiveErr(maxTotal, err)
		}
		if int64(buf.Len()) > maxFile {
			return nil, &Error{Kind: TooLarge, Op: "extract", Limit: maxFile,
				detail: fmt.Sprintf("%s is over the %d-byte limit", errtext.OneLine(name), maxFile)}
		}
		a.files[name] = bytes.TrimPrefix(buf.Bytes(), utf8BOM)
		delete(a.nonRegular, name)
	}
	return a, nil
}

// entryPath cleans a tar entry name the way joining it onto a directory
// does ("./a//b" → "a/b", "/a" → "a"); ok is false when it leaves the
// root.
func entryPath(name string) (string, bool) {
	c := path.Clean(strings.TrimLeft(name, "/"))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	if c == "." {
		return "", true
	}
	return c, true
}

func archiveErr(maxTotal int64, err error) error {
	if errors.Is(err, errLimit) {
		return &Error{Kind: TooLarge, Op: "extract", Limit: maxTotal,
			detail: fmt.Sprintf("the unpacked archive is over the %d-byte limit", maxTotal)}
	}
	return badChart("not a valid tar archive: %v", err)
}

func badChart(format string, args ...any) *Error {
	return &Error{Kind: BadChart, Op: "extract", detail: errtext.OneLine(fmt.Sprintf(format, args...))}
}

// errLimit is a read past the unpacked archive's bound.
var errLimit = errors.New("read limit reached")

// chartValues returns <dir>/values.yaml of a Helm chart archive, the file
// Argo CD renders with after unpacking the pulled archive and joining the
// chart name (classic and OCI Helm sources).
func chartValues(a *archive, dir string) ([]byte, error) {
	want := dir + "/values.yaml"
	if b, ok := a.files[want]; ok {
		return b, nil
	}
	if a.nonRegular[want] {
		return nil, badChart("%s is a link, not a file", want)
	}
	if !contains(a.tops, dir) {
		return nil, badChart("the archive's top directory is %s, not the chart name %s", topsText(a), dir)
	}
	return nil, badChart("the chart has no values.yaml (%s)", want)
}

// artifactValues returns <path>/values.yaml of an oci:// artifact layer.
// A Helm chart layer must hold exactly one top directory, whose content
// Argo CD moves to the root ("expected 1 directory"); a plain tar is used
// as it is.
func artifactValues(a *archive, helmLayer bool, appPath string) ([]byte, error) {
	rel := path.Join(appPath, "values.yaml")
	if helmLayer {
		if len(a.tops) != 1 || a.moreTops || a.topFile {
			return nil, badChart("a Helm chart layer must hold exactly one top directory, it holds %s", topsText(a))
		}
		rel = a.tops[0] + "/" + rel
	}
	if b, ok := a.files[rel]; ok {
		return b, nil
	}
	if a.nonRegular[rel] {
		return nil, badChart("%s is a link, not a file", rel)
	}
	where := "the artifact root"
	if appPath != "" {
		where = "spec.source.path " + appPath
	}
	return nil, badChart("no values.yaml at %s (%s)", where, rel)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func topsText(a *archive) string {
	if len(a.tops) == 0 {
		return "nothing (empty archive)"
	}
	t := append([]string(nil), a.tops...)
	sort.Strings(t)
	s := strings.Join(t, ", ")
	if a.moreTops {
		s += ", ..."
	}
	return errtext.OneLine(s)
}
