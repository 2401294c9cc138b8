package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/model/updaterlog"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// checkHealth is the article's five-minute check: is Image Updater
// installed and ready, which version in which mode, do its logs show update
// cycles and errors about this app, and does its registries.conf parse.
func checkHealth(ctx context.Context, r *run) []report.Finding {
	var out []report.Finding
	inst, err := r.e.Cluster.FindUpdater(ctx, r.req.UpdaterNamespace)
	switch {
	case err != nil && !cluster.IsNotFound(err):
		out = append(out, readFailure(report.StageHealth, "the Image Updater Deployment", err))
		r.rep.UpdaterVersionAssumed = true
		return out
	case inst == nil:
		r.rep.UpdaterVersionAssumed = true
		return append(out, find(report.CodeUpdaterNotFound, report.Fail,
			fmt.Sprintf("Image Updater is not installed (no Deployment in %s or any namespace imgupd can read)", r.req.UpdaterNamespace)).
			WithFix("Install Image Updater next to Argo CD.", "namespace "+r.req.UpdaterNamespace,
				report.Command("install Image Updater", "kubectl", "apply", "-n", r.req.UpdaterNamespace, "-f", "https://raw.githubusercontent.com/argoproj-labs/argocd-image-updater/stable/config/install.yaml")))
	}
	r.install = inst
	where := inst.Namespace + "/" + inst.Name
	for _, perr := range inst.Partial {
		f := readFailure(report.StageHealth, "part of Image Updater's installation", perr)
		var ae *cluster.AccessError
		switch {
		case errors.As(perr, &ae) && ae.Namespace == "":
			// Only the search for other installations needs cluster-wide reads.
			f.Severity = report.Info
			f.Title = "could not look for other Image Updater installations cluster-wide (" + f.Title + ")"
		case errors.As(perr, &ae) && ae.Resource == "configmaps":
			// registries.conf and env values: endpoints and credentials
			// depend on them.
			f.Title = "cannot read Image Updater's ConfigMap " + ae.Namespace + "/" + ae.Name + " (registries.conf, settings)"
			f.Decides = true
		default:
			f.Decides = false // pods: their state and logs only
		}
		out = append(out, f)
	}
	if inst.Version == (updater.Version{}) {
		r.rep.UpdaterVersionAssumed = true
		out = append(out, find(report.CodeUpdaterVersionUnknown, report.Warn,
			fmt.Sprintf("Image Updater's image %s has no version tag; assuming %s", inst.Image, r.version.Short())).
			With(ev("deployment", where), ev("image", inst.Image)))
	} else {
		r.version = inst.Version
	}
	r.rep.Mode = modeOf(r.version)

	switch {
	case inst.Replicas == 0:
		out = append(out, find(report.CodeUpdaterScaledToZero, report.Fail, "Image Updater "+where+" is scaled to zero").
			WithFix("Scale it back to one replica.", where, report.Command("scale it to one replica", "kubectl", "-n", inst.Namespace, "scale", "deploy/"+inst.Name, "--replicas=1")))
	case inst.ReadyReplicas == 0:
		f := find(report.CodeUpdaterNotReady, report.Fail, "Image Updater "+where+" has no ready replica").With(ev("deployment", where))
		for _, p := range inst.Pods {
			f = f.With(ev("pod "+p.Name, podState(p)))
		}
		out = append(out, f.WithFix("Find out why the pod does not start.", where,
			report.Command("see the Deployment's events and pod states", "kubectl", "-n", inst.Namespace, "describe", "deploy/"+inst.Name),
			report.Command("read the log of the last crashed container", "kubectl", "-n", inst.Namespace, "logs", "deploy/"+inst.Name, "--previous")))
	default:
		out = append(out, find(report.CodeUpdaterRunning, report.Pass, fmt.Sprintf("Image Updater %s is running (%s, %s mode)", where, r.version.Short(), r.rep.Mode)).
			With(ev("deployment", where), ev("image", inst.Image), ev("ready", fmt.Sprintf("%d/%d", inst.ReadyReplicas, inst.Replicas)),
				ev("watched namespaces", watchDisplay(inst))))
	}
	if inst.DryRun.On {
		out = append(out, dryRunFinding(inst))
	}
	if f, ok := r.appFilterFinding(inst); ok {
		out = append(out, f)
	}
	if inst.Replicas > 1 {
		out = append(out, find(report.CodeUpdaterReplicas, report.Warn, fmt.Sprintf("Image Updater %s runs %d replicas", where, inst.Replicas)))
	}
	for _, o := range inst.Others {
		out = append(out, find(report.CodeUpdaterInstalls, report.Warn, "another Image Updater runs in "+o.Namespace+"/"+o.Name).With(ev("image", o.Image)))
	}

	if len(inst.RegistriesConf) > 0 {
		conf, err := r.e.registriesConf(inst.RegistriesConf, r.version)
		if err != nil {
			f := find(report.CodeRegistriesConfInvalid, report.Fail, "registries.conf does not parse: "+textutil.OneLine(err.Error())).
				With(ev("source", inst.RegistriesConfSource))
			out = append(out, f.WithFix("Correct the entry and key the error names, then restart Image Updater: it reads registries.conf only at start.",
				inst.RegistriesConfSource,
				report.Command("correct the entry the error names, in key "+orDefault(inst.RegistriesConfMap.Key, "registries.conf"), "kubectl", "-n", inst.Namespace, "edit", "configmap", "--", orDefault(inst.RegistriesConfMap.Name, cluster.DefaultConfigMap)),
				report.Command("restart Image Updater: it reads registries.conf only at start", "kubectl", "-n", inst.Namespace, "rollout", "restart", "deploy/"+inst.Name)))
		} else {
			r.conf = conf
			for _, w := range conf.Warnings {
				out = append(out, find(report.CodeRegistriesConfWarning, report.Warn, "registries.conf: "+w).With(ev("source", inst.RegistriesConfSource)))
			}
		}
	}
	logs := r.checkLogs(ctx)
	if inst.DryRun.On {
		out = r.dryRunRecords(out, logs)
	}
	return append(out, logs...)
}

// dryRunFinding: the controller's command line sets --dry-run, so no cycle
// writes (cluster.DryRun has upstream's code paths). The fix removes every
// --dry-run word from the exact container of the Deployment, each guarded
// by a test of the word and of the container's name, so that the patch
// fails rather than remove another word if the Deployment changed.
func dryRunFinding(inst *cluster.UpdaterInstall) report.Finding {
	where := inst.Namespace + "/" + inst.Name
	words := inst.DryRun.Words
	last := words[len(words)-1]
	f := find(report.CodeUpdaterDryRun, report.Fail,
		fmt.Sprintf("Image Updater %s runs with %s: it picks tags but writes none (no spec change, no commit)", where, last.Value)).
		With(ev("deployment", where), ev("container", inst.Container))
	for _, w := range words {
		v := w.Raw
		if w.Value != w.Raw {
			v += " (" + w.Value + ")"
		}
		f = f.With(ev(w.Where(), v))
	}
	container := []string{"spec", "template", "spec", "containers", fmt.Sprint(inst.ContainerIndex)}
	at := func(tokens ...string) string {
		return report.Pointer(append(append([]string{}, container...), tokens...)...)
	}
	ops := []report.PatchOp{{Op: "test", Path: at("name"), Value: inst.Container}}
	for _, w := range words {
		ops = append(ops, report.PatchOp{Op: "test", Path: at(w.Field, fmt.Sprint(w.Index)), Value: w.Raw})
	}
	// Words are in command then args order, each list ascending: removing
	// from the last keeps the indexes of the others.
	for i := len(words) - 1; i >= 0; i-- {
		ops = append(ops, report.PatchOp{Op: "remove", Path: at(words[i].Field, fmt.Sprint(words[i].Index))})
	}
	say := "remove " + last.Value + " from container " + inst.Container
	if len(words) > 1 {
		say = fmt.Sprintf("remove the %d --dry-run words from container %s", len(words), inst.Container)
	}
	return f.WithFix("Remove --dry-run from Image Updater's command line (the flag defaults to false and no environment variable sets it); the Deployment rolls its pod and the next cycle writes the tags it picks.",
		"Deployment "+where+", container "+inst.Container,
		report.PatchStep(say, report.Patch{Kind: "Deployment", Resource: "deployment", Namespace: inst.Namespace, Name: inst.Name, Type: report.PatchJSON, Ops: ops}),
		report.Command("wait for the new pod", "kubectl", "-n", inst.Namespace, "rollout", "status", "deploy/"+inst.Name))
}

// appFilterFinding: a v0.x controller whose --match-application-name
// patterns or --match-application-label selector leave the Application out
// never processes it (upstream v0.x cmd/run.go: ListApplications(AppLabel),
// then FilterApplicationsForUpdate's nameMatchesPattern, filepath.Match;
// an invalid pattern matches nothing). v1.x has no such flags.
func (r *run) appFilterFinding(inst *cluster.UpdaterInstall) (report.Finding, bool) {
	af := inst.AppFilter
	if r.version.UsesCRs() || r.app == nil || len(af.NamePatterns) == 0 && af.Label == "" {
		return report.Finding{}, false
	}
	where := inst.Namespace + "/" + inst.Name
	app := r.app.Name
	container := []string{"spec", "template", "spec", "containers", fmt.Sprint(inst.ContainerIndex)}
	at := func(tokens ...string) string {
		return report.Pointer(append(append([]string{}, container...), tokens...)...)
	}
	if len(af.NamePatterns) > 0 {
		matched := false
		for _, p := range af.NamePatterns {
			if m, err := filepath.Match(p, app); err == nil && m {
				matched = true
			}
		}
		if !matched {
			field := af.NameWords[len(af.NameWords)-1].Field
			f := find(report.CodeUpdaterAppFiltered, report.Fail,
				fmt.Sprintf("Image Updater %s processes only Applications named %s (--match-application-name): %s is not one", where, strings.Join(af.NamePatterns, ", "), app)).
				With(ev("deployment", where), ev("container", inst.Container))
			for _, w := range af.NameWords {
				f = f.With(ev(w.Where(), w.Raw))
			}
			return f.WithFix("Add the Application's name to the patterns (each --match-application-name adds to them), or remove the flag so that every annotated Application is processed; the Deployment rolls its pod.",
				"Deployment "+where+", container "+inst.Container,
				report.PatchStep("add --match-application-name="+app+" to container "+inst.Container, report.Patch{Kind: "Deployment", Resource: "deployment", Namespace: inst.Namespace, Name: inst.Name, Type: report.PatchJSON,
					Ops: []report.PatchOp{{Op: "test", Path: at("name"), Value: inst.Container}, {Op: "add", Path: at(field, "-"), Value: "--match-application-name=" + app}}}),
				report.Command("wait for the new pod", "kubectl", "-n", inst.Namespace, "rollout", "status", "deploy/"+inst.Name)), true
		}
	}
	if af.Label == "" {
		return report.Finding{}, false
	}
	sel, err := labels.Parse(af.Label)
	if err != nil || sel.Matches(labels.Set(r.app.Labels)) {
		// A selector that does not parse fails the list itself: the log's
		// errors show it.
		return report.Finding{}, false
	}
	f := find(report.CodeUpdaterAppFiltered, report.Fail,
		fmt.Sprintf("Image Updater %s processes only Applications labelled %s (--match-application-label): %s is not", where, af.Label, app)).
		With(ev("deployment", where), ev("container", inst.Container))
	for _, w := range af.LabelWords {
		f = f.With(ev(w.Where(), w.Raw))
	}
	set := map[string]any{}
	reqs, _ := sel.Requirements()
	for _, q := range reqs {
		vals := q.Values().List()
		switch q.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			if len(vals) == 1 {
				set[q.Key()] = vals[0]
				continue
			}
		}
		set = nil // a requirement only a person can meet (a choice, a negation)
		break
	}
	if len(set) == 0 {
		return f.WithFix("Label the Application so that it matches the selector, or remove --match-application-label from Image Updater's command line.", "Application "+r.req.Namespace+"/"+app), true
	}
	return f.WithFix("Label the Application so that it matches the selector (or remove --match-application-label from Image Updater's command line).", "Application "+r.req.Namespace+"/"+app,
		report.PatchStep("label the Application", report.Patch{Kind: "Application", Resource: "application", Namespace: r.req.Namespace, Name: app, Type: report.PatchMerge,
			Merge: map[string]any{"metadata": map[string]any{"labels": set}}})), true
}

// dryRunRecords names, under a controller in dry run, what its log counts
// as updates: the last cycle's images_updated and the app's "Dry run - not
// committing" line are what a dry run would have written, not a write.
func (r *run) dryRunRecords(health, logs []report.Finding) []report.Finding {
	a := r.logs
	if a == nil {
		return health
	}
	var extra []report.Evidence
	if c := a.LastCycle; c != nil && c.ImagesUpdated > 0 {
		extra = append(extra, ev("last cycle's images_updated", fmt.Sprintf("%d, counted by a dry run: nothing was written", c.ImagesUpdated)))
	}
	for i := len(a.ForApp) - 1; i >= 0 && a.DryRunOnly; i-- {
		if e := a.ForApp[i]; e.Code == updaterlog.CodeCommitDryRun {
			extra = append(extra, ev("Image Updater's log", textutil.ClipWords(e.Time.UTC().Format("2006-01-02 15:04:05Z")+" "+textutil.OneLine(e.Redacted().Line.Msg), 200)))
			break
		}
	}
	for i := range health {
		if health[i].Code == report.CodeUpdaterDryRun {
			health[i] = health[i].With(extra...)
		}
	}
	for i := range logs {
		if logs[i].Code == report.CodeUpdaterCycling && a.LastCycle != nil && a.LastCycle.ImagesUpdated > 0 {
			logs[i] = logs[i].With(ev("dry run", "the controller runs with --dry-run: images_updated counts what it would have written"))
		}
	}
	return health
}

func (r *run) checkLogs(ctx context.Context) []report.Finding {
	inst := r.install
	pod := updaterPod(inst)
	if r.req.UpdaterLog != nil {
		return r.analyzeLogs(*r.req.UpdaterLog, "the log given with --updater-log")
	}
	if sl := r.req.SharedLog; sl != nil {
		if sl.Err != nil {
			return []report.Finding{r.logReadFailure(sl.Pod, sl.Err)}
		}
		return r.analyzeIndex(sl.Index, sl.Window)
	}
	if pod == nil {
		return nil
	}
	text, err := r.e.Cluster.PodLogs(ctx, inst.Namespace, pod.Name, inst.Container, r.opts.LogWindow, r.opts.LogLimit)
	if err != nil {
		return []report.Finding{r.logReadFailure(pod.Name, err)}
	}
	return r.analyzeLogs(text, logWindow(r.opts, pod.Name))
}

// logReadFailure: the pod's log could not be read.
func (r *run) logReadFailure(pod string, err error) report.Finding {
	f := find(report.CodeUpdaterLogsUnavailable, report.Unknown, "cannot read Image Updater's logs from "+pod).
		With(ev("error", textutil.OneLine(updaterlog.Redact(err.Error()))))
	f.Verify = "grant imgupd get on pods/log in " + r.install.Namespace + ", or pass the log: imgupd diagnose " + r.req.App + " --updater-log FILE"
	if fr := readFailure(report.StageHealth, "pods/log", err); fr.Code == report.CodeReadForbidden {
		f.Evidence = fr.Evidence
		f.Fix = fr.Fix
		return f
	}
	if kubeletUnreachable(err) {
		// RBAC allowed the read: the API server could not reach the
		// kubelet that serves the log. A grant would change nothing.
		node := ""
		for _, p := range r.install.Pods {
			if p.Name == pod {
				node = p.NodeName
			}
		}
		on := "the node of pod " + pod
		if node != "" {
			on = "node " + node
		}
		f.Verify = "re-run once the API server reaches the kubelet of " + on + ", or pass the log from your log store: imgupd diagnose " + r.req.App + " --updater-log FILE"
		steps := []report.Step{report.Command("see which node runs the pod", "kubectl", "-n", r.install.Namespace, "get", "pod", pod, "-o", "wide")}
		if node != "" {
			steps = append(steps, report.Command("ask the kubelet of "+node+" through the API server (what reading the log needs)", "kubectl", "get", "--raw", "/api/v1/nodes/"+node+"/proxy/healthz"))
		}
		f.Fix = &report.Fix{Summary: "The API server could not reach the kubelet of " + on + " to read the log (a network fault between the control plane and the node, port 10250), not a missing permission: check that path, or give imgupd the log from your log store with --updater-log.",
			Where: on, Steps: steps}
	}
	return f
}

// kubeletUnreachable: reading a pod's log failed on the way from the API
// server to the kubelet (the API server answered with a 5xx: no route, a
// refused connection, a timeout to the node's port), not on its own answer.
func kubeletUnreachable(err error) bool {
	var ae *cluster.AccessError
	return errors.As(err, &ae) && ae.Upstream
}

// analyzeLogs reads Image Updater's log text (from its pod, or given with
// --updater-log); window says which.
func (r *run) analyzeLogs(text, window string) []report.Finding {
	if strings.TrimSpace(text) == "" {
		// A running controller logs every cycle; nothing at all means the
		// logs are elsewhere (rotated, shipped, a level above info) or the
		// pod has no node to serve them.
		f := find(report.CodeUpdaterLogsUnavailable, report.Unknown, "no Image Updater log lines in the "+window)
		f.Verify = "pass the log from your log store: imgupd diagnose " + r.req.App + " --updater-log FILE"
		return []report.Finding{f}
	}
	return r.analyzeIndex(updaterlog.NewIndex(updaterlog.ParseString(text), r.version), window)
}

// analyzeIndex reads the app's part of an indexed log.
func (r *run) analyzeIndex(x *updaterlog.Index, window string) []report.Finding {
	if x.Lines() == 0 {
		f := find(report.CodeUpdaterLogsUnavailable, report.Unknown, "no Image Updater log lines in the "+window)
		f.Verify = "pass the log from your log store: imgupd diagnose " + r.req.App + " --updater-log FILE"
		return []report.Finding{f}
	}
	a := x.Analyze(updaterlog.AppRef{Namespace: r.req.Namespace, Name: r.req.App})
	r.logs = &a
	var out []report.Finding
	if a.LastCycle == nil {
		out = append(out, find(report.CodeUpdaterNoCycles, report.Warn, "no update cycle in the "+window).
			With(ev("lines read", fmt.Sprint(a.Lines))))
	} else {
		c := a.LastCycle
		f := find(report.CodeUpdaterCycling, report.Pass, fmt.Sprintf("%d update cycle(s) in the %s", len(a.Cycles), window)).
			With(ev("last cycle", fmt.Sprintf("%s: applications=%d images_considered=%d images_skipped=%d images_updated=%d errors=%d",
				c.Time.UTC().Format("2006-01-02 15:04:05Z"), c.Applications, c.ImagesConsidered, c.ImagesSkipped, c.ImagesUpdated, c.Errors)))
		if a.CycleInterval > 0 {
			f = f.With(ev("interval", a.CycleInterval.String()))
		}
		out = append(out, f)
	}
	if f, ok := logErrorsFinding(a.ForApp, r.req.App); ok {
		out = append(out, f)
	}
	return out
}

// logErrorsFinding summarises the warning and error lines about the app: the
// same message repeated every cycle is one piece of evidence with its count,
// labelled by the time and level of its latest occurrence; the five most
// recent distinct messages are kept.
func logErrorsFinding(events []updaterlog.Event, app string) (report.Finding, bool) {
	type msg struct {
		text, label string
		count, last int
	}
	var msgs []*msg
	byText := map[string]*msg{}
	total := 0
	for i, e := range events {
		if e.Level != "error" && e.Level != "warning" {
			continue
		}
		total++
		text := textutil.ClipWords(updaterlog.Redact(e.Msg), 300)
		m := byText[text]
		if m == nil {
			m = &msg{text: text}
			byText[text] = m
			msgs = append(msgs, m)
		}
		m.count++
		m.last = i
		m.label = e.Level
		if !e.Time.IsZero() {
			m.label = e.Time.UTC().Format("15:04:05") + " " + e.Level
		}
	}
	if total == 0 {
		return report.Finding{}, false
	}
	slices.SortStableFunc(msgs, func(a, b *msg) int { return a.last - b.last })
	f := find(report.CodeUpdaterLogErrors, report.Info, fmt.Sprintf("Image Updater logged %d warning/error line(s) about %s", total, app))
	for _, m := range lastN(msgs, 5) {
		v := m.text
		if m.count > 1 {
			v = fmt.Sprintf("%s (%d times)", v, m.count)
		}
		f = f.With(ev(m.label, v))
	}
	return f, true
}

func modeOf(v updater.Version) string {
	if v.UsesCRs() {
		return "cr"
	}
	return "annotations"
}

func podState(p cluster.Pod) string {
	s := p.Phase
	if !p.Ready {
		s += ", not ready"
	}
	if p.Restarts > 0 {
		s += fmt.Sprintf(", %d restarts", p.Restarts)
	}
	if p.LastTermination != "" {
		s += ", last termination: " + p.LastTermination
	}
	return s
}

func watchDisplay(inst *cluster.UpdaterInstall) string {
	switch strings.TrimSpace(inst.WatchNamespaces) {
	case "":
		return inst.Namespace + " (default: its own namespace)"
	case "*":
		return "all"
	}
	return inst.WatchNamespaces
}
