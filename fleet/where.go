package fleet

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/registry"
)

// ErrBadImage is returned (wrapped) for an image a "where" cannot ask
// about: empty, with an alias, or not an image reference.
var ErrBadImage = errors.New("not an image reference")

// ImageQuery is the image a "where" asks about, as written.
type ImageQuery struct {
	Asked string
	ref   updater.ImageRef
}

// ParseImageQuery reads IMAGE[:TAG|@DIGEST] (a registry host first when
// not Docker Hub: ghcr.io/acme/web:1.4.2, nginx, docker.io/bitnami/redis).
func ParseImageQuery(s string) (ImageQuery, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return ImageQuery{}, fmt.Errorf("no image given: %w", ErrBadImage)
	case strings.ContainsAny(s, " \t\n=<>~^*,"):
		return ImageQuery{}, fmt.Errorf("%q: an image is REGISTRY/PATH[:TAG|@DIGEST] (no alias, constraint or space): %w", textutil.Clip(s, 80), ErrBadImage)
	}
	ref := updater.ParseImageRef(s, updater.Latest)
	if ref.Legacy || ref.Name == "" {
		return ImageQuery{}, fmt.Errorf("%q: an image is REGISTRY/PATH[:TAG|@DIGEST]: %w", textutil.Clip(s, 80), ErrBadImage)
	}
	return ImageQuery{Asked: s, ref: ref}, nil
}

// Tag is the asked tag ("" when none).
func (q ImageQuery) Tag() string { return q.ref.Tag }

// Digest is the asked digest ("" when none).
func (q ImageQuery) Digest() string { return q.ref.Digest }

// repoKey is a repository as Image Updater reaches it: the registry's host
// (Docker Hub's, docker.io, for no registry) and the path it asks tags of
// (the registries.conf entry's defaultns, Docker Hub's library/, added to a
// one-part name).
func repoKey(img updater.ImageRef, conf updater.RegistriesConf) string {
	ep, _ := updater.ResolveEndpoint(img, conf)
	host := img.Registry
	switch host {
	case "", "docker.io", "index.docker.io", "registry-1.docker.io":
		host = "docker.io"
	}
	path := ep.RepositoryPath(img)
	if host == "docker.io" && !strings.Contains(path, "/") {
		path = "library/" + path
	}
	return host + "/" + path
}

// match is one image of one managed app that uses the asked repository.
type match struct {
	app   *argo.Application
	by    string
	alias string
	image string
}

// Where answers "where is my tag?" for q over the managed Applications in
// scope the asker may see: which use its repository, and for each whether
// Image Updater picks the tag, has written it, runs it, and if not what
// stops it (the app's own diagnosis). It reads what a summary reads, and
// diagnoses only the apps that use the repository.
//
// Its cost follows the apps that may use the repository, not the fleet:
// the Applications are listed with their metadata only (which decides
// which ones Image Updater manages), the CRs and annotations say which of
// those may use the repository (mayUse), only those are read whole,
// selected and diagnosed, and Image Updater's log is read only when one
// of them does use it. The apps that a CR's ref names exactly (in the
// namespace it lists) are read, selected and diagnosed as soon as the
// installation and the CRs are read, while the Applications are listed;
// the list then decides, and a diagnosis of an app it does not keep is
// dropped. With a Visible filter or projects in the scope, each app's
// project (its spec) decides whether it is seen and counted: the
// Applications are listed whole, and none is read by name. When no app
// uses the repository, the Applications are listed whole for the
// repositories they use instead (the nearest are offered): the answer is
// the one the whole fleet gives (whereAll).
func (s *Scanner) Where(ctx context.Context, scope Query, q ImageQuery) (*report.Where, error) {
	return s.whereNarrow(ctx, scope, q)
}

// whereAll is Where over every managed Application in scope, selected
// and read whole.
func (s *Scanner) whereAll(ctx context.Context, scope Query, q ImageQuery) (*report.Where, error) {
	p, cancel, err := s.prepare(ctx, scope, true)
	if err != nil {
		return nil, err
	}
	defer cancel()
	conf := p.registriesConf()
	w := p.whereOf(q, conf)
	matches, apps, others := p.usingRepository(p.managed, conf, w.Repository)
	if len(matches) == 0 {
		return p.noMatch(w, others), nil
	}
	return p.answer(w, q, conf, matches, apps), nil
}

// whereNarrow is Where reading only what the apps that may use the
// repository need (see Where).
func (s *Scanner) whereNarrow(ctx context.Context, scope Query, q ImageQuery) (*report.Where, error) {
	p, cancel, err := s.begin(ctx, scope, false)
	if err != nil {
		return nil, err
	}
	done := func() { cancel(); p.waitEarly(); p.warming.Wait() }
	defer done()
	whole := scope.Visible != nil || len(scope.Projects) > 0
	list := p.cc.ApplicationsMetadata
	if whole {
		list = p.cc.Applications
	}
	var conf updater.RegistriesConf
	var u *users
	usersOf := func() {
		conf = p.registriesConf()
		u = newUsers(p.selector, p.version, conf, repoKey(q.ref, conf))
	}
	metas, err := p.readShared(list, true, func() {
		usersOf()
		if !whole {
			if !u.refs.Empty() { // a CR's ref may name the repository: an app is likely diagnosed
				p.warmArgo()
			}
			p.diagnoseNamed(u)
		}
	})
	if err != nil {
		return nil, err
	}
	if u == nil { // the CRs were not listed beside the Applications
		usersOf()
	}
	p.classify(metas) // the managed apps by their metadata: what Managed reads, no selection made
	p.targets = map[*argo.Application]*updater.Targeting{}
	w := p.whereOf(q, conf)
	var maybe []*argo.Application
	for _, a := range p.managed {
		if u.mayUse(a) {
			maybe = append(maybe, a)
		}
	}
	// The apps that may use the repository, read whole (in the order of
	// p.managed) unless listed whole, and Image Updater's log beside them
	// when there are any.
	full := make([]*argo.Application, len(maybe))
	errs := make([]error, len(maybe))
	var wg sync.WaitGroup
	if len(maybe) > 0 {
		p.warmArgo()
	}
	if len(maybe) > 0 && p.inst != nil {
		wg.Go(p.readLog)
	}
	sem := make(chan struct{}, p.conc)
	for i, a := range maybe {
		if whole {
			full[i] = a
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			full[i], errs[i] = p.cc.get(a.Namespace, a.Name)
		})
	}
	wg.Wait()
	var read []*argo.Application
	for i, a := range full {
		if errs[i] != nil {
			if cluster.IsNotFound(errs[i]) { // deleted since it was listed
				continue
			}
			// Not readable by name (a reader that may list but not get):
			// the whole fleet's way, from the lists.
			done()
			return s.whereAll(ctx, scope, q)
		}
		if t := selection(a.ToModel(), p.selector, p.version); t != nil {
			p.targets[a] = t
		}
		read = append(read, a)
	}
	matches, apps, _ := p.usingRepository(read, conf, w.Repository)
	if len(matches) == 0 {
		// Which repositories the apps use, for the nearest: every managed
		// app, read whole and selected.
		var all []argo.Application
		for _, ns := range listNamespaces(scope) {
			list, err := p.cc.Applications(p.ctx, ns)
			if err != nil {
				return nil, fmt.Errorf("listing Applications: %w", err)
			}
			all = append(all, list...)
		}
		managed, unmanaged := p.managed, p.unmanaged
		p.managed, p.unmanaged = nil, 0
		p.classify(all)
		_, _, others := p.usingRepository(p.managed, conf, w.Repository)
		p.managed, p.unmanaged = managed, unmanaged
		return p.noMatch(w, others), nil
	}
	return p.answer(w, q, conf, matches, apps), nil
}

// early is a diagnosis started before the Applications were listed
// (diagnoseNamed): rep is app's, nil when the app was not to be
// diagnosed; done is closed when both are set.
type early struct {
	done chan struct{}
	app  *argo.Application
	rep  *report.Report
}

// diagnoseNamed starts the diagnoses of the apps that the refs of u name
// exactly (updater.RefSet.Named, the first Concurrency of them whose
// namespace and name may be in scope), each read by name and diagnosed
// when it is in scope, managed and may use the repository, as it would be
// once listed. Only a scope without a Visible
// filter or projects: no app is read by name before it is known to be
// seen. The diagnosis (p.diagnose) of an app the list keeps takes its
// report; the others are dropped. The log is read beside them.
func (p *scan) diagnoseNamed(u *users) {
	var named []updater.AppKey
	for _, k := range u.refs.Named() {
		if len(named) == p.conc {
			break
		}
		if mayBeIn(p.scope, k.Namespace, k.Name) { // no read outside the scope's namespaces and names
			named = append(named, k)
		}
	}
	if len(named) == 0 {
		return
	}
	// Image Updater's log, which each diagnosis waits for, is read and
	// parsed while the apps are.
	p.warming.Go(p.readLog)
	p.early = make(map[updater.AppKey]*early, len(named))
	for _, k := range named {
		e := &early{done: make(chan struct{})}
		p.early[k] = e
		go func() {
			defer close(e.done)
			a, err := p.cc.get(k.Namespace, k.Name)
			if err != nil {
				return
			}
			m := a.ToModel()
			if !matches(p.scope, a) || !managed(m, p.selector) || !u.mayUse(a) {
				return
			}
			t := selection(m, p.selector, p.version)
			p.readLog()
			e.app, e.rep = a, p.eng.Diagnose(p.ctx, p.request(a, t))
		}()
	}
}

// warmArgo starts, once, the engine's warm-up of Argo CD's reads that no
// app changes (diagnostics.Engine.WarmArgo), beside the reads of the apps
// that may use the repository (as soon as the CRs are read when a ref may
// name it, else once the apps that may use it are known): their
// diagnoses then find them made. The "where" waits for it (warming)
// before it ends.
func (p *scan) warmArgo() {
	p.argoWarm.Do(func() {
		p.warming.Go(func() { p.eng.WarmArgo(p.ctx, p.inst, p.updNS) })
	})
}

// waitEarly waits for the diagnoses diagnoseNamed started.
func (p *scan) waitEarly() {
	for _, e := range p.early {
		<-e.done
	}
}

// readLog reads Image Updater's log for the scan's diagnoses, once.
func (p *scan) readLog() {
	p.logOnce.Do(func() { p.shared = p.eng.ReadSharedLog(p.ctx, p.inst, p.version) })
}

// users tells the apps that may use a repository (mayUse). It may be
// used by many goroutines at once.
type users struct {
	v    updater.Version
	conf updater.RegistriesConf
	want string
	refs *updater.RefSet
	// seen are the names read so far and whether they may name the
	// repository: a CR's ref spells one image several ways (alias=image,
	// trimmed or not), and parsing a name and resolving its registry is
	// most of what a "where" spends before its apps are read.
	mu   sync.Mutex
	seen map[string]bool
}

// newUsers: the apps that may use the repository want, under the CRs of
// sel, version v and registries.conf conf.
func newUsers(sel *updater.Selector, v updater.Version, conf updater.RegistriesConf, want string) *users {
	u := &users{v: v, conf: conf, want: want, seen: map[string]bool{}}
	u.refs = sel.Refs(func(_ *updater.ImageUpdater, ref *updater.ApplicationRef) bool {
		for _, im := range ref.Images {
			if u.uses(im.Alias+"="+im.ImageName) || u.uses(im.ImageName) {
				return true
			}
		}
		return false
	})
	return u
}

// in: the name, read as Image Updater reads an image, is in the
// repository, or cannot be told apart from one that is (a name the
// reference grammar does not parse).
func (u *users) in(name string) bool {
	u.mu.Lock()
	ok, known := u.seen[name]
	u.mu.Unlock()
	if known {
		return ok
	}
	r := updater.ParseImageRef(name, u.v)
	// The repository path ends in the image's last path segment whatever
	// registries.conf adds (defaultns, Docker Hub's library/): a name
	// whose segment differs is not in it, with no endpoint resolved.
	ok = r.Legacy || lastSegment(r.Name) == lastSegment(u.want) && repoKey(r, u.conf) == u.want
	u.mu.Lock()
	u.seen[name] = ok
	u.mu.Unlock()
	return ok
}

// uses: an image-list item or an imageName may name the repository, read
// in each way a selection or imagesOf reads it (or cannot be told apart
// from one: a name the reference grammar does not parse).
func (u *users) uses(item string) bool {
	if u.in(item) || u.in(strings.TrimSpace(item)) {
		return true
	}
	if a, r, ok := strings.Cut(item, "="); ok {
		return u.in(r) || u.in(strings.TrimSpace(r)) || u.in(strings.TrimSpace(a)+"="+strings.TrimSpace(r))
	}
	return false
}

// lastSegment is what follows the last "/" of a repository's path.
func lastSegment(path string) string { return path[strings.LastIndex(path, "/")+1:] }

// mayUse reports whether the app (its metadata suffices) may use the
// repository: an image of its image-list annotation, or of an
// applicationRef that matches it by name and labels, is in it. The apps
// whose selection takes an image of the repository (imagesOf: the
// selecting CR's, every other selecting CR's, their dropped images, or
// the annotation's) are among those.
func (u *users) mayUse(a *argo.Application) bool {
	if list, ok := a.Annotations[updater.AnnotationImageList]; ok {
		for _, it := range strings.Split(list, ",") {
			if u.uses(it) {
				return true
			}
		}
	}
	return !u.refs.Empty() && u.refs.Matches(updater.Application{Name: a.Name, Namespace: a.Namespace, Labels: a.Labels})
}

// registriesConf is the installation's registries.conf (empty when none
// or unreadable: a bad file is each app's finding).
func (p *scan) registriesConf() updater.RegistriesConf {
	var conf updater.RegistriesConf
	if p.inst != nil && len(p.inst.RegistriesConf) > 0 {
		conf, _ = updater.ParseRegistriesConfFor(p.inst.RegistriesConf, p.version)
	}
	return conf
}

// whereOf is the answer before its apps: what was asked, the repository
// as Image Updater reaches it, the managed apps counted.
func (p *scan) whereOf(q ImageQuery, conf updater.RegistriesConf) *report.Where {
	return &report.Where{Asked: q.Asked, Repository: repoKey(q.ref, conf), Tag: q.Tag(), Digest: q.Digest(), Cluster: p.s.Engine.Options.ClusterName,
		Scope: p.scope.Scope, Managed: len(p.managed), Unmanaged: p.unmanaged, StartedAt: p.start}
}

// usingRepository are the images of apps (from their selections in
// p.targets) in the repository want, the apps they belong to (in the
// order of apps), and the other repositories the apps use.
func (p *scan) usingRepository(apps []*argo.Application, conf updater.RegistriesConf, want string) ([]match, []*argo.Application, map[string]bool) {
	var matches []match
	var using []*argo.Application
	others := map[string]bool{}
	for _, a := range apps {
		found := false
		for _, im := range imagesOf(a, p.targets[a], p.sel) {
			k := repoKey(im.ref, conf)
			if k != want {
				others[k] = true
				continue
			}
			image := im.ref.Original
			if _, r, ok := strings.Cut(image, "="); ok { // "alias=image" as an image-list writes it
				image = r
			}
			matches = append(matches, match{app: a, by: im.by, alias: im.ref.Alias, image: image})
			found = true
		}
		if found {
			using = append(using, a)
		}
	}
	return matches, using, others
}

// noMatch is the answer when no managed app uses the repository: the
// nearest of the others.
func (p *scan) noMatch(w *report.Where, others map[string]bool) *report.Where {
	want := w.Repository
	keys := make([]string, 0, len(others))
	for k := range others {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w.Repositories = textutil.Nearest(want, keys, 3, func(_ string, d int) bool { return d <= max(3, len(want)/3) })
	res := p.result(nil)
	p.finish(res)
	w.Partial, w.Duration, w.Stats = res.Partial, res.Duration, res.Stats
	w.Apps = []report.WhereLine{}
	return w
}

// answer diagnoses the apps that use the repository and makes their
// lines.
func (p *scan) answer(w *report.Where, q ImageQuery, conf updater.RegistriesConf, matches []match, apps []*argo.Application) *report.Where {
	byApp := map[*argo.Application][]match{}
	for _, m := range matches {
		byApp[m.app] = append(byApp[m.app], m)
	}
	// Each report is dropped as soon as its app's lines are made, as a
	// summary drops it: the tag is settled from the first tag list a
	// diagnosis reads (one per repository in a scan, the same for every
	// app), and the lines of an app whose selection was not made do not
	// depend on it.
	res := p.result(apps)
	lines := make([][]report.WhereLine, len(apps))
	settled := false
	var mu sync.Mutex
	p.diagnose(apps, func(i int, a *argo.Application, rep *report.Report) {
		r := ResultOf(rep, project(a))
		mu.Lock()
		defer mu.Unlock()
		if !settled {
			if listed := tagList(byApp[a], rep); len(listed) > 0 {
				if w.Digest != "" && !anyDigest(listed) {
					readDigests(p.ctx, p.eng.Registry, q.ref, conf, listed, w)
				}
				resolveTag(w, listed)
				settled = true
			}
		}
		res.Apps[i] = r
		for _, m := range byApp[a] {
			lines[i] = append(lines[i], whereLine(m, rep, w.Tag, r))
		}
	})
	p.finish(res)
	w.Partial, w.Duration, w.Stats = res.Partial, res.Duration, res.Stats
	if !settled {
		resolveTag(w, nil)
	}
	for i, a := range apps {
		if lines[i] == nil { // not reached before the deadline
			for _, m := range byApp[a] {
				lines[i] = append(lines[i], whereLine(m, nil, w.Tag, res.Apps[i]))
			}
		}
		w.Apps = append(w.Apps, lines[i]...)
	}
	sort.SliceStable(w.Apps, func(i, j int) bool {
		a, b := w.Apps[i], w.Apps[j]
		if ra, rb := a.Answer.Rank(), b.Answer.Rank(); ra != rb {
			return ra < rb
		}
		if a.App.Namespace != b.App.Namespace {
			return a.App.Namespace < b.App.Namespace
		}
		return a.App.Name < b.App.Name
	})
	return w
}

// configured is one image an app's configuration names, and what names it.
type configured struct {
	ref updater.ImageRef
	by  string
}

// imagesOf are the images Image Updater's model gives the app (t is the
// selection that found it managed, nil when none was needed): the
// selecting CR's (and every other CR's that selects it), its dropped ones,
// or its image-list annotation (v0.x, or on v1.x when no CR selects it:
// the owner still asks about them).
func imagesOf(a *argo.Application, t *updater.Targeting, sel updater.SelectOptions) []configured {
	m := a.ToModel()
	var out []configured
	if t != nil {
		add := func(t updater.Targeting) {
			by := "ImageUpdater " + t.CR
			if t.CR == "" {
				by = "annotations"
			}
			for _, im := range t.Images {
				r := im.Image
				r.Alias = im.Alias
				out = append(out, configured{ref: r, by: by})
			}
			for _, d := range t.Dropped {
				r := updater.ParseImageRef(d.ImageName, sel.Version)
				r.Alias = d.Alias
				out = append(out, configured{ref: r, by: by})
			}
		}
		add(*t)
		for _, o := range t.Also {
			add(o)
		}
		if len(out) > 0 {
			return out
		}
	}
	if list, ok := m.Annotations[updater.AnnotationImageList]; ok {
		refs, _ := updater.ParseImageList(list, sel.Version)
		for _, r := range refs {
			out = append(out, configured{ref: r, by: "annotations"})
		}
	}
	return out
}

// tagList is the repository's tag list as a diagnosis read it (every
// listed tag, whatever its fate, with the digests and build times read)
// for the app's images that use the repository.
func tagList(ms []match, rep *report.Report) []updater.TagFate {
	if rep == nil {
		return nil
	}
	seen := map[string]int{}
	var out []updater.TagFate
	for _, m := range ms {
		for _, c := range rep.Candidates {
			if c.Alias != m.alias {
				continue
			}
			for _, t := range c.Decision.Tags {
				if i, ok := seen[t.Tag]; ok {
					if out[i].Digest == "" {
						out[i].Digest = t.Digest
					}
					if out[i].Created == nil {
						out[i].Created = t.Created
					}
					continue
				}
				seen[t.Tag] = len(out)
				out = append(out, updater.TagFate{Tag: t.Tag, Digest: t.Digest, Created: t.Created})
			}
		}
	}
	return out
}

// resolveTag settles which tag the answer is about: the asked one (is it
// listed? else its nearest), the tags of an asked digest, or, with none,
// the newest the registry has — the one a user who just pushed means: the
// latest build when build times were read, else the highest version
// (pre-releases included), else the last listed.
func resolveTag(w *report.Where, tags []updater.TagFate) {
	names := make([]string, len(tags))
	for i, t := range tags {
		names[i] = t.Tag
	}
	if w.Digest != "" {
		for _, t := range tags {
			if t.Digest == w.Digest {
				w.DigestTags = append(w.DigestTags, t.Tag)
			}
		}
		if w.Tag == "" && len(w.DigestTags) > 0 {
			w.Tag, w.TagFrom = newest(filter(tags, w.DigestTags)), "the newest tag of the digest"
		}
	}
	if len(tags) == 0 {
		if w.Tag != "" && w.TagFrom == "" {
			w.TagFrom = "asked"
		}
		return
	}
	switch {
	case w.Tag == "" && w.Digest == "":
		w.Tag, w.TagFrom = newest(tags), "the newest tag in the registry"
	case w.TagFrom == "" && w.Tag != "":
		w.TagFrom = "asked"
	}
	if w.Tag == "" {
		return
	}
	in := false
	for _, n := range names {
		if n == w.Tag {
			in = true
		}
	}
	w.Listed = &in
	if !in {
		w.Nearest = textutil.Nearest(w.Tag, names, 3, nil)
	}
}

func filter(tags []updater.TagFate, keep []string) []updater.TagFate {
	var out []updater.TagFate
	for _, t := range tags {
		for _, k := range keep {
			if t.Tag == k {
				out = append(out, t)
			}
		}
	}
	return out
}

// newest is the latest build when every tag's build time is known, else
// the highest version, else the last listed.
func newest(tags []updater.TagFate) string {
	var best *updater.TagFate
	allTimes := true
	for i := range tags {
		if tags[i].Created == nil {
			allTimes = false
			break
		}
		if best == nil || tags[i].Created.After(*best.Created) {
			best = &tags[i]
		}
	}
	if allTimes && best != nil {
		return best.Tag
	}
	var top *semver.Version
	pick := ""
	for _, t := range tags {
		v, err := semver.NewVersion(t.Tag)
		if err != nil {
			continue
		}
		if top == nil || v.GreaterThan(top) {
			top, pick = v, t.Tag
		}
	}
	if pick != "" {
		return pick
	}
	return tags[len(tags)-1].Tag
}

// whereLine is one app's answer for one image: will Image Updater pick the
// tag, has it written it, does the app run it, and if not, its diagnosis'
// root cause and fix.
func whereLine(m match, rep *report.Report, tag string, res report.AppResult) report.WhereLine {
	l := report.WhereLine{App: report.AppRef{Namespace: m.app.Namespace, Name: m.app.Name}, Project: project(m.app), By: m.by,
		Alias: m.alias, Image: m.image, State: res.State, Code: res.Code, Cause: res.Title}
	if rep == nil {
		l.Answer = report.WhereUnknown
		return l
	}
	if rc := rep.RootCause; rc != nil {
		l.Fix = rc.Fix
	}
	var d *updater.Decision
	for i := range rep.Candidates {
		if rep.Candidates[i].Alias == m.alias {
			d = &rep.Candidates[i].Decision
		}
	}
	if d == nil { // no selection made for it: what stops the app says why
		l.Answer = fromState(rep.State)
		if l.Answer == report.WhereRunning || l.Answer == report.WhereDue {
			l.Answer = report.WhereUnknown
		}
		return l
	}
	l.Running = d.RunningTag
	if h := m.app.Status.History; len(h) > 0 && !h[len(h)-1].DeployedAt.IsZero() {
		t := h[len(h)-1].DeployedAt.UTC()
		l.Deployed = &t
	}
	if d.Selected != nil {
		l.Picked = d.Selected.Tag
	}
	l.Pick = pickOf(d, tag)
	if w := writtenOf(rep, m.alias); w != "" && l.Picked == tag {
		l.Written = w
	} else if d.Outcome == updater.OutcomeAlreadyInSpec && l.Picked == tag {
		l.Written = "in the Application's spec, not yet deployed"
	}
	switch {
	case tag == "": // no tag to answer for (an unknown digest, no tag list): the app's own state
		l.Answer = fromState(rep.State)
	case l.Running == tag:
		l.Answer = report.WhereRunning
	case l.Picked != tag:
		l.Answer = report.WhereHeldBack
		if rep.State == report.StateUnknown && l.Pick == "" {
			l.Answer = report.WhereUnknown
		}
	case rep.State == report.StateOnItsWay || rep.State == report.StateUpToDate:
		l.Answer = report.WhereDue
		if l.Written != "" {
			l.Answer = report.WhereWritten
		}
	default:
		l.Answer = fromState(rep.State)
	}
	if l.Answer == report.WhereWaitingMerge && l.Code == "" {
		l.Cause = waitingCause(rep)
	}
	return l
}

// waitingCause is what an app waiting for a merge waits on: Image Updater's
// open pull request as the forge lists it, or the one it opens next cycle.
func waitingCause(rep *report.Report) string {
	for _, f := range rep.Findings() {
		if f.Code == report.CodeWriteBackPROpen {
			return f.Title
		}
	}
	return "Image Updater opens a pull request on its next cycle; it deploys once someone merges it"
}

// fromState is the answer of an app whose diagnosis is in state s.
func fromState(s report.State) report.WhereAnswer {
	switch s {
	case report.StateUpToDate:
		return report.WhereRunning
	case report.StateOnItsWay:
		return report.WhereDue
	case report.StateHeldBack:
		return report.WhereHeldBack
	case report.StateBlocked:
		return report.WhereBlocked
	case report.StateWrongUpdate:
		return report.WhereWrongUpdate
	case report.StateNotDeployed:
		return report.WhereNotDeployed
	case report.StateWaitingForMerge:
		return report.WhereWaitingMerge
	}
	return report.WhereUnknown
}

// pickOf says whether Image Updater picks tag from the decision, and if
// not why.
func pickOf(d *updater.Decision, tag string) string {
	for _, t := range d.Tags {
		if t.Tag != tag {
			continue
		}
		switch {
		case t.Fate == updater.FateSelected:
			return "picked"
		case t.Fate == updater.FateCandidate && d.Selected != nil:
			return "beaten by " + d.Selected.Tag + " (" + t.Why + ")"
		default:
			return string(t.Fate) + ": " + t.Why
		}
	}
	if tag == "" {
		return ""
	}
	return "not in the tag list Image Updater reads"
}

// writtenOf is where and when Image Updater wrote the image's pick, from
// the history stage's finding's evidence, the dated first (the CR's
// status.recentUpdates, an ImagesUpdated event), then the spec or commit.
func writtenOf(rep *report.Report, alias string) string {
	for _, f := range rep.Findings() {
		if f.Code != report.CodeHistoryWritten || f.Image != alias && f.Image != "" {
			continue
		}
		var dated, other []string
		for _, e := range f.Evidence {
			s := e.Label + ": " + e.Display()
			if strings.Contains(e.Label, "recentUpdates") || strings.HasPrefix(e.Label, "event") {
				dated = append(dated, s)
			} else {
				other = append(other, s)
			}
		}
		switch {
		case len(dated) > 0: // when, and by what: the first says enough
			return dated[0]
		case len(other) > 0:
			return strings.Join(other[:min(2, len(other))], "; ")
		}
		return f.Title
	}
	return ""
}

// maxDigestTags bounds the tags whose digests a "where IMAGE@DIGEST" reads
// when the diagnoses read none: the highest versions first.
const maxDigestTags = 100

func anyDigest(tags []updater.TagFate) bool {
	for _, t := range tags {
		if t.Digest != "" {
			return true
		}
	}
	return false
}

// readDigests reads the digests of up to maxDigestTags tags (the highest
// versions first), anonymously, when the diagnoses read none (the semver
// and alphabetical strategies need no manifest): a digest is then matched
// against a tag's manifest, or an index's. No credential is read for it;
// a registry that refuses anonymous reads leaves the digest's tags
// unknown, and w.DigestNote says why.
func readDigests(ctx context.Context, reg registryReader, ref updater.ImageRef, conf updater.RegistriesConf, tags []updater.TagFate, w *report.Where) {
	if reg == nil || len(tags) == 0 {
		return
	}
	ep, _ := updater.ResolveEndpoint(ref, conf)
	target := registry.Target{APIURL: ep.APIURL, Repository: ep.RepositoryPath(ref), Insecure: ep.Insecure, Limit: ep.Limit}
	names := byVersionDesc(tags)
	if len(names) > maxDigestTags {
		names = names[:maxDigestTags]
	}
	metas, err := reg.Metadata(ctx, target, names, func(updater.Platform) bool { return false })
	if err != nil {
		w.DigestNote = "the tags' digests could not be read: " + textutil.Clip(textutil.OneLine(err.Error()), 200)
		return
	}
	read := 0
	failed := ""
	for i := range tags {
		m, ok := metas[tags[i].Tag]
		if !ok {
			continue
		}
		if m.Err != "" {
			failed = m.Err
			continue
		}
		read++
		tags[i].Digest = m.Digest
		for _, c := range m.Manifests { // the digest of one platform's image under an index
			if c.Digest == w.Digest {
				tags[i].Digest = w.Digest
			}
		}
	}
	switch {
	case read == 0 && failed != "":
		w.DigestNote = "the tags' digests could not be read without credentials: " + textutil.Clip(textutil.OneLine(failed), 200)
	case len(names) < len(tags):
		w.DigestNote = fmt.Sprintf("the digests of the %d highest versions were read (of %d tags)", len(names), len(tags))
	}
}

// registryReader is the registry the scan reads through.
type registryReader interface {
	Metadata(ctx context.Context, t registry.Target, tags []string, want func(updater.Platform) bool) (map[string]updater.TagMeta, error)
}

// byVersionDesc are the tags' names, versions highest first, then the
// others in reverse registry order (the newest pushed last, often).
func byVersionDesc(tags []updater.TagFate) []string {
	type v struct {
		name string
		ver  *semver.Version
		i    int
	}
	vs := make([]v, len(tags))
	for i, t := range tags {
		vs[i] = v{name: t.Tag, i: i}
		if sv, err := semver.NewVersion(t.Tag); err == nil {
			vs[i].ver = sv
		}
	}
	sort.SliceStable(vs, func(a, b int) bool {
		x, y := vs[a], vs[b]
		switch {
		case x.ver != nil && y.ver != nil:
			return x.ver.GreaterThan(y.ver)
		case x.ver != nil:
			return true
		case y.ver != nil:
			return false
		}
		return x.i > y.i
	})
	out := make([]string, len(vs))
	for i, x := range vs {
		out[i] = x.name
	}
	return out
}
