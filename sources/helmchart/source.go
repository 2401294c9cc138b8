package helmchart

import (
	"net/url"
	"path"
	"strings"
)

// The three kinds of chart source, as Kind returns them and Chart.Kind
// holds them.
const (
	// KindHelmRepo: a classic repository, http(s)://.../index.yaml.
	KindHelmRepo = "helm-repo"
	// KindOCIHelm: a Helm chart in an OCI registry, repoURL without a
	// scheme (or enableOCI), chart in spec.source.chart.
	KindOCIHelm = "oci-helm"
	// KindOCIArtifact: an oci:// repoURL (Argo CD 3.1+), holding a Helm
	// chart or a plain tar of files.
	KindOCIArtifact = "oci-artifact"
)

// Source is the part of an Argo CD Application source (spec.source or one
// of spec.sources) that locates a chart, plus the repository's enableOCI.
type Source struct {
	// RepoURL is spec.source.repoURL, verbatim.
	RepoURL string
	// Chart is spec.source.chart ("" for git and oci:// sources).
	Chart string
	// TargetRevision is spec.source.targetRevision: an exact version, a
	// semver constraint, a tag, or (oci://) a digest.
	TargetRevision string
	// Path is spec.source.path; only oci:// sources use it.
	Path string
	// EnableOCI is the repository Secret's enableOCI.
	EnableOCI bool
}

// Kind tells which kind of chart source src is, as Argo CD's repo-server
// decides it: an oci:// repoURL is KindOCIArtifact whatever chart says
// (source.IsOCI() is tested first); otherwise a source without chart is
// not a chart source (""); a chart with enableOCI or a repoURL that
// url.Parse reads without a host is KindOCIHelm (helm.IsHelmOciRepo);
// anything else is KindHelmRepo.
//
// Note that url.Parse rejects "127.0.0.1:5000/charts" (a colon in the
// first path segment), so Argo CD, and Kind, take such a repoURL for a
// classic repository unless enableOCI is set; Values then fails with
// InvalidSource and says so.
func Kind(src Source) string {
	switch {
	case strings.HasPrefix(src.RepoURL, "oci://"):
		return KindOCIArtifact
	case src.Chart == "":
		return ""
	case src.EnableOCI || isHelmOCIRepo(src.RepoURL):
		return KindOCIHelm
	}
	return KindHelmRepo
}

// isHelmOCIRepo is Argo CD's helm.IsHelmOciRepo.
func isHelmOCIRepo(repoURL string) bool {
	if repoURL == "" {
		return false
	}
	u, err := url.Parse(repoURL)
	return err == nil && u.Host == ""
}

// chartDir is the directory Argo CD expects a pulled chart archive to
// unpack to: the chart name's last path element (normalizeChartName).
func chartDir(chart string) string {
	_, nc := path.Split(chart)
	if nc == "" || nc == "." || nc == ".." {
		return chart
	}
	return nc
}

// redactURL drops userinfo, query and fragment: a repoURL may carry a
// password, and chart URLs signed query tokens.
func redactURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}

// redactRaw is redactURL for a string that may not parse.
func redactRaw(s string) string {
	if u, err := url.Parse(s); err == nil {
		return redactURL(u)
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			s = s[:j+3] + s[i+1:]
		} else {
			s = s[i+1:]
		}
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	return s
}

// appPath is the Application's path inside an oci:// artifact, clean and
// slash-separated, "" for its root; ok is false when it is absolute or
// leaves the root (Argo CD's apppathutil.Path refuses both).
func appPath(p string) (string, bool) {
	if strings.HasPrefix(p, "/") {
		return "", false
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	if c == "." {
		return "", true
	}
	return c, true
}
