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
	annotate := r.annotateApp
	where := fmt.Sprintf("Application %s/%s, metadata.annotations", ns, app)
	switch p.Code {
	case updater.ProblemImageListMissing, updater.ProblemUnknownAnnotationKey, updater.ProblemAnnotationForUnknownAlias, updater.ProblemTagMatchIgnoredInV1:
		if p.Key == "" || p.Suggest == "" {
			break
		}
		return f.WithFix(fmt.Sprintf("Rename %s to %s (same value).", p.Key, p.Suggest), where,
			report.Run("rename the annotation", annotate(p.Suggest+"="+shQuote(p.Value), p.Key+"-")))
	case updater.ProblemForceUpdateUnparsable:
		if p.Key == "" {
			break
		}
		return f.WithFix(fmt.Sprintf("%s is read with strconv.ParseBool: write true or false (%q is neither).", p.Key, p.Value), where,
			report.Run("write true", annotate(p.Key+"=true")))
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
			report.Run("remove the alias's "+keep+" annotations", fmt.Sprintf("kubectl -n %s annotate application %s %s", ns, app, strings.Join(drop, " "))))
	case updater.ProblemAnnotationsIgnoredWithoutCR, updater.ProblemNoCR:
		if f.Severity != report.Fail {
			break
		}
		say, ref := "create ImageUpdater "+ns+"/"+app+" that keeps reading the Application's annotations (v1.1+)", "    useAnnotations: true"
		if _, ok := r.model.Annotations[updater.AnnotationImageList]; !ok {
			say, ref = "create ImageUpdater "+ns+"/"+app+" with the images to update", "    images:\n    - alias: <alias>\n      imageName: <registry>/<repository>:<constraint>"
		}
		return f.WithFix("Create an ImageUpdater CR in the Application's namespace that selects it.", "namespace "+ns,
			report.Run(say, heredoc(fmt.Sprintf("apiVersion: argocd-image-updater.argoproj.io/v1alpha1\nkind: ImageUpdater\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  applicationRefs:\n  - namePattern: %s\n%s", app, ns, app, ref))))
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
			report.Run("watch namespaces "+list, fmt.Sprintf("kubectl -n %s set env deploy/%s IMAGE_UPDATER_WATCH_NAMESPACES=%s", r.install.Namespace, r.install.Name, list)))
	case updater.ProblemWriteBackInsecureURL:
		https := strings.Replace(p.Value, "http://", "https://", 1)
		return f.WithFix("Write back to the repository's https:// (or SSH) URL.", r.writeBackPlace("repository"),
			r.writeBackStep("write back to the https:// URL", kv{"gitConfig.repository", https}))
	case updater.ProblemWriteBackSecretNamespace, updater.ProblemWriteBackSecretRef:
		name, from := p.Value, ""
		if secretNS, n, ok := strings.Cut(p.Value, "/"); ok {
			name, from = n, secretNS
		}
		var steps []report.Step
		say := "reference the Secret in namespace " + ns
		if from != "" && from != ns {
			steps = append(steps, report.Run("copy the Secret into namespace "+ns,
				fmt.Sprintf("kubectl get secret -n %s %s -o yaml | sed 's/namespace: %s/namespace: %s/' | kubectl apply -f -", from, name, from, ns)))
			say = "reference the copy"
		}
		steps = append(steps, r.writeBackStep(say, kv{"method", strconv.Quote("git:secret:" + ns + "/" + name)}))
		return f.WithFix("Reference a Secret in the Application's namespace, as namespace/name.", r.writeBackPlace("method"), steps...)
	case updater.ProblemUnsupportedSourceType:
		if r.model.SourceType == "" {
			return f.WithFix("Argo CD could not render the manifests: fix the error it reports, then Image Updater sees the type.", "Application "+ns+"/"+app,
				report.Run("refresh the Application", fmt.Sprintf("argocd app get %s --refresh", app)),
				report.Run("show the render error", fmt.Sprintf("argocd app manifests %s", app)))
		}
		return f.WithFix("Make the source a Kustomize (or Helm) source: Argo CD then renders it as such and Image Updater updates it.", "Application "+ns+"/"+app+", spec.source",
			report.Run("with a kustomization.yaml in the source path, make the source a Kustomize one",
				fmt.Sprintf("kubectl -n %s patch application %s --type merge -p '{\"spec\":{\"source\":{\"kustomize\":{}}}}'", ns, app)),
			report.Otherwise(r.writeBackStep("keep the directory and let git write-back force the type", kv{"method", "git"}, kv{"gitConfig.writeBackTarget", "kustomization"})))
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
