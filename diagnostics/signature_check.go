package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/internal/shell"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/model/updaterlog"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/signature"
)

// signatureFindings checks imagesVerification (v1.3.0+) as Image Updater
// does: it reads the cosignKey from the Secret in the Application's
// namespace when it builds the image list, every cycle
// (newImageFromImagesVerification: a missing Secret or field drops the
// image), and verifies the pick's cosign signature only when it would
// write the pick (update.go, after "already set in spec"). The Secret is
// read only when Image Updater's ServiceAccount may get it.
func (r *run) signatureFindings(ctx context.Context, ir *imageRegistry, im updater.ImageConfig, d updater.Decision) []report.Finding {
	iv := im.Verification
	if !iv.IsEnabled() || iv.CosignKey == nil || r.app == nil {
		return nil // none, opted out, or dropped by the model (no key)
	}
	name := aliasOr(im)
	ns, ck := r.app.Namespace, iv.CosignKey
	secret := "Secret " + ns + "/" + ck.SecretName
	keyRef := fmt.Sprintf("%s, field %s (imagesVerification.cosignKey, %s level)", secret, ck.Key, im.VerificationFrom)
	data, err := r.updaterSecret(ctx, ns, ck.SecretName)
	if err != nil {
		if f, ok := r.secretGateFinding(report.CodeSignatureKeyDenied, "the cosign public key of image "+name, secretUse{stay: true}, err); ok {
			if f.Code == report.CodeSignatureKeyDenied {
				f = f.With(ev("Image Updater logs", "Could not set images verification settings for image "+im.Image.String()+", skipping: failed to fetch public key secret field"))
			} else {
				f.Decides = true
			}
			return []report.Finding{f.WithImage(im.Alias)}
		}
		if cluster.IsNotFound(err) {
			return []report.Finding{r.keyMissing(im, ns, ck, fmt.Sprintf("the cosignKey %s of image %s does not exist, so Image Updater drops the image every cycle", secret, name), "")}
		}
		f := readFailure(report.StageCandidates, "the cosignKey "+secret+" of image "+name, err).WithImage(im.Alias)
		f.Decides = true
		return []report.Finding{f}
	}
	pemKey, ok := data[ck.Key]
	if !ok {
		return []report.Finding{r.keyMissing(im, ns, ck, fmt.Sprintf("the cosignKey %s has no field %s, so Image Updater drops image %s every cycle", secret, ck.Key, name), strings.Join(keysOf(data), ", "))}
	}
	if d.Outcome != updater.OutcomeUpdate || d.Selected == nil || d.Selected.Tag == "" {
		return nil // Image Updater verifies only what it is about to write
	}
	pick := im.Image.FullName() + ":" + d.Selected.Tag
	found, err := r.e.Registry.Signatures(ctx, ir.target, d.Selected.Tag)
	if err != nil {
		f := find(report.CodeSignatureNotVerified, report.Unknown, fmt.Sprintf("not verified: the cosign signature of %s could not be read: %s", pick, textutil.OneLine(err.Error()))).WithImage(im.Alias).
			With(ev("key", keyRef))
		f.Verify = "re-run when " + ir.endpoint.Host() + " answers, or read Image Updater's log for \"Unable to verify image " + pick + "\""
		f.Decides = true
		return []report.Finding{r.withVerifyLog(f, pick)}
	}
	res := signature.Check(found, pemKey)
	where := ev("looked in", strings.Join(found.Looked, "; "))
	digest := ev("digest", found.Digest)
	var f report.Finding
	switch res.Outcome {
	case signature.Verified:
		return []report.Finding{find(report.CodeSignatureVerified, report.Pass, fmt.Sprintf("image %s: %s is signed with the key in %s", name, d.Selected.Tag, secret)).WithImage(im.Alias).
			With(digest, ev("signature", res.By.Format+" at "+res.By.Where), ev("key", keyRef))}
	case signature.Unsigned:
		f = find(report.CodeSignatureMissing, report.Fail, fmt.Sprintf("image %s: the pick %s has no cosign signature, so Image Updater refuses to write it", name, d.Selected.Tag)).
			With(digest, where)
		f.Detail = "Image Updater v1.3 verifies the pick before it writes it (imagesVerification); an unsigned pick is an error every cycle, and nothing is written."
		f = f.WithFix("Sign "+pick+" with the key whose public half is in "+secret+" (field "+ck.Key+"), then let the next cycle write it.",
			im.Image.FullName()+"@"+found.Digest,
			cosignKeyVar(),
			report.RunWords("sign the pick", shell.Lit("cosign"), shell.Lit("sign"), shell.Lit("--key"), shell.Var("COSIGN_KEY"), shell.Lit("--"), shell.Lit(im.Image.FullName()+"@"+found.Digest)))
	case signature.WrongKey:
		f = find(report.CodeSignatureWrongKey, report.Fail, fmt.Sprintf("image %s: the pick %s is signed, but not with the key in %s", name, d.Selected.Tag, secret)).
			With(digest, ev("signatures", fmt.Sprintf("%d found, none verifies with the key", len(found.Candidates))))
		f.Detail = "Image Updater v1.3 verifies the pick before it writes it; no signature of it verifies with the configured key, so nothing is written."
		f = f.WithFix("Put the public key of the key that signs "+im.Image.FullName()+" into "+secret+" field "+ck.Key+", or sign the image with the key the Secret holds.", secret+" / "+ck.Key,
			cosignKeyVar(),
			report.RunWords("write the public half of the key that signs the image to cosign.pub", shell.Lit("cosign"), shell.Lit("public-key"), shell.Lit("--key"), shell.Var("COSIGN_KEY"), shell.Lit("--outfile"), shell.Lit("cosign.pub")),
			storeCosignPub("store it in "+secret, ns, ck),
			report.Otherwise(report.RunWords("sign the image with the key the Secret holds (COSIGN_KEY its private half)", shell.Lit("cosign"), shell.Lit("sign"), shell.Lit("--key"), shell.Var("COSIGN_KEY"), shell.Lit("--"), shell.Lit(im.Image.FullName()+"@"+found.Digest))))
	case signature.BadKey:
		var ke *signature.KeyError
		why := "it cannot be read"
		if errors.As(res.KeyErr, &ke) {
			why = ke.Reason
		}
		f = find(report.CodeSignatureKeyInvalid, report.Fail, fmt.Sprintf("image %s: the cosign key in %s field %s is not an ECDSA public key in PEM (%s), so no signature verifies", name, secret, ck.Key, why)).
			With(digest)
		f = f.WithFix("Store the cosign public key (cosign.pub, -----BEGIN PUBLIC KEY-----, ECDSA) in "+secret+" field "+ck.Key+".", secret+" / "+ck.Key,
			storeCosignPub("store cosign.pub (the public key, in your current directory) in "+secret, ns, ck))
	}
	f = f.WithImage(im.Alias).With(ev("key", keyRef))
	for i, rj := range found.Rejected {
		if i == 3 {
			break
		}
		f = f.With(ev("not used", rj))
	}
	return []report.Finding{r.withVerifyLog(f, pick)}
}

// keyMissing is the finding for an absent cosignKey Secret or field.
func (r *run) keyMissing(im updater.ImageConfig, ns string, ck *updater.CosignKeyRef, title, present string) report.Finding {
	f := find(report.CodeSignatureKeyMissing, report.Fail, title).WithImage(im.Alias).
		With(ev("Image Updater logs", "Could not set images verification settings for image "+im.Image.String()+", skipping: failed to fetch public key secret field"))
	if present != "" {
		f = f.With(ev("fields present", present))
	}
	return f.WithFix(fmt.Sprintf("Create Secret %s/%s with the cosign public key under %s (Image Updater v1.3 reads it in the Application's namespace).", ns, ck.SecretName, ck.Key),
		"Secret "+ns+"/"+ck.SecretName,
		storeCosignPub("create the Secret from cosign.pub (the public key, in your current directory)", ns, ck))
}

// withVerifyLog adds Image Updater's own last "Unable to verify image"
// line about the pick, when its log shows one.
func (r *run) withVerifyLog(f report.Finding, pick string) report.Finding {
	if r.logs == nil {
		return f
	}
	for i := len(r.logs.ForApp) - 1; i >= 0; i-- {
		e := r.logs.ForApp[i]
		if e.Match.Code != updaterlog.CodeVerifyFailed || e.Match.Captures[updaterlog.CaptureImage] != pick {
			continue
		}
		at := "Image Updater logged"
		if !e.Time.IsZero() {
			at += " at " + e.Time.UTC().Format("2006-01-02 15:04:05Z")
		}
		return f.With(ev(at, textutil.ClipWords(textutil.OneLine(updaterlog.Redact(e.Msg)), 300)))
	}
	return f
}

// cosignKeyVar is the step that sets the reader's signing key.
func cosignKeyVar() report.Step {
	return report.SetVars(report.Var{Name: "COSIGN_KEY", About: "your cosign signing key: a file such as cosign.key, or a KMS URI"})
}

// storeCosignPub writes cosign.pub into the Secret's key (the Secret created,
// or its other keys kept: kubectl apply merges).
func storeCosignPub(say, ns string, ck *updater.CosignKeyRef) report.Step {
	return report.RunPipe(say, shell.Pipeline{
		shell.Cmd("kubectl", "-n", ns, "create", "secret", "generic", "--from-file="+ck.Key+"=cosign.pub", "--dry-run=client", "-o", "yaml", "--", ck.SecretName),
		shell.Cmd("kubectl", "apply", "-f", "-"),
	})
}
