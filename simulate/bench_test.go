package simulate

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	labregistry "github.com/imgupd/imgupd/lab/registry"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/sources/registry"
)

// The benchmarks below measure `simulate` against the loopback registry and,
// in the same run, the plain go-containerregistry I/O the same decision needs
// (the reference). bench/simulate.sh prints the ratios.

var (
	benchOnce   sync.Once
	benchServer *labregistry.Server
	benchErr    error
)

// benchRegistry serves big/app with 5,000 semver tags (Link pages of 1,000,
// like Docker Hub) and nb/app with 200 single-manifest tags of distinct dates.
func benchRegistry(b *testing.B) *labregistry.Server {
	b.Helper()
	benchOnce.Do(func() {
		benchServer, benchErr = labregistry.Start(labregistry.WithPageSize(1000))
		if benchErr != nil {
			return
		}
		var big, nb []labregistry.Image
		for i := 0; i < 5000; i++ {
			big = append(big, labregistry.Image{Tag: fmt.Sprintf("%d.%d.%d", i/1000, (i/10)%100, i%10)})
		}
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := 0; i < 200; i++ {
			nb = append(nb, labregistry.Image{Tag: fmt.Sprintf("build-%03d", i), Created: base.Add(time.Duration(i) * time.Hour)})
		}
		ctx := context.Background()
		if benchErr = benchServer.Push(ctx, "big/app", big...); benchErr != nil {
			return
		}
		benchErr = benchServer.Push(ctx, "nb/app", nb...)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchServer
}

// BenchmarkSimulateSemver5000 is `imgupd simulate` (semver, constraint) on a
// 5,000-tag repository: tag list pages + the model.
func BenchmarkSimulateSemver5000(b *testing.B) {
	srv := benchRegistry(b)
	req := Request{Image: srv.Host + "/big/app:~3.5", PlainHTTP: true, CurrentTag: str("3.5.0")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := (&Runner{Client: registry.New()}).Run(context.Background(), req)
		if err != nil || res.Decision.Selected == nil || res.Decision.Listed != 5000 {
			b.Fatalf("%v %+v", err, res.Decision.Selected)
		}
	}
}

// BenchmarkBaselineList5000 is the unavoidable I/O of the semver case: a plain
// remote.List of the same repository.
func BenchmarkBaselineList5000(b *testing.B) {
	srv := benchRegistry(b)
	repo, err := name.NewRepository(srv.Host+"/big/app", name.Insecure)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tags, err := remote.List(repo)
		if err != nil || len(tags) != 5000 {
			b.Fatalf("%v %d", err, len(tags))
		}
	}
}

// BenchmarkSimulateNewestBuild200 is `imgupd simulate --update-strategy
// newest-build` on 200 tags with a cold cache: the tag list, one manifest and
// one config per tag (8 at a time), and the model.
func BenchmarkSimulateNewestBuild200(b *testing.B) {
	srv := benchRegistry(b)
	req := Request{Image: srv.Host + "/nb/app", PlainHTTP: true, Strategy: "newest-build", CurrentTag: str("build-000")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := (&Runner{Client: registry.New()}).Run(context.Background(), req)
		if err != nil || res.Decision.Selected == nil || res.Decision.Selected.Tag != "build-199" {
			b.Fatalf("%v %+v", err, res.Decision.Selected)
		}
	}
}

// BenchmarkSimulateNewestBuild200Warm repeats it on one client: manifests by
// tag are fetched again (tags move), configs come from the digest cache.
func BenchmarkSimulateNewestBuild200Warm(b *testing.B) {
	srv := benchRegistry(b)
	req := Request{Image: srv.Host + "/nb/app", PlainHTTP: true, Strategy: "newest-build", CurrentTag: str("build-000")}
	r := &Runner{Client: registry.New()}
	if _, err := r.Run(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Run(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaselineMetadata200 is the unavoidable I/O of the newest-build
// case with plain go-containerregistry: remote.List, then remote.Get and the
// config for every tag, 8 at a time (the same concurrency as simulate), on
// one shared puller.
func BenchmarkBaselineMetadata200(b *testing.B) {
	srv := benchRegistry(b)
	repo, err := name.NewRepository(srv.Host+"/nb/app", name.Insecure)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// One puller per run, as simulate has one client per run: the
		// registry handshake is done once, not once per tag.
		puller, err := remote.NewPuller()
		if err != nil {
			b.Fatal(err)
		}
		tags, err := remote.List(repo, remote.Reuse(puller))
		if err != nil {
			b.Fatal(err)
		}
		sem := make(chan struct{}, 8)
		var wg sync.WaitGroup
		errs := make(chan error, len(tags))
		for _, t := range tags {
			wg.Add(1)
			sem <- struct{}{}
			go func(t string) {
				defer func() { <-sem; wg.Done() }()
				desc, err := remote.Get(repo.Tag(t), remote.Reuse(puller))
				if err != nil {
					errs <- err
					return
				}
				img, err := desc.Image()
				if err != nil {
					errs <- err
					return
				}
				if _, err := img.ConfigFile(); err != nil {
					errs <- err
				}
			}(t)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	}
}

// BenchmarkModelSemver5000 is the model alone on the 5,000 tags, in the
// lexical order the registry lists them: the part simulate adds on top of
// the I/O.
func BenchmarkModelSemver5000(b *testing.B) {
	var tags []string
	for i := 0; i < 5000; i++ {
		tags = append(tags, fmt.Sprintf("%d.%d.%d", i/1000, (i/10)%100, i%10))
	}
	slices.Sort(tags) // registries list tags in lexical order
	img := updater.ParseImageRef("big/app:~3.5", updater.V1_3)
	live := img
	live.Tag = "3.5.0"
	in := updater.SelectInput{Version: updater.V1_3, Image: img, Settings: updater.DefaultUpdateSettings(), Tags: tags, Live: &live}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d := updater.Select(in); d.Selected == nil {
			b.Fatal("no pick")
		}
	}
}
