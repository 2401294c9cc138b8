package diagnostics

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/diagnostics/report"
	"github.com/imgupd/imgupd/diagnostics/updater"
)

// severityOf maps the model's problem severity to a finding severity.
func severityOf(s updater.Severity) report.Severity {
	switch s {
	case updater.SeverityError:
		return report.Fail
	case updater.SeverityWarning:
		return report.Warn
	}
	return report.Info
}

// problemFinding turns a model problem into a finding, with a fix that
// names the key and the value to write where the problem carries them.
func (r *run) problemFinding(p updater.Problem) report.Finding {
	d, ok := problemsByCode()[p.Code]
	code, stage := report.Code("TARGET_"+p.Code), report.StageTarget
	if ok {
		code, stage = d.code, d.stage
	}
	f := report.Finding{Code: code, Stage: stage, Severity: severityOf(p.Severity), Title: p.Message}
	if e, ok := catalogue()[code]; ok {
		f.State = e.State
		f.Detail = e.Meaning
		if e.Fix != "" {
			f.Fix = &report.Fix{Summary: e.Fix}
		}
	}
	if p.Key != "" && strings.HasPrefix(p.Key, updater.AnnotationPrefix) {
		f = f.With(ev("annotation", p.Key+"="+strconv.Quote(p.Value)))
	}
	return r.problemFix(f, p)
}

// problemFix writes the exact command for the annotation problems.
func (r *run) problemFix(f report.Finding, p updater.Problem) report.Finding {
	ns, app := r.req.Namespace, r.req.App
	annotate := func(args ...string) string {
		return fmt.Sprintf("kubectl -n %s annotate application %s --overwrite %s", ns, app, strings.Join(args, " "))
	}
	where := fmt.Sprintf("Application %s/%s, metadata.annotations", ns, app)
	switch p.Code {
	case updater.ProblemImageListMissing, updater.ProblemUnknownAnnotationKey, updater.ProblemAnnotationForUnknownAlias, updater.ProblemTagMatchIgnoredInV1:
		if p.Key == "" || p.Suggest == "" {
			break
		}
		return f.WithFix(fmt.Sprintf("Rename %s to %s (same value).", p.Key, p.Suggest), where,
			annotate(p.Suggest+"="+shQuote(p.Value), p.Key+"-"), "sh")
	case updater.ProblemForceUpdateUnparsable:
		if p.Key == "" {
			break
		}
		return f.WithFix(fmt.Sprintf("%s is read with strconv.ParseBool: write true or false (%q is neither).", p.Key, p.Value), where,
			annotate(p.Key+"=true"), "sh")
	case updater.ProblemHelmAndKustomize:
		alias := strings.TrimSuffix(strings.TrimPrefix(p.Key, updater.AnnotationPrefix), "."+updater.AnnKeyKustomizeImageName)
		drop := []string{updater.AnnotationPrefix + alias + "." + updater.AnnKeyKustomizeImageName + "-"}
		keep := "kustomize.image-name"
		if r.app != nil && r.app.Status.SourceType == updater.AppSourceKustomize {
			drop = nil
			for _, k := range []string{updater.AnnKeyHelmImageName, updater.AnnKeyHelmImageTag, updater.AnnKeyHelmImageSpec} {
				if _, ok := r.model.Annotations[updater.AnnotationPrefix+alias+"."+k]; ok {
					drop = append(drop, updater.AnnotationPrefix+alias+"."+k+"-")
				}
			}
			keep = "helm.*"
		}
		if len(drop) == 0 {
			break
		}
		return f.WithFix(fmt.Sprintf("The app's source is %s: remove the alias's %s key(s), Image Updater refuses both on one alias.", orNone(r.model.SourceType), keep), where,
			fmt.Sprintf("kubectl -n %s annotate application %s %s", ns, app, strings.Join(drop, " ")), "sh")
	case updater.ProblemAnnotationsIgnoredWithoutCR, updater.ProblemNoCR:
		if f.Severity != report.Fail {
			break
		}
		ref := "    useAnnotations: true   # keep reading the Application's annotations (v1.1+)"
		if _, ok := r.model.Annotations[updater.AnnotationImageList]; !ok {
			ref = "    images:\n    - alias: <alias>\n      imageName: <registry>/<repository>:<constraint>"
		}
		return f.WithFix("Create an ImageUpdater CR in the Application's namespace that selects it.", "namespace "+ns,
			fmt.Sprintf("kubectl apply -f - <<'EOF'\napiVersion: argocd-image-updater.argoproj.io/v1alpha1\nkind: ImageUpdater\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  applicationRefs:\n  - namePattern: %s\n%s\nEOF", app, ns, app, ref), "sh")
	case updater.ProblemCRNamespaceNotWatched:
		if r.install == nil {
			break
		}
		var add []string
		for _, c := range r.target.CRs {
			if !c.Watched {
				add = append(add, crNamespace(c.CR))
			}
		}
		list := strings.Join(append(watchedList(r.install.WatchNamespaces, r.install.Namespace), add...), ",")
		return f.WithFix("Let the controller watch the CR's namespace (or move the CR into a watched one).", fmt.Sprintf("Deployment %s/%s, env IMAGE_UPDATER_WATCH_NAMESPACES", r.install.Namespace, r.install.Name),
			fmt.Sprintf("kubectl -n %s set env deploy/%s IMAGE_UPDATER_WATCH_NAMESPACES=%s", r.install.Namespace, r.install.Name, list), "sh")
	case updater.ProblemWriteBackInsecureURL:
		https := strings.Replace(p.Value, "http://", "https://", 1)
		return f.WithFix("Write back to the repository's https:// (or SSH) URL.", r.writeBackPlace("repository"),
			fmt.Sprintf("writeBackConfig:\n  gitConfig:\n    repository: %s", https), "yaml")
	case updater.ProblemWriteBackSecretNamespace, updater.ProblemWriteBackSecretRef:
		name := p.Value
		if _, n, ok := strings.Cut(p.Value, "/"); ok {
			name = n
		}
		return f.WithFix("Reference a Secret in the Application's namespace, as namespace/name.", r.writeBackPlace("method"),
			fmt.Sprintf("writeBackConfig:\n  method: \"git:secret:%s/%s\"   # copy the Secret to %s first", ns, name, ns), "yaml")
	case updater.ProblemUnsupportedSourceType:
		if r.model.SourceType == "" {
			return f.WithFix("Argo CD could not render the manifests: fix the error it reports, then Image Updater sees the type.", "Application "+ns+"/"+app,
				fmt.Sprintf("argocd app get %s --refresh\nargocd app manifests %s   # shows the render error", app, app), "sh")
		}
		return f.WithFix("Make the source a Kustomize (or Helm) source: Argo CD then renders it as such and Image Updater updates it.", "Application "+ns+"/"+app+", spec.source",
			fmt.Sprintf("# with a kustomization.yaml in the source path:\nkubectl -n %s patch application %s --type merge -p '{\"spec\":{\"source\":{\"kustomize\":{}}}}'\n# or keep the directory and let git write-back force the type:\n#   writeBackConfig: {method: git, gitConfig: {writeBackTarget: kustomization}}", ns, app), "sh")
	}
	return f
}

// watchedList is the controller's watch setting as a list ("" = its own
// namespace).
func watchedList(w, own string) []string {
	if strings.TrimSpace(w) == "" {
		return []string{own}
	}
	var out []string
	for _, x := range strings.Split(w, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
