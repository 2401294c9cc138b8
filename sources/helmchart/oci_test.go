package helmchart

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/lab/helmrepo"
	labregistry "github.com/imgupd/imgupd/lab/registry"
	"github.com/imgupd/imgupd/model/updater"
)

var ociVersions = []string{"1.0.0", "1.2.0", "1.2.3+build.1", "2.0.0"}

func TestOCIHelmExactAndConstraint(t *testing.T) {
	t.Parallel()
	r := startRegistry(t)
	pushCharts(t, r, "charts", "app", ociVersions...)
	plain := Auth{PlainHTTP: true}
	src := func(rev string) Source {
		return Source{RepoURL: r.Host + "/charts", Chart: "app", TargetRevision: rev, EnableOCI: true}
	}

	ch := mustValues(t, src("1.2.0"), plain)
	wantValues(t, ch, "1.2.0")
	if ch.Kind != KindOCIHelm || ch.Ref != "oci://"+r.Host+"/charts/app:1.2.0" || !strings.HasPrefix(ch.Digest, "sha256:") || ch.ValuesPath != "app/values.yaml" {
		t.Errorf("chart = %+v", ch)
	}
	// "+" is stored as "_" and mapped back.
	ch = mustValues(t, src("1.2.3+build.1"), plain)
	wantValues(t, ch, "1.2.3+build.1")
	if !strings.HasSuffix(ch.Ref, ":1.2.3_build.1") {
		t.Errorf("ref = %s", ch.Ref)
	}
	for _, tc := range []struct{ rev, want string }{
		{"1.2.*", "1.2.3+build.1"},
		{">=1.0 <1.2.3", "1.2.0"},
		{"^1.0", "1.2.3+build.1"},
		{"", "2.0.0"},
		{"*", "2.0.0"},
	} {
		if got := mustValues(t, src(tc.rev), plain).Version; got != tc.want {
			t.Errorf("targetRevision %q → %s, want %s", tc.rev, got, tc.want)
		}
	}

	// A scheme-less host that url.Parse reads without a host needs no
	// enableOCI.
	local := strings.Replace(r.Host, "127.0.0.1", "localhost", 1) + "/charts"
	s := Source{RepoURL: local, Chart: "app", TargetRevision: "2.0.0"}
	if Kind(s) != KindOCIHelm {
		t.Fatalf("Kind(%s) = %s", local, Kind(s))
	}
	wantValues(t, mustValues(t, s, plain), "2.0.0")
}

func TestOCIHelmNotFound(t *testing.T) {
	t.Parallel()
	r := startRegistry(t)
	pushCharts(t, r, "charts", "app", ociVersions...)
	plain := Auth{PlainHTTP: true}
	for _, rev := range []string{"9.9.9", "3.*"} {
		_, err := values(t, Source{RepoURL: r.Host + "/charts", Chart: "app", TargetRevision: rev, EnableOCI: true}, plain)
		e := wantKind(t, err, VersionNotFound)
		if strings.Join(e.Versions, ",") != "2.0.0,1.2.3+build.1,1.2.0,1.0.0" {
			t.Errorf("%s: versions = %v", rev, e.Versions)
		}
		wantContains(t, e.Error(), "versions: 2.0.0, 1.2.3+build.1")
	}
	for _, rev := range []string{"1.0.0", "1.*"} {
		_, err := values(t, Source{RepoURL: r.Host + "/charts", Chart: "nope", TargetRevision: rev, EnableOCI: true}, plain)
		e := wantKind(t, err, ChartNotFound)
		wantContains(t, adviceFor(e), "repository "+r.Host+"/charts/nope:")
	}
}

func TestOCIHelmBasicAndTokenAuth(t *testing.T) {
	t.Parallel()
	for name, opt := range map[string]labregistry.Option{
		"basic": labregistry.WithBasicAuth(canaryUser, canaryPass),
		"token": labregistry.WithTokenAuth(canaryUser, canaryPass),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := startRegistry(t, opt)
			pushCharts(t, r, "charts", "app", ociVersions...)
			for _, rev := range []string{"1.0.0", "1.*"} {
				src := Source{RepoURL: r.Host + "/charts", Chart: "app", TargetRevision: rev, EnableOCI: true}
				_, err := values(t, src, Auth{PlainHTTP: true})
				e := wantKind(t, err, Unauthorized)
				wantContains(t, adviceFor(e), "none were sent")

				good := goodAuth()
				good.PlainHTTP = true
				mustValues(t, src, good)

				wrong := wrongAuth()
				wrong.PlainHTTP = true
				_, err = values(t, src, wrong)
				e = wantKind(t, err, Unauthorized)
				wantContains(t, adviceFor(e), "rejected the credentials")
			}
		})
	}
}

func TestOCIHelmTLS(t *testing.T) {
	t.Parallel()
	r := startRegistry(t, labregistry.WithTLS())
	pushCharts(t, r, "charts", "app", ociVersions...)
	src := Source{RepoURL: r.Host + "/charts", Chart: "app", TargetRevision: "1.0.0", EnableOCI: true}
	wantValues(t, mustValues(t, src, Auth{CAData: r.CAPEM}), "1.0.0")
	wantValues(t, mustValues(t, src, Auth{Insecure: true}), "1.0.0")

	_, err := values(t, src, Auth{})
	e := wantKind(t, err, netclass.TLS)
	wantContains(t, adviceFor(e), "argocd-tls-certs-cm under the key 127.0.0.1")

	// TLS spoken to a plain-HTTP registry: insecureOCIForceHttp is missing.
	p := startRegistry(t)
	pushCharts(t, p, "charts", "app", "1.0.0")
	_, err = values(t, Source{RepoURL: p.Host + "/charts", Chart: "app", TargetRevision: "1.0.0", EnableOCI: true}, Auth{})
	e = wantKind(t, err, netclass.TLS)
	wantContains(t, adviceFor(e), "insecureOCIForceHttp: true")
}

func TestOCIArtifactHelmChart(t *testing.T) {
	t.Parallel()
	r := startRegistry(t)
	pushCharts(t, r, "charts", "app", ociVersions...)
	plain := Auth{PlainHTTP: true}
	for _, tc := range []struct{ rev, want string }{
		{"1.2.0", "1.2.0"},
		{"1.2.3_build.1", "1.2.3+build.1"}, // the tag as the registry has it
		{"^1.0", "1.2.3+build.1"},
		{">=2", "2.0.0"},
	} {
		// The chart field is ignored for oci:// sources.
		ch := mustValues(t, Source{RepoURL: "oci://" + r.Host + "/charts/app", Chart: "ignored", TargetRevision: tc.rev, Path: "."}, plain)
		wantValues(t, ch, tc.want)
		if ch.Kind != KindOCIArtifact || ch.Name != "app" || ch.ValuesPath != "app/values.yaml" {
			t.Errorf("%s: chart = %+v", tc.rev, ch)
		}
	}
	// By digest.
	ch := mustValues(t, Source{RepoURL: "oci://" + r.Host + "/charts/app", TargetRevision: "2.0.0"}, plain)
	byDigest := mustValues(t, Source{RepoURL: "oci://" + r.Host + "/charts/app", TargetRevision: ch.Digest}, plain)
	if string(byDigest.Values) != valuesOf("2.0.0") || byDigest.Version != ch.Digest {
		t.Errorf("by digest: %+v", byDigest)
	}

	_, err := values(t, Source{RepoURL: "oci://" + r.Host + "/charts/app", TargetRevision: "7.0.0"}, plain)
	e := wantKind(t, err, VersionNotFound)
	wantContains(t, e.Error(), "versions: 2.0.0")

	// Argo CD takes an oci:// revision as a tag as it is: "+" fails.
	_, err = values(t, Source{RepoURL: "oci://" + r.Host + "/charts/app", TargetRevision: "1.2.3+build.1"}, plain)
	wantContains(t, wantKind(t, err, InvalidSource).Error(), `use "1.2.3_build.1"`)
}

func TestOCIArtifactPlainTar(t *testing.T) {
	t.Parallel()
	r := startRegistry(t, labregistry.WithBasicAuth(canaryUser, canaryPass))
	ctx := context.Background()
	files := map[string][]byte{
		"env/prod/values.yaml": []byte(valuesOf("prod")),
		"env/dev/values.yaml":  []byte(valuesOf("dev")),
		"values.yaml":          []byte(valuesOf("root")),
		"env/prod/Chart.yaml":  []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n"),
	}
	tgz, err := helmrepo.TarGz("", files)
	if err != nil {
		t.Fatal(err)
	}
	tarball := plainTar(t, files)
	push := func(tag string, layers ...labregistry.Layer) {
		t.Helper()
		if _, err := r.PushArtifact(ctx, "manifests/app", labregistry.Artifact{Tag: tag, Layers: layers}); err != nil {
			t.Fatal(err)
		}
	}
	push("1.0.0", labregistry.Layer{MediaType: "application/vnd.oci.image.layer.v1.tar+gzip", Data: tgz})
	push("tar", labregistry.Layer{MediaType: "application/vnd.oci.image.layer.v1.tar", Data: tarball})
	push("two-layers",
		labregistry.Layer{MediaType: "application/vnd.oci.image.layer.v1.tar+gzip", Data: tgz},
		labregistry.Layer{MediaType: "application/vnd.oci.image.layer.v1.tar", Data: tarball})
	push("docker-layer", labregistry.Layer{MediaType: "application/vnd.docker.image.rootfs.diff.tar.gzip", Data: tgz})

	auth := goodAuth()
	auth.PlainHTTP = true
	repo := "oci://" + r.Host + "/manifests/app"
	for _, tc := range []struct{ rev, path, want string }{
		{"1.0.0", "env/prod", "prod"},
		{"1.0.0", "env/dev/", "dev"},
		{"1.0.0", ".", "root"},
		{"1.0.0", "", "root"},
		{"tar", "env/prod", "prod"},
	} {
		ch := mustValues(t, Source{RepoURL: repo, TargetRevision: tc.rev, Path: tc.path}, auth)
		if string(ch.Values) != valuesOf(tc.want) || ch.Name != "app" {
			t.Errorf("%s at %q: %+v", tc.rev, tc.path, ch)
		}
	}
	for _, tc := range []struct{ rev, path, detail string }{
		{"1.0.0", "env/qa", "no values.yaml at spec.source.path env/qa"},
		{"two-layers", ".", "expected only a single oci content layer, got 2"},
		{"docker-layer", ".", "not in the list of allowed media types"},
	} {
		_, err := values(t, Source{RepoURL: repo, TargetRevision: tc.rev, Path: tc.path}, auth)
		e := wantKind(t, err, BadChart)
		wantContains(t, e.Error(), tc.detail)
	}
	// The repo-server's list of allowed layer types is configurable.
	ch := mustValues(t, Source{RepoURL: repo, TargetRevision: "docker-layer", Path: "env/dev"}, auth,
		WithOCILayerMediaTypes("application/vnd.docker.image.rootfs.diff.tar.gzip"))
	if string(ch.Values) != valuesOf("dev") {
		t.Errorf("docker layer: %q", ch.Values)
	}

	_, err = values(t, Source{RepoURL: repo, TargetRevision: "1.0.0"}, Auth{PlainHTTP: true, Username: canaryUser, Password: updater.Secret(canaryWrong)})
	wantKind(t, err, Unauthorized)
}

// PushChart stores what `helm push` stores: the lab registry's Helm
// artifacts are the real shape.
func TestLabPushChartLayout(t *testing.T) {
	t.Parallel()
	r := startRegistry(t)
	tgz, err := helmrepo.Build(chart("app", "1.2.3+build.1"))
	if err != nil {
		t.Fatal(err)
	}
	pushed, err := r.PushChart(context.Background(), "team/charts", tgz)
	if err != nil {
		t.Fatal(err)
	}
	if pushed.Repository != "team/charts/app" || pushed.Tag != "1.2.3_build.1" {
		t.Fatalf("pushed = %+v", pushed)
	}
	ref, err := name.ParseReference(r.Host+"/team/charts/app:1.2.3_build.1", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := remote.Get(ref)
	if err != nil {
		t.Fatal(err)
	}
	m, err := v1.ParseManifest(bytes.NewReader(desc.Manifest))
	if err != nil {
		t.Fatal(err)
	}
	if desc.Digest.String() != pushed.Digest || m.MediaType != types.OCIManifestSchema1 ||
		m.Config.MediaType != labregistry.HelmConfigMediaType || len(m.Layers) != 1 ||
		m.Layers[0].MediaType != labregistry.HelmChartMediaType || m.Annotations["org.opencontainers.image.version"] != "1.2.3+build.1" {
		t.Fatalf("manifest = %s", desc.Manifest)
	}
	img, err := remote.Image(ref)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.RawConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(cfg, &meta); err != nil || meta["name"] != "app" || meta["version"] != "1.2.3+build.1" || meta["apiVersion"] != "v2" {
		t.Fatalf("config = %s (%v)", cfg, err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	rc, err := layers[0].Compressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, _ := io.ReadAll(rc)
	if !bytes.Equal(got, tgz) {
		t.Error("the layer is not the chart archive")
	}
	if _, err := r.PushChart(context.Background(), "", []byte("not a tgz")); err == nil {
		t.Error("PushChart took a non-archive")
	}
}
