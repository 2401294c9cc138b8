package helmrepo

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func start(t *testing.T, opts ...Option) *Server {
	t.Helper()
	s, err := Start(opts...)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func get(t *testing.T, c *http.Client, url string, auth ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(auth) == 2 {
		req.SetBasicAuth(auth[0], auth[1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// untar returns the archive's files by name.
func untar(t *testing.T, tgz []byte) map[string]string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = string(b)
	}
}

func TestBuild(t *testing.T) {
	t.Parallel()
	c := Chart{Name: "app", Version: "1.10", AppVersion: "2.0", Values: "image:\n  tag: x\n"}
	a, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Build(c)
	if !bytes.Equal(a, b) {
		t.Error("Build is not deterministic")
	}
	files := untar(t, a)
	if files["app/values.yaml"] != c.Values || files["app/templates/deployment.yaml"] != DefaultTemplate {
		t.Errorf("files = %v", files)
	}
	var meta map[string]any
	if err := yaml.Unmarshal([]byte(files["app/Chart.yaml"]), &meta); err != nil {
		t.Fatal(err)
	}
	if meta["version"] != "1.10" || meta["appVersion"] != "2.0" || meta["apiVersion"] != "v2" || meta["name"] != "app" {
		t.Errorf("Chart.yaml = %v", meta)
	}

	odd, err := Build(Chart{Name: "app", Version: "1.0.0", NoValues: true, TopDir: "other", Templates: map[string]string{}, Files: map[string]string{"README.md": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	files = untar(t, odd)
	if _, ok := files["other/values.yaml"]; ok || files["other/README.md"] != "hi" || len(files) != 2 {
		t.Errorf("odd chart files = %v", files)
	}
	if _, err := Build(Chart{Name: "app"}); err == nil {
		t.Error("a chart without version built")
	}
}

func TestServeIndexAndArchives(t *testing.T) {
	t.Parallel()
	s := start(t, WithPrefix("charts/stable/"))
	if !strings.HasSuffix(s.RepoURL, "/charts/stable") {
		t.Fatalf("RepoURL = %s", s.RepoURL)
	}
	for _, v := range []string{"1.0.0", "1.10.0", "1.2.0"} {
		if err := s.AddChart(Chart{Name: "app", Version: v, Values: "v: " + v}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(Entry{Chart: Chart{Name: "ext", Version: "0.1.0"}, URL: "https://elsewhere.example/ext-0.1.0.tgz"}); err != nil {
		t.Fatal(err)
	}
	code, body := get(t, http.DefaultClient, s.RepoURL+"/index.yaml")
	if code != 200 {
		t.Fatalf("index: %d", code)
	}
	var idx struct {
		APIVersion string `json:"apiVersion"`
		Entries    map[string][]struct {
			Version string   `json:"version"`
			URLs    []string `json:"urls"`
			Digest  string   `json:"digest"`
		} `json:"entries"`
	}
	if err := yaml.Unmarshal(body, &idx); err != nil {
		t.Fatal(err)
	}
	app := idx.Entries["app"]
	if idx.APIVersion != "v1" || len(app) != 3 || app[0].Version != "1.10.0" || app[2].Version != "1.0.0" {
		t.Fatalf("index = %s", body)
	}
	if app[0].URLs[0] != "charts/app-1.10.0.tgz" || len(app[0].Digest) != 64 {
		t.Errorf("entry = %+v", app[0])
	}
	if idx.Entries["ext"][0].URLs[0] != "https://elsewhere.example/ext-0.1.0.tgz" {
		t.Errorf("ext = %+v", idx.Entries["ext"])
	}
	code, tgz := get(t, http.DefaultClient, s.RepoURL+"/"+app[0].URLs[0])
	if code != 200 || untar(t, tgz)["app/values.yaml"] != "v: 1.10.0" {
		t.Errorf("archive: %d", code)
	}
	if s.ArchiveURL("app", "1.10.0") != s.RepoURL+"/charts/app-1.10.0.tgz" {
		t.Errorf("ArchiveURL = %s", s.ArchiveURL("app", "1.10.0"))
	}
	if code, _ := get(t, http.DefaultClient, s.URL+"/index.yaml"); code != 404 {
		t.Errorf("index outside the prefix: %d", code)
	}

	s.SetIndex([]byte("garbage"))
	if _, body := get(t, http.DefaultClient, s.RepoURL+"/index.yaml"); string(body) != "garbage" {
		t.Errorf("SetIndex: %q", body)
	}
}

func TestAbsoluteURLs(t *testing.T) {
	t.Parallel()
	s := start(t, WithAbsoluteURLs())
	if err := s.AddChart(Chart{Name: "app", Version: "1.0.0"}); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, http.DefaultClient, s.RepoURL+"/index.yaml")
	if !strings.Contains(string(body), s.ArchiveURL("app", "1.0.0")) {
		t.Errorf("index = %s", body)
	}
}

func TestBasicAuthAndRequests(t *testing.T) {
	t.Parallel()
	s := start(t, WithBasicAuth("u", "secret-pw"))
	if code, _ := get(t, http.DefaultClient, s.RepoURL+"/index.yaml"); code != 401 {
		t.Errorf("no credentials: %d", code)
	}
	if code, _ := get(t, http.DefaultClient, s.RepoURL+"/index.yaml", "u", "wrong"); code != 401 {
		t.Errorf("wrong password: %d", code)
	}
	if code, _ := get(t, http.DefaultClient, s.RepoURL+"/index.yaml", "u", "secret-pw"); code != 200 {
		t.Errorf("right password: %d", code)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Authorization || !reqs[2].Authorization || reqs[2].User != "u" {
		t.Errorf("requests = %+v", reqs)
	}
	for _, r := range reqs {
		if strings.Contains(r.User+r.Path, "secret-pw") {
			t.Errorf("request kept the password: %+v", r)
		}
	}
	s.ResetRequests()
	if len(s.Requests()) != 0 {
		t.Error("ResetRequests")
	}
}

func TestTLSAndClientCertificate(t *testing.T) {
	t.Parallel()
	s := start(t, WithTLS())
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.CAPEM)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if code, _ := get(t, c, s.RepoURL+"/index.yaml"); code != 200 || !strings.HasPrefix(s.URL, "https://") {
		t.Errorf("TLS: %d %s", code, s.URL)
	}

	m := start(t, WithClientCertAuth())
	pool = x509.NewCertPool()
	pool.AppendCertsFromPEM(m.CAPEM)
	noCert := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if _, err := noCert.Get(m.RepoURL + "/index.yaml"); err == nil {
		t.Error("no client certificate was accepted")
	}
	cert, err := tls.X509KeyPair(m.ClientCertPEM, m.ClientKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	withCert := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}}
	if code, _ := get(t, withCert, m.RepoURL+"/index.yaml"); code != 200 {
		t.Errorf("client certificate: %d", code)
	}
}

func TestHandle(t *testing.T) {
	t.Parallel()
	s := start(t, WithBasicAuth("u", "p"))
	s.Handle("/index.yaml", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("custom")) }))
	if code, _ := get(t, http.DefaultClient, s.URL+"/index.yaml"); code != 401 {
		t.Errorf("Handle skipped authentication: %d", code)
	}
	if _, body := get(t, http.DefaultClient, s.URL+"/index.yaml", "u", "p"); string(body) != "custom" {
		t.Errorf("Handle: %q", body)
	}
}
