package labregistry

import (
	"time"

	"github.com/imgupd/imgupd/model/updater"
)

func sampleDay(d string) time.Time {
	t, err := time.Parse("2006-01-02", d)
	if err != nil {
		panic(err)
	}
	return t
}

// CalibrationImages is the repository of shared/reference/tag-selection-cases.md,
// on which the real Image Updater v1.3.0 `test` command made the picks the
// model is calibrated against. Every image is linux/amd64 except dev-123
// (linux/arm64); stable is the same manifest as 1.0.1.
func CalibrationImages() []Image {
	return []Image{
		{Tag: "0.1.0", Created: sampleDay("2026-01-01")},
		{Tag: "0.2.0", Created: sampleDay("2026-01-02")},
		{Tag: "0.10.0", Created: sampleDay("2026-01-03")},
		{Tag: "1.0.0-alpha", Created: sampleDay("2026-01-04")},
		{Tag: "1.0.0-beta.2", Created: sampleDay("2026-01-05")},
		{Tag: "1.0.0", Created: sampleDay("2026-01-06")},
		{Tag: "1.0.1", Created: sampleDay("2026-01-07")},
		{Tag: "1.1", Created: sampleDay("2026-01-08")},
		{Tag: "v1.1.5", Created: sampleDay("2026-01-09")},
		{Tag: "2020.01.01", Created: sampleDay("2025-06-01")},
		{Tag: "1.0.1-hotfix", Created: sampleDay("2026-01-10")},
		{Tag: "nightly", Created: sampleDay("2026-01-11")},
		{Tag: "dev-123", Created: sampleDay("2026-01-12"), Platforms: []updater.Platform{{OS: "linux", Arch: "arm64"}}},
		{Tag: "stable", SameAs: "1.0.1"},
	}
}

// MultiArchImages is a repository whose releases are built for linux/amd64
// and linux/arm64 except the newest, 1.6.0, which is arm64 only; latest is
// the same index as 1.6.0.
func MultiArchImages() []Image {
	both := []updater.Platform{{OS: "linux", Arch: "amd64"}, {OS: "linux", Arch: "arm64"}}
	return []Image{
		{Tag: "1.4.0", Created: sampleDay("2026-03-01"), Platforms: both},
		{Tag: "1.5.0", Created: sampleDay("2026-04-01"), Platforms: both},
		{Tag: "1.6.0", Created: sampleDay("2026-05-01"), Platforms: []updater.Platform{{OS: "linux", Arch: "arm64"}}},
		{Tag: "latest", SameAs: "1.6.0"},
	}
}
