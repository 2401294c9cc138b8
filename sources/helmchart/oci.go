package helmchart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/imgupd/imgupd/internal/lazyre"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imgupd/imgupd/internal/errtext"
)

// Helm's OCI media types (helm push, Helm 3.8+), and the layer type of
// charts pushed before it.
const (
	helmConfigType     = "application/vnd.cncf.helm.config.v1+json"
	helmChartLayer     = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
	helmLegacyLayer    = "application/tar+gzip"
	maxArtifactLayers  = 10 // the repo-server's guard
	annotationTitle    = "org.opencontainers.image.title"
	ociSchemePrefix    = "oci://"
	digestPrefixSHA256 = "sha256:"
)

// tagPattern is the distribution spec's tag grammar.
var tagPattern = lazyre.New(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`)

// ociHelm reads a Helm chart from an OCI registry as the repo-server does
// for a chart with a scheme-less repoURL (or enableOCI): a pinned version
// is pulled as tag <version> ("+" → "_") without listing tags; anything
// else is resolved with Argo CD's MaxVersion over the tags of
// <repoURL>/<chart> ("_" → "+"). Then `helm pull oci://<repoURL>/<chart>`
// and <chart>/values.yaml from the pulled archive.
func (s *session) ociHelm(ctx context.Context, src Source) (*Chart, error) {
	if strings.Contains(src.RepoURL, "://") {
		return nil, &Error{Kind: InvalidSource, Op: "source", URL: redactRaw(src.RepoURL),
			detail: "OCI Helm repository URL should include hostname and port only (Argo CD's own check): drop the scheme from spec.source.repoURL, or use an oci:// repoURL (Argo CD 3.1+) without spec.source.chart"}
	}
	repoStr := strings.TrimSuffix(src.RepoURL, "/") + "/" + src.Chart
	repo, err := name.NewRepository(repoStr, s.nameOpts()...)
	if err != nil {
		return nil, &Error{Kind: InvalidSource, Op: "source", URL: ociSchemePrefix + redactRaw(repoStr), Err: err,
			detail: fmt.Sprintf("%q is not a valid OCI repository: %v", redactRaw(repoStr), err)}
	}
	opts := s.remoteOpts(ctx, repo)
	rev := src.TargetRevision

	version := rev
	if !isVersion(rev) {
		versions, err := listVersions(repo, opts)
		if err != nil {
			return nil, classify(&Error{Op: "tags", URL: ociSchemePrefix + repo.Name(), Host: repo.RegistryStr(), CredentialsSent: s.auth.hasCreds()}, err, ChartNotFound)
		}
		if version, err = pickMax(rev, versions); err != nil {
			return nil, versionNotFound(repo, rev, versions, err)
		}
	}
	tag := ociTag(version)
	if !tagPattern().MatchString(tag) {
		return nil, &Error{Kind: InvalidSource, Op: "source", URL: ociSchemePrefix + repo.Name(),
			detail: fmt.Sprintf("targetRevision %q is not a valid OCI tag", errtext.OneLine(tag))}
	}
	ref := repo.Tag(tag)
	layer, desc, err := s.manifestLayer(ref, opts, func(m *v1.Manifest) (v1.Descriptor, error) {
		for _, l := range m.Layers {
			if l.MediaType == helmChartLayer || l.MediaType == helmLegacyLayer {
				return l, nil
			}
		}
		return v1.Descriptor{}, fmt.Errorf("the manifest has no Helm chart layer (%s)", helmChartLayer)
	})
	if err != nil {
		return nil, s.notFoundWithVersions(err, repo, opts, version)
	}
	refText := ociSchemePrefix + repo.Name() + ":" + tag
	blob, err := s.readLayer(repo, layer, opts)
	if err != nil {
		return nil, classify(&Error{Op: "layer", URL: refText, Host: repo.RegistryStr(), Version: version, CredentialsSent: s.auth.hasCreds()}, err, ChartNotFound)
	}
	dir := chartDir(src.Chart)
	want := dir + "/values.yaml"
	a, err := scanArchive(bytes.NewReader(blob), true, func(n string) bool { return n == want }, s.c.maxBytes, s.c.maxBytes)
	if err == nil {
		var values []byte
		if values, err = chartValues(a, dir); err == nil {
			return &Chart{Name: src.Chart, Version: version, Values: values, ValuesPath: want, Kind: KindOCIHelm, Ref: refText, Digest: desc.Digest.String()}, nil
		}
	}
	return nil, classify(&Error{URL: refText, Host: repo.RegistryStr(), Version: version}, err, BadChart)
}

// ociArtifact reads an oci:// source (Argo CD 3.1+) as the repo-server's
// OCI client does: targetRevision resolved as a tag or digest first, and
// only when that fails and it is a semver constraint, against the tags;
// at most 10 layers, exactly one content layer of an allowed media type;
// a Helm chart layer's single top directory becomes the root; then
// <path>/values.yaml.
func (s *session) ociArtifact(ctx context.Context, src Source) (*Chart, error) {
	repoStr := strings.TrimSuffix(strings.TrimPrefix(src.RepoURL, ociSchemePrefix), "/")
	repo, err := name.NewRepository(repoStr, s.nameOpts()...)
	if err != nil {
		return nil, &Error{Kind: InvalidSource, Op: "source", URL: redactRaw(src.RepoURL), Err: err,
			detail: fmt.Sprintf("%q is not a valid OCI repository: %v", redactRaw(repoStr), err)}
	}
	rel, ok := appPath(src.Path)
	if !ok {
		return nil, &Error{Kind: InvalidSource, Op: "source", URL: ociSchemePrefix + repo.Name(),
			detail: fmt.Sprintf("spec.source.path %q is absolute or leaves the artifact root", errtext.OneLine(src.Path))}
	}
	rev := src.TargetRevision
	if rev == "" {
		return nil, &Error{Kind: InvalidSource, Op: "source", URL: ociSchemePrefix + repo.Name(),
			detail: "spec.source.targetRevision is empty: an oci:// source needs a tag, a digest or a semver constraint"}
	}
	opts := s.remoteOpts(ctx, repo)

	var helmLayer bool
	pick := func(m *v1.Manifest) (v1.Descriptor, error) {
		if len(m.Layers) > maxArtifactLayers {
			return v1.Descriptor{}, fmt.Errorf("expected no more than %d oci layers, got %d", maxArtifactLayers, len(m.Layers))
		}
		isHelm := string(m.Config.MediaType) == helmConfigType
		var content []v1.Descriptor
		for _, l := range m.Layers {
			if (isHelm && string(l.MediaType) == helmChartLayer) || (!isHelm && isContentLayer(string(l.MediaType))) {
				content = append(content, l)
			}
		}
		if len(content) != 1 {
			return v1.Descriptor{}, fmt.Errorf("expected only a single oci content layer, got %d", len(content))
		}
		if !slices.Contains(s.c.layerTypes, string(content[0].MediaType)) {
			return v1.Descriptor{}, fmt.Errorf("oci layer media type %s is not in the list of allowed media types (the repo-server's --oci-layer-media-types)", content[0].MediaType)
		}
		helmLayer = string(content[0].MediaType) == helmChartLayer
		return content[0], nil
	}

	ref, version, direct := directRef(repo, rev)
	var (
		layer v1.Descriptor
		desc  *remote.Descriptor
	)
	if direct {
		layer, desc, err = s.manifestLayer(ref, opts, pick)
	}
	if !direct || (err != nil && isConstraint(rev)) {
		if !isConstraint(rev) {
			detail := fmt.Sprintf("targetRevision %q is neither a tag, a digest nor a semver constraint", errtext.OneLine(rev))
			if strings.Contains(rev, "+") {
				// Argo CD resolves an oci:// revision as a tag as it is,
				// and tags cannot hold "+".
				detail += fmt.Sprintf(" (OCI tags hold \"_\" for \"+\": use %q)", errtext.OneLine(ociTag(rev)))
			}
			return nil, &Error{Kind: InvalidSource, Op: "source", URL: ociSchemePrefix + repo.Name(), detail: detail}
		}
		versions, lerr := listVersions(repo, opts)
		if lerr != nil {
			return nil, classify(&Error{Op: "tags", URL: ociSchemePrefix + repo.Name(), Host: repo.RegistryStr(), CredentialsSent: s.auth.hasCreds()}, lerr, ChartNotFound)
		}
		if version, err = pickMax(rev, versions); err != nil {
			return nil, versionNotFound(repo, rev, versions, err)
		}
		// Argo CD resolves the "+" version as it is, which no registry
		// stores; the tag Helm wrote has "_".
		ref = repo.Tag(ociTag(version))
		layer, desc, err = s.manifestLayer(ref, opts, pick)
	}
	if err != nil {
		return nil, s.notFoundWithVersions(err, repo, opts, rev)
	}

	refText := ociSchemePrefix + ref.Name()
	blob, err := s.readLayer(repo, layer, opts)
	if err != nil {
		return nil, classify(&Error{Op: "layer", URL: refText, Host: repo.RegistryStr(), Version: version, CredentialsSent: s.auth.hasCreds()}, err, ChartNotFound)
	}
	mt := string(layer.MediaType)
	gz := strings.HasSuffix(mt, "tar+gzip") || strings.HasSuffix(mt, "tar.gzip")
	want := path.Join(rel, "values.yaml")
	match := func(n string) bool { return n == want }
	if helmLayer {
		match = func(n string) bool { _, r, ok := strings.Cut(n, "/"); return ok && r == want }
	}
	a, err := scanArchive(bytes.NewReader(blob), gz, match, s.c.maxBytes, s.c.maxBytes)
	if err == nil {
		var values []byte
		if values, err = artifactValues(a, helmLayer, rel); err == nil {
			valuesPath := want
			if helmLayer {
				valuesPath = a.tops[0] + "/" + want
			}
			chartName := desc.Annotations[annotationTitle]
			if chartName == "" {
				chartName = path.Base(repo.RepositoryStr())
			}
			return &Chart{Name: chartName, Version: version, Values: values, ValuesPath: valuesPath, Kind: KindOCIArtifact, Ref: refText, Digest: desc.Digest.String()}, nil
		}
	}
	return nil, classify(&Error{URL: refText, Host: repo.RegistryStr(), Version: version}, err, BadChart)
}

// directRef is the reference an oci:// targetRevision names by itself: a
// digest, or a tag; ok is false when it is neither (e.g. ">=1.0").
func directRef(repo name.Repository, rev string) (ref name.Reference, version string, ok bool) {
	if strings.HasPrefix(rev, digestPrefixSHA256) {
		d, err := name.NewDigest(repo.Name()+"@"+rev, name.WeakValidation)
		if err != nil {
			return nil, "", false
		}
		return d, rev, true
	}
	if !tagPattern().MatchString(rev) {
		return nil, "", false
	}
	return repo.Tag(rev), fromOCITag(rev), true
}

// isContentLayer is the repo-server's isContentLayer: a tar, gzipped or not.
func isContentLayer(mt string) bool {
	return strings.HasSuffix(mt, "tar+gzip") || strings.HasSuffix(mt, "tar.gzip") || strings.HasSuffix(mt, "tar")
}

// manifestLayer fetches ref's manifest and picks the layer to read.
func (s *session) manifestLayer(ref name.Reference, opts []remote.Option, pick func(*v1.Manifest) (v1.Descriptor, error)) (v1.Descriptor, *remote.Descriptor, error) {
	e := &Error{Op: "manifest", URL: ociSchemePrefix + ref.Name(), Host: ref.Context().RegistryStr(), CredentialsSent: s.auth.hasCreds()}
	desc, err := remote.Get(ref, opts...)
	if err != nil {
		return v1.Descriptor{}, nil, classify(e, err, VersionNotFound)
	}
	if desc.MediaType.IsIndex() {
		e.Kind, e.detail = BadChart, fmt.Sprintf("%s is an image index (%s), not a single manifest", ref.Name(), desc.MediaType)
		return v1.Descriptor{}, nil, e
	}
	if int64(len(desc.Manifest)) > s.c.maxBytes {
		e.Kind, e.Limit, e.detail = TooLarge, s.c.maxBytes, "the manifest is over the limit"
		return v1.Descriptor{}, nil, e
	}
	m, err := v1.ParseManifest(bytes.NewReader(desc.Manifest))
	if err != nil {
		e.Kind, e.Err, e.detail = BadChart, err, errtext.OneLine("the manifest does not parse: "+err.Error())
		return v1.Descriptor{}, nil, e
	}
	l, err := pick(m)
	if err != nil {
		e.Kind, e.Err, e.detail = BadChart, err, errtext.OneLine(err.Error())
		return v1.Descriptor{}, nil, e
	}
	if l.Size > s.c.maxBytes {
		e.Kind, e.Limit, e.detail = TooLarge, s.c.maxBytes, fmt.Sprintf("the layer is %d bytes, over the %d-byte limit", l.Size, s.c.maxBytes)
		return v1.Descriptor{}, nil, e
	}
	return l, desc, nil
}

// readLayer downloads one blob, bounded by the byte limit.
func (s *session) readLayer(repo name.Repository, l v1.Descriptor, opts []remote.Option) ([]byte, error) {
	layer, err := remote.Layer(repo.Digest(l.Digest.String()), opts...)
	if err != nil {
		return nil, err
	}
	rc, err := layer.Compressed()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, s.c.maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > s.c.maxBytes {
		return nil, &tooLargeError{what: "the layer", limit: s.c.maxBytes}
	}
	return b, nil
}

// listVersions lists a repository's tags as versions ("_" → "+").
func listVersions(repo name.Repository, opts []remote.Option) ([]string, error) {
	tags, err := remote.List(repo, opts...)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = fromOCITag(t)
	}
	return out, nil
}

func versionNotFound(repo name.Repository, rev string, versions []string, err error) *Error {
	e := &Error{Kind: VersionNotFound, Op: "tags", URL: ociSchemePrefix + repo.Name(), Host: repo.RegistryStr(), Version: rev, Err: err,
		detail: fmt.Sprintf("no tag of %s matches %q", repo.RepositoryStr(), errtext.OneLine(rev))}
	e.Versions, e.MoreVersions = newestFirst(versions, maxListedVersions)
	return e
}

// notFoundWithVersions turns a manifest 404 into ChartNotFound when the
// repository does not exist, or VersionNotFound listing the tags that do.
func (s *session) notFoundWithVersions(err error, repo name.Repository, opts []remote.Option, version string) error {
	var e *Error
	if !errors.As(err, &e) || e.Kind != VersionNotFound {
		return err
	}
	e.Version = version
	var te *transport.Error
	versions, lerr := listVersions(repo, opts)
	switch {
	case lerr == nil:
		e.Versions, e.MoreVersions = newestFirst(versions, maxListedVersions)
	case errors.As(lerr, &te) && te.StatusCode == http.StatusNotFound:
		e.Kind = ChartNotFound
	}
	if errors.As(e.Err, &te) {
		for _, d := range te.Errors {
			if d.Code == transport.NameUnknownErrorCode {
				e.Kind = ChartNotFound
			}
		}
	}
	return e
}

// nameOpts parses references for plain HTTP when insecureOCIForceHttp is
// set, as Helm's and oras's PlainHTTP do.
func (s *session) nameOpts() []name.Option {
	if s.auth.PlainHTTP {
		return []name.Option{name.Insecure}
	}
	return nil
}

// remoteOpts are go-containerregistry's options for one call: the
// session's transport under a guard that keeps the registry to the
// configured scheme, registry credentials, no retries (Argo CD's oras
// client does not retry either).
func (s *session) remoteOpts(ctx context.Context, repo name.Repository) []remote.Option {
	auth := authn.Anonymous
	if s.auth.hasCreds() {
		auth = authn.FromConfig(authn.AuthConfig{Username: s.auth.Username, Password: s.auth.Password.Reveal()})
	}
	scheme := "https"
	if s.auth.PlainHTTP {
		scheme = "http"
	}
	return []remote.Option{
		remote.WithContext(ctx),
		remote.WithAuth(auth),
		remote.WithTransport(&schemeGuard{inner: s.rt, host: repo.RegistryStr(), scheme: scheme}),
		remote.WithUserAgent(userAgent),
		remote.WithRetryBackoff(remote.Backoff{Steps: 1}),
		remote.WithRetryPredicate(func(error) bool { return false }),
		remote.WithRetryStatusCodes(),
	}
}

// schemeGuard refuses a /v2/ ping of the registry in the scheme not
// configured: go-containerregistry races https against http for loopback
// and private hosts (and name.Insecure ones), while Helm and oras use
// exactly one scheme, https unless plain HTTP is asked for. The refused
// racer sends nothing, so the configured scheme's answer decides.
type schemeGuard struct {
	inner        http.RoundTripper
	host, scheme string
}

var errSchemeNotUsed = errors.New("scheme not configured for this registry")

func (g *schemeGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host == g.host && req.URL.Scheme != g.scheme && (req.URL.Path == "/v2/" || req.URL.Path == "/v2") {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, errSchemeNotUsed
	}
	return g.inner.RoundTrip(req)
}
