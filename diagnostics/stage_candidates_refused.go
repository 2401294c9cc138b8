package diagnostics

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/model/updaterlog"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/registry"
)

// Registry permissions per operation. A registry account may list a
// repository's tags and still be refused its manifests or blobs: an ECR
// policy with ecr:ListImages but not ecr:BatchGetImage (manifests) or
// ecr:GetDownloadUrlForLayer (the config blob), a Harbor robot account with
// the List permission only, a token whose scope leaves pull out. The
// strategies that read metadata (newest-build: the build date in each tag's
// image config; digest: the manifest's digest; the platform filter: the
// manifest list) then fail on every tag.
//
// Image Updater does the same reads with the same account
// (registry-scanner pkg/registry/registry.go, GetTags: ManifestForTag, then
// client.go TagMetadata, which GETs the config blob) and, when one fails,
// logs "Error fetching metadata for <image>:<tag> - neither V1 or V2 or OCI
// manifest returned by registry: <err>" (the manifest) or "error fetching
// metadata for <image>:<tag>: <err>" (the config blob) and drops the tag
// without counting an error. With every tag dropped, v1.2+ warns "no tags
// found for image <image> in registry" (registry-scanner pkg/image
// version.go, GetNewestVersionFromTags), and v1.1 and older keep the running
// tag ("already on latest allowed version"). A 429 is not retried within the
// cycle. Whatever the filters, the answer is the account's permission.

// maxRefusedShown is how many refused tags a finding names.
const maxRefusedShown = 8

// refusedMetadata turns the metadata reads the registry refused (401, 403,
// 429) into the finding that names the permission: the root cause when no
// candidate is left (it replaces "no tag is a candidate", whose fix would
// loosen filters that are not at fault), a warning when some tags were
// refused and a pick was still made from the others.
func (r *run) refusedMetadata(im updater.ImageConfig, ir *imageRegistry, d updater.Decision, meta map[string]updater.TagMeta, fs []report.Finding) []report.Finding {
	var refused []string
	for _, t := range d.Tags {
		if t.Fate == updater.FateMetadata && meta[t.Tag].Refused() {
			refused = append(refused, t.Tag)
		}
	}
	if len(refused) == 0 {
		return fs
	}
	rf := refusal{host: ir.endpoint.Host(), repo: ir.endpoint.RepositoryPath(im.Image), read: len(meta), tags: refused}
	for _, t := range refused {
		m := meta[t]
		rf.ops = appendNew(rf.ops, m.ErrOp)
		if m.ErrStatus != 0 {
			rf.statuses = appendNew(rf.statuses, m.ErrStatus)
		}
		if m.ErrKind == string(registry.Unauthorized) || m.ErrKind == string(registry.Forbidden) {
			rf.permission = true
		}
		if rf.example == "" {
			rf.example = m.Err
		}
	}
	slices.Sort(rf.statuses)
	noPick := d.Outcome == updater.OutcomeNoCandidate || (d.Selected != nil && d.Selected.FromRunningTag)
	if !noPick {
		return append(fs, r.partialRefusal(im, ir, d, rf))
	}
	f := r.allRefused(im, ir, d, rf)
	out := []report.Finding{f}
	for _, g := range fs {
		switch {
		case g.Code == report.CodeCandidatesNone:
			continue // the filters are not what removed the tags
		case g.Code == report.CodeCandidatesNewerDropped && onlyRefused(newerDropped(d, im), meta):
			continue
		}
		out = append(out, g)
	}
	return out
}

// refusal is what the registry refused for one image.
type refusal struct {
	host, repo string
	// read is how many tags' metadata was asked for; tags the refused ones.
	read int
	tags []string
	// ops are the refused reads ("manifest", "config"); statuses their
	// HTTP statuses; permission: one was a 401 or 403, not only 429s.
	ops        []string
	statuses   []int
	permission bool
	example    string
}

func appendNew[T comparable](s []T, v T) []T {
	if v == *new(T) || slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func onlyRefused(ts []updater.TagFate, meta map[string]updater.TagMeta) bool {
	for _, t := range ts {
		if t.Fate != updater.FateMetadata || !meta[t.Tag].Refused() {
			return false
		}
	}
	return true
}

// what names the refused reads: "manifests", "image configs (config
// blobs)", or both.
func (rf refusal) what() string {
	var parts []string
	for _, op := range rf.ops {
		switch op {
		case "config":
			parts = append(parts, "image configs (config blobs)")
		default:
			parts = append(parts, "manifests")
		}
	}
	if len(parts) == 0 {
		return "manifests"
	}
	return strings.Join(parts, " and ")
}

// request is the refused request as the registry API names it.
func (rf refusal) request() string {
	var parts []string
	for _, op := range rf.ops {
		switch op {
		case "config":
			parts = append(parts, "GET /v2/"+rf.repo+"/blobs/<config digest>")
		default:
			parts = append(parts, "GET /v2/"+rf.repo+"/manifests/<tag>")
		}
	}
	return strings.Join(parts, ", ")
}

// status is "HTTP 403", "HTTP 401/403", or "refused" without one.
func (rf refusal) status() string {
	if len(rf.statuses) == 0 {
		return "refused"
	}
	s := make([]string, len(rf.statuses))
	for i, st := range rf.statuses {
		s[i] = strconv.Itoa(st)
	}
	return "HTTP " + strings.Join(s, "/")
}

// shown names the refused tags, the first few.
func (rf refusal) shown() string {
	if len(rf.tags) <= maxRefusedShown {
		return strings.Join(rf.tags, ", ")
	}
	return strings.Join(rf.tags[:maxRefusedShown], ", ") + fmt.Sprintf(" and %d more", len(rf.tags)-maxRefusedShown)
}

// whyMetadata says why the strategy reads each tag's metadata.
func whyMetadata(d updater.Decision, im updater.ImageConfig) string {
	var why string
	switch d.Strategy {
	case updater.StrategyNewestBuild:
		why = "updateStrategy newest-build sorts by the build date in each tag's image config: a manifest GET and a config blob GET per tag"
	case updater.StrategyDigest:
		why = "updateStrategy digest reads the manifest digest of the tag " + im.Image.Constraint()
	default:
		why = "the update strategy reads each tag's manifest"
	}
	if len(im.Settings.Platforms) > 0 {
		why += "; platforms " + strings.Join(im.Settings.Platforms, ", ") + " are read from each manifest list"
	}
	return why
}

// account is whose credentials the refused requests carried.
func (ir *imageRegistry) accountText() string {
	switch {
	case ir.extUnchecked:
		return "none: the credentials are an ext: script imgupd cannot run, so imgupd asked anonymously"
	case ir.account == "":
		return "none (anonymous requests: no pullSecret on the image, no credentials on its registries.conf entry)"
	}
	return ir.account
}

// allRefused: no candidate is left, and the registry refused the metadata
// of some or all of the tags. Blocked by the account's permission.
func (r *run) allRefused(im updater.ImageConfig, ir *imageRegistry, d updater.Decision, rf refusal) report.Finding {
	name := aliasOr(im)
	code := report.CodeRegistryManifestForbidden
	if !rf.permission {
		code = report.CodeRegistryMetadataRateLimited
	}
	count := fmt.Sprintf("all %d tags read", rf.read)
	if len(rf.tags) < rf.read {
		count = fmt.Sprintf("%d of the %d tags read (the others were dropped for another reason, see the candidate table)", len(rf.tags), rf.read)
	}
	title := fmt.Sprintf("%s lists the tags of image %s but refuses their %s: %s for %s", rf.host, name, rf.what(), rf.status(), count)
	sev := report.Fail
	f := find(code, sev, title).WithImage(im.Alias).
		With(ev("tags", fmt.Sprintf("%d listed (GET /v2/%s/tags/list answered)", d.Listed, rf.repo)),
			ev("refused", rf.request()+": "+rf.status()+" for "+rf.shown()),
			ev("registry said", textutil.ClipWords(textutil.OneLine(rf.example), 300)),
			ev("account", ir.accountText()),
			ev("why these reads", whyMetadata(d, im)),
			ev("Image Updater logs", r.expectedRefusalLog(im, ir, rf)))
	f = r.withRefusalLog(f, rf)
	if ir.extUnchecked {
		f.Severity, f.Decides = report.Unknown, true
		f.Title += " (asked without the ext: credentials imgupd cannot run)"
		f.Verify = "run the ext: script inside Image Updater's pod and read Image Updater's log for \"Error fetching metadata for " + rf.repo + "\""
		return f
	}
	return r.refusalFix(f, im, ir, rf)
}

// partialRefusal: a pick was made, but some tags' metadata was refused.
func (r *run) partialRefusal(im updater.ImageConfig, ir *imageRegistry, d updater.Decision, rf refusal) report.Finding {
	pick := "(nothing)"
	if d.Selected != nil {
		pick = d.Selected.String()
	}
	title := fmt.Sprintf("image %s: %s refused the %s of %d of the %d tags read (%s): %s", aliasOr(im), rf.host, rf.what(), len(rf.tags), rf.read, rf.status(), rf.shown())
	change := fmt.Sprintf("the pick %s could change: the refused tags are dropped, by Image Updater as by imgupd, and their build dates are unknown, so one of them may be newer", pick)
	if d.Strategy == updater.StrategyDigest {
		change = fmt.Sprintf("the pick %s could change: the digest of a refused tag is unknown", pick)
	}
	title += "; " + change
	f := find(report.CodeRegistryMetadataPartial, report.Warn, title).WithImage(im.Alias).
		With(ev("refused", rf.request()+": "+rf.status()+" for "+rf.shown()),
			ev("registry said", textutil.ClipWords(textutil.OneLine(rf.example), 300)),
			ev("read", fmt.Sprintf("%d of %d tags' metadata read", rf.read-len(rf.tags), rf.read)),
			ev("account", ir.accountText()),
			ev("why these reads", whyMetadata(d, im)))
	if !rf.permission {
		f = f.With(ev("rate limit", "a 429 depends on the moment: Image Updater's own cycle may see other tags refused, or none"))
	}
	f = r.withRefusalLog(f, rf)
	if ir.extUnchecked {
		return f
	}
	return r.refusalFix(f, im, ir, rf)
}

// expectedRefusalLog is what Image Updater logs for a refused tag, in its
// words (registry-scanner registry.go GetTags), and for the image once
// every tag is dropped.
func (r *run) expectedRefusalLog(im updater.ImageConfig, ir *imageRegistry, rf refusal) string {
	line := "Error fetching metadata for " + rf.repo + ":<tag> - neither V1 or V2 or OCI manifest returned by registry: denied: …"
	if len(rf.ops) == 1 && rf.ops[0] == "config" {
		line = "error fetching metadata for " + rf.repo + ":<tag>: denied: …"
	}
	if r.version.AtLeast(1, 2, 0) {
		return line + ", then \"no tags found for image " + im.Image.FullName() + " in registry\""
	}
	return line + ", then nothing at info level: " + r.version.Short() + " keeps the running tag (\"already on latest allowed version\", debug)"
}

// withRefusalLog adds Image Updater's own lines for the refused tags, when
// its log was read: how many, and the latest.
func (r *run) withRefusalLog(f report.Finding, rf refusal) report.Finding {
	if r.logs == nil {
		return f
	}
	n := 0
	var last *updaterlog.Event
	for i := range r.logs.ForApp {
		e := &r.logs.ForApp[i]
		if e.Match.Code != updaterlog.CodeRegistryMetadata || !sameRepo(e.Match.Captures[updaterlog.CaptureImage], rf.repo) {
			continue
		}
		if e.Match.Cause != "registry.denied" && e.Match.Cause != "registry.unauthorized" && e.Match.Cause != "registry.rate_limited" {
			continue
		}
		n++
		last = e
	}
	if last == nil {
		return f
	}
	at := "Image Updater logged"
	if !last.Time.IsZero() {
		at += " at " + last.Time.UTC().Format("2006-01-02 15:04:05Z")
	}
	return f.With(ev(at, fmt.Sprintf("%s (%d such line(s) in the log window)", textutil.ClipWords(textutil.OneLine(updaterlog.Redact(last.Msg)), 300), n)))
}

// sameRepo: a logged image name is the repository, with or without the
// registry host in front.
func sameRepo(logged, repo string) bool {
	return logged == repo || strings.HasSuffix(logged, "/"+repo)
}

// refusalFix names the permission to add, for the account that reaches the
// registry: a pull secret when the requests were anonymous and the registry
// wants one, the registry's rate-limit settings for 429s, else the pull
// permission in the registry's own terms (the IAM policy statement for ECR)
// as text: no command grants it.
func (r *run) refusalFix(f report.Finding, im updater.ImageConfig, ir *imageRegistry, rf refusal) report.Finding {
	ep := ir.endpoint
	switch {
	case !rf.permission:
		where, steps := r.registryFixSteps(im, ep, &registry.Error{Kind: registry.RateLimited}, ir.account != "", "")
		return f.WithFix("Slow Image Updater down for "+ep.Host()+" (limit: on its registries.conf entry) and give the image an account, whose rate limit is higher than anonymous requests'.", where, steps...)
	case ir.account == "" && slices.Contains(rf.statuses, 401):
		where, steps := r.newPullSecretSteps(im, ep)
		return f.WithFix("The registry lists tags anonymously but wants an account for manifests: give the image credentials that may pull "+rf.repo+".", where, steps...)
	}
	who := "the account in " + ir.account
	if i := strings.Index(ir.account, " ("); i > 0 {
		who = "the account in " + ir.account[:i]
	}
	if ir.account == "" {
		who = "anonymous pulls"
	}
	host := hostOnly(ep.Host())
	if isECR(host) {
		stmt := ecrPullStatement(host, rf.repo)
		return f.WithFix("Allow ecr:BatchGetImage (manifests) and ecr:GetDownloadUrlForLayer (config blobs) on "+rf.repo+" for the IAM role or user behind "+who+": ecr:ListImages alone lists tags and nothing more.",
			"IAM policy of the role or user behind "+who,
			report.Paste("add this statement to that IAM policy (the AWS console, or your infrastructure code: no kubectl command grants it)", "IAM policy of the role or user behind "+who, nil, stmt))
	}
	steps := []report.Step{report.Value("grant pull on "+rf.repo+" in the registry (its UI or API: no kubectl command grants it)", "the registry's permissions for "+who+" on "+rf.repo, pullPermission(host))}
	where := "the registry's permissions for " + who
	if alt, altSteps := r.newPullSecretSteps(im, ep); len(altSteps) > 0 {
		// Another account, one that may pull, is the other way: a pull
		// secret from the reader's own account, and the image pointed at it.
		steps = append(steps, report.Alternative(altSteps...)...)
		where += "; or " + alt
	}
	return f.WithFix("Give "+who+" pull (read) permission on "+rf.repo+", not only list; or give the image an account that may pull.", where, steps...)
}

// ecrPullStatement is the IAM policy statement that lets an account read
// the manifests and config blobs of repo (its ARN from the ECR host:
// <account>.dkr.ecr.<region>.amazonaws.com), as JSON.
func ecrPullStatement(host, repo string) string {
	account, rest, _ := strings.Cut(host, ".dkr.ecr.")
	region, _, _ := strings.Cut(rest, ".amazonaws.com")
	partition := "aws"
	if strings.HasSuffix(host, ".amazonaws.com.cn") {
		partition = "aws-cn"
	}
	stmt := map[string]any{
		"Sid":      "ImageUpdaterPull",
		"Effect":   "Allow",
		"Action":   []string{"ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:ListImages", "ecr:DescribeImages"},
		"Resource": "arn:" + partition + ":ecr:" + region + ":" + account + ":repository/" + repo,
	}
	b, _ := json.MarshalIndent(stmt, "", "  ")
	return string(b)
}

// pullPermission is the pull permission in the terms of the registry the
// host names.
func pullPermission(host string) string {
	switch {
	case host == "ghcr.io":
		return "a GHCR token with read:packages (a fine-grained token: the package's Read access)"
	case host == "docker.io" || host == "registry-1.docker.io" || host == "index.docker.io":
		return "a Docker Hub access token with Read access, from an account that may pull the repository"
	case host == "quay.io":
		return "Read permission on the repository for the Quay robot account"
	case strings.HasSuffix(host, ".azurecr.io"):
		return "the AcrPull role on the registry for the service principal or managed identity (or a token whose scope map has content/read and metadata/read)"
	case strings.HasSuffix(host, "-docker.pkg.dev") || strings.HasSuffix(host, "gcr.io"):
		return "roles/artifactregistry.reader on the repository for the service account"
	}
	return "a Harbor robot account needs the Pull permission on the repository (List lets it list tags only); on other registries, the pull (read) scope, repository:<name>:pull, for the account"
}
