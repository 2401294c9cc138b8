package updater

import (
	"fmt"
	"github.com/imgupd/imgupd/internal/lazyre"
	"path/filepath"
	"strings"
)

// Write-back methods and credential kinds.
const (
	WriteBackArgoCD = "argocd"
	WriteBackGit    = "git"

	GitCredsRepoCreds = "repocreds"
	GitCredsSecret    = "secret"
)

// Write-back target kinds.
const (
	TargetDefault       = "default"       // .argocd-source-<app>.yaml in the source path
	TargetHelmValues    = "helmvalues"    // a Helm values file
	TargetKustomization = "kustomization" // a kustomization directory, edited like `kustomize edit set image`
	TargetPath          = "path"          // a bare path: an override file at that path
)

// WriteBack is the write-back configuration Image Updater builds for one
// Application (newWBCFromSettings): how updates are persisted, where, and
// with which credentials.
type WriteBack struct {
	// Method is "argocd" (patch the Application) or "git" (commit).
	Method string `json:"method"`
	// Creds is "repocreds" (Argo CD repository credentials) or "secret"
	// (SecretNamespace/SecretName); "" for the argocd method.
	Creds           string `json:"creds,omitempty"`
	SecretNamespace string `json:"secretNamespace,omitempty"`
	SecretName      string `json:"secretName,omitempty"`
	// Repository is the repository written to: gitConfig.repository /
	// git-repository, else the edited source's repoURL (RepositoryFromApp).
	Repository        string `json:"repository,omitempty"`
	RepositoryFromApp bool   `json:"repositoryFromApp,omitempty"`
	// BaseBranch is the checkout branch (the part before ":" of the branch
	// setting); "" means the source's targetRevision, with "" or HEAD
	// resolved to the remote default branch when committing.
	BaseBranch string `json:"baseBranch,omitempty"`
	// TargetBranchTemplate is the part after ":" (a Go text/template for the
	// branch pushed to); "" pushes to BaseBranch.
	TargetBranchTemplate string `json:"targetBranchTemplate,omitempty"`
	// Target is the file or directory written.
	Target WriteBackTarget `json:"target"`
	// PullRequest is set when updates are proposed as pull requests (v1.2.0+).
	PullRequest *PullRequestSettings `json:"pullRequest,omitempty"`
	// Sources names the configuration level of each field set
	// ("method", "repository", "branch", "writeBackTarget", "pullRequest").
	Sources map[string]SettingSource `json:"sources,omitempty"`
	// Deferred are errors Image Updater only hits when it commits (reading
	// the credentials, writing the file): the Application is still selected
	// and its images are still evaluated, but every commit fails with
	// "Could not update application spec: ...".
	Deferred []*WriteBackError `json:"deferred,omitempty"`
	// Notes are warnings about surprising but working configurations.
	Notes []string `json:"notes,omitempty"`
}

// WriteBackTarget is a parsed write-back target.
type WriteBackTarget struct {
	// Kind is TargetDefault, TargetHelmValues, TargetKustomization or TargetPath.
	Kind string `json:"kind"`
	// Path is the repository path Image Updater resolves: relative to the
	// repository root (a leading "/" in the setting means root, anything else
	// is joined with the source path), except for TargetPath, which is used
	// verbatim.
	Path string `json:"path"`
	// Raw is the configured string ("" for the default).
	Raw string `json:"raw,omitempty"`
}

// PullRequestSettings is the pull-request mode of git write-back.
type PullRequestSettings struct {
	// Provider is "github" or "gitlab".
	Provider string   `json:"provider"`
	Labels   []string `json:"labels,omitempty"`
}

// WriteBackError says which part of a write-back setting is wrong.
type WriteBackError struct {
	// Part is "source", "method", "credentials", "branch", "target",
	// "repository" or "pullRequest".
	Part   string `json:"part"`
	Value  string `json:"value"`
	Reason string `json:"reason"`
	// Problem is the specific problem code of a deferred error
	// (ProblemWriteBackInsecureURL...), "" for ProblemWriteBackWillFail.
	Problem string `json:"problem,omitempty"`
}

func (e *WriteBackError) Error() string {
	return fmt.Sprintf("write-back %s %q: %s", e.Part, e.Value, e.Reason)
}

// WriteBackMethod is a parsed method string.
type WriteBackMethod struct {
	Method string `json:"method"`
	// Creds is GitCredsRepoCreds or GitCredsSecret for git, "" for argocd.
	Creds string `json:"creds,omitempty"`
	// SecretNamespace is "" when the reference names only the secret.
	SecretNamespace string `json:"secretNamespace,omitempty"`
	SecretName      string `json:"secretName,omitempty"`
	// SecretRef is the text after "secret:" as written.
	SecretRef string `json:"secretRef,omitempty"`
}

// ParseWriteBackMethod reads a write-back method as newWBCFromSettings does:
// surrounding space is trimmed; "argocd" is the argocd method; otherwise the
// text before the first ":" (when that colon is not the first character) must
// be "git", and the rest names the credentials: "repocreds" (also the
// default for a bare "git") or "secret:<ns>/<name>" / "secret:<name>". The
// secret reference is only split here; whether a name without namespace or a
// foreign namespace is accepted depends on the version (BuildWriteBack). An
// empty string is an invalid mechanism, as in Image Updater when the field
// is present but empty.
func ParseWriteBackMethod(s string) (WriteBackMethod, error) {
	m := strings.TrimSpace(s)
	if m == WriteBackArgoCD {
		return WriteBackMethod{Method: WriteBackArgoCD}, nil
	}
	method, creds := m, GitCredsRepoCreds
	if i := strings.Index(m, ":"); i > 0 {
		method, creds = m[:i], m[i+1:]
	}
	if method != WriteBackGit {
		reason := `invalid update mechanism: want "argocd", "git", "git:repocreds", "git:secret:<name>" or "git:secret:<namespace>/<name>"`
		if m == "" {
			reason = "invalid update mechanism: empty method"
		}
		return WriteBackMethod{}, &WriteBackError{Part: "method", Value: s, Reason: reason}
	}
	out := WriteBackMethod{Method: WriteBackGit}
	switch {
	case creds == GitCredsRepoCreds:
		out.Creds = GitCredsRepoCreds
	case strings.HasPrefix(creds, "secret:"):
		out.Creds = GitCredsSecret
		out.SecretRef = creds[len("secret:"):]
		if ns, name, ok := strings.Cut(out.SecretRef, "/"); ok {
			out.SecretNamespace, out.SecretName = ns, name
		} else {
			out.SecretName = out.SecretRef
		}
	default:
		return WriteBackMethod{}, &WriteBackError{Part: "credentials", Value: creds,
			Reason: "invalid git credentials source: unexpected credentials format, want 'repocreds' or 'secret:<namespace>/<secret>'"}
	}
	return out, nil
}

var writeBackMethodCRDPattern = lazyre.New(`^(argocd|git|git:[a-zA-Z0-9][a-zA-Z0-9-._/:]*)$`)

// CheckWriteBackMethodPattern applies the CRD's pattern for
// writeBackConfig.method. The API server rejects a CR whose method does not
// match, so a stored CR always passes; a manifest that fails was never
// applied. Annotations are not checked against it.
func CheckWriteBackMethodPattern(s string) error {
	if writeBackMethodCRDPattern().MatchString(s) {
		return nil
	}
	return &WriteBackError{Part: "method", Value: s,
		Reason: "does not match the CRD pattern ^(argocd|git|git:[a-zA-Z0-9][a-zA-Z0-9-._/:]*)$; the API server rejects this CR"}
}

// ParseGitBranch splits a branch setting as parseGitConfig does: surrounding
// space is trimmed, then "base", "base:target" or ":target" (checkout the
// source's targetRevision, push to target). The target is a Go template and
// is not evaluated here. More than one colon is an error ("invalid format
// for git-branch").
func ParseGitBranch(s string) (base, target string, err error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) > 2 {
		return "", "", &WriteBackError{Part: "branch", Value: s,
			Reason: fmt.Sprintf("invalid format for git-branch: %d colons, want \"branch\", \"base:target\" or \":target\"", len(parts)-1)}
	}
	base = parts[0]
	if len(parts) == 2 {
		target = parts[1]
	}
	return base, target, nil
}

var kustomizationFileNames = map[string]bool{"kustomization.yaml": true, "kustomization.yml": true, "Kustomization": true}

// ParseWriteBackTarget resolves a writeBackTarget / write-back-target value
// against the source path like parseKustomizeBase/parseTarget. Matching is by
// string prefix, as in Image Updater: anything starting with "kustomization"
// is a kustomization target and anything starting with "helmvalues" a Helm
// values target; for those, the text after the prefix and ONE more character
// (meant to be ":") is the path — a leading "/" means repository root,
// otherwise it is joined with sourcePath; the bare keyword means the source
// directory (kustomization) or <source>/values.yaml (helmvalues). Any other
// value is an override-file path used verbatim. The notes flag values that
// parse but probably do not mean what was intended.
func ParseWriteBackTarget(target, sourcePath string) (WriteBackTarget, []string) {
	var notes []string
	resolve := func(prefix string) string {
		rest := target[len(prefix)+1:]
		if target[len(prefix)] != ':' {
			notes = append(notes, fmt.Sprintf("write-back target %q starts with %q but the next character is %q, not \":\"; Image Updater skips that character and uses %q as the path", target, prefix, target[len(prefix):len(prefix)+1], rest))
		}
		if strings.HasPrefix(rest, "/") {
			return rest[1:]
		}
		return filepath.Join(sourcePath, rest)
	}
	switch {
	case target == TargetKustomization:
		return WriteBackTarget{Kind: TargetKustomization, Path: filepath.Join(sourcePath, "."), Raw: target}, nil
	case strings.HasPrefix(target, TargetKustomization):
		return WriteBackTarget{Kind: TargetKustomization, Path: resolve(TargetKustomization), Raw: target}, notes
	case target == TargetHelmValues:
		return WriteBackTarget{Kind: TargetHelmValues, Path: filepath.Join(sourcePath, "./", "values.yaml"), Raw: target}, nil
	case strings.HasPrefix(target, TargetHelmValues):
		return WriteBackTarget{Kind: TargetHelmValues, Path: resolve(TargetHelmValues), Raw: target}, notes
	}
	return WriteBackTarget{Kind: TargetPath, Path: target, Raw: target}, nil
}

// DefaultWriteBackFile is the default override file (parseDefaultTarget):
// "<source path>/.argocd-source-<app>.yaml", or
// "<source path>/.argocd-source-<namespace>_<app>.yaml" when the Application
// lives in another namespace than the controller's and the controller's
// namespace is not "default" (a CLI run without a namespace resolves to
// "default" and also uses the short name). The source path is that of the
// source Image Updater edits for the Application's own source type.
func DefaultWriteBackFile(app Application, controllerNamespace string) string {
	kind, _, _ := SourceType(app, WriteBack{}, Latest)
	src, _ := app.EditedSource(kind)
	return filepath.Join(src.Path, defaultWriteBackFileName(app, controllerNamespace))
}

func defaultWriteBackFileName(app Application, controllerNamespace string) string {
	if app.Namespace == controllerNamespace || controllerNamespace == "default" || app.Namespace == "" {
		return ".argocd-source-" + app.Name + ".yaml"
	}
	return ".argocd-source-" + app.Namespace + "_" + app.Name + ".yaml"
}

// WriteBackOptions are the inputs of BuildWriteBack besides the settings.
type WriteBackOptions struct {
	Version             Version
	ControllerNamespace string
	// Sources, when set, is copied into WriteBack.Sources.
	Sources map[string]SettingSource
}

// BuildWriteBack builds the write-back configuration for app from a merged
// writeBackConfig (CR mode) or the one read from annotations, following
// newWBCFromSettings. The returned error is a configuration error that makes
// Image Updater skip the applicationRef ("Could not create write-back config
// for app ..., skipping") and fall through to the next, less specific ref:
// no source at all, an invalid method or credentials kind, a branch with
// more than one colon, a pull-request provider count other than one, or a
// ":target" branch in pull-request mode. Problems Image Updater only meets
// when committing are in WriteBack.Deferred. A nil cfg is the argocd
// method.
func BuildWriteBack(app Application, cfg *WriteBackConfig, opts WriteBackOptions) (WriteBack, error) {
	v := opts.Version
	wb := WriteBack{Method: WriteBackArgoCD, Sources: opts.Sources}
	kind0, _, _ := SourceType(app, WriteBack{}, v)
	src0, ok := app.EditedSource(kind0)
	if !ok && app.Hydrator != nil && v.SupportsPluginSources() {
		// A hydrated Application may have no spec.source; v1.3.0 reads the
		// drySource instead (derived from the hydrator support, unverified).
		h := app.Hydrator
		src0, ok = AppSource{RepoURL: h.RepoURL, Path: h.Path, TargetRevision: h.TargetRevision, HasHelm: h.HasHelm, HasKustomize: h.HasKustomize, HasPlugin: h.HasPlugin}, true
	}
	if !ok {
		return wb, &WriteBackError{Part: "source", Value: app.Key(), Reason: "application source is not defined"}
	}
	wb.Target = WriteBackTarget{Kind: TargetDefault, Path: filepath.Join(src0.Path, defaultWriteBackFileName(app, opts.ControllerNamespace))}
	if cfg == nil || cfg.Method == nil || strings.TrimSpace(*cfg.Method) == WriteBackArgoCD {
		if cfg != nil && cfg.GitConfig != nil {
			wb.Notes = append(wb.Notes, "gitConfig is set but the write-back method is argocd: it has no effect")
		}
		return wb, nil
	}
	m, err := ParseWriteBackMethod(*cfg.Method)
	if err != nil {
		return wb, err
	}
	wb.Method, wb.Creds = m.Method, m.Creds
	gc := cfg.GitConfig
	if gc == nil {
		gc = &GitConfig{}
	}
	if gc.WriteBackTarget != nil {
		t, notes := ParseWriteBackTarget(*gc.WriteBackTarget, src0.Path)
		wb.Target, wb.Notes = t, append(wb.Notes, notes...)
		if t.Kind == TargetPath {
			switch {
			case t.Path == "":
				wb.Deferred = append(wb.Deferred, &WriteBackError{Part: "target", Value: "", Problem: ProblemWriteBackTargetRejected, Reason: "empty write-back target: Image Updater replaces the default override file with an empty path and cannot write it"})
			case kustomizationFileNames[filepath.Base(t.Path)] && v.RejectsBareKustomizationTarget():
				wb.Deferred = append(wb.Deferred, &WriteBackError{Part: "target", Value: t.Raw, Problem: ProblemWriteBackTargetRejected,
					Reason: "a bare path to a kustomization file is rejected since v1.3.0 (PR #1766); use \"kustomization:" + filepath.Dir(t.Path) + "\" to edit its images"})
			case kustomizationFileNames[filepath.Base(t.Path)]:
				wb.Notes = append(wb.Notes, fmt.Sprintf("write-back target %q is a kustomization file written as an override file: before v1.3.0 Image Updater replaces its content with a bare \"kustomize: images:\" document (data loss); use \"kustomization:%s\"", t.Raw, filepath.Dir(t.Path)))
			}
		}
	}
	if gc.Branch != nil {
		base, target, err := ParseGitBranch(*gc.Branch)
		if err != nil {
			return wb, err
		}
		wb.BaseBranch, wb.TargetBranchTemplate = base, target
	}
	// The repository default comes from the source Image Updater edits for
	// the type the (possibly forced) write-back target implies.
	kind, _, _ := SourceType(app, wb, v)
	src, ok := app.EditedSource(kind)
	if !ok {
		src = src0
	}
	if gc.Repository != nil {
		wb.Repository = *gc.Repository
	} else {
		wb.Repository, wb.RepositoryFromApp = src.RepoURL, true
		if src.Chart != "" {
			wb.Notes = append(wb.Notes, fmt.Sprintf("the write-back repository defaults to the source's repoURL %q, which is a Helm chart repository and cannot be cloned; set the git repository explicitly", src.RepoURL))
		}
	}
	if v.SupportsPullRequests() && gc.PullRequest != nil {
		pr := gc.PullRequest
		n := 0
		ps := &PullRequestSettings{Labels: pr.Labels}
		if pr.GitHub != nil {
			n++
			ps.Provider = "github"
		}
		if pr.GitLab != nil {
			n++
			ps.Provider = "gitlab"
		}
		if n != 1 {
			return wb, &WriteBackError{Part: "pullRequest", Value: fmt.Sprintf("%d providers", n), Reason: "exactly one of github or gitlab must be set"}
		}
		if gc.Branch != nil && strings.Contains(*gc.Branch, ":") {
			return wb, &WriteBackError{Part: "branch", Value: *gc.Branch, Reason: "a \"base:target\" branch is not allowed in pull-request mode; the head branch is generated (image-updater-<targetKey>-<sha256>)"}
		}
		wb.PullRequest = ps
	}
	if m.Creds == GitCredsSecret {
		wb.SecretNamespace, wb.SecretName = m.SecretNamespace, m.SecretName
		switch {
		case m.SecretName == "":
			wb.Deferred = append(wb.Deferred, &WriteBackError{Part: "credentials", Value: m.SecretRef, Problem: ProblemWriteBackSecretRef, Reason: "secret reference names no secret"})
		case m.SecretNamespace == "" && !v.GitSecretMayOmitNamespace():
			wb.Deferred = append(wb.Deferred, &WriteBackError{Part: "credentials", Value: m.SecretRef, Problem: ProblemWriteBackSecretRef,
				Reason: fmt.Sprintf("secret ref must be in format 'namespace/name' before v1.3.0; write \"git:secret:%s/%s\"", app.Namespace, m.SecretName)})
		case m.SecretNamespace == "":
			wb.SecretNamespace = app.Namespace
		case v.SecretsMustShareAppNamespace() && m.SecretNamespace != app.Namespace:
			wb.Deferred = append(wb.Deferred, &WriteBackError{Part: "credentials", Value: m.SecretRef, Problem: ProblemWriteBackSecretNamespace,
				Reason: fmt.Sprintf("secret namespace '%s' differs from app namespace '%s' (rejected since v1.3.0, PR #1732)", m.SecretNamespace, app.Namespace)})
		}
		if r := wb.Repository; r != "" && !isHTTPSOrSSHRepo(r) {
			wb.Deferred = append(wb.Deferred, &WriteBackError{Part: "repository", Value: r, Problem: ProblemWriteBackInsecureURL,
				Reason: "git:secret: credentials need an https:// or SSH repository URL; anything else fails with \"unknown repository type\""})
		}
	}
	return wb, nil
}

func isHTTPSOrSSHRepo(r string) bool {
	l := strings.ToLower(r)
	if strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "ssh://") {
		return true
	}
	// scp-like SSH: user@host:path
	at, colon := strings.Index(r, "@"), strings.Index(r, ":")
	return at > 0 && colon > at && !strings.Contains(r[:colon], "/")
}

// forcesSourceType is the write-back part of getApplicationSourceType: a
// kustomization target makes the Application Kustomize, and a target file
// ending in .yaml/.yml whose name does not start with ".argocd-source-"
// (helmvalues or a bare path) makes it Helm. Only git write-back parses a
// target, so the argocd method never forces.
func (wb WriteBack) forcesSourceType() string {
	if wb.Method != WriteBackGit {
		return ""
	}
	switch wb.Target.Kind {
	case TargetKustomization:
		return AppSourceKustomize
	case TargetHelmValues, TargetPath:
		p := wb.Target.Path
		if (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) && !strings.HasPrefix(filepath.Base(p), ".argocd-source-") {
			return AppSourceHelm
		}
	}
	return ""
}
