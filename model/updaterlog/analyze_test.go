package updaterlog

import (
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/model/updater"
)

// v13Log is a v1.3.0 controller log: start-up, warm-up in dry run, then two
// CRs cycling every two minutes; web is updated once, web-api fails on
// credentials, and a third app in another namespace is also called web.
const v13Log = `time="2026-11-29T10:00:00Z" level=info msg="argocd-image-updater v1.3.0+4f1c2d starting [loglevel:DEBUG, interval:2m0s, healthport:8080]"
time="2026-11-29T10:00:00Z" level=info msg="Starting Controller" controller=imageupdater controllerGroup=argocd-image-updater.argoproj.io controllerKind=ImageUpdater
time="2026-11-29T10:00:01Z" level=info msg="Starting image update cycle, considering 2 application(s) for update" imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:00:01Z" level=info msg="Successfully updated image 'ghcr.io/acme/web:1.2.3' to 'ghcr.io/acme/web:1.2.4', but pending spec update (dry run=true)" application=argocd/web image_alias=web image_name=ghcr.io/acme/web imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:00:01Z" level=info msg="Dry run - not committing 1 changes to application" application=argocd/web imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:00:02Z" level=info msg="Processing results: applications=2 images_considered=2 images_skipped=0 images_updated=1 errors=1" imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:00:02Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=1 images_updated=0 errors=0" imageUpdater_name=other imageUpdater_namespace=team-b
time="2026-11-29T10:02:01Z" level=info msg="Starting image update cycle, considering 2 application(s) for update" imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:02:01Z" level=debug msg="Considering this image for update" application=argocd/web image_alias=web image_name=ghcr.io/acme/web image_registry=ghcr.io image_tag=1.2.3 imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:02:01Z" level=info msg="Setting new image to ghcr.io/acme/web:1.2.4" application=argocd/web image_alias=web image_name=ghcr.io/acme/web imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:02:01Z" level=info msg="Successfully updated image 'ghcr.io/acme/web:1.2.3' to 'ghcr.io/acme/web:1.2.4', but pending spec update (dry run=false)" application=argocd/web imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:02:01Z" level=info msg="Committing 1 parameter update(s) for application argocd/web" application=argocd/web imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:02:01Z" level=info msg="Successfully updated the live application spec" application=argocd/web imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:02:01Z" level=info msg="Successfully updated application spec for web" imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:02:01Z" level=warning msg="Could not fetch credentials: no valid auth entry for registry https://ghcr.io found in image pull secret" application=argocd/web-api image_name=ghcr.io/acme/web-api imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:02:01Z" level=error msg="Could not set registry endpoint credentials: no valid auth entry for registry https://ghcr.io found in image pull secret" application=argocd/web-api image_name=ghcr.io/acme/web-api imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:02:01Z" level=warning msg="skipping app 'web-api2' of type 'Directory' because it's not of supported source type" imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:02:02Z" level=info msg="Processing results: applications=2 images_considered=2 images_skipped=0 images_updated=1 errors=1" imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:02:02Z" level=debug msg="Image 'acme/web' seems not to be live in this application, skipping" application=team-b/web imageUpdater_name=other imageUpdater_namespace=team-b
time="2026-11-29T10:02:03Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=1 images_updated=0 errors=0" imageUpdater_name=other imageUpdater_namespace=team-b
time="2026-11-29T10:04:01Z" level=debug msg="Image 'ghcr.io/acme/web:1.2.4' already on latest allowed version" application=argocd/web imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:04:02Z" level=info msg="Processing results: applications=2 images_considered=2 images_skipped=0 images_updated=0 errors=1" imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:04:03Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=1 images_updated=0 errors=0" imageUpdater_name=other imageUpdater_namespace=team-b
time="2026-11-29T10:06:02Z" level=info msg="Processing results: applications=2 images_considered=2 images_skipped=0 images_updated=0 errors=1" imageUpdater_name=demo imageUpdater_namespace=argocd
`

func TestAnalyzeV13(t *testing.T) {
	lines := ParseString(v13Log)
	a := Analyze(lines, AppRef{Namespace: "argocd", Name: "web"}, updater.V1_3)

	if a.Lines != 24 || a.Parsed != 24 {
		t.Errorf("Lines/Parsed = %d/%d", a.Lines, a.Parsed)
	}
	if !a.Startup {
		t.Error("Startup not detected")
	}
	if a.DryRunOnly {
		t.Error("DryRunOnly with real commits")
	}
	if want := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC); !a.Span.From.Equal(want) {
		t.Errorf("Span.From = %v", a.Span.From)
	}
	if want := time.Date(2026, 11, 29, 10, 6, 2, 0, time.UTC); !a.Span.To.Equal(want) {
		t.Errorf("Span.To = %v", a.Span.To)
	}

	if len(a.Cycles) != 7 {
		t.Fatalf("cycles = %d", len(a.Cycles))
	}
	if c := a.Cycles[0]; !c.WarmUp || c.CR != (CRRef{"argocd", "demo"}) || c.ImagesUpdated != 1 || c.Errors != 1 || c.Applications != 2 {
		t.Errorf("first cycle: %+v", c)
	}
	if c := a.Cycles[1]; !c.WarmUp || c.CR != (CRRef{"team-b", "other"}) {
		t.Errorf("second cycle: %+v", c)
	}
	if a.Cycles[2].WarmUp {
		t.Error("real cycle marked warm-up")
	}
	if a.LastCycle == nil || a.LastCycle.Line != 24 || a.LastCycle.Errors != 1 || a.LastCycle.ImagesConsidered != 2 {
		t.Errorf("LastCycle = %+v", a.LastCycle)
	}
	if a.CycleInterval != 2*time.Minute {
		t.Errorf("CycleInterval = %v", a.CycleInterval)
	}

	// ForApp: argocd/web only — not web-api, web-api2, or team-b/web.
	var got []string
	for _, e := range a.ForApp {
		got = append(got, e.Code)
		if f := e.Fields["application"]; f != "" && f != "argocd/web" {
			t.Errorf("foreign line in ForApp: %s", e.Raw)
		}
	}
	want := []string{CodeImageUpdated, CodeCommitDryRun, CodeImageConsidering, CodeImageSetting, CodeImageUpdated,
		CodeCommitStart, CodeCommitLiveSpec, CodeCommitAppSpec, CodeImageUpToDate}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("ForApp codes\n got %v\nwant %v", got, want)
	}
	if a.Codes[CodeImageUpdated] != 2 || a.Codes[CodeCommitLiveSpec] != 1 {
		t.Errorf("Codes = %v", a.Codes)
	}
	if a.LastUpdate == nil || a.LastUpdate.Code != CodeCommitAppSpec || a.LastUpdate.Number != 14 {
		t.Errorf("LastUpdate = %+v", a.LastUpdate)
	}
	if len(a.Errors) != 1 || a.Errors[0].Code != CodeCredsSetFailed || a.Errors[0].Cause != "creds.no_auth_entry" {
		t.Errorf("Errors = %+v", a.Errors)
	}
	if len(a.Warnings) != 2 {
		t.Errorf("Warnings = %d", len(a.Warnings))
	}

	// The other apps.
	api := Analyze(lines, AppRef{Namespace: "argocd", Name: "web-api"}, updater.V1_3)
	if len(api.ForApp) != 2 || api.LastUpdate != nil {
		t.Errorf("web-api: %d events, last update %v", len(api.ForApp), api.LastUpdate)
	}
	api2 := Analyze(lines, AppRef{Namespace: "argocd", Name: "web-api2"}, updater.V1_3)
	if len(api2.ForApp) != 1 || api2.ForApp[0].Code != CodeAppUnsupportedSource {
		t.Errorf("web-api2 (named only in the message): %+v", api2.ForApp)
	}
	teamB := Analyze(lines, AppRef{Namespace: "team-b", Name: "web"}, updater.V1_3)
	if len(teamB.ForApp) != 1 || teamB.ForApp[0].Code != CodeImageNotLive {
		t.Errorf("team-b/web: %+v", teamB.ForApp)
	}
	anyNS := Analyze(lines, AppRef{Name: "web"}, updater.V1_3)
	if len(anyNS.ForApp) != len(a.ForApp)+1 {
		t.Errorf("empty namespace matches any: %d", len(anyNS.ForApp))
	}
	if none := Analyze(lines, AppRef{Namespace: "argocd", Name: "we"}, updater.V1_3); len(none.ForApp) != 0 {
		t.Errorf("prefix of a name matched: %+v", none.ForApp)
	}
}

func TestAnalyzeV0(t *testing.T) {
	log := `time="2026-11-29T10:00:00Z" level=info msg="argocd-image-updater v0.12.2+b2f5e1a starting [loglevel:INFO, interval:2m0s, healthport:8080]"
time="2026-11-29T10:00:00Z" level=info msg="Warming up image cache"
time="2026-11-29T10:00:00Z" level=info msg="Starting image update cycle, considering 2 annotated application(s) for update"
time="2026-11-29T10:00:01Z" level=info msg="Dry run - not committing 1 changes to application" application=web
time="2026-11-29T10:00:01Z" level=info msg="Finished cache warm-up, pre-loaded 0 meta data entries from 1 registries"
time="2026-11-29T10:00:02Z" level=info msg="Starting image update cycle, considering 2 annotated application(s) for update"
time="2026-11-29T10:00:02Z" level=error msg="Unable to find newest version from available tags: Invalid Semantic Version" alias=web application=web image_name=acme/web image_tag=latest registry=
time="2026-11-29T10:00:02Z" level=debug msg="Skipping app 'web-api' because it does not match requested patterns"
time="2026-11-29T10:00:03Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=1"
time="2026-11-29T10:02:03Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=1"
time="2026-11-29T10:04:03Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=1"
time="2026-11-29T10:07:03Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=1"
`
	lines := ParseString(log)
	a := Analyze(lines, AppRef{Namespace: "argocd", Name: "web"}, updater.V0_18)
	if !a.Startup || a.DryRunOnly {
		t.Errorf("Startup=%v DryRunOnly=%v", a.Startup, a.DryRunOnly)
	}
	if len(a.Cycles) != 4 || a.Cycles[0].WarmUp || a.Cycles[0].CR != (CRRef{}) {
		t.Fatalf("cycles: %+v", a.Cycles)
	}
	// gaps 2m, 2m, 3m → median 2m
	if a.CycleInterval != 2*time.Minute {
		t.Errorf("CycleInterval = %v", a.CycleInterval)
	}
	if len(a.ForApp) != 2 || a.ForApp[1].Cause != "semver.invalid_running_tag" {
		t.Errorf("ForApp = %+v", a.ForApp)
	}
	api := Analyze(lines, AppRef{Namespace: "argocd", Name: "web-api"}, updater.V0_18)
	if len(api.ForApp) != 1 || api.ForApp[0].Code != CodeAppNameFiltered {
		t.Errorf("web-api: %+v", api.ForApp)
	}
	// A v1 field naming another namespace never matches.
	v1Line := ParseString(`level=info msg="Considering this image for update" application=other/web`)
	if got := Analyze(v1Line, AppRef{Namespace: "argocd", Name: "web"}, updater.V1_3); len(got.ForApp) != 0 {
		t.Error("other/web matched argocd/web")
	}
}

func TestAnalyzeDryRunOnly(t *testing.T) {
	log := `time="2026-11-29T10:00:01Z" level=info msg="Successfully updated image 'a:1' to 'a:2', but pending spec update (dry run=true)" application=argocd/web
time="2026-11-29T10:00:01Z" level=info msg="Dry run - not committing 1 changes to application" application=argocd/web
time="2026-11-29T10:00:02Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=1 errors=0" imageUpdater_name=demo imageUpdater_namespace=argocd
`
	a := Analyze(ParseString(log), AppRef{"argocd", "web"}, updater.V1_3)
	if a.Startup || !a.DryRunOnly || a.LastUpdate != nil {
		t.Errorf("Startup=%v DryRunOnly=%v LastUpdate=%v", a.Startup, a.DryRunOnly, a.LastUpdate)
	}
	if a.CycleInterval != 0 || a.LastCycle == nil || a.LastCycle.ImagesUpdated != 1 {
		t.Errorf("single cycle: %v %+v", a.CycleInterval, a.LastCycle)
	}
}

func TestAnalyzeEmptyAndGarbage(t *testing.T) {
	for _, log := range []string{"", "\n\n", "garbage\n\x00\x01\n{\n", "panic: boom\n\tframe\n"} {
		a := Analyze(ParseString(log), AppRef{"argocd", "web"}, updater.V1_3)
		if a.LastCycle != nil || a.CycleInterval != 0 || len(a.ForApp) != 0 || a.Startup || a.DryRunOnly {
			t.Errorf("%q: %+v", log, a)
		}
	}
	a := Analyze(ParseString("panic: boom\n\tframe\n"), AppRef{"argocd", "web"}, updater.V1_3)
	if len(a.Errors) != 1 || a.Errors[0].Code != CodePanic {
		t.Errorf("panic not an error: %+v", a.Errors)
	}
	if a := Analyze(nil, AppRef{}, updater.V1_3); a.Lines != 0 || a.Codes == nil {
		t.Errorf("nil input: %+v", a)
	}
}

// A real write-back in the first cycle after start-up is not the warm-up,
// whatever the warm-up heuristics say.
func TestAnalyzeFirstCycleRealUpdate(t *testing.T) {
	log := `time="2026-11-29T10:00:00Z" level=info msg="Starting manager"
time="2026-11-29T10:00:01Z" level=info msg="Committing 1 parameter update(s) for application argocd/web" application=argocd/web imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:00:01Z" level=info msg="Successfully updated the live application spec" application=argocd/web imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:00:02Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=1 errors=0" imageUpdater_name=demo imageUpdater_namespace=argocd
`
	a := Analyze(ParseString(log), AppRef{"argocd", "web"}, updater.V1_3)
	if !a.Startup || len(a.Cycles) != 1 || a.Cycles[0].WarmUp || a.LastUpdate == nil || a.DryRunOnly {
		t.Errorf("Startup=%v cycles=%+v LastUpdate=%v DryRunOnly=%v", a.Startup, a.Cycles, a.LastUpdate, a.DryRunOnly)
	}
}

func BenchmarkParseAnalyze(b *testing.B) {
	log := strings.Repeat(v13Log, 400) // ~10k lines
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		lines := ParseString(log)
		_ = Analyze(lines, AppRef{"argocd", "web"}, updater.V1_3)
	}
}

func BenchmarkRedact(b *testing.B) {
	line := textLine("error", "Could not update application spec: Get \"https://bot:pw@git.acme.io/x.git\": denied", imgFields)
	for b.Loop() {
		_ = Redact(line)
	}
}

// A CR that first cycles after the warm-up pass is over is not warm-up.
func TestAnalyzeLateCRNotWarmUp(t *testing.T) {
	log := `time="2026-11-29T10:00:00Z" level=info msg="Starting manager"
time="2026-11-29T10:00:02Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=0" imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:02:02Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=0" imageUpdater_name=demo imageUpdater_namespace=argocd
time="2026-11-29T10:03:02Z" level=info msg="Processing results: applications=3 images_considered=3 images_skipped=0 images_updated=0 errors=0" imageUpdater_name=late imageUpdater_namespace=argocd
`
	a := Analyze(ParseString(log), AppRef{"argocd", "web"}, updater.V1_3)
	if len(a.Cycles) != 3 || !a.Cycles[0].WarmUp || a.Cycles[1].WarmUp || a.Cycles[2].WarmUp {
		t.Fatalf("cycles: %+v", a.Cycles)
	}
	if a.LastCycle.CR.Name != "late" || a.CycleInterval != 0 {
		t.Errorf("LastCycle %+v interval %v", a.LastCycle, a.CycleInterval)
	}
}
