package diagnostics

import (
	"strings"

	"github.com/imgupd/imgupd/internal/shell"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/gitsource"
)

// This file builds the steps that create credentials the reader supplies:
// the values are shell variables set in a step of their own (report.SetVars),
// so that nothing is sent anywhere before the reader has filled them, and
// every Secret is created in a namespace the component that reads it may
// read, named for the host it is for.

// registryAccountVars are the reader's account on a registry host.
func registryAccountVars(host string) report.Step {
	return report.SetVars(
		report.Var{Name: "REGISTRY_USER", About: "a user of " + host + " that may read the image"},
		report.Var{Name: "REGISTRY_TOKEN", About: "its password or token"})
}

// pullSecretName is the name imgupd proposes for a pull secret for host.
func pullSecretName(host string) string {
	return "registry-" + strings.NewReplacer(".", "-", ":", "-", "_", "-").Replace(strings.ToLower(hostOnly(host)))
}

// createPullSecret writes Secret ns/name of type docker-registry for the
// registry's API URL from the reader's REGISTRY_USER and REGISTRY_TOKEN;
// replace: an existing Secret of that name is updated (kubectl apply).
func createPullSecret(say, ns, name, apiURL string, replace bool) report.Step {
	create := []shell.Word{
		shell.Lit("kubectl"), shell.Lit("-n"), shell.Lit(ns), shell.Lit("create"), shell.Lit("secret"), shell.Lit("docker-registry"),
		shell.Lit("--docker-server=" + apiURL),
		shell.Concat(shell.Lit("--docker-username="), shell.Var("REGISTRY_USER")),
		shell.Concat(shell.Lit("--docker-password="), shell.Var("REGISTRY_TOKEN")),
	}
	// The name last, after --: a name read from a reference is free text.
	if !replace {
		return report.RunWords(say, append(create, shell.Args("--", name)...)...)
	}
	return report.RunPipe(say, shell.Pipeline{
		{Argv: append(create, shell.Args("--dry-run=client", "-o", "yaml", "--", name)...)},
		{Argv: shell.Args("kubectl", "apply", "-f", "-")},
	})
}

// renewCredentials are the steps that put a new account into the
// credentials ref names, by its kind: the pull secret rewritten, the
// secret's field patched (user:password), or what to change by hand for an
// env: variable or an ext: script.
func (r *run) renewCredentials(ref updater.CredentialRef, ep updater.Endpoint) []report.Step {
	switch ref.Kind {
	case updater.CredPullSecret:
		return []report.Step{registryAccountVars(ep.Host()),
			createPullSecret("write Secret "+ref.Namespace+"/"+ref.Name+" anew for "+ep.APIURL, ref.Namespace, ref.Name, ep.APIURL, true)}
	case updater.CredSecret:
		return []report.Step{
			report.SetVars(report.Var{Name: "REGISTRY_AUTH", About: "user:password of an account of " + ep.Host() + " that may read the image"}),
			report.PatchStep("write the account into key "+ref.Field+" of Secret "+ref.Namespace+"/"+ref.Name, report.Patch{
				Kind: "Secret", Resource: "secret", Namespace: ref.Namespace, Name: ref.Name, Type: report.PatchMerge,
				Merge: map[string]any{"stringData": map[string]any{ref.Field: report.VarValue("REGISTRY_AUTH")}}}),
		}
	case updater.CredEnv:
		where := "Image Updater's container"
		if r.install != nil {
			where = "env " + ref.Env + " of Deployment " + r.install.Namespace + "/" + r.install.Name
		}
		return []report.Step{report.Value("put user:password of an account that may read the image into "+ref.Env, where, "user:password")}
	case updater.CredExt:
		return []report.Step{report.Value("make the script print user:password of an account that may read the image", "the script "+ref.Path+" in Image Updater's pod", "user:password")}
	}
	return nil
}

// writeBackRepo is the repository git write-back pushes to, "" unknown.
func (r *run) writeBackRepo() string {
	if r.target.WriteBack == nil {
		return ""
	}
	return r.target.WriteBack.Repository
}

// newGitSecretSteps create a write-back Secret in namespace ns from the
// reader's own credentials for the write-back repository (a token for an
// https URL, an SSH key for an SSH one), let Image Updater read it when ns
// is not its own, and point the method at it.
func (r *run) newGitSecretSteps(ns string) []report.Step {
	repo := r.writeBackRepo()
	host := cluster.HostOf(repo)
	name := "git-writeback-" + strings.Trim(strings.NewReplacer(".", "-", ":", "-", "_", "-").Replace(strings.ToLower(host)), "-")
	if host == "" {
		name = "git-writeback"
	}
	argv := shell.Args("kubectl", "-n", ns, "create", "secret", "generic", name)
	var vars report.Step
	if gitsource.IsSSHURL(repo) {
		vars = report.SetVars(report.Var{Name: "GIT_SSH_KEY_FILE", About: "the file of an SSH private key that may push to " + repo})
		argv = append(argv, shell.Concat(shell.Lit("--from-file=sshPrivateKey="), shell.Var("GIT_SSH_KEY_FILE")))
	} else {
		vars = report.SetVars(report.Var{Name: "GIT_USER", About: "a user that may push to " + orNone(repo)}, report.Var{Name: "GIT_TOKEN", About: "its token"})
		argv = append(argv, shell.Concat(shell.Lit("--from-literal=username="), shell.Var("GIT_USER")), shell.Concat(shell.Lit("--from-literal=password="), shell.Var("GIT_TOKEN")))
	}
	steps := []report.Step{vars, report.RunWords("create Secret "+ns+"/"+name+" with them", argv...)}
	if u, ok := r.updaterUser(); ok && ns != u.subject.Namespace {
		sf := &secretForbidden{user: u, verbs: []string{"get"}, namespace: ns, name: name}
		steps = append(steps, grantSteps(sf, "let "+u.subject.String()+" read it (it uses it to push to "+orNone(repo)+")")...)
	}
	return append(steps, r.writeBackStep("let write-back use it", kv{"method", "git:secret:" + ns + "/" + name}))
}

// fixClone is the directory the git steps of a fix clone into.
const fixClone = "imgupd-fix"

// gitClone clones branch of repo into fixClone, with the reader's own git
// credentials.
func (r *run) gitClone(repo, branch string) report.Step {
	argv := []string{"git", "clone", "--single-branch"}
	if branch != "" {
		argv = append(argv, "--branch="+branch)
	}
	return report.Command("clone "+repo+" into ./"+fixClone, append(argv, "--", repo, fixClone)...)
}

// gitChangeSteps clone the branch, make the change (a git subcommand and
// its arguments, run in the clone), commit it with message and push it.
func (r *run) gitChangeSteps(repo, branch, message string, change []string) []report.Step {
	return []report.Step{
		r.gitClone(repo, branch),
		report.Command(strings.Join(change[:1], " ")+" in the clone", append([]string{"git", "-C", fixClone}, change...)...),
		report.Command("commit it", "git", "-C", fixClone, "commit", "-m", message),
		report.Command("push it", "git", "-C", fixClone, "push", "origin", "HEAD"),
	}
}

// revertSteps revert Image Updater's commit sha on the write-back branch.
func (r *run) revertSteps(sha string) []report.Step {
	wb := r.target.WriteBack
	if wb == nil {
		return nil
	}
	return []report.Step{
		r.gitClone(wb.Repository, r.iuCommitBranch),
		report.Command("then, before Argo CD syncs, revert Image Updater's commit "+shortHash(sha), "git", "-C", fixClone, "revert", "--no-edit", sha),
		report.Command("push the revert", "git", "-C", fixClone, "push", "origin", "HEAD"),
	}
}
