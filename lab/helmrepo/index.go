package helmrepo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/Masterminds/semver/v3"
	"sigs.k8s.io/yaml"
)

// Entry is one chart version of the repository.
type Entry struct {
	// Chart names the entry (Name, Version, AppVersion) and, unless
	// Archive is set, is packaged with Build.
	Chart Chart
	// Archive, when set, is served instead of Build(Chart): a broken or
	// hand-made archive.
	Archive []byte
	// URL is the entry's urls[0] in index.yaml. "" points at the archive
	// this server serves, relative ("charts/<name>-<version>.tgz") or, with
	// WithAbsoluteURLs, absolute; set it to point at another server.
	URL string
}

type indexEntry struct {
	name, version, appVersion string
	url, digest               string
}

// AddChart adds c, packaged with Build, to the repository.
func (s *Server) AddChart(c Chart) error { return s.Add(Entry{Chart: c}) }

// Add adds chart versions to the repository and serves their archives at
// ArchivePath.
func (s *Server) Add(entries ...Entry) error {
	for _, e := range entries {
		if e.Chart.Name == "" || e.Chart.Version == "" {
			return fmt.Errorf("helmrepo: an entry needs a chart name and version")
		}
		body := e.Archive
		if body == nil {
			var err error
			if body, err = Build(e.Chart); err != nil {
				return err
			}
		}
		url := e.URL
		if url == "" {
			url = archiveFile(e.Chart.Name, e.Chart.Version)
			if s.cfg.absolute {
				url = s.ArchiveURL(e.Chart.Name, e.Chart.Version)
			}
		}
		sum := sha256.Sum256(body)
		s.mu.Lock()
		s.files[s.ArchivePath(e.Chart.Name, e.Chart.Version)] = body
		s.entries = append(s.entries, indexEntry{
			name: e.Chart.Name, version: e.Chart.Version, appVersion: e.Chart.AppVersion,
			url: url, digest: hex.EncodeToString(sum[:]),
		})
		s.mu.Unlock()
	}
	return nil
}

func archiveFile(name, version string) string { return "charts/" + name + "-" + version + ".tgz" }

// ArchivePath is the URL path at which the server serves a chart version's
// archive: <prefix>/charts/<name>-<version>.tgz.
func (s *Server) ArchivePath(name, version string) string {
	return s.cfg.prefix + "/" + archiveFile(name, version)
}

// ArchiveURL is the absolute URL of a chart version's archive.
func (s *Server) ArchiveURL(name, version string) string {
	return s.URL + s.ArchivePath(name, version)
}

// SetIndex serves body verbatim as index.yaml (a broken or hand-made
// index); nil goes back to the index generated from the entries.
func (s *Server) SetIndex(body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index = body
}

// indexYAML is the repository index as `helm repo index` writes it:
// apiVersion v1, entries by chart name with the newest version first.
func (s *Server) indexYAML() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index != nil {
		return s.index, nil
	}
	type version struct {
		APIVersion string   `json:"apiVersion"`
		Name       string   `json:"name"`
		Version    string   `json:"version"`
		AppVersion string   `json:"appVersion,omitempty"`
		Created    string   `json:"created"`
		Digest     string   `json:"digest"`
		URLs       []string `json:"urls"`
	}
	idx := struct {
		APIVersion string               `json:"apiVersion"`
		Entries    map[string][]version `json:"entries"`
		Generated  string               `json:"generated"`
	}{APIVersion: "v1", Entries: map[string][]version{}, Generated: archiveTime.Format("2006-01-02T15:04:05Z")}
	for _, e := range s.entries {
		idx.Entries[e.name] = append(idx.Entries[e.name], version{
			APIVersion: "v2", Name: e.name, Version: e.version, AppVersion: e.appVersion,
			Created: archiveTime.Format("2006-01-02T15:04:05Z"), Digest: e.digest, URLs: []string{e.url},
		})
	}
	for _, vs := range idx.Entries {
		sort.SliceStable(vs, func(i, j int) bool { return newer(vs[i].Version, vs[j].Version) })
	}
	return yaml.Marshal(idx)
}

// newer orders versions newest first, as Helm's IndexFile.SortEntries
// does; versions that are not semver sort last, by name.
func newer(a, b string) bool {
	va, ea := semver.NewVersion(a)
	vb, eb := semver.NewVersion(b)
	switch {
	case ea == nil && eb == nil:
		return va.GreaterThan(vb)
	case ea == nil:
		return true
	case eb == nil:
		return false
	}
	return a < b
}
