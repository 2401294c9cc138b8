package registry

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	labregistry "github.com/imgupd/imgupd/lab/registry"
	"github.com/imgupd/imgupd/model/updater"
)

// The benchmarks run against the lab registry on loopback. The Raw*
// references do the same work with go-containerregistry directly and
// sequentially, as a naive diagnosis would; compare ns/op and requests/op.

func benchLab(b *testing.B, repo string, imgs []labregistry.Image) *labregistry.Server {
	b.Helper()
	s := startLab(b)
	push(b, s, repo, imgs...)
	return s
}

// tags5000 is 5,000 tags on 50 images (pushing 5,000 distinct images is
// fast too, but the listing does not care).
func tags5000() []labregistry.Image {
	imgs := make([]labregistry.Image, 5000)
	for i := range imgs {
		imgs[i] = labregistry.Image{Tag: fmt.Sprintf("1.%d.%d", i/100, i%100), Created: day(i)}
		if i%100 != 0 {
			imgs[i] = labregistry.Image{Tag: imgs[i].Tag, SameAs: imgs[i-i%100].Tag}
		}
	}
	return imgs
}

// images200 is 200 single-manifest tags with distinct build dates.
func images200() ([]labregistry.Image, []string) {
	imgs := make([]labregistry.Image, 200)
	tags := make([]string, 200)
	for i := range imgs {
		tags[i] = fmt.Sprintf("2.0.%d", i)
		imgs[i] = labregistry.Image{Tag: tags[i], Created: day(i)}
	}
	return imgs, tags
}

func reportRequests(b *testing.B, s *labregistry.Server) {
	b.ReportMetric(float64(s.Requests().Total())/float64(b.N), "requests/op")
}

func BenchmarkListTags5000(b *testing.B) {
	s := benchLab(b, "big", tags5000())
	ctx := context.Background()
	s.ResetRequests()
	b.ResetTimer()
	for b.Loop() {
		tags, err := New().ListTags(ctx, targetOf(s, "big"))
		if err != nil || len(tags) != 5000 {
			b.Fatalf("%d tags, %v", len(tags), err)
		}
	}
	reportRequests(b, s)
}

func BenchmarkRawRemoteList5000(b *testing.B) {
	s := benchLab(b, "big", tags5000())
	repo, err := name.NewRepository(s.Host+"/big", name.Insecure)
	if err != nil {
		b.Fatal(err)
	}
	s.ResetRequests()
	b.ResetTimer()
	for b.Loop() {
		tags, err := remote.List(repo)
		if err != nil || len(tags) != 5000 {
			b.Fatalf("%d tags, %v", len(tags), err)
		}
	}
	reportRequests(b, s)
}

func BenchmarkMetadata200(b *testing.B) {
	imgs, tags := images200()
	s := benchLab(b, "app", imgs)
	ctx := context.Background()
	want := updater.NewPlatformSet(nil, updater.DefaultControllerPlatform).Wants
	s.ResetRequests()
	b.ResetTimer()
	for b.Loop() {
		// A fresh Client per run: no cache carried over.
		meta, err := New().Metadata(ctx, targetOf(s, "app"), tags, want)
		if err != nil || len(meta) != 200 || !meta["2.0.7"].Manifests[0].HasCreated {
			b.Fatalf("%d tags, %v", len(meta), err)
		}
	}
	reportRequests(b, s)
}

// BenchmarkRawMetadata200 reads the same 200 tags one after the other with
// remote.Get and ConfigFile, sharing one Puller (one handshake per run).
func BenchmarkRawMetadata200(b *testing.B) {
	imgs, tags := images200()
	s := benchLab(b, "app", imgs)
	repo, err := name.NewRepository(s.Host+"/app", name.Insecure)
	if err != nil {
		b.Fatal(err)
	}
	s.ResetRequests()
	b.ResetTimer()
	for b.Loop() {
		puller, err := remote.NewPuller()
		if err != nil {
			b.Fatal(err)
		}
		for _, tag := range tags {
			desc, err := remote.Get(repo.Tag(tag), remote.Reuse(puller))
			if err != nil {
				b.Fatal(err)
			}
			img, err := desc.Image()
			if err != nil {
				b.Fatal(err)
			}
			cf, err := img.ConfigFile()
			if err != nil || cf.Created.IsZero() {
				b.Fatalf("config: %v", err)
			}
		}
	}
	reportRequests(b, s)
}
